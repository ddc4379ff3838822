/// An ellipsoid of revolution; Waypost uses ``wgs84`` throughout, as GPS and CoreLocation do.
public struct Ellipsoid: Sendable, Hashable {
    /// Equatorial radius in metres.
    public let a: Double
    /// Flattening.
    public let f: Double

    public init(equatorialRadius a: Double, flattening f: Double) {
        self.a = a
        self.f = f
    }

    /// The World Geodetic System 1984 ellipsoid.
    public static let wgs84 = Ellipsoid(equatorialRadius: 6_378_137, flattening: 1 / 298.257_223_563)

    /// Polar radius in metres.
    public var b: Double { a * (1 - f) }
    /// First eccentricity squared.
    public var e2: Double { f * (2 - f) }
    /// Second eccentricity squared.
    public var ep2: Double { e2 / ((1 - f) * (1 - f)) }

    /// Radius of curvature in the meridian at `latitude` (degrees), metres.
    public func meridionalRadius(atLatitude latitude: Double) -> Double {
        radii(atLatitude: latitude).meridional
    }

    /// Radius of curvature in the prime vertical at `latitude` (degrees), metres.
    public func primeVerticalRadius(atLatitude latitude: Double) -> Double {
        radii(atLatitude: latitude).primeVertical
    }

    /// Both radii of curvature at `latitude` (degrees), metres, from one `sin` (libm's may set
    /// `errno`, so the compiler does not share one call between two functions).
    func radii(atLatitude latitude: Double) -> (meridional: Double, primeVertical: Double) {
        let s = sin(latitude * Angle.degree)
        let w = 1 - e2 * s * s
        return (a * (1 - e2) / (w * w.squareRoot()), a / w.squareRoot())
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
