import Foundation
import TestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Issue 27, item 2: "Nothing hostile reaches a terminal or a spreadsheet". Place names from the
/// emulator's places, a region identifier from a regions file and a rule's id and message from a
/// rules file, each holding terminal escapes (an OSC title change, colours, a C1 CSI), a bidi
/// override, a line break and a spreadsheet formula, go through every output of a replay:
/// text outputs show them escaped, CSV makes the formulas inert, JSON keeps them exact.
@Suite("Hostile names through every output")
struct HostileTextCLITests {
    /// The café's region, as the regions file spells it (YAML escapes) and as it is.
    static let regionYAML = #""roasters\e]0;owned\a\e[31m\x9B2J\u202Egnp.exe""#
    static let region = "roasters\u{1B}]0;owned\u{07}\u{1B}[31m\u{9B}2J\u{202E}gnp.exe"
    /// The Twitter place at the café: a formula first, a title change after.
    static let twitterPlace = "=HYPERLINK(\"http://evil.example\",\"Roasters\")\u{1B}]2;x\u{07}"
    /// The Facebook page at the café: colours, a hidden-text attribute and a forged line.
    static let facebookPage = "\u{1B}[8mRoasters\u{1B}[0m\u{2066}\nFAKE LINE"
    static let rule = "coffee\u{1B}[2J"
    static let message = "@SUM(1+1)*cmd|' /C calc'!A0 {place}"

