import Foundation
import TestSupport
import Testing

@testable import Tracks

/// Issue 31 item 3: exported GeoJSON is RFC 7946 — rings wound as §3.1.6 requires, and one
/// geometry's positions of one dimension. (`make test` also validates the exports with the
/// PyPI `geojson`, `geojson-rewind` and `shapely` packages: Tests/GeoJSONConformance/run.sh.)
struct GeoJSONConformanceTests {
    /// Twice the signed area of a ring of `[lon, lat, …]` positions: positive counter-clockwise.
    /// Written apart from the writer's own check, so that the test does not grade itself.
    static func signedArea(_ ring: [[Double]]) -> Double {
        zip(ring, ring.dropFirst()).reduce(0) { sum, edge in sum + edge.0[0] * edge.1[1] - edge.1[0] * edge.0[1] }
    }

    static func export(_ text: String) throws -> [[String: Any]] {
        var json = ""
        TrackWriter.write(try readTrack(text), as: .geojson, to: &json)
        let root = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        return try #require(root["features"] as? [[String: Any]])
    }

    static func polygonRings(_ feature: [String: Any]) throws -> [[[Double]]] {
        let geometry = try #require(feature["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Polygon")
        return try #require(geometry["coordinates"] as? [[[Double]]])
    }

    static func polygon(outer: String, inner: [String]) -> String {
        kml(
            """
            <Placemark><name>field</name><Polygon>
            <outerBoundaryIs><LinearRing><coordinates>\(outer)</coordinates></LinearRing></outerBoundaryIs>
            \(inner.map { "<innerBoundaryIs><LinearRing><coordinates>\($0)</coordinates></LinearRing></innerBoundaryIs>" }.joined())
            </Polygon></Placemark>
            """)
    }

    // A 2×2 square and a 1×1 hole in it, each written both ways round.
    static let clockwiseSquare = "0,0 0,2 2,2 2,0 0,0"
    static let counterClockwiseSquare = "0,0 2,0 2,2 0,2 0,0"
    static let clockwiseHole = "0.5,0.5 0.5,1.5 1.5,1.5 1.5,0.5 0.5,0.5"
    static let counterClockwiseHole = "0.5,0.5 1.5,0.5 1.5,1.5 0.5,1.5 0.5,0.5"

