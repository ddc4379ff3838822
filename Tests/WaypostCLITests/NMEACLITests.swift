import Foundation
import TestSupport
import Testing

/// Issue 31 items 5 and 6 through the tool: `replay --nmea` writes the delivered fixes as NMEA
/// 0183, and an NMEA log is a route — Waypost's own, and gpsbabel's. (gpsd and pynmea2 read the
/// stream in Tests/FormatConformance/run.sh.)
struct NMEACLITests {
    static let ride = Corpus.repositoryRoot.appendingPathComponent("tracks/stevens-creek-ride.gpx").path

    /// The `location` events of a jsonl stream, by time.
    static func fixes(_ jsonl: String) throws -> [(t: String, fix: [String: Double])] {
        try jsonl.split(separator: "\n").compactMap { line in
            let event = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard event["type"] as? String == "location", let t = event["t"] as? String else { return nil }
            var fix: [String: Double] = [:]
            for key in ["lat", "lon", "alt", "vacc", "speed", "course"] {
                fix[key] = (event[key] as? NSNumber)?.doubleValue
            }
            return (t, fix)
        }
    }

    /// `replay --nmea FILE` and then `replay FILE`: the same fixes at the same times, within
    /// what NMEA keeps (1e-5 minute of arc, 0.1 m, 0.01 knot, 0.01°).
    @Test func ownNMEAReplaysAsTheFixesItWasWrittenFrom() throws {
        try withTemporaryDirectory { directory in
            let source = try CLITests.waypost(
                ["replay", Self.ride, "--format", "jsonl", "--nmea", "ride.nmea"], in: directory)
            try #require(source.status == 0, "\(source.stderr)")
            let text = try String(contentsOf: directory.appendingPathComponent("ride.nmea"), encoding: .utf8)
            let lines = text.split(separator: "\r\n")
            #expect(text.hasSuffix("\r\n") && !text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
            #expect(lines.allSatisfy { $0.hasPrefix("$GP") && $0.utf8.count <= 80 })
            let written = try Self.fixes(source.stdout)
            #expect(lines.count == 4 * written.count)

            let again = try CLITests.waypost(["replay", "ride.nmea", "--format", "jsonl"], in: directory)
            try #require(again.status == 0, "\(again.stderr)")
            #expect(again.stderr.isEmpty, "\(again.stderr)")
            let read = try Self.fixes(again.stdout)
            #expect(read.map(\.t) == written.map(\.t))
            // NMEA's rounding, plus the event stream's own (speed to 0.001 m/s, course to 0.01°).
            let minute = 0.5e-5 / 60 + 1e-12
            for (a, b) in zip(written, read) {
                #expect(Self.near(a.fix["lat"], b.fix["lat"], minute), "\(a.t)")
                #expect(Self.near(a.fix["lon"], b.fix["lon"], minute), "\(a.t)")
                #expect(Self.near(a.fix["alt"], b.fix["alt"], 0.05 + 0.001 + 1e-9), "\(a.t)")
                #expect(Self.near(a.fix["speed"], b.fix["speed"], 0.0026 + 0.001), "\(a.t)")
                #expect(Self.near(a.fix["course"], b.fix["course"], 0.005 + 0.01 + 1e-9), "\(a.t)")
            }

            // The same through the formats: NMEA → GPX exports, and that GPX replays the same fixes.
            let exported = try CLITests.waypost(
                ["export", "ride.nmea", "--format", "gpx", "-o", "ride.gpx"], in: directory)
            try #require(exported.status == 0, "\(exported.stderr)")
            let gpx = try String(contentsOf: directory.appendingPathComponent("ride.gpx"), encoding: .utf8)
            #expect(gpx.contains("<gpxtpx:speed>") && gpx.contains("<gpxtpx:course>"))
            let viaGPX = try CLITests.waypost(["replay", "ride.gpx", "--format", "jsonl"], in: directory)
            #expect(viaGPX.stdout == again.stdout)
        }
    }

