import SimulatedTime

// Tests write instants as literals (`at: 1_000`, seconds since 1970) and move them by seconds
// (`t0 + 60`). Only tests: the library keeps instants explicit.
extension EpochInstant: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    public init(integerLiteral value: Int) { self.init(secondsSince1970: Double(value)) }
    public init(floatLiteral value: Double) { self.init(secondsSince1970: value) }

    public static func + (instant: EpochInstant, seconds: Double) -> EpochInstant {
        instant.advanced(bySeconds: seconds)
    }

    public static func - (instant: EpochInstant, seconds: Double) -> EpochInstant {
        instant.advanced(bySeconds: -seconds)
    }

    /// Seconds from `b` to `a`.
    public static func - (a: EpochInstant, b: EpochInstant) -> Double { b.seconds(to: a) }
}

// …and spans as literals (`rest = 60`, `after: 30`).
extension Seconds: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    public init(integerLiteral value: Int) { self.init(Double(value)) }
    public init(floatLiteral value: Double) { self.init(value) }
}