    /// No ESC, BEL, other C0 but line feed, DEL, C1 or bidi control.
    static func hazards(in text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter {
            ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value)
                || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
        }
    }

    /// The shipped places with the café's names replaced (JSON-escaped, as a server sends them).
    static func places(in directory: URL) throws -> URL {
        let root = Corpus.repositoryRoot.appendingPathComponent("fixtures/places")
        let folder = directory.appendingPathComponent("places")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (file, name) in [("twitter-places.json", twitterPlace), ("facebook-pages.json", facebookPage)] {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            let escaped = String(decoding: try JSONEncoder().encode(name), as: UTF8.self)
            let replaced = text.replacingOccurrences(of: #""Sunnyvale Coffee Roasters""#, with: escaped)
            #expect(replaced != text)
            try replaced.write(to: folder.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
        return folder
    }

    @Test("Replay, audit and report show hostile names escaped, make formulas inert, keep JSON exact")
    func hostileNamesThroughEveryOutput() throws {
        try withTemporaryDirectory { directory in
            let root = Corpus.repositoryRoot
            let regions = directory.appendingPathComponent("regions.yaml")
            try """
            regions:
              - { identifier: \(Self.regionYAML), latitude: 37.37700, longitude: -122.03050, radius: 100 }
              - { identifier: homestead-road-cafe, latitude: 37.33680, longitude: -122.03220, radius: 150 }
            """.write(to: regions, atomically: true, encoding: .utf8)
            let rules = directory.appendingPathComponent("rules.yaml")
            try """
            rules:
              - id: "coffee\\e[2J"
                on: regionEnter
                regions: [\(Self.regionYAML), homestead-road-cafe]
                networks: [twitter, facebook]
                message: "@SUM(1+1)*cmd|' /C calc'!A0 {place}"
                place: nearest
                precision: place
                consent: auto
            """.write(to: rules, atomically: true, encoding: .utf8)
            let places = try Self.places(in: directory)
            let db = directory.appendingPathComponent("w.db").path
            func replay(_ format: String, run: String) throws -> CLITests.Run {
                try CLITests.waypost(
                    "replay", root.appendingPathComponent("tracks/sunnyvale-commute.kml").path, "--regions",
                    regions.path, "--checkins", rules.path, "--privacy",
                    root.appendingPathComponent("fixtures/privacy/demo.yaml").path, "--fixtures", places.path, "--db",
                    db, "--run", run,
                    "--format", format)
            }

            // The event stream as text: escaped, each event one line.
            let text = try replay("text", run: "text")
            #expect(text.status == 0, "\(text.stderr)")
            #expect(Self.hazards(in: text.stdout).isEmpty, "\(text.stdout.debugDescription)")
            #expect(text.stdout.contains(#"enter           roasters\e]0;owned\x07\e[31m\u{9B}2J\u{202E}gnp.exe"#))
            #expect(
                text.stdout.contains(#""=HYPERLINK("http://evil.example","Roasters")\e]2;x\x07" (rule coffee\e[2J"#))
            #expect(text.stdout.contains(#""\e[8mRoasters\e[0m\u{2066}\nFAKE LINE""#))
            #expect(!text.stdout.split(separator: "\n").contains { $0.hasPrefix("FAKE") })

            // As JSON lines: exact.
            let jsonl = try replay("jsonl", run: "jsonl")
            #expect(jsonl.status == 0, "\(jsonl.stderr)")
            let events = try jsonl.stdout.split(separator: "\n").map {
                try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            #expect(
                events.contains { $0["type"] as? String == "regionEnter" && $0["region"] as? String == Self.region })
            #expect(events.contains { $0["type"] as? String == "post" && $0["rule"] as? String == Self.rule })

            // The audit as a table: escaped; as CSV: formulas inert; as JSON: exact.
            let table = try CLITests.waypost("audit", "jsonl", "--db", db)
            #expect(table.status == 0, "\(table.stderr)")
            #expect(Self.hazards(in: table.stdout).isEmpty, "\(table.stdout.debugDescription)")
            #expect(table.stdout.contains(#"roasters\e]0;owned\x07\e[31m\u{9B}2J\u{202E}gnp.exe"#))
            #expect(table.stdout.contains(#"\e[8mRoasters\e[0m\u{2066}\nFAKE LINE"#))
            let csv = try CLITests.waypost("audit", "jsonl", "--db", db, "--format", "csv")
            #expect(csv.status == 0, "\(csv.stderr)")
            #expect(Self.hazards(in: csv.stdout).isEmpty, "\(csv.stdout.debugDescription)")
            let cells = Self.cells(csv.stdout)
            #expect(cells.count > 1 && cells.dropFirst().allSatisfy { $0.count == 13 }, "\(cells)")
            for cell in cells.joined() {
                #expect(!"=+@\t\r".contains(cell.first ?? " "), "\(cell.debugDescription)")
                #expect(!cell.hasPrefix("-") || cell == "-" || Double(cell) != nil, "\(cell.debugDescription)")
            }
            #expect(cells.joined().contains(#"'=HYPERLINK("http://evil.example","Roasters")\e]2;x\x07"#))
            #expect(cells.joined().contains(#"'@SUM(1+1)*cmd|' /C calc'!A0 \e[8mRoasters\e[0m\u{2066}\nFAKE LINE"#))
            #expect(!csv.stdout.split(separator: "\n").contains { $0.hasPrefix("FAKE") })
            let json = try CLITests.waypost("audit", "jsonl", "--db", db, "--format", "json")
            let document = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let posts = try #require(document["posts"] as? [[String: Any]])
            #expect(posts.contains { $0["placeName"] as? String == Self.twitterPlace })
            #expect(posts.contains { $0["placeName"] as? String == Self.facebookPage })
            #expect(posts.contains { $0["region"] as? String == Self.region && $0["rule"] as? String == Self.rule })
            #expect(posts.contains { ($0["message"] as? String)?.hasPrefix("@SUM(1+1)") == true })

            // The report: text escaped, maps escaped and valid XML, GeoJSON exact.
            for format in ["text", "svg", "html"] {
                let report = try CLITests.waypost("report", "jsonl", "--db", db, "--format", format)
                #expect(report.status == 0, "\(report.stderr)")
                #expect(Self.hazards(in: report.stdout).isEmpty, "\(format): \(report.stdout.debugDescription)")
                // The HTML map carries the names as JSON (issue 32): each backslash of the escape doubled.
                func shown(_ text: String) -> String {
                    format == "html" ? text.replacingOccurrences(of: "\\", with: "\\\\") : text
                }
                #expect(
                    report.stdout.contains(shown(#"roasters\e]0;owned\x07\e[31m\u{9B}2J\u{202E}gnp.exe"#)), "\(format)")
                #expect(report.stdout.contains(shown(#"\e[8mRoasters\e[0m\u{2066}\nFAKE LINE"#)), "\(format)")
                #expect(!report.stdout.split(separator: "\n").contains { $0.hasPrefix("FAKE") }, "\(format)")
                if format == "svg" {
                    let parser = XMLParser(data: Data(report.stdout.utf8))
                    #expect(parser.parse(), "\(String(describing: parser.parserError))")
                }
            }
            let geojson = try CLITests.waypost("report", "jsonl", "--db", db, "--format", "geojson")
            let collection = try #require(
                JSONSerialization.jsonObject(with: Data(geojson.stdout.utf8)) as? [String: Any])
            let properties = (collection["features"] as? [[String: Any]] ?? []).compactMap {
                $0["properties"] as? [String: Any]
            }
            #expect(properties.contains { $0["identifier"] as? String == Self.region })
            #expect(properties.contains { $0["place"] as? String == Self.twitterPlace })
            #expect(properties.contains { $0["place"] as? String == Self.facebookPage })
        }
    }

    /// RFC 4180 records as cells (quoted fields may hold commas, quotes and line breaks).
    static func cells(_ csv: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var cell = ""
        var quoted = false
        var characters = Array(csv.unicodeScalars)[...]
        while let c = characters.popFirst() {
            if quoted {
                if c == "\"" {
                    if characters.first == "\"" {
                        cell.unicodeScalars.append(c)
                        characters.removeFirst()
                    } else {
                        quoted = false
                    }
                } else {
                    cell.unicodeScalars.append(c)
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                row.append(cell)
                cell = ""
            } else if c == "\n" {
                row.append(cell)
                rows.append(row)
                row = []
                cell = ""
            } else {
                cell.unicodeScalars.append(c)
            }
        }
        return rows
    }
}
