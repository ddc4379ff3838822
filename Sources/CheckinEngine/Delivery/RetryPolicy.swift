import Foundation
import SimulatedTime
import WaypostSupport

/// Exponential backoff with seeded jitter: the n-th retry waits between half and all of
/// `base·2ⁿ⁻¹` (capped at `maximum`), or longer when the server named a time. The jitter comes
/// from the seed and the post's key, so the same run retries at the same times.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included.
    public var maxAttempts = 6
    /// The first retry's longest wait.
    public var base: Duration = .seconds(2)
    /// The longest wait of any retry.
    public var maximum: Duration = .seconds(900)
    public var seed: UInt64 = 0

    public init(maxAttempts: Int = 6, base: Duration = .seconds(2), maximum: Duration = .seconds(900), seed: UInt64 = 0)
    {
        self.maxAttempts = maxAttempts
        self.base = base
        self.maximum = maximum
        self.seed = seed
    }

    /// The wait after failed attempt number `attempt` (1-based); `hint` is the server's
    /// `x-rate-limit-reset`/`Retry-After`, which is honoured as a minimum. ``Seconds``, not a
    /// `Duration`: the jitter is drawn at random, and a `Duration` would round it.
    public func delay(afterAttempt attempt: Int, key: String, hint: Seconds? = nil) -> Seconds {
        let ceiling = min(maximum.inSeconds, base.inSeconds * pow(2, Double(max(0, attempt - 1))))
        // FNV-1a: a stable hash (Swift's `Hasher` is seeded per process).
        let unit = Double(Self.mix(seed ^ FNV1a.hash(key.utf8) ^ UInt64(attempt)) >> 11) / Double(1 << 53)
        return Seconds(max(ceiling / 2 + unit * ceiling / 2, hint?.seconds ?? 0))
    }

    /// SplitMix64's finaliser.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
