import Foundation

/// Virtual time, in the shape of swift-clocks' `TestClock`: its `now` moves only when told —
/// by ``advance(to:)`` as a run reaches each event, by ``advance(by:)`` in a test — and never
/// backwards. Waiting on it (``sleep(until:tolerance:)``) is a request to move on, so the
/// outbox's retries take no wall time (swift-clocks' `ImmediateClock` waits the same way).
///
/// A run makes one and hands it to everything that reads time: the delivery, the in-process
/// emulator (its OAuth window, rate-limit windows and faults) and the clients that sign for it.
///
/// ```swift
/// let clock = SimulatedClock(start: EpochInstant(secondsSince1970: 1_700_000_000))
/// clock.advance(by: .seconds(30))
/// try await clock.sleep(until: clock.now.advanced(by: .seconds(5)))  // returns at once
/// clock.now.secondsSince1970  // 1_700_000_035
/// ```
public final class SimulatedClock: EpochClock, @unchecked Sendable {
    private let lock = NSLock()
    private var instant: EpochInstant

    public init(start: EpochInstant) {
        instant = start
    }

    public var now: EpochInstant {
        lock.lock()
        defer { lock.unlock() }
        return instant
    }

    /// Moves to `instant`; an instant already passed leaves the clock where it is.
    public func advance(to instant: EpochInstant) {
        lock.lock()
        defer { lock.unlock() }
        if instant > self.instant { self.instant = instant }
    }

    /// Moves forward by `duration`.
    public func advance(by duration: Duration) {
        lock.lock()
        defer { lock.unlock() }
        if duration > .zero { instant = instant.advanced(by: duration) }
    }

    /// Moves to `deadline` and returns: virtual waiting is instant.
    public func sleep(until deadline: EpochInstant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        advance(to: deadline)
    }
}
