import Foundation
import Geo
import SimulatedTime
import Store
import TestSupport
import Testing

@testable import RunReports

/// A run across the antimeridian (Taveuni, Fiji, where the 180th meridian crosses land): the maps
/// draw it where it is, not as a line around the world, and its GeoJSON is cut at 180° as RFC 7946
/// §3.1.9 asks. Tests/GeoJSONConformance checks the same report with the PyPI `antimeridian`
/// package, which would cut what is left uncut.
struct AntimeridianTests {
    /// 40 fixes walking east across 180° (179.99865° … −179.99745°), a region and a privacy zone
    /// on the meridian, an enter event and a post east of it.
    static func snapshot(in directory: URL) throws -> RunSnapshot {
        let store = try Store(path: directory.appendingPathComponent("r.db").path)
        let run = try store.beginRun(name: "date line", track: "walk.gpx", at: 0)
        let start: EpochInstant = 1_750_000_000
        let fixes = (0..<40).map { i in
            let longitude = 179.99865 + Double(i) * 0.0001
            return LocationRecord(
                time: start + Double(i) * 10, latitude: -16.79 + Double(i) * 0.00004,
                longitude: longitude > 180 ? longitude - 360 : longitude, horizontalAccuracy: 5, service: "standard")
        }
        try store.appendLocations(fixes, run: run.id)
        try store.saveRegions(
            [RegionRecord(identifier: "marker", latitude: -16.7895, longitude: 180, radius: 120)], run: run.id)
        try store.saveZones(
            [ZoneRecord(name: "guesthouse", latitude: -16.7925, longitude: -179.9999, radius: 100)], run: run.id)
        try store.appendEvents(
            [
                EventRecord(
                    time: start + 150, type: "regionEnter", region: "marker", latitude: -16.7894,
                    longitude: -179.9999)
            ], run: run.id)
        return try RunSnapshot.load(from: store, run: run)
    }

