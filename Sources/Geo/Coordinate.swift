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

/// Angle helpers shared by the geodesic and local solvers.
enum Angle {
    static let degree = Double.pi / 180

    /// `x` reduced to (−180, 180].
    static func normalized(_ x: Double) -> Double {
        var y = x.truncatingRemainder(dividingBy: 360)
        if y <= -180 { y += 360 } else if y > 180 { y -= 360 }
        return y
    }
}
