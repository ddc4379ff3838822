import CheckinEngine
import Foundation
import Geo
import RunReports
import SimulatedTime
import Store
import TestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reports of a run recorded in a real store: the SVG's structure, the projection's true scale,
/// and GeoJSON as RFC 7946 has it.
struct RunReportTests {
    /// A two-stretch route (a signal gap between), two regions, an enter event and two posts.
    static func snapshot(in directory: URL) throws -> RunSnapshot {
        let store = try Store(path: directory.appendingPathComponent("r.db").path)
        let run = try store.beginRun(name: "walk <1>", track: "walk.kml", at: 0)
        let start: EpochInstant = 1_750_000_000
        var fixes: [LocationRecord] = []
        for i in 0..<120 where !(50..<80).contains(i) {
            fixes.append(
                LocationRecord(
                    time: start + Double(i) * 3, latitude: 37.33 + Double(i) * 0.0001, longitude: -122.03,
                    horizontalAccuracy: 5, service: "standard"))
        }
        try store.appendLocations(fixes, run: run.id)
        try store.saveRegions(
            [
                RegionRecord(identifier: "cafe", latitude: 37.335, longitude: -122.03, radius: 100),
                RegionRecord(identifier: "far-away", latitude: 40.0, longitude: -100.0, radius: 100),
            ], run: run.id)
        try store.appendEvents(
            [
                EventRecord(
                    time: start + 150, type: "regionEnter", region: "cafe", latitude: 37.335, longitude: -122.03)
            ], run: run.id)
        for (network, carries) in [("twitter", true), ("facebook", false)] {
            let record = """
                {"key":"\(network)",\(carries ? "\"device\":\"walker\"," : "")"time":\((start + 150).secondsSince1970),"trigger":"regionEnter","region":"cafe","latitude":37.335,\
                "longitude":-122.03,"rule":"coffee","network":"\(network)","placeName":"Café","decision":"\(carries ? "posted" : "blocked")",\
                "carriesLocation":\(carries),"precision":"place","wireFields":{},"lookupFields":{},\
                "gates":[{"gate":"network","passed":\(carries),"reason":"r"}],"attempts":1}
                """
            try store.saveAudit(key: network, run: run.id, record: Data(record.utf8))
        }
        return try RunSnapshot.load(from: store, run: run)
    }