    /// RFC 7946 §3.1.6: the exterior ring counter-clockwise, holes clockwise — however the KML
    /// was wound; a ring wound the other way is reversed (same vertices, closed), never dropped.
    @Test(arguments: [
        (clockwiseSquare, clockwiseHole), (clockwiseSquare, counterClockwiseHole),
        (counterClockwiseSquare, clockwiseHole), (counterClockwiseSquare, counterClockwiseHole),
    ])
    func ringsAreWoundAsRFC7946Says(outer: String, hole: String) throws {
        let features = try Self.export(Self.polygon(outer: outer, inner: [hole, hole]))
        let rings = try Self.polygonRings(features[0])
        #expect(rings.count == 3, "no ring dropped")
        #expect(Self.signedArea(rings[0]) > 0, "exterior counter-clockwise: \(rings[0])")
        for ring in rings.dropFirst() {
            #expect(Self.signedArea(ring) < 0, "hole clockwise: \(ring)")
            #expect(Set(ring.map { [$0[0], $0[1]] }) == [[0.5, 0.5], [0.5, 1.5], [1.5, 1.5], [1.5, 0.5]])
        }
        for ring in rings { #expect(ring.first == ring.last && ring.count == 5, "closed: \(ring)") }
        #expect(Set(rings[0].map { [$0[0], $0[1]] }) == [[0, 0], [0, 2], [2, 2], [2, 0]])
    }

    /// Rings already wound as the RFC says are written exactly as read.
    @Test func ringsWoundRightAreLeftAsTheyAre() throws {
        let features = try Self.export(Self.polygon(outer: Self.counterClockwiseSquare, inner: [Self.clockwiseHole]))
        let rings = try Self.polygonRings(features[0])
        #expect(rings[0] == [[0, 0], [2, 0], [2, 2], [0, 2], [0, 0]])
        #expect(rings[1] == [[0.5, 0.5], [0.5, 1.5], [1.5, 1.5], [1.5, 0.5], [0.5, 0.5]])
    }

    /// Real polygons from other projects' files (the Google KML tutorial, OGC's conformance
    /// inputs, togeojson's fixtures): every ring of every export wound as §3.1.6 says.
    @Test(
        .needsCorpus,
        arguments: [
            "fastkml/examples/KML_Samples.kml", "fastkml/tests/ogc_conformance/data/kml/Document-clean.kml",
            "placemark-togeojson/test-data/polygon.kml", "placemark-togeojson/test-data/schema.kml",
            "libkml/examples/kml/kmlsamples.kml",
        ])
    func corpusPolygonsAreWoundAsRFC7946Says(file: String) throws {
        let url = try Corpus.url(file)
        var json = ""
        TrackWriter.write(try TrackReader().read(contentsOf: url), as: .geojson, to: &json)
        let root = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        var polygons = 0
        func check(_ geometry: [String: Any]) {
            switch geometry["type"] as? String {
            case "Polygon":
                guard let rings = geometry["coordinates"] as? [[[Double]]] else {
                    Issue.record("unreadable rings in \(file)")
                    return
                }
                polygons += 1
                for (i, ring) in rings.enumerated() {
                    let area = Self.signedArea(ring)
                    #expect(area == 0 || (area > 0) == (i == 0), "\(file): ring \(i) wound the wrong way")
                }
            case "GeometryCollection":
                for member in geometry["geometries"] as? [[String: Any]] ?? [] { check(member) }
            default: break
            }
        }
        for feature in root["features"] as? [[String: Any]] ?? [] {
            if let geometry = feature["geometry"] as? [String: Any] { check(geometry) }
        }
        #expect(polygons > 0, "\(file) has polygons")
    }

    /// placemark/togeojson writes a Placemark of one geometry as that geometry
    /// (lib/kml/placemark.ts, `geometryListToGeometry`), its times a flat array: a MultiTrack of
    /// one gx:Track or a MultiGeometry of one line was a one-member GeometryCollection (a
    /// black-box hunt) — and, as a collection's member, was not cut at the antimeridian.
    @Test func aCollectionOfOneIsThatGeometry() throws {
        let features = try Self.export(
            kml(
                """
                <Placemark><name>track</name><gx:MultiTrack><gx:Track>
                  <when>2020-01-01T00:00:00Z</when><when>2020-01-01T00:00:10Z</when>
                  <gx:coord>179.9 1 0</gx:coord><gx:coord>-179.9 1 0</gx:coord>
                </gx:Track></gx:MultiTrack></Placemark>
                <Placemark><name>line</name><MultiGeometry><LineString><coordinates>1,2 3,4</coordinates></LineString></MultiGeometry></Placemark>
                """))
        let track = try #require(features[0]["geometry"] as? [String: Any])
        #expect(track["type"] as? String == "MultiLineString", "cut at the antimeridian: \(track)")
        let times = (features[0]["properties"] as? [String: Any]).flatMap {
            ($0["coordinateProperties"] as? [String: Any])?["times"] as? [[String]]
        }
        #expect(times?.count == 2 && times?.first?.first == "2020-01-01T00:00:00Z", "\(String(describing: times))")
        let line = try #require(features[1]["geometry"] as? [String: Any])
        #expect(line["type"] as? String == "LineString")
        #expect(line["coordinates"] as? [[Double]] == [[1, 2], [3, 4]])
    }

    /// One geometry's positions have one dimension: 3D only when every position has an
    /// altitude; otherwise 2D throughout (an altitude is never invented). Each member of a
    /// GeometryCollection decides on its own; a Polygon's rings and a MultiLineString's lines together.
    @Test func positionsOfOneGeometryHaveOneDimension() throws {
        let features = try Self.export(
            kml(
                """
                <Placemark><name>mixed</name><LineString><coordinates>1,2,3 4,5 6,7,8</coordinates></LineString></Placemark>
                <Placemark><name>all 3D</name><LineString><coordinates>1,2,3 4,5,6</coordinates></LineString></Placemark>
                <Placemark><name>all 2D</name><LineString><coordinates>1,2 4,5</coordinates></LineString></Placemark>
                <Placemark><name>collection</name><MultiGeometry>
                  <LineString><coordinates>1,2,3 4,5,6</coordinates></LineString>
                  <LineString><coordinates>1,2 4,5,6</coordinates></LineString>
                </MultiGeometry></Placemark>
                <Placemark><name>rings</name><Polygon>
                  <outerBoundaryIs><LinearRing><coordinates>0,0,1 2,0,1 2,2,1 0,2,1 0,0,1</coordinates></LinearRing></outerBoundaryIs>
                  <innerBoundaryIs><LinearRing><coordinates>0.5,0.5 0.5,1.5 1.5,1.5 1.5,0.5 0.5,0.5</coordinates></LinearRing></innerBoundaryIs>
                </Polygon></Placemark>
                """))
        func coordinates(_ feature: [String: Any]) -> [[Double]]? {
            (feature["geometry"] as? [String: Any])?["coordinates"] as? [[Double]]
        }
        #expect(coordinates(features[0]) == [[1, 2], [4, 5], [6, 7]])
        #expect(coordinates(features[1]) == [[1, 2, 3], [4, 5, 6]])
        #expect(coordinates(features[2]) == [[1, 2], [4, 5]])
        let members = try #require(
            (features[3]["geometry"] as? [String: Any])?["geometries"] as? [[String: Any]])
        #expect(members.map { $0["coordinates"] as? [[Double]] } == [[[1, 2, 3], [4, 5, 6]], [[1, 2], [4, 5]]])
        let rings = try Self.polygonRings(features[4])
        #expect(rings.allSatisfy { $0.allSatisfy { $0.count == 2 } }, "\(rings)")
    }

