#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fast distance for short hops: region boundary checks, distance filters, derived speed.
///
/// Projects both points onto the plane tangent to the ellipsoid at their mean latitude, using
/// the meridional and prime-vertical radii of curvature there (an ellipsoidal equirectangular
/// projection). It costs one `sin`, one `cos` and two square roots, against the geodesic
/// solver's iteration.
///
/// Error against the geodesic, measured by `GeoTests` on the 505 pairs of
/// `distance-vectors/generated_geofence_scale_vectors.csv` (1 m to 50 km, latitudes below 85°):
/// at most 5.9 × 10⁻⁵ of the distance (≈ 3 cm at 500 m, the scale of region monitoring);
/// ``relativeErrorBound`` is the bound the tests hold it to. Use ``Geodesic`` beyond a few tens
/// of kilometres or near the poles.
public enum ShortDistance {
    /// The documented bound on |error| / distance for pairs up to 50 km apart, below ±85° latitude.
    public static let relativeErrorBound = 1e-4

    /// Approximate distance in metres on WGS-84.
    @inlinable
    public static func distance(_ p1: Coordinate, _ p2: Coordinate) -> Double {
        let (north, east) = offset(from: p1, to: p2)
        return (north * north + east * east).squareRoot()
    }

    /// Whether `point` is within `radius` metres of `center`: the answer of
    /// `distance(center, point) <= radius`, without its sine and cosine unless the point lies
    /// within about 1 % of the radius of the edge. Far from it, bounds on the two scales the
    /// distance multiplies by decide: over every latitude the meridional radius of curvature
    /// lies between a(1 − e²) and a/√(1 − e²) and the prime-vertical one between a and
    /// a/√(1 − e²), and the cosine of the mean latitude between 1 − x²/2 and 1 − x²/2 + x⁴/24
    /// (x in radians). For a test asked at every fix (privacy zones), where most fixes are far
    /// outside or well inside.
    @inlinable
    public static func isWithin(_ radius: Double, of center: Coordinate, _ point: Coordinate) -> Bool {
        let north = abs(point.latitude - center.latitude)
        var east = abs(point.longitude - center.longitude)
        if east > 180 { east = 360 - east }
        // Metres per degree times the degree's share, before the cosine: the scales' bounds.
        let scale = Double.pi / 180
        let lowest = 6_335_439.0 * scale  // a(1 − e²): the meridional radius at the equator
        let highest = 6_399_594.0 * scale  // a/√(1 − e²): both radii at the poles
        let equatorial = 6_378_137.0 * scale  // a: the prime vertical at the equator
        // The mean latitude, and so its cosine, lies within half the latitude difference of the
        // centre's latitude.
        let spread = north * 0.5
        let farthest = min(90, abs(center.latitude) + spread) * scale
        let nearest = max(0, abs(center.latitude) - spread) * scale
        let cosineAbove = 1 - nearest * nearest * 0.5 + nearest * nearest * nearest * nearest / 24
        let cosineBelow = max(0, 1 - farthest * farthest * 0.5)
        let squared = radius * radius
        let northBelow = north * lowest
        let eastBelow = east * equatorial * cosineBelow
        // The bounds leave a margin of a millionth: never nearer the edge than the exact
        // formula's rounding.
        if northBelow * northBelow + eastBelow * eastBelow > squared * (1 + 1e-6) { return false }
        let northAbove = north * highest
        let eastAbove = east * highest * min(1, cosineAbove)
        if northAbove * northAbove + eastAbove * eastAbove < squared * (1 - 1e-6) { return true }
        return distance(center, point) <= radius
    }

    /// Approximate initial bearing from `p1` to `p2`, degrees clockwise from north in [0, 360).
    @inlinable
    public static func bearing(_ p1: Coordinate, _ p2: Coordinate) -> Double {
        let (north, east) = offset(from: p1, to: p2)
        let degrees = atan2(east, north) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }

    /// The displacement from `p1` to `p2` in metres, (north, east), on the plane tangent at
    /// their mean latitude.
    @inlinable
    public static func offset(from p1: Coordinate, to p2: Coordinate) -> (north: Double, east: Double) {
        LocalMetric(latitude: (p1.latitude + p2.latitude) * 0.5).offset(from: p1, to: p2)
    }
}

/// ``ShortDistance`` with its scale fixed at one latitude: for measuring many short distances
/// around one place (a device against every nearby region), at the cost of one `sin` and one
/// `cos` in all. Its error grows with the latitude difference from `latitude`; within a few
/// kilometres it stays within ``ShortDistance/relativeErrorBound`` of the geodesic as well.
public struct LocalMetric: Sendable {
    /// Metres per degree of latitude and of longitude at the reference latitude.
    public let metresPerDegreeLatitude: Double
    public let metresPerDegreeLongitude: Double

    public init(latitude: Double) {
        let toRadians = Double.pi / 180
        let radii = Ellipsoid.wgs84.radii(atLatitude: latitude)
        metresPerDegreeLatitude = radii.meridional * toRadians
        metresPerDegreeLongitude = radii.primeVertical * cos(latitude * toRadians) * toRadians
    }

    @inlinable
    public func distance(_ p: Coordinate, _ q: Coordinate) -> Double {
        let (north, east) = offset(from: p, to: q)
        return (north * north + east * east).squareRoot()
    }
}

extension LocalMetric {
    /// The metric for `latitude`, reusing `cached` while the latitude stays within 0.005° (≈ 550 m)
    /// of the one it was made for: a scale error under 7 × 10⁻⁵ at mid latitudes, and no
    /// trigonometry for most samples of a route.
    @inlinable
    public static func near(_ latitude: Double, cached: inout (latitude: Double, metric: LocalMetric)?) -> LocalMetric {
        if let cached, abs(cached.latitude - latitude) <= 0.005 { return cached.metric }
        let metric = LocalMetric(latitude: latitude)
        cached = (latitude, metric)
        return metric
    }

    /// Displacement from `p` to `q` in metres, (north, east).
    @inlinable
    public func offset(from p: Coordinate, to q: Coordinate) -> (north: Double, east: Double) {
        var dLon = q.longitude - p.longitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        return ((q.latitude - p.latitude) * metresPerDegreeLatitude, dLon * metresPerDegreeLongitude)
    }
}
