import Foundation
import TestSupport
import Testing

/// Issue 31 item 4, end to end: the KML gpsbabel itself writes from a GPX track replays as the
/// GPX does, event for event — from a file, and down a pipe (`gpsbabel … -F - | waypost replay -`).
/// gpsbabel is installed with scripts/install-deps.sh (Debian's `gpsbabel`) when missing.
struct GpsbabelCLITests {
    /// The gpsbabel on the PATH, installed first if it is not there.
    static let gpsbabel: String? = {
        func find() -> String? {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            return path.split(separator: ":").map { "\($0)/gpsbabel" }.first {
                FileManager.default.isExecutableFile(atPath: $0)
            }
        }
        if let found = find() { return found }
        _ = try? StandardStreamsCLITests.shell("scripts/install-deps.sh gpsbabel")
        return find()
    }()

    /// Runs gpsbabel with `TZ=UTC` (its KML writer is 3× slower without a time zone set).
    static func convert(_ arguments: String, in directory: URL) throws -> CLITests.Run {
        try StandardStreamsCLITests.shell("TZ=UTC gpsbabel \(arguments)", in: directory)
    }

    @Test func gpsbabelsKMLReplaysAsTheGPXItWasWrittenFrom() throws {
        try #require(Self.gpsbabel != nil, "gpsbabel is not installed and scripts/install-deps.sh could not install it")
        try withTemporaryDirectory { directory in
            let gpx = Corpus.repositoryRoot.appendingPathComponent("tracks/stevens-creek-ride.gpx").path
            let converted = try Self.convert("-i gpx -f '\(gpx)' -o kml -F ride.kml", in: directory)
            try #require(converted.status == 0, "gpsbabel: \(converted.stderr)")
            let written = try String(contentsOf: directory.appendingPathComponent("ride.kml"), encoding: .utf8)
            // The shape this is about: Points with TimeStamps, and an untimed LineString.
            #expect(written.contains("<LineString>") && written.contains("<TimeStamp>"))
            #expect(!written.contains("gx:Track"))

            let source = try CLITests.waypost("replay", gpx, "--format", "jsonl")
            try #require(source.status == 0, "\(source.stderr)")
            let replayed = try CLITests.waypost(["replay", "ride.kml", "--format", "jsonl"], in: directory)
            #expect(replayed.status == 0, "\(replayed.stderr)")
            #expect(replayed.stderr.isEmpty, "no warning: \(replayed.stderr)")
            #expect(replayed.stdout.split(separator: "\n").count == source.stdout.split(separator: "\n").count)
            #expect(replayed.stdout == source.stdout)

            let piped = try StandardStreamsCLITests.shell(
                "TZ=UTC gpsbabel -i gpx -f '\(gpx)' -o kml -F - | \"$WAYPOST\" replay - --format jsonl", in: directory)
            #expect(piped.status == 0, "\(piped.stderr)")
            #expect(piped.stdout == source.stdout)
        }
    }

    /// A track of two segments: gpsbabel writes a MultiGeometry of two LineStrings, whose
    /// vertices take the points' times in turn.
    @Test func aTrackOfTwoSegmentsReplaysAsItsGPX() throws {
        try #require(Self.gpsbabel != nil, "gpsbabel is not installed and scripts/install-deps.sh could not install it")
        try withTemporaryDirectory { directory in
            let text = try String(
                contentsOf: Corpus.repositoryRoot.appendingPathComponent("tracks/stevens-creek-ride.gpx"),
                encoding: .utf8)
            // Split the one segment in two at its middle point.
            let points = text.ranges(of: "<trkpt ")
            try #require(points.count > 10)
            let middle = points[points.count / 2].lowerBound
            let split = String(text[..<middle]) + "</trkseg><trkseg>" + String(text[middle...])
            try split.write(to: directory.appendingPathComponent("two.gpx"), atomically: true, encoding: .utf8)
            let converted = try Self.convert("-i gpx -f two.gpx -o kml -F two.kml", in: directory)
            try #require(converted.status == 0, "gpsbabel: \(converted.stderr)")
            let written = try String(contentsOf: directory.appendingPathComponent("two.kml"), encoding: .utf8)
            #expect(written.contains("<MultiGeometry>"))

            let source = try CLITests.waypost(["replay", "two.gpx", "--format", "jsonl"], in: directory)
            try #require(source.status == 0, "\(source.stderr)")
            let replayed = try CLITests.waypost(["replay", "two.kml", "--format", "jsonl"], in: directory)
            #expect(replayed.status == 0, "\(replayed.stderr)")
            #expect(replayed.stderr.isEmpty, "\(replayed.stderr)")
            #expect(replayed.stdout == source.stdout)
        }
    }

    /// A pairing that cannot be certain — here a track point gpsbabel wrote without a time — is
    /// read as before, with one warning line naming the file, the place and the reason.
    @Test func anUncertainPairingIsOneWarningLine() throws {
        try #require(Self.gpsbabel != nil, "gpsbabel is not installed and scripts/install-deps.sh could not install it")
        try withTemporaryDirectory { directory in
            let text = try String(
                contentsOf: Corpus.repositoryRoot.appendingPathComponent("tracks/stevens-creek-ride.gpx"),
                encoding: .utf8)
            // Take the time off the fourth track point.
            let times = text.ranges(of: #/<time>[^<]*</time>/#)
            try #require(times.count > 4)
            var untimed = text
            untimed.removeSubrange(times[3])
            try untimed.write(to: directory.appendingPathComponent("gap.gpx"), atomically: true, encoding: .utf8)
            let converted = try Self.convert("-i gpx -f gap.gpx -o kml -F gap.kml", in: directory)
            try #require(converted.status == 0, "gpsbabel: \(converted.stderr)")
            let replayed = try CLITests.waypost(["replay", "gap.kml", "--summary"], in: directory)
            #expect(replayed.status == 0, "\(replayed.stderr)")
            let lines = replayed.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(replayed.stderr)")
            #expect(lines.first?.hasPrefix("waypost: warning: gap.kml:") == true, "\(replayed.stderr)")
            #expect(lines.first?.contains("has no TimeStamp: their times are not used") == true, "\(replayed.stderr)")
        }
    }
}
