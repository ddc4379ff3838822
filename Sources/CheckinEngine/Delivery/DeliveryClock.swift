import Foundation

/// The time the outbox lives on: when posts fall due, how old they are, when to retry.
/// A replay runs it virtually (waiting is instant, and the in-process emulator shares it);
/// delivery to a real server runs it on the wall clock.
public protocol DeliveryClock: Sendable {
    /// Seconds since 1970.
    var now: Double { get }
    /// Returns at `time` (at once if it has passed).
    func sleep(until time: Double) async throws
}

/// Virtual time, moved by the replay and by waiting: deterministic and instant.
public final class VirtualDeliveryClock: DeliveryClock, @unchecked Sendable {
    private let lock = NSLock()
    private var time: Double

    public init(start: Double) { time = start }

    public var now: Double {
        lock.lock()
        defer { lock.unlock() }
        return time
    }

    /// Moves forward to `time`; never backwards.
    public func advance(to time: Double) {
        lock.lock()
        defer { lock.unlock() }
        self.time = max(self.time, time)
    }

    public func sleep(until time: Double) async throws { advance(to: time) }
}

/// The real clock.
public struct WallDeliveryClock: DeliveryClock {
    public init() {}

    public var now: Double { Date().timeIntervalSince1970 }

    public func sleep(until time: Double) async throws {
        let seconds = time - now
        // Nanoseconds in a UInt64 end at 584 years: a far-off time (a server's rate-limit reset)
        // waits a century at most instead of trapping.
        if seconds > 0 { try await Task.sleep(nanoseconds: UInt64(min(seconds, 3_155_760_000) * 1e9)) }
    }
}
