#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small, fast, seedable generator (Steele, Lea & Flood's SplitMix64): the one source of
/// seeded randomness of the noise model and the emulator's faults, so the same seed gives the
/// same run.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The k-th number (k from 1) a generator seeded with `seed` draws: trial k's own seed.
    /// Stable across versions: results files and reports name trials by it.
    public static func derived(_ seed: UInt64, _ k: Int) -> UInt64 {
        var generator = SplitMix64(seed: seed &+ UInt64(max(0, k - 1)) &* 0x9E37_79B9_7F4A_7C15)
        return generator.next()
    }

    /// A uniform variate in [0, 1), from the top 53 bits.
    public mutating func unit() -> Double {
        Double(next() >> 11) / Double(1 << 53)
    }

    /// A standard normal variate (Box–Muller).
    public mutating func gaussian() -> Double {
        let u1 = max(unit(), .leastNonzeroMagnitude)
        let u2 = unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
