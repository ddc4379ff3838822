/// A moment, in seconds since 1970-01-01T00:00:00Z: the count tracks, API timestamps and the
/// store all keep.
///
/// The seconds are a `Double`, as the tracks' own timestamps are read, so moving an instant by
/// a number of seconds is exact the same arithmetic the simulation has always done (outputs stay
/// byte-identical). It is a standard `InstantProtocol` measured in `Swift.Duration`, so the
/// clocks that tell it are standard `Clock`s.
///
/// ```swift
/// let start = EpochInstant(secondsSince1970: 1_700_000_000)
/// let later = start.advanced(by: .seconds(90))
/// start.duration(to: later)            // 90 seconds
/// later.secondsSince1970 - start.secondsSince1970  // 90.0
/// ```
public struct EpochInstant: InstantProtocol, Codable, CustomStringConvertible {
    public var secondsSince1970: Double

    public init(secondsSince1970: Double) {
        self.secondsSince1970 = secondsSince1970
    }

    /// After every instant: what waits for it never comes due.
    public static let distantFuture = EpochInstant(secondsSince1970: .infinity)

    /// Before every instant.
    public static let distantPast = EpochInstant(secondsSince1970: -.infinity)

    /// The instant `seconds` later (earlier when negative), in the simulation's own arithmetic.
    public func advanced(bySeconds seconds: Double) -> EpochInstant {
        EpochInstant(secondsSince1970: secondsSince1970 + seconds)
    }

    /// Seconds from `self` to `other`.
    public func seconds(to other: EpochInstant) -> Double {
        other.secondsSince1970 - secondsSince1970
    }

    public func advanced(by duration: Duration) -> EpochInstant {
        advanced(bySeconds: duration.inSeconds)
    }

    public func duration(to other: EpochInstant) -> Duration {
        .seconds(seconds(to: other))
    }

    public static func < (a: EpochInstant, b: EpochInstant) -> Bool {
        a.secondsSince1970 < b.secondsSince1970
    }

    /// The seconds alone, as a `Double` prints: text that shows an instant reads as it did when
    /// instants were bare seconds.
    public var description: String { "\(secondsSince1970)" }

    public init(from decoder: any Decoder) throws { secondsSince1970 = try Double(from: decoder) }

    public func encode(to encoder: any Encoder) throws { try secondsSince1970.encode(to: encoder) }
}

extension Duration {
    /// The duration in seconds, as a `Double`: whole seconds plus the attoseconds divided (not
    /// multiplied by 1e-18, whose rounding would move 0.25 off its exact value).
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
