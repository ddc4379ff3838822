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
