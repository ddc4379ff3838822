import CheckinEngine
import Foundation
import RunReports
import SimulatedTime
import Store
import TestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Issue 27, item 2: names from files and servers reach the text summary and the maps
/// neutralised; GeoJSON keeps them exact.
struct HostileTextTests {
    static let runName = "walk\u{1B}]0;owned\u{07}"
    static let region = "cafe\u{1B}[31m\u{9B}2J\u{202E}gnp\n  +0:00:00  FAKE LINE"
    static let place = "=HYPERLINK(\"http://evil.example\")\u{0}\u{1B}[8m\u{85}"

    static func snapshot(in directory: URL) throws -> RunSnapshot {
        let store = try Store(path: directory.appendingPathComponent("r.db").path)
        let run = try store.beginRun(name: runName, track: "walk\u{7}.kml", at: 0)
        let start: EpochInstant = 1_750_000_000
        try store.appendLocations(
            (0..<10).map {
                LocationRecord(
                    time: start + Double($0), latitude: 37.33 + Double($0) * 0.0001, longitude: -122.03,
                    horizontalAccuracy: 5, service: "standard")
            }, run: run.id)
        try store.saveRegions(
            [RegionRecord(identifier: region, latitude: 37.3305, longitude: -122.03, radius: 100)], run: run.id)
        try store.appendEvents(
            [
                EventRecord(
                    time: start + 5, type: "regionEnter", region: region, latitude: 37.3305, longitude: -122.03)
            ], run: run.id)
        // As the store keeps it (the record's memberwise initialiser is the engine's own).
        let record: [String: Any] = [
            "key": "k", "time": (start + 5).secondsSince1970, "trigger": "regionEnter", "region": region,
            "latitude": 37.3305,
            "longitude": -122.03, "rule": "coffee\u{1B}[2J", "network": "twitter", "placeID": "p1",
            "placeName": place, "decision": "posted", "carriesLocation": true, "precision": "place",
            "wireFields": ["place_id": "p1"], "lookupFields": [String: String](), "gates": [[String: Any]](),
            "message": place, "attempts": 1, "remoteID": "1",
        ]
        try store.saveAudit(key: "k", run: run.id, record: try JSONSerialization.data(withJSONObject: record))
        return try RunSnapshot.load(from: store, run: run)
    }

    /// No ESC, BEL, NUL, other C0 but line feed, DEL, C1 or bidi control: nothing a terminal obeys.
    static func hazards(in text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter {
            ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value)
                || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
        }
    }

    @Test func textSummaryShowsNamesEscaped() throws {
        try withTemporaryDirectory { directory in
            let text = RunSummary.render(try Self.snapshot(in: directory))
            #expect(Self.hazards(in: text).isEmpty, "\(text.debugDescription)")
            #expect(text.hasPrefix(#"Run 'walk\e]0;owned\x07' (walk\x07.kml)"#))
            #expect(text.contains(#"regionEnter cafe\e[31m\u{9B}2J\u{202E}gnp\n  +0:00:00  FAKE LINE"#))
            #expect(text.contains(#"at =HYPERLINK("http://evil.example")\x00\e[8m\u{85}, location: place"#))
            #expect(!text.split(separator: "\n").contains { $0.hasPrefix("  +0:00:00  FAKE") })
        }
    }

    @Test func mapsAreValidXMLAndShowNamesEscaped() throws {
        try withTemporaryDirectory { directory in
            let snapshot = try Self.snapshot(in: directory)
            for (format, text) in [("svg", SVGMap.render(snapshot)), ("html", HTMLMap.render(snapshot))] {
                #expect(Self.hazards(in: text).isEmpty, "\(format)")
                #expect(text.contains(#"cafe\e[31m\u{9B}2J\u{202E}gnp\n"#), "\(format)")
                #expect(text.contains(#"=HYPERLINK(&quot;http://evil.example&quot;)\x00\e[8m\u{85}"#), "\(format)")
            }
            let parser = XMLParser(data: Data(SVGMap.render(snapshot).utf8))
            #expect(parser.parse(), "\(String(describing: parser.parserError))")
        }
    }

    @Test func geoJSONKeepsNamesExact() throws {
        try withTemporaryDirectory { directory in
            let text = RunGeoJSON.render(try Self.snapshot(in: directory))
            let root = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect((root["properties"] as? [String: Any])?["run"] as? String == Self.runName)
            let properties = (root["features"] as? [[String: Any]] ?? []).compactMap {
                $0["properties"] as? [String: Any]
            }
            let values = properties.flatMap { $0.values.compactMap { $0 as? String } }
            #expect(values.contains(Self.region))
            #expect(values.contains(Self.place))
            #expect(!text.utf8.contains(0x1B))  // as JSON escapes, not raw
        }
    }
}
