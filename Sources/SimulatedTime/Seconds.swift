/// A length of time, kept exactly as the `Double` seconds the simulation adds to its instants:
/// an offset from a run's start, a scripted delay, a fix interval, a wait drawn at random (and,
/// in results, a measured one).
///
/// `Swift.Duration` counts attoseconds, and of random `Double` seconds about one in six (measured
/// here) does not survive the trip into it and back; a span that entered the simulation's
/// arithmetic through `Duration` would move outputs. `Seconds` is the same number the arithmetic
/// always used, with a type. Configured values that only wait or bound (a lease, a budget) stay
/// `Duration`s; ``init(_:)-(Duration)`` and ``duration`` cross between them.
///
/// ```swift
/// let start = EpochInstant(secondsSince1970: 1_700_000_000)
/// let fix = start.advanced(by: Seconds(12.5))
/// start.seconds(to: fix)    // 12.5
/// Seconds(90) / 2           // 45.0
/// ```
public struct Seconds: DurationProtocol, Hashable, Codable, CustomStringConvertible {
    public var seconds: Double

    public init(_ seconds: Double) {
        self.seconds = seconds
    }

    /// The seconds of a configured `Duration` (exact for every value written in a file).
    public init(_ duration: Duration) {
        seconds = duration.inSeconds
    }

    /// Longer than every run: what waits that long never comes due.
    public static let forever = Seconds(.infinity)

    /// The same length as a `Duration`, to wait or bound with a standard `Clock`.
    public var duration: Duration { .seconds(seconds) }

    public static var zero: Seconds { Seconds(0) }

    public static func + (a: Seconds, b: Seconds) -> Seconds { Seconds(a.seconds + b.seconds) }
    public static func - (a: Seconds, b: Seconds) -> Seconds { Seconds(a.seconds - b.seconds) }
    public static func * (a: Seconds, factor: Int) -> Seconds { Seconds(a.seconds * Double(factor)) }
    public static func * (a: Seconds, factor: Double) -> Seconds { Seconds(a.seconds * factor) }
    public static func / (a: Seconds, divisor: Int) -> Seconds { Seconds(a.seconds / Double(divisor)) }
    public static func / (a: Seconds, b: Seconds) -> Double { a.seconds / b.seconds }
    public static func < (a: Seconds, b: Seconds) -> Bool { a.seconds < b.seconds }

    /// The number alone, as a `Double` prints: text and JSON that show one read as before.
    public var description: String { "\(seconds)" }

    public init(from decoder: any Decoder) throws { seconds = try Double(from: decoder) }

    public func encode(to encoder: any Encoder) throws { try seconds.encode(to: encoder) }
}

extension EpochInstant {
    /// The instant `span` later (earlier when negative), in the simulation's own arithmetic.
    public func advanced(by span: Seconds) -> EpochInstant {
        advanced(bySeconds: span.seconds)
    }
}
