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
}

enum LeafletAvailable {
    static let here =
        FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js")
        && FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.markercluster.js")
}
