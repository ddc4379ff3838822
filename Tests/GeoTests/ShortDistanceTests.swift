import Foundation
import Geo
import TestSupport
import Testing

struct ShortDistanceTests {
    /// Measures the fast path's error against the geodesic over the geofence-scale vectors and
    /// holds it to the bound documented on `ShortDistance`.
    @Test(.needsCorpus) func errorAgainstTheGeodesicIsWithinTheDocumentedBound() throws {
        let rows = try Corpus.csv("distance-vectors/generated_geofence_scale_vectors.csv")
        #expect(rows.count == 505)
        var worst = 0.0
        for row in rows {
            let p1 = Coordinate(latitude: Double(row["lat1"]!)!, longitude: Double(row["lon1"]!)!)
            let p2 = Coordinate(latitude: Double(row["lat2"]!)!, longitude: Double(row["lon2"]!)!)
            let geodesic = Double(row["geodesic_wgs84_s12_m"]!)!
            // The vectors' own geodesic column agrees with our solver.
            #expect(abs(Geodesic.wgs84.distance(p1, p2) - geodesic) < 0.001)
            guard abs(p1.latitude) < 85, geodesic > 0 else { continue }
            let relative = abs(ShortDistance.distance(p1, p2) - geodesic) / geodesic
            worst = max(worst, relative)
        }
        #expect(worst < ShortDistance.relativeErrorBound, "worst relative error \(worst)")
    }

    /// `isWithin` answers as `distance(center, point) <= radius` does, for points far outside,
    /// well inside and at the edge (within a billionth of the radius either way), from the
    /// equator to the poles and across the antimeridian, radii from a metre to 50 km.
    @Test func isWithinAnswersAsTheDistanceDoes() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func unit() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        var (inside, outside, edge) = (0, 0, 0)
        for _ in 0..<20_000 {
            let center = Coordinate(latitude: -89.9 + 179.8 * unit(), longitude: -180 + 360 * unit())
            let radius = pow(10, 4.7 * unit())
            // A point at up to three radii in a random direction (a rough metric is enough here).
            let bearing = 2 * Double.pi * unit()
            let reach = 3 * radius * unit()
            let dLat = reach * cos(bearing) / 111_000
            let dLon = reach * sin(bearing) / (111_000 * max(0.01, cos(center.latitude * .pi / 180)))
            var longitude = center.longitude + dLon
            if longitude >= 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
            var point = Coordinate(latitude: max(-90, min(90, center.latitude + dLat)), longitude: longitude)
            // Every fourth point moved onto the edge, as nearly as the formula lets it be.
            if unit() < 0.25 {
                let d = ShortDistance.distance(center, point)
                guard d > 0 else { continue }
                let f = radius / d * (1 + (unit() - 0.5) * 2e-9)
                point = Coordinate(
                    latitude: center.latitude + (point.latitude - center.latitude) * f,
                    longitude: center.longitude + (longitude - center.longitude) * f)
                edge += 1
            }
            let expected = ShortDistance.distance(center, point) <= radius
            #expect(ShortDistance.isWithin(radius, of: center, point) == expected, "\(center) \(point) r \(radius)")
            if expected { inside += 1 } else { outside += 1 }
        }
        #expect(inside > 4_000 && outside > 4_000 && edge > 4_000)
    }

    @Test func bearingPointsTheRightWay() {
        let p = Coordinate(latitude: 37.0, longitude: -122.0)
        #expect(abs(ShortDistance.bearing(p, Coordinate(latitude: 37.01, longitude: -122.0)) - 0) < 1e-9)
        #expect(abs(ShortDistance.bearing(p, Coordinate(latitude: 37.0, longitude: -121.99)) - 90) < 1e-6)
        #expect(abs(ShortDistance.bearing(p, Coordinate(latitude: 36.99, longitude: -122.0)) - 180) < 1e-9)
        #expect(abs(ShortDistance.bearing(p, Coordinate(latitude: 37.0, longitude: -122.01)) - 270) < 1e-6)
    }
}
