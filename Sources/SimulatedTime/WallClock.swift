import Foundation

/// The real time, as ``EpochInstant``s: the edge of the system, where a run talks to real
/// servers or processes share a store.
public struct WallClock: EpochClock {
    public init() {}

    public var now: EpochInstant { EpochInstant(secondsSince1970: Date().timeIntervalSince1970) }

    /// The longest one wait lasts: a century. `Task.sleep` counts nanoseconds in 64 bits, which
    /// end at 584 years; a far-off deadline (a server's rate-limit reset) must not trap.
    static let longestWait = 100 * 366 * 86_400.0

    public func sleep(until deadline: EpochInstant, tolerance: Duration? = nil) async throws {
        let seconds = now.seconds(to: deadline)
        if seconds > 0 { try await Task.sleep(nanoseconds: UInt64(min(seconds, Self.longestWait) * 1e9)) }
    }
}