    /// A GPX track of several segments is one MultiLineString: a segment without elevations
    /// makes the whole geometry 2D.
    @Test func aMultiLineStringHasOneDimension() throws {
        let gpx = """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk>
            <trkseg><trkpt lat="1" lon="2"><ele>10</ele></trkpt><trkpt lat="3" lon="4"><ele>11</ele></trkpt></trkseg>
            <trkseg><trkpt lat="5" lon="6"/><trkpt lat="7" lon="8"/></trkseg>
            </trk></gpx>
            """
        var json = ""
        TrackWriter.write(try readTrack(gpx, name: "t.gpx"), as: .geojson, to: &json)
        #expect(json.contains(#""coordinates":[[[2,1],[4,3]],[[6,5],[8,7]]]"#), "\(json)")
    }

    /// RFC 7946 §3.1.9: a track across the antimeridian is two lines that meet on it, each with
    /// its times (the crossing's interpolated), so that geojson.io does not draw it around the world.
    /// Lines that do not cross are written as before (every other test here).
    @Test func aTrackAcross180IsCutThereWithItsTimesBesideItsPositions() throws {
        let gpx = """
            <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="-16.79" lon="179.9998"><ele>10</ele><time>2025-06-03T21:00:00Z</time></trkpt>
            <trkpt lat="-16.79" lon="179.9999"><ele>10</ele><time>2025-06-03T21:00:10Z</time></trkpt>
            <trkpt lat="-16.78" lon="-179.9999"><ele>20</ele><time>2025-06-03T21:00:30Z</time></trkpt>
            <trkpt lat="-16.78" lon="-179.9998"><ele>20</ele><time>2025-06-03T21:00:40Z</time></trkpt>
            </trkseg></trk></gpx>
            """
        var json = ""
        TrackWriter.write(try readTrack(gpx, name: "t.gpx"), as: .geojson, to: &json)
        let root = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let feature = try #require((root["features"] as? [[String: Any]])?.first)
        let geometry = try #require(feature["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "MultiLineString")
        let lines = try #require(geometry["coordinates"] as? [[[Double]]])
        // Halfway (0.0001° each side of 180°): latitude, altitude and time halfway too.
        #expect(lines.map(\.count) == [3, 3])
        for (end, meridian) in [(lines[0].last, 180.0), (lines[1].first, -180.0)] {
            let end = try #require(end)
            #expect(end[0] == meridian && abs(end[1] + 16.785) < 1e-9 && abs(end[2] - 15) < 1e-9, "\(lines)")
        }
        let properties = try #require(feature["properties"] as? [String: Any])
        let times = try #require((properties["coordinateProperties"] as? [String: Any])?["times"] as? [[String]])
        #expect(times.map(\.count) == [3, 3], "one time beside each position")
        #expect(times[0].last == "2025-06-03T21:00:20Z" && times[1].first == "2025-06-03T21:00:20Z", "\(times)")
    }
}
