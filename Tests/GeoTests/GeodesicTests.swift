import Foundation
import Geo
import TestSupport
import Testing

/// The geodesic solver against GeographicLib's published vectors.
struct GeodesicTests {
    struct Row {
        var p1: Coordinate
        var azimuth1: Double
        var p2: Coordinate
        var azimuth2: Double
        var distance: Double
    }

    static func rows(_ file: String) throws -> [Row] {
        try Corpus.csv("distance-vectors/\(file)").map { row in
            func value(_ key: String) -> Double { Double(row[key]!)! }
            return Row(
                p1: Coordinate(latitude: value("lat1"), longitude: value("lon1")),
                azimuth1: value("azi1"),
                p2: Coordinate(latitude: value("lat2"), longitude: Angle180(value("lon2"))),
                azimuth2: value("azi2"),
                distance: value("s12_m"))
        }
    }

    static func Angle180(_ x: Double) -> Double {
        var y = x.truncatingRemainder(dividingBy: 360)
        if y > 180 { y -= 360 } else if y <= -180 { y += 360 }
        return y
    }

    static func azimuthDifference(_ a: Double, _ b: Double) -> Double {
        abs(Angle180(a - b))
    }

    @Test(.needsCorpus, arguments: ["geodtest100.csv", "geographiclib_python_testcases.csv"])
    func inverseAgreesWithGeographicLibToAMillimetre(file: String) throws {
        let rows = try Self.rows(file)
        #expect(rows.count >= 20)
        for (n, row) in rows.enumerated() {
            let line = Geodesic.wgs84.inverse(row.p1, row.p2)
            #expect(abs(line.distance - row.distance) <= 0.001, "row \(n + 1): \(line.distance) vs \(row.distance)")
            // Azimuths are ill-conditioned only for nearly antipodal points.
            if row.distance < 19_900_000 {
                #expect(Self.azimuthDifference(line.initialAzimuth, row.azimuth1) < 1e-6, "row \(n + 1) azi1")
                #expect(Self.azimuthDifference(line.finalAzimuth, row.azimuth2) < 1e-6, "row \(n + 1) azi2")
            }
        }
    }

    @Test(.needsCorpus, arguments: ["geodtest100.csv", "geographiclib_python_testcases.csv"])
    func directLandsWithinAMillimetre(file: String) throws {
        for (n, row) in try Self.rows(file).enumerated() {
            let (end, finalAzimuth) = Geodesic.wgs84.direct(from: row.p1, azimuth: row.azimuth1, distance: row.distance)
            let miss = Geodesic.wgs84.distance(end, row.p2)
            #expect(miss <= 0.001, "row \(n + 1): missed by \(miss) m")
            #expect(Self.azimuthDifference(finalAzimuth, row.azimuth2) < 1e-6, "row \(n + 1) azi2")
        }
    }

    @Test(.needsCorpus) func publishedExamples() throws {
        let rows = try Corpus.csv("distance-vectors/handpicked_published_examples.csv")
        var checked = 0
        for row in rows where row["model"] == "WGS84 Vincenty" {
            let p1 = Coordinate(latitude: Double(row["lat1"]!)!, longitude: Double(row["lon1"]!)!)
            let p2 = Coordinate(latitude: Double(row["lat2"]!)!, longitude: Double(row["lon2"]!)!)
            let expected = Double(row["expected_m"]!)!
            #expect(abs(Geodesic.wgs84.distance(p1, p2) - expected) < 0.001, "\(row["name"]!)")
            checked += 1
        }
        #expect(checked >= 3)
    }

    @Test func degenerateCases() {
        let g = Geodesic.wgs84
        let origin = Coordinate(latitude: 0, longitude: 0)
        #expect(g.distance(origin, origin) == 0)
        // Along the equator a quarter of the way round: a·π/2.
        #expect(abs(g.distance(origin, Coordinate(latitude: 0, longitude: 90)) - 6_378_137 * .pi / 2) < 1e-6)
        // Exactly antipodal on the equator: the shortest path runs over a pole, two meridian quadrants.
        let twoQuadrants = 2 * 10_001_965.729
        #expect(abs(g.distance(origin, Coordinate(latitude: 0, longitude: 180)) - twoQuadrants) < 0.001)
        // Pole to pole along a meridian.
        let poles = g.inverse(Coordinate(latitude: -90, longitude: 0), Coordinate(latitude: 90, longitude: 0))
        #expect(abs(poles.distance - twoQuadrants) < 0.001)
        // Symmetry: swapping the ends keeps the distance and reverses the azimuths.
        let a = Coordinate(latitude: 37.33, longitude: -122.03)
        let b = Coordinate(latitude: 37.78, longitude: -122.42)
        let ab = g.inverse(a, b), ba = g.inverse(b, a)
        #expect(abs(ab.distance - ba.distance) < 1e-9)
        #expect(Self.azimuthDifference(ab.initialAzimuth, ba.finalAzimuth + 180) < 1e-9)
    }
}
