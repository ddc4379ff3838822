import SimulatedTime

// Tests write instants as literals (`at: 1_000`): seconds since 1970. Only tests; the library
// keeps instants explicit.
extension EpochInstant: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    public init(integerLiteral value: Int) { self.init(secondsSince1970: Double(value)) }
    public init(floatLiteral value: Double) { self.init(secondsSince1970: value) }
}