    @Test func longitudesAreKeptAsTheyAreUnlessTheRunCrosses180() {
        let cupertino = LongitudeSpan([-122.03, -122.02, -121.99])
        #expect(cupertino.center == 0)
        for longitude in [-180.0, -122.03, 0, 179.99, 180] { #expect(cupertino.unwrapped(longitude) == longitude) }
        // A route that only touches 180° does not cross it.
        #expect(LongitudeSpan([179.9, 180]).center == 0)
        let fiji = LongitudeSpan([179.99, 179.995, -179.995, -179.99])
        #expect(abs(fiji.center - 180) < 1e-9)
        #expect(fiji.unwrapped(179.99) == 179.99)
        #expect(abs(fiji.unwrapped(-179.99) - 180.01) < 1e-9)
        // The short way round, however the positions are spread: −170° is 20° east of 170°.
        #expect(LongitudeSpan([170, -170]).unwrapped(-170) == 190)
    }

    @Test func aLineIsCutWhereItCrosses180AtTheLatitudeItCrossesAt() {
        func line(_ positions: [(Double, Double)]) -> [Coordinate] {
            positions.map { Coordinate(latitude: $0.1, longitude: $0.0) }
        }
        let pieces = Antimeridian.cut(line([(179.998, -16.0), (179.999, -16.1), (-179.999, -16.3), (-179.998, -16.4)]))
        // Halfway from 179.999° to −179.999° (0.002° apart) is 180°, at half the step's latitude.
        #expect(
            pieces == [
                line([(179.998, -16.0), (179.999, -16.1), (180, -16.200000000000003)]),
                line([(-180, -16.200000000000003), (-179.999, -16.3), (-179.998, -16.4)]),
            ])
        // Westward too, and a position on the meridian is not repeated.
        #expect(
            Antimeridian.cut(line([(-179.9, 1), (180, 2), (179.9, 3)]))
                == [line([(-179.9, 1), (-180, 2)]), line([(180, 2), (179.9, 3)])])
        // A step from 180° to −180° runs along the meridian and crosses nothing: it stays in its
        // piece, on that piece's side (it was two one-point pieces, and the line was lost).
        #expect(Antimeridian.cut(line([(180, 0), (-180, 1)])) == [line([(180, 0), (180, 1)])])
        #expect(
            Antimeridian.cut(line([(179.9, 1), (180, 2), (-180, 3), (-179.9, 4)]))
                == [line([(179.9, 1), (180, 2), (180, 3)]), line([(-180, 3), (-179.9, 4)])])
        // A line that does not cross is one piece, as it was.
        let cupertino = line([(-122.03, 37.33), (-122.02, 37.34)])
        #expect(Antimeridian.cut(cupertino) == [cupertino])
    }

    @Test func aCircleAcross180IsTwoPolygonsEachSideWoundAsTheCircleWas() throws {
        try withTemporaryDirectory { directory in
            let text = RunGeoJSON.render(try Self.snapshot(in: directory))
            let root = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let features = try #require(root["features"] as? [[String: Any]])
            let geometries = features.compactMap { $0["geometry"] as? [String: Any] }
            let kinds = features.compactMap { ($0["properties"] as? [String: Any])?["kind"] as? String }
            #expect(kinds == ["route", "privacyZone", "region", "event"])

            let route = try #require(geometries[0]["coordinates"] as? [[[Double]]])
            #expect(geometries[0]["type"] as? String == "MultiLineString")
            #expect(route.count == 2)
            #expect(route[0].last?[0] == 180 && route[1].first?[0] == -180)
            #expect(route[0].last?[1] == route[1].first?[1], "both pieces meet where the walk crossed")
            #expect(route.map(\.count).reduce(0, +) == 40 + 2)

            for geometry in geometries[1...2] {
                #expect(geometry["type"] as? String == "MultiPolygon")
                let polygons = try #require(geometry["coordinates"] as? [[[[Double]]]])
                #expect(polygons.count == 2)
                for polygon in polygons {
                    let ring = try #require(polygon.first)
                    #expect(ring.first == ring.last && ring.count >= 4)
                    let longitudes = ring.map { $0[0] }
                    // One side each: nothing crosses, and the cut lies on the meridian.
                    #expect(longitudes.allSatisfy { $0 >= 179 } || longitudes.allSatisfy { $0 <= -179 })
                    #expect(longitudes.contains { abs($0) == 180 })
                    #expect(Self.signedArea(ring) > 0, "counter-clockwise (RFC 7946 §3.1.6)")
                }
            }
            // The region's halves, 120 m either side of the meridian: about as wide as each other.
            let halves = try #require(geometries[2]["coordinates"] as? [[[[Double]]]])
            let areas = halves.map { Self.signedArea($0[0]) }
            #expect(abs(areas[0] - areas[1]) / areas[0] < 0.01)
        }
    }

    @Test func theMapsDrawTheRunWhereItIsNotAroundTheWorld() throws {
        try withTemporaryDirectory { directory in
            let snapshot = try Self.snapshot(in: directory)
            let svg = SVGMap.render(snapshot)
            // The scale bar: a walk of 400 m is drawn at a scale of metres (it was 5,000 km).
            let bar = try #require(svg.range(of: #"<g id="scale-bar">"#))
            #expect(svg[bar.upperBound...].prefix(600).contains(" m</text>"))
            // Each step of the route is a few pixels, the one across 180° too.
            let xs = svg.components(separatedBy: #"class="route" points=""#).dropFirst().flatMap { chunk in
                chunk.prefix { $0 != "\"" }.split(separator: " ").compactMap { Double($0.split(separator: ",")[0]) }
            }
            #expect(xs.count == 40)
            #expect(zip(xs, xs.dropFirst()).allSatisfy { abs($1 - $0) < 60 })

            let data = try LeafletMapTests.data(LeafletMap.render(snapshot, assets: LeafletMapTests.assets))
            let frame = try #require(data["frame"] as? [[Double]])
            #expect(frame[1][1] > 180 && frame[1][1] - frame[0][1] < 0.01, "east of 180°, a few hundred metres wide")
            let routes = try #require(data["routes"] as? [[String: Any]])
            let stretch = try #require((routes.first?["stretches"] as? [[[Double]]])?.first)
            #expect(zip(stretch, stretch.dropFirst()).allSatisfy { abs($1[1] - $0[1]) < 0.001 })
            // Popups show positions as they are: −179.9999°, drawn at 180.0001°.
            let markers = try #require(data["markers"] as? [[String: Any]])
            let event = try #require(markers.first { $0["kind"] as? String == "event" })
            #expect(abs((event["lon"] as? Double ?? 0) - 180.0001) < 1e-9)
            #expect((event["details"] as? [[String]])?.contains(["position", "-16.7894, -179.9999"]) == true)
        }
    }

    /// Twice the signed area of a ring in degrees (shoelace): positive when counter-clockwise.
    static func signedArea(_ ring: [[Double]]) -> Double {
        zip(ring, ring.dropFirst()).reduce(0) { $0 + $1.0[0] * $1.1[1] - $1.1[0] * $1.0[1] }
    }
}