    /// Signal loss: no fix (RMC V, GGA quality 0) every second of the gap, then fixes again; with
    /// `--nmea -` standard output carries only the sentences.
    @Test func signalLossIsNoFixEverySecond() throws {
        let run = try CLITests.waypost(["replay", Self.ride, "--signal-loss", "20-40", "--nmea", "-"])
        try #require(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\r\n").map(String.init)
        #expect(lines.allSatisfy { $0.hasPrefix("$GP") }, "only sentences on standard output")
        let rmc = lines.filter { $0.hasPrefix("$GPRMC") }
        let status = rmc.map { $0.split(separator: ",", omittingEmptySubsequences: false)[2] }
        let lost = rmc.indices.filter { status[$0] == "V" }
        // The gap covers seconds 20…40 of the route: 21 samples without a fix, in a row.
        #expect(lost.count == 21)
        #expect(lost == Array((lost.first ?? 0)...(lost.last ?? 0)))
        #expect(rmc[lost.first ?? 0].hasPrefix("$GPRMC,153020.00,V,,,,,,,070625,,,N*"))
        #expect(rmc[(lost.last ?? 0) + 1].hasPrefix("$GPRMC,153041.00,A,"))
        let gga = lines.filter { $0.hasPrefix("$GPGGA") }
        #expect(gga.filter { $0.split(separator: ",", omittingEmptySubsequences: false)[6] == "0" }.count == 21)
        // Without noise a fix is exact (accuracy 0): the best HDOP there is, 0.1.
        let hdops = Set(gga.map { $0.split(separator: ",", omittingEmptySubsequences: false)[8] })
        #expect(hdops == ["0.1", ""])
    }

    /// RMC's year has two digits, read as 1980–2079: a route of 1969 is written as 69 (read
    /// back as 2069) and the replay says so, once; a route of 2025 says nothing.
    @Test func yearsNMEACannotHoldAreSaidOnce() throws {
        try withTemporaryDirectory { directory in
            let route = directory.appendingPathComponent("moon.gpx")
            let points = (0..<3).map {
                "<trkpt lat=\"37\" lon=\"-122.00\($0)\"><time>1969-07-20T20:17:0\($0)Z</time></trkpt>"
            }
            try
                "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\(points.joined())</trkseg></trk></gpx>"
                .write(to: route, atomically: true, encoding: .utf8)
            let run = try CLITests.waypost(["replay", route.path, "--nmea", "-"])
            #expect(run.status == 0 && run.stdout.contains(",200769,"), "\(run.stdout)")
            #expect(run.stderr.components(separatedBy: "two-digit year").count == 2, "once: \(run.stderr)")
            let now = try CLITests.waypost(["replay", Self.ride, "--nmea", "-"])
            #expect(!now.stderr.contains("two-digit year"), "\(now.stderr)")
        }
    }

