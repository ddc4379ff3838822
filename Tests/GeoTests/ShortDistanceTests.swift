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

    @Test func bearingPointsTheRightWay() {
        let p = Coordinate(latitude: 37.0, longitude: -122.0)
        #expect(abs(ShortDistance.bearing(p, Coordinate(latitude: 37.01, longitude: -122.0)) - 0) < 1e-9)
        #expect(abs(ShortDistance.bearing(p, Coordinate(latitude: 37.0, longitude: -121.99)) - 90) < 1e-6)
        #expect(abs(ShortDistance.bearing(p, Coordinate(latitude: 36.99, longitude: -122.0)) - 180) < 1e-9)
        #expect(abs(ShortDistance.bearing(p, Coordinate(latitude: 37.0, longitude: -122.01)) - 270) < 1e-6)
    }
}
