/// A WGS-84 position in degrees, CoreLocation's `CLLocationCoordinate2D` under Waypost's name.
///
/// ```swift
/// let cupertino = Coordinate(latitude: 37.3318, longitude: -122.0312)
/// cupertino.isValid  // true
/// ```
public struct Coordinate: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Degrees north of the equator, −90…90.
    public var latitude: Double
    /// Degrees east of Greenwich, −180…180.
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether both components are finite and in range (`CLLocationCoordinate2DIsValid`).
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
    }

    public var description: String { "(\(latitude), \(longitude))" }
}

/// Angle helpers shared by the geodesic and local solvers, and the maps' longitude span.
package enum Angle {
    static let degree = Double.pi / 180

    /// `x` reduced to (−180, 180].
    package static func normalized(_ x: Double) -> Double {
        var y = x.truncatingRemainder(dividingBy: 360)
        if y <= -180 { y += 360 } else if y > 180 { y -= 360 }
        return y
    }
}

/// Longitudes along a parallel, the short way round.
public enum Longitude {
    /// The longitude a fraction `f` of the way from `a` to `b` the shorter way: across the
    /// antimeridian when that is shorter (179.999° to −179.999° is 0.002°, not 359.998°), wrapped
    /// into [−180, 180]. Where the two are at most 180° apart, `a + (b − a) × f`, bit for bit.
    @inlinable
    public static func between(_ a: Double, _ b: Double, at f: Double) -> Double {
        let difference = b - a
        guard abs(difference) > 180 else { return a + difference * f }
        let x = a + (difference > 0 ? difference - 360 : difference + 360) * f
        return x > 180 ? x - 360 : x < -180 ? x + 360 : x
    }
}