    /// A FIFO (or a device such as /dev/null) named as the output is written into, not renamed
    /// over: as root, `-o /dev/null` replaced the machine's /dev/null with a file.
    @Test func aFIFOIsWrittenInPlaceNotReplaced() throws {
        try withTemporaryDirectory { directory in
            let run = try StandardStreamsCLITests.shell(
                """
                mkfifo nmea.fifo gpx.fifo
                cat nmea.fifo > nmea.out & cat gpx.fifo > gpx.out &
                "$WAYPOST" replay '\(Self.ride)' --nmea nmea.fifo > /dev/null &&
                "$WAYPOST" export '\(Self.ride)' --format gpx -o gpx.fifo && wait && test -p nmea.fifo && test -p gpx.fifo
                """, in: directory)
            #expect(run.status == 0, "\(run.stderr)")
            let nmea = try String(contentsOf: directory.appendingPathComponent("nmea.out"), encoding: .utf8)
            let gpx = try String(contentsOf: directory.appendingPathComponent("gpx.out"), encoding: .utf8)
            #expect(nmea.hasPrefix("$GPGGA,153000.00,"))
            #expect(gpx.hasPrefix("<?xml") && gpx.hasSuffix("</gpx>\n"))
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }
            #expect(left.isEmpty, "temporary files left: \(left)")
        }
    }

    /// `--nmea` onto the route being replayed (itself, or through a link) is refused before
    /// anything is written: the sentences replaced the user's route.
    @Test func theSentencesNeverOverwriteTheRoute() throws {
        try withTemporaryDirectory { directory in
            let route = directory.appendingPathComponent("ride.gpx")
            try FileManager.default.copyItem(at: URL(fileURLWithPath: Self.ride), to: route)
            let link = directory.appendingPathComponent("link.gpx")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: route)
            let before = try Data(contentsOf: route)
            for output in [route.path, link.path] {
                let run = try CLITests.waypost("replay", route.path, "--nmea", output)
                #expect(run.status == 64, "\(run.stderr)")
                #expect(run.stderr.contains("is the route being replayed"), "\(run.stderr)")
            }
            #expect(try Data(contentsOf: route) == before)
        }
    }

    @Test func optionsThatCannotGoTogetherAreUsageErrors() throws {
        for (arguments, message) in [
            (["--nmea-serve", "0"], "--nmea-serve needs --realtime"),
            (["--nmea-host", "::1"], "--nmea-host needs --nmea-serve"),
            (["--nmea", "-", "--summary"], "--summary cannot go there too"),
            (["--nmea-serve", "70000", "--realtime"], "--nmea-serve"),
        ] {
            let run = try CLITests.waypost(["replay", Self.ride] + arguments)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr.contains(message), "\(run.stderr)")
        }
    }

    /// A log with a bad checksum and a cut-off last line reads, with one warning naming the first;
    /// so does one with a checksummed sentence whose field is bad (gpsd and gpsbabel drop it).
    @Test func badSentencesAreDroppedOrNamed() throws {
        try withTemporaryDirectory { directory in
            let good = try CLITests.waypost(["replay", Self.ride, "--nmea", "-"])
            var lines = good.stdout.split(separator: "\r\n").map(String.init).prefix(40).map { $0 }
            lines[6] = String(lines[6].dropLast(2)) + (lines[6].hasSuffix("00") ? "01" : "00")
            let text = lines.joined(separator: "\r\n") + "\r\n$GPRMC,153010.00,A,37"
            try text.write(to: directory.appendingPathComponent("bad.nmea"), atomically: true, encoding: .utf8)
            let run = try CLITests.waypost(["replay", "bad.nmea", "--format", "jsonl"], in: directory)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(
                run.stderr.hasPrefix("waypost: warning: bad.nmea:7:")
                    && run.stderr.contains(": 2 sentences dropped (a bad checksum, an incomplete line or a bad field"),
                "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)

            var broken = lines
            // The first epoch's GGA, its hemisphere made Q and its checksum made good.
            broken[0] =
                "$" + String(broken[0].dropFirst().prefix { $0 != "*" }.replacingOccurrences(of: ",N,", with: ",Q,"))
            broken[0] = broken[0] + "*" + String(format: "%02X", broken[0].utf8.dropFirst().reduce(UInt8(0), ^))
            try (broken.joined(separator: "\r\n") + "\r\n").write(
                to: directory.appendingPathComponent("field.nmea"), atomically: true, encoding: .utf8)
            let read = try CLITests.waypost(
                ["export", "field.nmea", "--format", "gpx", "-o", "out.gpx"], in: directory)
            #expect(read.status == 0, "\(read.stderr)")
            #expect(read.stderr.hasPrefix("waypost: warning: field.nmea:1:"), "\(read.stderr)")
            #expect(read.stderr.contains("2 sentences dropped"), "\(read.stderr)")  // and line 7's checksum
            #expect(read.stderr.contains("is not a hemisphere (N or S)"), "\(read.stderr)")
            #expect(read.stderr.split(separator: "\n").count == 1)
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("out.gpx").path))
        }
    }

    /// gpsbabel's NMEA of a GPX reads back as the GPX, within what gpsbabel writes (3 decimals of
    /// minutes: 0.0005′ ≈ 0.9 m; 1 mm of altitude; 1 ms). gpsbabel marks a point without `<fix>`
    /// as no fix (RMC V, GGA 0), which a receiver's reader must drop: the ride is given `<fix>3d</fix>`.
    @Test func gpsbabelsNMEAReadsBackAsTheGPX() throws {
        try #require(GpsbabelCLITests.gpsbabel != nil, "gpsbabel is not installed and could not be installed")
        try withTemporaryDirectory { directory in
            let text = try String(contentsOfFile: Self.ride, encoding: .utf8)
            try text.replacingOccurrences(of: "</time></trkpt>", with: "</time><fix>3d</fix></trkpt>").write(
                to: directory.appendingPathComponent("ride.gpx"), atomically: true, encoding: .utf8)
            let converted = try GpsbabelCLITests.convert("-i gpx -f ride.gpx -o nmea -F ride.nmea", in: directory)
            try #require(converted.status == 0, "\(converted.stderr)")
            let exported = try CLITests.waypost(["export", "ride.nmea", "--format", "gpx", "-o", "-"], in: directory)
            try #require(exported.status == 0, "\(exported.stderr)")
            try Self.expectSamePoints(exported.stdout, as: text, degrees: 0.0005 / 60, metres: 0.0005)

            // Without <fix>, gpsbabel says "no fix" throughout, and Waypost says why it reads nothing.
            let unfixed = try StandardStreamsCLITests.shell(
                "TZ=UTC gpsbabel -i gpx -f '\(Self.ride)' -o nmea -F - | \"$WAYPOST\" replay -", in: directory)
            #expect(unfixed.status == 65)
            #expect(unfixed.stderr.contains("no fix"), "\(unfixed.stderr)")
        }
    }

    /// gpsbabel reads Waypost's NMEA with each point where the replay had it at that time: it
    /// makes a point of each GGA and dates it by the RMC after, so epochs begun by RMC put every
    /// point one fix late (a black-box hunt: ~29 m off at 29 m/s).
    @Test func gpsbabelReadsEachPointAtItsOwnTime() throws {
        try #require(GpsbabelCLITests.gpsbabel != nil, "gpsbabel is not installed and could not be installed")
        try withTemporaryDirectory { directory in
            let replay = try CLITests.waypost(
                [
                    "replay", Corpus.repositoryRoot.appendingPathComponent("tracks/i280-drive.kml").path, "--speed",
                    "29",
                    "--nmea", "drive.nmea", "--format", "jsonl",
                ], in: directory)
            try #require(replay.status == 0, "\(replay.stderr)")
            let fixes = replay.stdout.split(separator: "\n").filter { $0.contains(#""type":"location""#) }.prefix(5)
                .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .map {
                    (
                        String(($0["t"] as? String ?? "").dropFirst(11).prefix(8)), $0["lat"] as? Double ?? 0,
                        $0["lon"] as? Double ?? 0
                    )
                }
            let read = try GpsbabelCLITests.convert(
                "-i nmea -f drive.nmea -x transform,wpt=trk -o unicsv -F drive.csv", in: directory)
            try #require(read.status == 0, "\(read.stderr)")
            let rows = try String(contentsOf: directory.appendingPathComponent("drive.csv"), encoding: .utf8)
                .split(whereSeparator: \.isNewline).map {
                    $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                }
            let header = try #require(rows.first)
            let (time, latitude, longitude) = try (
                #require(header.firstIndex(of: "Time")), #require(header.firstIndex(of: "Latitude")),
                #require(header.firstIndex(of: "Longitude"))
            )
            try #require(fixes.count == 5 && rows.count > 5)
            for (fix, row) in zip(fixes, rows.dropFirst()) {
                #expect(row[time] == fix.0, "\(row) against \(fix)")
                #expect(
                    abs((Double(row[latitude]) ?? 0) - fix.1) < 1e-6
                        && abs((Double(row[longitude]) ?? 0) - fix.2) < 1e-6,
                    "gpsbabel has \(row[latitude]),\(row[longitude]) at \(row[time]); the replay \(fix.1),\(fix.2)")
            }
        }
    }

    /// gpsbabel's reference track with fixes of every kind, across years and to the millisecond,
    /// the last one at 23:59:59.999 on New Year's Eve.
    @Test(.needsCorpus) func gpsbabelsNMEAOfItsReferenceTrackReadsBack() throws {
        try #require(GpsbabelCLITests.gpsbabel != nil, "gpsbabel is not installed and could not be installed")
        try withTemporaryDirectory { directory in
            let gpx = try Corpus.url("gpsbabel/reference/track/nmeadate.gpx").path
            let converted = try GpsbabelCLITests.convert("-i gpx -f '\(gpx)' -o nmea -F date.nmea", in: directory)
            try #require(converted.status == 0, "\(converted.stderr)")
            let exported = try CLITests.waypost(
                ["export", "date.nmea", "--format", "gpx", "-o", "-"], in: directory)
            try #require(exported.status == 0, "\(exported.stderr)")
            try Self.expectSamePoints(
                exported.stdout, as: String(contentsOfFile: gpx, encoding: .utf8), degrees: 0.0005 / 60, metres: 0.0005)
        }
    }

    static func near(_ a: Double?, _ b: Double?, _ tolerance: Double) -> Bool {
        guard let a, let b else { return false }
        return abs(a - b) <= tolerance
    }

    /// Every `trkpt` of `gpx` and `expected` at the same place (within `degrees`), height (within
    /// `metres`) and time (to the millisecond).
    static func expectSamePoints(_ gpx: String, as expected: String, degrees: Double, metres: Double) throws {
        let a = try points(gpx)
        let b = try points(expected)
        #expect(a.count == b.count && !a.isEmpty)
        let tolerance = degrees + 1e-9
        for (p, q) in zip(a, b) {
            #expect(near(p.lat, q.lat, tolerance) && near(p.lon, q.lon, tolerance), "\(p) \(q)")
            #expect(near(p.ele, q.ele, metres + 1e-9), "\(p) \(q)")
            #expect(near(p.time, q.time, 0.0005), "\(p) \(q)")
        }
    }

    static func points(_ gpx: String) throws -> [(lat: Double, lon: Double, ele: Double, time: Double)] {
        let pattern = try NSRegularExpression(
            pattern: #"<trkpt lat="([-0-9.]+)" lon="([-0-9.]+)">\s*<ele>([-0-9.]+)</ele>\s*<time>([^<]+)</time>"#)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        return pattern.matches(in: gpx, range: NSRange(gpx.startIndex..., in: gpx)).compactMap { match in
            func group(_ i: Int) -> String {
                Range(match.range(at: i), in: gpx).map { String(gpx[$0]) } ?? ""
            }
            guard let lat = Double(group(1)), let lon = Double(group(2)), let ele = Double(group(3)),
                let time = formatter.date(from: group(4)) ?? plain.date(from: group(4))
            else { return nil }
            return (lat, lon, ele, time.timeIntervalSince1970)
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `--nmea-serve` over a real socket: a plain TCP client (the part gpsd plays in
/// Tests/FormatConformance/run.sh) gets the very sentences `--nmea -` writes for the same replay.
struct NMEAServeCLITests {
    @Test func aTCPClientGetsTheSentencesTheFileGets() throws {
        try withTemporaryDirectory { directory in
            // The ride's first 20 points (40 s), served at 200 times real time.
            let text = try String(contentsOfFile: NMEACLITests.ride, encoding: .utf8)
            let points = text.ranges(of: "<trkpt ")
            try #require(points.count > 21)
            let short = String(text[..<points[20].lowerBound]) + "</trkseg></trk></gpx>\n"
            try short.write(to: directory.appendingPathComponent("short.gpx"), atomically: true, encoding: .utf8)
            let expected = try CLITests.waypost(
                ["replay", "short.gpx", "--signal-loss", "10-15", "--nmea", "-"], in: directory)
            try #require(expected.status == 0, "\(expected.stderr)")

            let process = Process()
            process.executableURL = CLITests.executable
            process.arguments = [
                "replay", "short.gpx", "--signal-loss", "10-15", "--nmea-serve", "0", "--realtime", "--rate", "200",
            ]
            process.currentDirectoryURL = directory
            let err = Pipe()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = err
            try process.run()
            defer { if process.isRunning { process.terminate() } }
            // The banner names the port; the replay waits for this client.
            var banner = ""
            while !banner.contains("\n") {
                let chunk = err.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                banner += String(decoding: chunk, as: UTF8.self)
            }
            let prefix = "waypost: serving NMEA 0183 on tcp://127.0.0.1:"
            try #require(banner.hasPrefix(prefix), "\(banner)")
            let port = try #require(UInt16(banner.dropFirst(prefix.count).prefix { $0.isNumber }))
            let received = try Self.readAll(fromPort: port)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(received == expected.stdout)
            #expect(received.contains("$GPRMC,153010.00,V,"))
        }
    }

    /// Connects to 127.0.0.1:`port` and reads until the server closes the connection.
    static func readAll(fromPort port: UInt16) throws -> String {
        let client = try LoopbackSocket.connected(to: Int(port))
        defer { close(client) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if got > 0 {
                bytes += buffer[0..<got]
            } else if got < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