    /// Element names with their `id`/`class`, in document order.
    final class Elements: NSObject, XMLParserDelegate {
        var all: [(name: String, attributes: [String: String])] = []
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String]
        ) {
            all.append((name, attributes))
        }
    }

    @Test func svgHasTheMapsParts() throws {
        try withTemporaryDirectory { directory in
            let svg = SVGMap.render(try Self.snapshot(in: directory))
            let parser = XMLParser(data: Data(svg.utf8))
            let elements = Elements()
            parser.delegate = elements
            #expect(parser.parse(), "the SVG is well-formed XML")
            let all = elements.all
            #expect(all.first?.name == "svg")
            #expect(all.first?.attributes["xmlns"] == "http://www.w3.org/2000/svg")
            let ids = Set(all.compactMap { $0.attributes["id"] })
            #expect(ids.isSuperset(of: ["regions", "routes", "events", "posts", "legend", "scale-bar"]))
            #expect(all.filter { $0.attributes["class"] == "region" }.count == 2)
            #expect(all.filter { $0.attributes["class"] == "gap" }.count == 1, "the signal gap is drawn dashed")
            #expect(all.filter { $0.attributes["class"] == "route" }.count >= 2)
            let posts = all.filter { $0.attributes["class"]?.hasPrefix("post ") == true }
            #expect(posts.map { $0.attributes["data-precision"] } == ["place", "none"])
            #expect(all.filter { $0.attributes["class"] == "event regionEnter" }.count == 1)
            #expect(
                svg.contains("Waypost run &apos;walk &lt;1&gt;&apos;") || svg.contains("Waypost run 'walk &lt;1&gt;'"))
            #expect(!svg.contains("http://") || svg.components(separatedBy: "http://").count == 2, "only the namespace")
        }
    }

    /// Issue 16, item 5: the privacy zones a run's profile held are drawn, each with the posts it
    /// kept from locating the user; labels of crowded regions and zones overlap neither each
    /// other nor the markers.
    @Test func privacyZonesAndLabelsThatKeepClear() throws {
        try withTemporaryDirectory { directory in
            let store = try Store(path: directory.appendingPathComponent("z.db").path)
            let run = try store.beginRun(name: "crowded", track: "t.kml", at: 0)
            let start: EpochInstant = 1_750_000_000
            try store.appendLocations(
                (0..<60).map {
                    LocationRecord(
                        time: start + Double($0), latitude: 37.33 + Double($0) * 0.00005, longitude: -122.03,
                        horizontalAccuracy: 5, service: "standard")
                }, run: run.id)
            // Six regions side by side 25 m apart, and a zone among them: labels above each would collide.
            try store.saveRegions(
                (0..<6).map {
                    RegionRecord(
                        identifier: "cafe-number-\($0)", latitude: 37.3315, longitude: -122.0303 + Double($0) * 0.00028,
                        radius: 10)
                }, run: run.id)
            try store.saveZones(
                [ZoneRecord(name: "home", latitude: 37.332, longitude: -122.0302, radius: 80)], run: run.id)
            for (key, zone) in [("a", "home"), ("b", "home"), ("c", "office")] {
                let record = """
                    {"key":"\(key)","time":\((start + 10).secondsSince1970),"trigger":"regionEnter","region":"cafe-number-1","latitude":37.332,\
                    "longitude":-122.0302,"rule":"coffee","network":"twitter","decision":"blocked",\
                    "carriesLocation":false,"precision":"place","wireFields":{},"lookupFields":{},\
                    "gates":[{"gate":"privacyZone","passed":false,"reason":"inside privacy zone '\(zone)'"}],"attempts":0}
                    """
                try store.saveAudit(key: key, run: run.id, record: Data(record.utf8))
            }
            let snapshot = try RunSnapshot.load(from: store, run: run)
            #expect(snapshot.zones.map(\.name) == ["home"])
            #expect(snapshot.posts(blockedBy: "home").count == 2)
            let svg = SVGMap.render(snapshot)
            let parser = XMLParser(data: Data(svg.utf8))
            let elements = Elements()
            parser.delegate = elements
            #expect(parser.parse())
            let zone = try #require(elements.all.first { $0.attributes["class"] == "privacy-zone" })
            #expect(zone.attributes["data-blocked"] == "2")
            #expect(zone.attributes["data-info"]?.contains("2 posts kept from locating the user") == true)
            // Label boxes as the layout estimates them (6.6 px a character, 13 px high).
            let labels = try NSRegularExpression(
                pattern:
                    #"<text x="([-0-9.]+)" y="([-0-9.]+)" text-anchor="(middle|start|end)" fill="[^"]+">([^<]+)</text>"#
            )
            let boxes = labels.matches(in: svg, range: NSRange(svg.startIndex..., in: svg)).map { match in
                let field = { (i: Int) in String(svg[Range(match.range(at: i), in: svg)!]) }
                let (x, y, width) = (Double(field(1))!, Double(field(2))!, Double(field(4).count) * 6.6)
                let left = field(3) == "middle" ? x - width / 2 : field(3) == "end" ? x - width : x
                return (left: left, top: y - 11, right: left + width, bottom: y + 2)
            }
            #expect(boxes.count == 7)
            for (i, a) in boxes.enumerated() {
                for b in boxes[(i + 1)...] {
                    let overlaps = a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom
                    #expect(!overlaps, "labels overlap: \(a) and \(b)")
                }
            }
        }
    }

    @Test func regionsAreTrueScale() {
        let center = Coordinate(latitude: 60, longitude: 10)
        let projection = MapProjection(fitting: [center], circles: [(center, 1_000)], width: 800, height: 600)
        let east = Geodesic.wgs84.direct(from: center, azimuth: 90, distance: 1_000).coordinate
        let (x0, _) = projection.point(center)
        let (x1, _) = projection.point(east)
        let radius = projection.pixels(metres: 1_000, at: 60)
        #expect(abs((x1 - x0) - radius) / radius < 0.01)
        let bar = projection.scaleBar(at: 60)
        #expect([1.0, 2, 5].contains(bar.metres / pow(10, floor(log10(bar.metres)))))
        #expect(bar.pixels <= 160 && bar.pixels > 160 / 2.5)
    }

    /// A signal loss shorter than a minute was drawn as route, solid, and left the GeoJSON route
    /// one line (a black-box hunt: `--signal-loss 10-65`, no fixes for 57 s): the `locationUnknown`
    /// the loss raised splits the route, whatever its length; another device's does not.
    @Test func aShortSignalLossSplitsTheRoute() throws {
        let start: EpochInstant = 1_750_000_000
        let fixes = [0, 1, 2, 30, 31].map { i in
            LocationRecord(
                time: start + Double(i), latitude: 37.33 + Double(i) * 0.0001, longitude: -122.03,
                horizontalAccuracy: 5, service: "standard")
        }
        func stretches(_ events: [EventRecord]) -> [Int] {
            let run = RunRecord(id: 1, name: "r", track: "t", startedAt: start, finishedAt: nil, dryRun: false)
            return RunSnapshot(run: run, regions: [], fixes: fixes, events: events, posts: []).stretches(of: nil)
                .map(\.count)
        }
        #expect(stretches([]) == [5])
        let loss = EventRecord(time: start + 3, type: "error", detail: "locationUnknown")
        #expect(stretches([loss]) == [3, 2])
        var elsewhere = loss
        elsewhere.device = "another phone"
        #expect(stretches([elsewhere]) == [5])
        #expect(stretches([EventRecord(time: start + 3, type: "error", detail: "denied")]) == [5])
        // Before the first fix, or at the fix itself after it came, it splits nothing.
        #expect(stretches([EventRecord(time: start - 5, type: "error", detail: "locationUnknown")]) == [5])
        #expect(stretches([EventRecord(time: start + 1, type: "error", detail: "locationUnknown")]) == [2, 3])
    }

    @Test func geoJSONFeatures() throws {
        try withTemporaryDirectory { directory in
            let text = RunGeoJSON.render(try Self.snapshot(in: directory))
            let root = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(root["type"] as? String == "FeatureCollection")
            let features = try #require(root["features"] as? [[String: Any]])
            let kinds = features.compactMap { ($0["properties"] as? [String: Any])?["kind"] as? String }
            #expect(kinds == ["route", "region", "region", "event", "post", "post"])  // no zones in this run
            let route = try #require(features[0]["geometry"] as? [String: Any])
            #expect(route["type"] as? String == "MultiLineString", "split at the signal gap")
            let first = try #require((route["coordinates"] as? [[[Double]]])?.first?.first)
            #expect(first == [-122.03, 37.33], "longitude first")
            let region = try #require(features[1]["geometry"] as? [String: Any])
            let ring = try #require((region["coordinates"] as? [[[Double]]])?.first)
            #expect(ring.first == ring.last && ring.count == 65)
            let post = try #require(features[5]["properties"] as? [String: Any])
            #expect(post["blockedBy"] as? String == "network")
            #expect(post["carriesLocation"] as? Bool == false)
        }
    }

    /// Issue 31: the GeoJSON shows what the maps show — privacy zones too — styled as they are
    /// (simplestyle-spec `stroke`, `fill`, `fill-opacity`…), and every ring is wound as RFC 7946
    /// §3.1.6 says: counter-clockwise.
    @Test func geoJSONHasTheZonesAndTheMapsStyle() throws {
        try withTemporaryDirectory { directory in
            let store = try Store(path: directory.appendingPathComponent("z.db").path)
            let run = try store.beginRun(name: "zoned", track: "t.kml", at: 0)
            try store.appendLocations(
                (0..<10).map {
                    LocationRecord(
                        time: EpochInstant(secondsSince1970: 1_750_000_000 + Double($0)),
                        latitude: 37.33 + Double($0) * 0.0001, longitude: -122.03,
                        horizontalAccuracy: 5, service: "standard")
                }, run: run.id)
            try store.saveRegions(
                [RegionRecord(identifier: "cafe", latitude: 37.335, longitude: -122.03, radius: 100)], run: run.id)
            try store.saveZones(
                [ZoneRecord(name: "home", latitude: 37.33, longitude: -122.03, radius: 80)], run: run.id)
            let record = """
                {"key":"a","time":1750000001,"trigger":"regionEnter","region":"cafe","latitude":37.33,\
                "longitude":-122.03,"rule":"coffee","network":"twitter","decision":"blocked",\
                "carriesLocation":false,"precision":"place","wireFields":{},"lookupFields":{},\
                "gates":[{"gate":"privacyZone","passed":false,"reason":"inside privacy zone 'home'"}],"attempts":0}
                """
            try store.saveAudit(key: "a", run: run.id, record: Data(record.utf8))
            let text = RunGeoJSON.render(try RunSnapshot.load(from: store, run: run))
            let root = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let features = try #require(root["features"] as? [[String: Any]])
            let properties = features.map { $0["properties"] as? [String: Any] ?? [:] }
            #expect(properties.map { $0["kind"] as? String } == ["route", "privacyZone", "region", "post"])

            let zone = properties[1]
            #expect(zone["name"] as? String == "home")
            #expect(zone["radius"] as? Double == 80)
            #expect(zone["keptOut"] as? Double == 1)
            #expect(zone["center"] as? [Double] == [-122.03, 37.33])
            #expect(zone["stroke"] as? String == "#b5179e" && zone["fill"] as? String == "#b5179e")
            #expect(zone["fill-opacity"] as? Double == 0.2)
            let region = properties[2]
            #expect(region["stroke"] as? String == "#2a9d8f" && region["fill"] as? String == "#2a9d8f")
            #expect(region["fill-opacity"] as? Double == 0.12 && region["stroke-width"] as? Double == 1.5)
            #expect(region["title"] as? String == "cafe")

            for (feature, radius) in [(features[1], 80.0), (features[2], 100.0)] {
                let geometry = try #require(feature["geometry"] as? [String: Any])
                #expect(geometry["type"] as? String == "Polygon")
                let ring = try #require((geometry["coordinates"] as? [[[Double]]])?.first)
                #expect(ring.count == 65 && ring.first == ring.last)
                // Twice the shoelace area: positive is counter-clockwise.
                let area = zip(ring, ring.dropFirst()).reduce(0.0) { $0 + $1.0[0] * $1.1[1] - $1.1[0] * $1.0[1] }
                #expect(area > 0, "exterior ring counter-clockwise")
                // True scale: the ring's points lie `radius` metres from the centre.
                let center = try #require((feature["properties"] as? [String: Any])?["center"] as? [Double])
                let metres = Geodesic.wgs84.inverse(
                    Coordinate(latitude: center[1], longitude: center[0]),
                    Coordinate(latitude: ring[7][1], longitude: ring[7][0])
                ).distance
                #expect(abs(metres - radius) < 0.5)
            }
        }
    }

    @Test func textSummaryTimeline() throws {
        try withTemporaryDirectory { directory in
            let text = RunSummary.render(try Self.snapshot(in: directory))
            #expect(text.contains("+0:02:30  regionEnter cafe"))
            #expect(text.contains("post facebook blocked at Café, no location, blocked by network\n"))
            // A black-box hunt: a post did not say which device made it, as its events do.
            #expect(text.contains("post twitter posted at Café, location: place on walker\n"), "\(text)")
            #expect(text.contains("Posts: 2, 1 posted, 1 carried location (1 place)"))
        }
    }
}
