import SimulatedTime
import WaypostSupport

extension EpochInstant {
    /// ISO 8601 in UTC with milliseconds, as the event stream writes `t`:
    /// `2025-06-03T15:10:00.000Z`.
    public var iso8601: String { XSDDateTime.formatMilliseconds(secondsSince1970) }
}
