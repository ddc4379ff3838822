import Foundation
import TestSupport
import Testing

/// Issue 15, item 6: every error path that involves a file gives one line on standard error,
/// `waypost: error: FILE:LINE:COLUMN: what and why` (or `FILE: what` when no line of it is at
/// fault: a missing file, a file others may read), the sysexits status of docs/command-line.md, and nothing on
/// standard output — YAML, JSON and XML alike, non-UTF-8 included.
@Suite struct ErrorFormatTests {
    /// A bad file, the command that reads it, and what the error must say.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var file: String
        var bytes: [UInt8]
        /// `FILE` stands for the file's path.
        var arguments: [String]
        var status: Int32
        /// The position the error must name, nil when it names none.
        var position: String?
        var testDescription: String { name }

        init(
            _ name: String, _ file: String, _ text: String, _ arguments: [String], _ status: Int32, _ position: String?
        ) {
            self.init(name, file, Array(text.utf8), arguments, status, position)
        }

        init(
            _ name: String, _ file: String, _ bytes: [UInt8], _ arguments: [String], _ status: Int32,
            _ position: String?
        ) {
            (self.name, self.file, self.bytes, self.arguments, self.status, self.position) =
                (name, file, bytes, arguments, status, position)
        }
    }

    static let replay = ["replay", "tracks/cupertino-walk.kml"]
    static let checkins = replay + ["--checkins", "fixtures/rules/coffee.yaml", "--dry-run"]
    static let notUTF8: [UInt8] = Array("regions:\n  - identifier: caf".utf8) + [0xE9] + Array("\n".utf8)

    static let cases: [Case] = [
        // Tracks: XML.
        Case(
            "KML not well-formed", "t.kml", "<kml><Placemark>\n<Point></Placemark></kml>", ["replay", "FILE"], 65, "2:"),
        Case(
            "KML coordinate out of range", "t.kml", kml("<Point><coordinates>1,91</coordinates></Point>"),
            ["replay", "FILE"], 65, "1:"),
        Case(
            "KML not UTF-8", "t.kml",
            Array(#"<?xml version="1.0" encoding="UTF-8"?><kml><Placemark><name>caf"#.utf8) + [0xE9, 0x3C],
            ["export", "FILE", "--format", "gpx"], 65, "1:"),
        Case("GPX time going backwards", "t.gpx", gpx, ["replay", "FILE"], 65, "3:"),
        Case("an empty track file", "t.gpx", "", ["replay", "FILE"], 65, nil),
        // Regions and beacons: YAML, JSON, GeoJSON.
        Case("regions not UTF-8", "r.yaml", notUTF8, replay + ["--regions", "FILE"], 65, "2:20"),
        Case(
            "regions YAML syntax", "r.yaml", "regions:\n  - [identifier: a\n", replay + ["--regions", "FILE"], 65, "3:1"
        ),
        // A .json file is JSON only: the JSON reader's error, where the value should be (Yams,
        // reading it as YAML, said 2:1).
        Case("regions JSON cut short", "r.json", "{\"regions\": [", replay + ["--regions", "FILE"], 65, "1:14"),
        Case(
            "regions unknown key", "r.yaml",
            "regions:\n  - { identifier: a, latitude: 1, longitude: 2, radius: 50, colour: red }\n",
            replay + ["--regions", "FILE"], 65, "2:61"),
        Case(
            "regions defined twice", "r.yaml",
            "regions:\n  - { identifier: a, latitude: 1, longitude: 2, radius: 50 }\n  - { identifier: a, latitude: 1, longitude: 2, radius: 50 }\n",
            replay + ["--regions", "FILE"], 65, "3:5"),
        Case("regions empty", "r.yaml", "", replay + ["--regions", "FILE"], 65, "1:1"),
        Case("regions with an alias", "r.yaml", "a: &x 1\n", replay + ["--regions", "FILE"], 65, "1:4"),
        Case(
            "beacons bad UUID", "b.yaml",
            "beacons:\n  - { identifier: a, uuid: nope, major: 1, minor: 2, latitude: 1, longitude: 2, range: 10 }\n",
            replay + ["--beacons", "FILE"], 65, "2:"),
        // Rules, privacy, credentials.
        Case(
            "rules unknown trigger", "rules.yaml", "rules:\n  - { id: a, on: nope, networks: [twitter] }\n",
            replay + ["--checkins", "FILE"], 65, "2:"),
        Case("rules not UTF-8", "rules.yaml", [0x72, 0xFF], replay + ["--checkins", "FILE"], 65, "1:2"),
        Case("privacy YAML syntax", "p.yaml", "zones: [\n", checkins + ["--privacy", "FILE"], 65, "2:1"),
        Case(
            "credentials unknown key", "c.yaml", "twitter: { consumerKey: k, consumerSecret: s, pin: 1 }\n",
            replay + [
                "--checkins", "fixtures/rules/coffee.yaml", "--twitter-base-url", "http://127.0.0.1:9/1.1/",
                "--credentials", "FILE",
            ],
            65, "1:"),
        // Scenarios.
        Case(
            "scenario not UTF-8", "s.yaml", [0x6E, 0x61, 0x6D, 0x65, 0x3A, 0x20, 0xC3, 0x28], ["test", "FILE"], 65,
            "1:7"),
        Case("scenario unknown key", "s.yaml", "name: x\ndevise:\n  route: r.kml\n", ["test", "FILE"], 65, "2:1"),
        // Emulator places (JSON).
        Case(
            "emulator places cut short", "fx/twitter-places.json", "{\"places\": [\n  {\"id\": 1,\n",
            ["emulator", "--port", "0", "--fixtures", "DIR"], 65, "3:1"),
        // A value of the wrong kind: JSONDecoder says where in the structure, the error where in
        // the file; and a byte that is not UTF-8, located.
        Case(
            "emulator places wrong kind", "fx/twitter-places.json", "{\n  \"places\": [\n    {\"id\": 1}\n  ]\n}\n",
            ["emulator", "--port", "0", "--fixtures", "DIR"], 65, "3:12"),
        Case(
            "emulator places not UTF-8", "fx/twitter-places.json", [0x7B, 0x0A, 0x20, 0x22, 0xE9, 0x22],
            ["emulator", "--port", "0", "--fixtures", "DIR"], 65, "2:3"),
        // Missing files: no position, 66.
        Case("track missing", "absent.kml", "", ["replay", "FILE"], 66, nil),
        Case("regions missing", "absent.yaml", "", replay + ["--regions", "FILE"], 66, nil),
        Case("scenario missing", "absent.yaml", "", ["test", "FILE"], 66, nil),
    ]

    @Test(arguments: cases)
    func oneLineWithItsPosition(_ test: Case) throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent(test.file)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            if test.file.hasPrefix("absent") == false {
                try Data(test.bytes).write(to: file)
                if test.file == "c.yaml" { chmod(file.path, 0o600) }
            }
            let run = try CLITests.waypost(
                test.arguments.map {
                    $0 == "FILE" ? file.path : $0 == "DIR" ? file.deletingLastPathComponent().path : $0
                })
            #expect(run.status == test.status, "\(run.stderr)")
            #expect(
                run.stdout.isEmpty || test.arguments.first == "test", "nothing half-written: \(run.stdout.prefix(200))")
            let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
            #expect(lines.count == 1, "one line: \(run.stderr)")
            let line = String(lines.first ?? "")
            #expect(line.hasPrefix("waypost: error: \(file.path)"), "\(line)")
            if let position = test.position {
                #expect(line.hasPrefix("waypost: error: \(file.path):\(position)"), "\(line)")
            } else {
                #expect(line.hasPrefix("waypost: error: \(file.path): "), "\(line)")
            }
        }
    }

    static func kml(_ body: String) -> String {
        #"<kml xmlns="http://www.opengis.net/kml/2.2"><Placemark>"# + body + "</Placemark></kml>"
    }

    static let gpx = """
        <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
        <trkpt lat="1" lon="1"><time>2020-01-01T00:00:10Z</time></trkpt>
        <trkpt lat="1" lon="2"><time>2020-01-01T00:00:05Z</time></trkpt>
        </trkseg></trk></gpx>
        """
}

extension ErrorFormatTests.Case {
    init(_ name: String, _ file: String, _ bytes: [UInt8]?, _ arguments: [String], _ status: Int32, _ position: String?)
    {
        self.init(name, file, bytes ?? [], arguments, status, position)
    }
}
