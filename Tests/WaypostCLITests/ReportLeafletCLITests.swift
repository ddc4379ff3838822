import Foundation
import TestSupport
import Testing

/// Issue 32, item 1, from the command line: the HTML report is the Leaflet map where Leaflet is
/// found, the static SVG page with one line saying how to get the map where it is not, and a
/// base map only when asked for, with its attribution.
struct ReportLeafletCLITests {
    static func waypost(_ arguments: [String], environment extra: [String: String]) throws -> CLITests.Run {
        let process = Process()
        process.executableURL = CLITests.executable
        process.arguments = arguments
        process.currentDirectoryURL = Corpus.repositoryRoot
        process.environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLITests.Run(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    static func recordedRun(in directory: URL) throws -> String {
        let db = directory.appendingPathComponent("runs.db").path
        let run = try CLITests.waypost("test", "fixtures/scenarios/privacy-zone-home.yaml", "--db", db)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        return db
    }

    @Test func withoutLeafletTheStaticPageAndOneLine() throws {
        try withTemporaryDirectory { directory in
            let db = try Self.recordedRun(in: directory)
            let empty = directory.appendingPathComponent("no-leaflet")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            let run = try Self.waypost(
                ["report", "--db", db, "--format", "html"], environment: ["WAYPOST_LEAFLET_DIR": empty.path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("<svg ") && run.stdout.contains(#"<input id="time" type="range""#))
            #expect(!run.stdout.contains("L.map("))
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            #expect(run.stderr.hasPrefix("waypost: note: ") && run.stderr.contains("libjs-leaflet"), "\(run.stderr)")
            #expect(run.stderr.contains("WAYPOST_LEAFLET_DIR"))
            // A base map needs the interactive map: refused, not silently dropped.
            let tiles = try Self.waypost(
                [
                    "report", "--db", db, "--format", "html", "--tiles", "https://tile.example/{z}/{x}/{y}.png",
                    "--attribution", "© Example",
                ], environment: ["WAYPOST_LEAFLET_DIR": empty.path])
            #expect(tiles.status == 69, "\(tiles.stderr)")
            #expect(tiles.stdout.isEmpty)
        }
    }

    @Test(.enabled(if: LeafletAvailable.here, "needs libjs-leaflet and libjs-leaflet.markercluster (make deps)"))
    func withLeafletTheInteractiveMapAndTilesOnlyWhenAsked() throws {
        try withTemporaryDirectory { directory in
            let db = try Self.recordedRun(in: directory)
            let plain = try CLITests.waypost("report", "--db", db, "--format", "html")
            #expect(plain.status == 0 && plain.stderr.isEmpty, "\(plain.stderr)")
            #expect(plain.stdout.contains("L.map(") && plain.stdout.contains("L.markerClusterGroup"))
            #expect(plain.stdout.contains(#""tiles":"#) == false, "no base map unless asked for")
            let tiled = try CLITests.waypost(
                "report", "--db", db, "--format", "html", "--tiles",
                "https://tile.openstreetmap.org/{z}/{x}/{y}.png", "--attribution", "© OpenStreetMap contributors")
            #expect(tiled.status == 0, "\(tiled.stderr)")
            #expect(
                tiled.stdout.contains(
                    #""tiles":{"attribution":"© OpenStreetMap contributors","url":"https://tile.openstreetmap.org/{z}/{x}/{y}.png"}"#
                ))
        }
    }

    @Test(arguments: [
        (["--tiles", "https://t.example/{z}/{x}/{y}.png"], "--tiles needs --attribution"),
        (["--tiles", "https://t.example/{z}/{x}.png", "--attribution", "x"], "lacks {y}"),
        (["--tiles", "t.example/{z}/{x}/{y}.png", "--attribution", "x"], "is not an http(s) URL"),
        (["--attribution", "x"], "--attribution is for --tiles"),
    ])
    func badTileOptionsAreUsageErrors(options: [String], message: String) throws {
        let run = try CLITests.waypost(["report", "--format", "html"] + options)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    /// Twenty fences close together near the commute (iOS's limit; a black-box hunt measured the
    /// drawn labels with a browser's getBBox): three pairs of labels were drawn over each other,
    /// as touching another label weighed less than crossing the route, and three rings of places
    /// were all tried. Measured here as the layout estimates a label (6.6 px a character).
    @Test func twentyCrowdedFencesHaveLabelsThatCoverNoOtherLabel() throws {
        try withTemporaryDirectory { directory in
            let centres: [(Double, Double)] = [
                (37.333886, -122.032095), (37.337811, -122.032565), (37.336431, -122.030806), (37.330696, -122.029955),
                (37.33045, -122.030398), (37.330838, -122.032456), (37.335094, -122.028039), (37.331486, -122.031661),
                (37.337529, -122.027314), (37.336925, -122.03062), (37.341715, -122.032721), (37.340302, -122.031262),
                (37.331731, -122.032293), (37.333702, -122.028103), (37.332169, -122.02951), (37.337667, -122.030766),
                (37.336573, -122.032623), (37.330715, -122.031764), (37.338165, -122.030434), (37.33377, -122.029487),
            ]
            let regions = directory.appendingPathComponent("dense.yaml")
            try
                (["regions:"]
                + centres.enumerated().map { index, centre in
                    let name = "cafe-number-\(index < 10 ? "0" : "")\(index)"
                    return "  - { identifier: \(name), latitude: \(centre.0), longitude: \(centre.1), radius: 100 }"
                }).joined(separator: "\n").write(to: regions, atomically: true, encoding: .utf8)
            let rules = directory.appendingPathComponent("rules.yaml")
            try
                "rules:\n  - { id: all, on: regionEnter, networks: [twitter, facebook], message: hi, precision: exact, consent: auto }\n"
                .write(to: rules, atomically: true, encoding: .utf8)
            let db = directory.appendingPathComponent("dense.db").path
            let replay = try CLITests.waypost(
                "replay", "tracks/sunnyvale-commute.kml", "--regions", regions.path, "--checkins", rules.path,
                "--privacy", "fixtures/privacy/demo.yaml", "--db", db)
            #expect(replay.status == 0, "\(replay.stderr)")
            let svg = try CLITests.waypost("report", "--db", db, "--format", "svg").stdout
            let labels = svg.matches(
                of:
                    /<text x="([-0-9.]+)" y="([-0-9.]+)" text-anchor="(middle|start|end)" fill="[^"]+">(cafe-number-\d\d)<\/text>/
            )
            let boxes = labels.compactMap { match -> (left: Double, top: Double, right: Double, bottom: Double)? in
                guard let x = Double(match.output.1), let y = Double(match.output.2) else { return nil }
                let width = Double(match.output.4.count) * 6.6
                let left = match.output.3 == "middle" ? x - width / 2 : match.output.3 == "end" ? x - width : x
                return (left, y - 11, left + width, y + 2)
            }
            #expect(boxes.count == 20)
            for (index, a) in boxes.enumerated() {
                for b in boxes[(index + 1)...] {
                    let overlap =
                        max(0, min(a.right, b.right) - max(a.left, b.left))
                        * max(0, min(a.bottom, b.bottom) - max(a.top, b.top))
                    #expect(overlap == 0, "\(a) and \(b) overlap")
                }
            }
        }
    }
}

enum LeafletAvailable {
    static let here =
        FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js")
        && FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.markercluster.js")

}
