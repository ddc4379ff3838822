import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `waypost` executable as a user runs it: output, exit codes, nothing half-written.
struct CLITests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let executable: URL = {
        // Test bundles are built next to the products.
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [
            beside, beside.deletingLastPathComponent(), Bundle.main.bundleURL.deletingLastPathComponent(),
        ] {
            let url = candidate.appendingPathComponent("waypost")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return beside.appendingPathComponent("waypost")
    }()

    static func waypost(_ arguments: String...) throws -> Run {
        try waypost(arguments)
    }

    /// Runs the tool in `directory` (the checkout by default).
    /// `standardOutput` replaces the pipe its output is read from (`stdout` is then empty);
    /// `through` runs another program instead, the arguments given to it (`setpriv`, to run the
    /// tool as another user).
    static func waypost(
        _ arguments: [String], in directory: URL = Corpus.repositoryRoot, standardOutput: FileHandle? = nil,
        environment: [String: String] = [:], through program: URL? = nil, standardInput: FileHandle? = nil
    ) throws -> Run {
        let process = Process()
        process.executableURL = program ?? executable
        if let standardInput { process.standardInput = standardInput }
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.currentDirectoryURL = directory
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = standardOutput ?? out
        process.standardError = err
        try process.run()
        let bound = ProcessBound(process)
        let stdout = standardOutput == nil ? out.fileHandleForReading.readDataToEndOfFile() : Data()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        try #require(
            bound.wait(for: process), "waypost \(arguments.joined(separator: " ")) hung: killed after 15 minutes")
        return Run(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test func replayPrintsTheEventStream() throws {
        let run = try Self.waypost("replay", "tracks/cupertino-walk.kml", "--format", "jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        var previous = ""
        var types: [String] = []
        for line in lines {
            let event = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let type = try #require(event["type"] as? String)
            types.append(type)
            if type == "location" {
                #expect(event["service"] as? String == "standard")
                for key in ["lat", "lon", "alt", "hacc", "vacc", "speed", "course"] {
                    #expect(event[key] is NSNumber, "\(key)")
                }
            }
            let t = try #require(event["t"] as? String)
            #expect(t.count == 24 && t.hasSuffix("Z"))  // ISO-8601 UTC with milliseconds
            #expect(t >= previous)
            previous = t
        }
        // Authorization at creation, the prompt's answer, then a fix a second for 55:58 min.
        #expect(types.prefix(2) == ["authorization", "authorization"])
        #expect(types.dropFirst(2).allSatisfy { $0 == "location" })
        #expect(types.count == 2 + 3359)
        #expect(lines[1] == #"{"t":"2025-06-02T16:00:00.000Z","type":"authorization","status":"authorizedAlways"}"#)
        #expect(lines[2].hasPrefix(#"{"t":"2025-06-02T16:00:00.000Z","type":"location","lat":37.331817"#))
    }

    @Test func replayIsDeterministic() throws {
        let a = try Self.waypost("replay", "tracks/sunnyvale-commute.kml", "--format", "jsonl")
        let b = try Self.waypost("replay", "tracks/sunnyvale-commute.kml", "--format", "jsonl")
        #expect(a.status == 0)
        #expect(a.stdout == b.stdout)
        #expect(!a.stdout.isEmpty)
    }

    @Test func untimedDrivesAreTimedAtTheGivenSpeed() throws {
        let run = try Self.waypost(
            "replay", "tracks/i280-drive.kml", "--speed", "29", "--format", "jsonl", "--start", "2025-06-01T08:00:00Z")
        #expect(run.status == 0, "\(run.stderr)")
        let events = try run.stdout.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let fixes = events.filter { $0["type"] as? String == "location" }
        #expect(fixes.first?["t"] as? String == "2025-06-01T08:00:00.000Z")
        #expect(fixes.allSatisfy { abs(($0["speed"] as? Double ?? 0) - 29) < 0.01 })
        #expect(fixes.count > 550)  // ≈ 17 km at 29 m/s, a sample a second
    }

    @Test func textReplayIsReadable() throws {
        let run = try Self.waypost("replay", "tracks/stevens-creek-ride.gpx", "--summary")
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.first == "2025-06-07T15:30:00.000Z  authorization   notDetermined")
        #expect(lines[2].hasPrefix("2025-06-07T15:30:00.000Z  location        37.374390,-122.064397  ±0 m  alt 29.8 m"))
        // 608 points 2 s apart, filled to a fix a second.
        #expect(
            lines.last
                == "summary: 1225 fixes, 0 significant changes, 0 enters, 0 exits, 0 monitoring failures, 0 errors, 0 visits"
        )
    }

    @Test(.needsCorpus) func badInputGivesOneLineAndExit65() throws {
        let corpus = Corpus.root.path
        let run = try Self.waypost("replay", "\(corpus)/libkml/testdata/kml/billion.kml")
        #expect(run.status == 65)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(run.stderr.hasPrefix("waypost: error: \(corpus)/libkml/testdata/kml/billion.kml:7:19: DOCTYPE"))
    }

    @Test func missingInputIsExit66AndUsageIsExit64() throws {
        let missing = try Self.waypost("replay", "no-such-route.kml")
        #expect(missing.status == 66)
        #expect(missing.stderr == "waypost: error: no-such-route.kml: no such file\n")
        #expect(try Self.waypost("replay", "tracks/i280-drive.kml", "--speed", "-3").status == 64)
        #expect(try Self.waypost("replay").status == 64)
        #expect(try Self.waypost("export", "tracks/i280-drive.kml", "--format", "shp").status == 64)
        #expect(try Self.waypost("replay", "tracks/i280-drive.kml", "--start", "noon").status == 64)
    }

    @Test func oauthSignPrintsBaseStringSignatureAndHeaderButNoSecrets() throws {
        let run = try Self.waypost(
            "oauth-sign", "--method", "POST", "--url",
            "https://api.twitter.com/1.1/statuses/update.json?include_entities=true", "--param",
            "status=Hello Ladies + Gentlemen, a signed OAuth request!", "--consumer-key", "xvz1evFS4wEEPTGEFPHBog",
            "--consumer-secret", "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw", "--token",
            "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", "--token-secret",
            "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE", "--nonce", "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg",
            "--timestamp", "1318622958")
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(
            lines[0].hasPrefix(
                "signature base string: POST&https%3A%2F%2Fapi.twitter.com%2F1.1%2Fstatuses%2Fupdate.json&"))
        #expect(lines[1] == "signature: hCtSmYh+iHYCEqBWrE7C7hYmtUk=")
        #expect(lines[2].hasPrefix("Authorization: OAuth oauth_consumer_key=\"xvz1evFS4wEEPTGEFPHBog\""))
        // The form body to send, as signed.
        #expect(lines[3] == "body: status=Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21")
        #expect(!run.stdout.contains("kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw"))
        #expect(!run.stdout.contains("LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"))
        // GET parameters join the query; an unpaired token is a usage error.
        let get = try Self.waypost(
            "oauth-sign", "--url", "http://photos.example.net/photos", "--param", "file=vacation.jpg", "--param",
            "size=original", "--consumer-key", "dpf43f3p2l4k3l03", "--consumer-secret", "kd94hf93k423kf44", "--token",
            "nnch734d00sl2jdk", "--token-secret", "pfkkdhi9sl3r4s00", "--nonce", "kllo9940pd9333jh", "--timestamp",
            "1191242096")
        #expect(get.stdout.contains("signature: tR3+Ty81lMeYAr/Fid0kMTYa/WM=\n"))
        #expect(
            try Self.waypost("oauth-sign", "--url", "x", "--consumer-key", "a", "--consumer-secret", "b").status == 64)
        #expect(
            try Self.waypost(
                "oauth-sign", "--url", "https://example.com/", "--consumer-key", "a", "--consumer-secret", "b",
                "--token",
                "t"
            ).status == 64)
    }

    @Test func emulatorFixturesThatAreWrongSayWhichFileAndWhere() throws {
        let missing = try Self.waypost("emulator", "--fixtures", "fixtures")
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("fixtures/twitter-places.json: no such file"), "\(missing.stderr)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-fixtures-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"places":[{"id":"p1","name":"Cafe","full_name":"Cafe","place_type":"poi","country":"US"}]}"#.utf8)
            .write(to: directory.appendingPathComponent("twitter-places.json"))
        let malformed = try Self.waypost("emulator", "--fixtures", directory.path)
        #expect(malformed.status == 65)
        #expect(
            malformed.stderr.contains("twitter-places.json:1:12: places[0]: missing \"country_code\""),
            "\(malformed.stderr)")
        #expect(malformed.stderr.split(separator: "\n").count == 1)
        try Data("{\"places\": [\n  {\"id\": 1,,}]}".utf8).write(
            to: directory.appendingPathComponent("twitter-places.json"))
        let broken = try Self.waypost("emulator", "--fixtures", directory.path)
        #expect(broken.status == 65)
        #expect(broken.stderr.contains("twitter-places.json:2:12: not JSON (RFC 8259): "), "\(broken.stderr)")
    }

    /// From an empty directory: the places are built into the tool.
    @Test func emulatorServesUntilInterrupted() async throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-empty-\(getpid())")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let emulator = try EmulatorProcess(in: empty)
        #expect(emulator.banner.hasPrefix("Waypost emulator listening on http://127.0.0.1:"))
        let url = try #require(
            URL(
                string: emulator.base
                    + "search?type=place&center=37.3236,-122.0315&distance=300&access_token=waypost-demo-graph-token"))
        let (data, response) = try await URLSession.shared.data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).contains("Stevens Creek Coffee House"))
        emulator.stop()  // SIGINT: a clean shutdown
        #expect(emulator.process.terminationStatus == 0)
    }

    /// A user's own repository: a scenario with its route, outside the checkout, run from there;
    /// then the same scenario naming its own places file, relative to itself.
    @Test func scenariosRunFromAnyDirectoryWithBuiltInOrTheirOwnPlaces() throws {
        try withTemporaryDirectory { directory in
            let root = Corpus.repositoryRoot
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("routes"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: root.appendingPathComponent("tracks/sunnyvale-commute.kml"),
                to: directory.appendingPathComponent("routes/commute.kml"))
            let scenario = """
                name: my-cafe
                device: { route: routes/commute.kml }
                regions:
                  - { identifier: roasters, latitude: 37.37700, longitude: -122.03050, radius: 150 }
                privacy: { optIn: true, disclosureAcknowledged: true, consent: auto, precision: place }
                rules:
                  - { id: cafe, on: regionEnter, networks: [facebook], message: "At {place}" }
                expect:
                  - { post: facebook, decision: posted, place: Sunnyvale Coffee Roasters, count: 1 }

                """
            try scenario.write(to: directory.appendingPathComponent("cafe.yaml"), atomically: true, encoding: .utf8)
            let builtIn = try Self.waypost(["test", "cafe.yaml"], in: directory)
            #expect(builtIn.status == 0, "\(builtIn.stdout)\(builtIn.stderr)")
            // Its own places, where the page at the café has another name: the expectation fails.
            let places = directory.appendingPathComponent("places")
            try FileManager.default.createDirectory(at: places, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: root.appendingPathComponent("fixtures/places/twitter-places.json"),
                to: places.appendingPathComponent("twitter-places.json"))
            try Data(
                #"{"data": [{"id": "9", "name": "My Own Roastery", "location": {"latitude": 37.377, "longitude": -122.0305}}]}"#
                    .utf8
            ).write(to: places.appendingPathComponent("facebook-pages.json"))
            try (scenario + "places: places\n").write(
                to: directory.appendingPathComponent("own.yaml"), atomically: true, encoding: .utf8)
            let own = try Self.waypost(["test", "own.yaml"], in: directory)
            #expect(own.status == 1, "\(own.stdout)\(own.stderr)")
            try (scenario + "places: nowhere\n").write(
                to: directory.appendingPathComponent("bad.yaml"), atomically: true, encoding: .utf8)
            let bad = try Self.waypost(["test", "bad.yaml"], in: directory)
            #expect(bad.status == 65 && bad.stdout.contains("bad.yaml:10:9: 'nowhere' does not exist"), "\(bad.stdout)")
        }
    }

    /// Beyond loopback the emulator says so, and asks for a control token when none is given; one
    /// in `WAYPOST_CONTROL_TOKEN` (which other users cannot read, as they can a command line) counts.
    @Test func listeningBeyondLoopbackIsWarnedAbout() throws {
        for (environment, expected) in [
            ([:], "give --control-token or WAYPOST_CONTROL_TOKEN"),
            (["WAYPOST_CONTROL_TOKEN": "s3cret"], "its control plane needs the control token"),
        ] {
            let process = Process()
            process.executableURL = Self.executable
            process.arguments = ["emulator", "--host", "0.0.0.0", "--port", "0"]
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            let out = Pipe()
            let err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            _ = out.fileHandleForReading.availableData  // the banner: it is listening
            var warning = Data()
            while !warning.contains(UInt8(ascii: "\n")) {
                let chunk = err.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                warning.append(chunk)
            }
            process.interrupt()
            process.waitUntilExit()
            let text = String(decoding: warning, as: UTF8.self)
            #expect(text.hasPrefix("waypost: warning: listening on 0.0.0.0, beyond loopback"), "\(text)")
            #expect(text.contains(expected), "\(text)")
        }
    }

    /// Numbers that would make an endless run are refused up front, one line, exit 64 / 65.
    @Test func absurdSpeedsAndDurationsAreRefusedNotFatal() throws {
        for arguments in [
            ["replay", "tracks/cupertino-walk.kml", "--speed", "1e-300"],
            ["replay", "tracks/cupertino-walk.kml", "--sample-interval", "1e-300"],
        ] {
            let run = try Self.waypost(arguments)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
        }
        try withTemporaryDirectory { directory in
            let scenario = """
                name: forever
                device: { route: \(Corpus.repositoryRoot.path)/tracks/cupertino-walk.kml }
                expect:
                  - { event: location, after: 1e308m }

                """
            try scenario.write(to: directory.appendingPathComponent("forever.yaml"), atomically: true, encoding: .utf8)
            let run = try Self.waypost(["test", "forever.yaml"], in: directory)
            #expect(run.status == 65, "\(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains("forever.yaml:4:"), "\(run.stdout)")
        }
    }

    /// Issue 27: numeric options that would overflow further in (`--rate 1e-12` died with SIGILL,
    /// a retention of 10^20 weeks trapped describing itself) are usage errors, exit 64, whose line
    /// names the option, the value and the allowed range.
    @Test(arguments: [
        (
            ["replay", "tracks/cupertino-walk.kml", "--realtime", "--rate", "1e-12"],
            "--rate 1e-12 is out of range: 0.001…1000000 times real time"
        ),
        (["replay", "tracks/cupertino-walk.kml", "--realtime", "--rate", "nan"], "--rate nan is out of range"),
        // Events at "10000-01-01T00:08:57.517Z": not an ISO-8601 time (a black-box hunt of the CLI).
        (
            ["replay", "tracks/i280-drive.kml", "--speed", "29", "--start", "9999-12-31T23:59:00Z"],
            "--start '9999-12-31T23:59:00Z' is out of range: it must be before 9900-01-01T00:00:00Z"
        ),
        (
            ["replay", "tracks/cupertino-walk.kml", "--speed", "1e-300"],
            "--speed 1e-300 is out of range: 0.01…1000 m/s"
        ),
        (
            ["replay", "tracks/cupertino-walk.kml", "--sample-interval", "inf"],
            "--sample-interval inf is out of range: 0.01…3600 seconds"
        ),
        (
            ["replay", "tracks/cupertino-walk.kml", "--distance-filter", "nan"],
            "--distance-filter nan is out of range: -1 (every fix), or 0…40075017 metres"
        ),
        (["replay", "tracks/cupertino-walk.kml", "--max-fixes", "0"], "--max-fixes 0 is out of range: 1…"),
        (["replay", "tracks/cupertino-walk.kml", "--ios-version", "99"], "--ios-version 99 is out of range: "),
        (
            ["replay", "tracks/cupertino-walk.kml", "--temporary-full-accuracy-at", "1e300"],
            "--temporary-full-accuracy-at 1e+300 is out of range: 0…3155760000 seconds from the start"
        ),
        (["replay", "tracks/cupertino-walk.kml", "--signal-loss", "0-1e300"], "each 0…3155760000 (a century)"),
        (
            ["replay", "tracks/cupertino-walk.kml", "--seed=-1"],
            "The value '-1' is invalid for '--seed <seed>': out of range: a whole number 0…18446744073709551615"
        ),
        (
            ["replay", "tracks/cupertino-walk.kml", "--max-wait", "1e300"],
            "--max-wait 1e+300 is out of range: 0…86400 seconds"
        ),
        (
            ["test", "fixtures/scenarios/two-devices.yaml", "--time-budget", "1e300"],
            "--time-budget 1e+300 is out of range: 0…31536000 seconds (a year)"
        ),
        (["test", "fixtures/scenarios/two-devices.yaml", "--jobs", "0"], "--jobs 0 is out of range: 1…"),
        (["emulator", "--port", "70000"], "--port 70000 is out of range: 0…65535"),
        (
            ["outbox", "flush", "--seed", "18446744073709551616", "--db", "/nonexistent/x.db"],
            "out of range: a whole number 0…18446744073709551615"
        ),
    ])
    func numericOptionsOutOfRangeAreUsageErrors(_ arguments: [String], _ message: String) throws {
        let run = try Self.waypost(arguments)
        #expect(run.status == 64, "\(arguments): \(run.stderr)")
        #expect(run.stderr.split(separator: "\n").first?.contains(message) == true, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// A black-box hunt: options that change nothing were taken, exit 0, the output byte for byte
    /// a run's without them — a user believing a rural phone was tested. Each is refused, as
    /// `--rate` without `--realtime` is.
    @Test(arguments: [
        (["--environment", "urban"], "--environment is for --realism field or device"),
        (["--wifi", "off"], "--wifi is for --realism field or device"),
        (["--live-configuration", "fitness"], "--live-configuration is for --api live-updates"),
        (
            ["--temporary-full-accuracy-at", "30"],
            "--temporary-full-accuracy-at is for --accuracy-authorization reduced"
        ),
    ])
    func optionsThatWouldChangeNothingAreRefused(_ options: [String], _ message: String) throws {
        let run = try Self.waypost(["replay", "tracks/cupertino-walk.kml", "--summary"] + options)
        #expect(run.status == 64, "\(options): \(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
        let meant = try Self.waypost(
            [
                "replay", "tracks/cupertino-walk.kml", "--summary", "--realism", "field", "--api", "live-updates",
                "--accuracy-authorization", "reduced", "--ios-version", "17",
            ] + options)
        #expect(meant.status == 0, "\(options): \(meant.stderr)")
    }

    /// Durations read as the command runs: past a century, one line and 64, nothing changed.
    @Test func durationsPastACenturyAreOneUsageLine() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("w.db").path
            for arguments in [
                ["history", "retention", "99999999999999999999w", "--db", db],
                ["history", "purge", "--before", "99999999999999999999w", "--db", db],
            ] {
                let run = try Self.waypost(arguments)
                #expect(run.status == 64, "\(arguments): \(run.stderr)")
                #expect(
                    run.stderr
                        == "waypost: error: \(arguments[1] == "retention" ? "retention" : "--before") '99999999999999999999w' "
                        + "is out of range: an age such as 7d, 12h or 30m, "
                        + "\(arguments[1] == "retention" ? "more than 0" : "from 0") up to a century (36600d)\n")
            }
        }
    }

    /// A full disk used to stop the tool with a Foundation trap and a backtrace (exit 132); an
    /// `--output` file's temporary sibling was left behind.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "Linux's /dev/full"))
    func aFullDiskIsOneErrorAndEXIOERR() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("run.db").path
            let kept = try Self.waypost(
                "replay", "tracks/sunnyvale-commute.kml", "--regions", "fixtures/regions/commute-cafes.yaml",
                "--checkins", "fixtures/rules/coffee.yaml", "--privacy", "fixtures/privacy/demo.yaml", "--db", db,
                "--summary")
            #expect(kept.status == 0, "\(kept.stderr)")
            for arguments in [
                ["export", "tracks/cupertino-walk.kml", "--format", "gpx"],
                ["replay", "tracks/cupertino-walk.kml", "--format", "jsonl"],
                ["replay", "tracks/cupertino-walk.kml", "--summary"],
                ["emulator", "--port", "0"],  // its banner; the server stops
                // What `print` writes is checked as the process ends (these exited 0, silent).
                ["audit", "--db", db], ["audit", "--db", db, "--format", "csv"], ["outbox", "list", "--db", db],
                ["--version"], ["help", "regions"],
                [
                    "oauth-sign", "--url", "https://api.twitter.com/1.1/account/verify_credentials.json",
                    "--consumer-key", "k", "--consumer-secret", "s",
                ],
            ] {
                let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
                let run = try Self.waypost(arguments, standardOutput: full)
                #expect(run.status == 74, "\(arguments)")
                #expect(
                    run.stderr == "waypost: error: standard output: cannot write (no space left on device)\n",
                    "\(arguments)")
            }
        }
    }

    /// A timed track across the antimeridian is filled the short way: its fixes stay by the
    /// line, and a fence on it is never left (a user's went round the globe through 54° E, with
    /// an exit and an entry on the way). And a timed gap fills fixes that --max-fixes counts: a
    /// file with two points centuries apart (gpsbabel's bigtime.gpx) is refused at once, where
    /// it filled for hours.
    @Test func timedGapsAreFilledTheShortWayAndCounted() throws {
        try withTemporaryDirectory { directory in
            func gpx(_ points: [(Double, String)]) -> String {
                #"<gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
                    + points.map { #"<trkpt lat="-16.5" lon="\#($0.0)"><time>\#($0.1)</time></trkpt>"# }.joined()
                    + "</trkseg></trk></gpx>\n"
            }
            let dateline = directory.appendingPathComponent("dateline.gpx")
            try gpx([(179.999, "2025-01-01T00:00:00Z"), (-179.999, "2025-01-01T00:01:00Z")]).write(
                to: dateline, atomically: true, encoding: .utf8)
            let regions = directory.appendingPathComponent("dateline.yaml")
            try "- {identifier: dateline, latitude: -16.5, longitude: 180, radius: 300}\n".write(
                to: regions, atomically: true, encoding: .utf8)
            let run = try Self.waypost("replay", dateline.path, "--regions", regions.path, "--format", "jsonl")
            #expect(run.status == 0, "\(run.stderr)")
            let fixes = run.stdout.split(separator: "\n").filter { $0.contains(#""type":"location""#) }
            #expect(fixes.count == 61)
            #expect(
                fixes.allSatisfy {
                    $0.contains(#""lon":179.99"#) || $0.contains(#""lon":-179.99"#) || $0.contains(#""lon":180"#)
                })
            #expect(!run.stdout.contains("regionExit") && !run.stdout.contains("regionEnter"), "\(run.stdout)")

            let centuries = directory.appendingPathComponent("centuries.gpx")
            try gpx([(1, "1234-01-01T00:00:00Z"), (1.001, "4096-01-01T00:00:00Z")]).write(
                to: centuries, atomically: true, encoding: .utf8)
            let refused = try Self.waypost("replay", centuries.path, "--summary")
            #expect(refused.status == 65)
            #expect(refused.stderr.contains("more than --max-fixes 5000000"), "\(refused.stderr)")
            let export = try Self.waypost("export", centuries.path, "--format", "adb", "--sample-interval", "1")
            #expect(export.status == 65 && export.stdout.isEmpty, "\(export.stderr)")
            let hour = directory.appendingPathComponent("hour.gpx")
            try gpx([(1, "2025-01-01T00:00:00Z"), (1.001, "2025-01-01T01:00:00Z")]).write(
                to: hour, atomically: true, encoding: .utf8)
            #expect(try Self.waypost("replay", hour.path, "--summary", "--max-fixes", "100").status == 65)
            // A timed track's points are said to be its points, not "untimed geometry at 1.4 m/s" (a hunt).
            let points = try Self.waypost("replay", "tracks/sunnyvale-commute.kml", "--max-fixes", "10")
            #expect(points.status == 65 && points.stderr.contains("the route has 536 timed points"), "\(points.stderr)")
            let filled = try Self.waypost("replay", hour.path, "--summary", "--max-fixes", "3601")
            #expect(filled.status == 0 && filled.stdout.contains("summary: 3601 fixes"), "\(filled.stdout)")
        }
    }

    /// A black-box hunt: a file whose second track starts before the first ends was refused by
    /// export ("take one path at a time with --path N"), which had no --path: it could not be
    /// exported at all. Export takes --path as replay does, for the formats that time the route.
    @Test func exportTakesOnePathOfAFileWhosePathsOverlap() throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("two.gpx")
            try """
            <?xml version="1.0"?>
            <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><name>A</name><trkseg>
            <trkpt lat="37.0" lon="-122.0"><time>2025-06-09T09:00:00Z</time></trkpt>
            <trkpt lat="37.001" lon="-122.0"><time>2025-06-09T09:00:10Z</time></trkpt>
            </trkseg></trk>
            <trk><name>B</name><trkseg>
            <trkpt lat="38.0" lon="-122.0"><time>2025-06-08T09:00:00Z</time></trkpt>
            <trkpt lat="38.001" lon="-122.0"><time>2025-06-08T09:00:10Z</time></trkpt>
            </trkseg></trk></gpx>
            """.write(to: file, atomically: true, encoding: .utf8)
            let refused = try Self.waypost("export", file.path, "--format", "simctl")
            #expect(refused.status == 65 && refused.stderr.contains("with --path N (1…2)"), "\(refused.stderr)")
            let second = try Self.waypost("export", file.path, "--format", "simctl", "--path", "2")
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stdout.contains(" 38.0000000,-122.0000000 38.0010000,-122.0000000"), "\(second.stdout)")
            #expect(try Self.waypost("export", file.path, "--format", "simctl", "--path", "3").status == 65)
            #expect(try Self.waypost("export", file.path, "--format", "gpx", "--path", "1").status == 64)
        }
    }

    /// A rule that names a region no --regions or --beacons file defines never fires there: the
    /// replay runs, and says so once per name.
    @Test func aRuleNamingAnUnknownRegionIsWarnedOf() throws {
        try withTemporaryDirectory { directory in
            let rules = directory.appendingPathComponent("rules.yaml")
            try "rules:\n  - id: r\n    on: regionEnter\n    regions: [nowhere, sunnyvale-coffee-roasters]\n".write(
                to: rules, atomically: true, encoding: .utf8)
            let run = try Self.waypost(
                "replay", "tracks/cafe-stop.kml", "--regions", "fixtures/regions/commute-cafes.yaml", "--checkins",
                rules.path, "--summary", "--db", directory.appendingPathComponent("w.db").path)
            #expect(run.status == 0)
            #expect(
                run.stderr
                    == "waypost: warning: rule 'r' names region 'nowhere', which no --regions or --beacons file defines: it never fires there\n"
            )
        }
    }

    /// `-o` through a symbolic link writes the file it names, as a shell's `>` does; the link
    /// stays a link (it was replaced by a regular file).
    @Test func anOutputThroughALinkWritesItsTarget() throws {
        try withTemporaryDirectory { directory in
            let real = directory.appendingPathComponent("real.gpx")
            let link = directory.appendingPathComponent("link.gpx")
            try "old".write(to: real, atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real.gpx")
            let run = try Self.waypost("export", "tracks/cafe-stop.kml", "--format", "gpx", "-o", link.path)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "real.gpx")
            #expect(try String(contentsOf: real, encoding: .utf8).hasPrefix("<?xml"))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [
                    "link.gpx", "real.gpx",
                ])
        }
    }

    /// Found at stop 80: `-o` replaced a file made private (0600) by a world-readable one (0644).
    @Test func anOutputReplacingAFileKeepsItsPermissions() throws {
        try withTemporaryDirectory { directory in
            let target = directory.appendingPathComponent("private.gpx")
            for mode in [0o600, 0o640] {
                try "old".write(to: target, atomically: true, encoding: .utf8)
                try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: target.path)
                let run = try Self.waypost("export", "tracks/cafe-stop.kml", "--format", "gpx", "-o", target.path)
                #expect(run.status == 0, "\(run.stderr)")
                #expect(try String(contentsOf: target, encoding: .utf8).hasPrefix("<?xml"))
                let attributes = try FileManager.default.attributesOfItem(atPath: target.path)
                #expect((attributes[.posixPermissions] as? Int) == mode)
            }
        }
    }

    /// A gx:Track's `when` is a dateTime for every coord (KML 2.2's gx extension), so a track
    /// timed at some points only goes to KML as a LineString without its times: one warning line
    /// names the file and why (two such segments, one line); the GPX keeps every time, so it has none.
    @Test func aPartlyTimedTrackIsWarnedOfOnceInKML() throws {
        try withTemporaryDirectory { directory in
            let part = directory.appendingPathComponent("part.gpx")
            try """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>t</name>
            <trkseg><trkpt lat="37.33" lon="-122"><time>2025-01-01T00:00:00Z</time></trkpt><trkpt lat="37.34" lon="-122"/></trkseg>
            <trkseg><trkpt lat="37.35" lon="-122"/><trkpt lat="37.36" lon="-122"><time>2025-01-01T00:02:00Z</time></trkpt></trkseg>
            </trk></gpx>
            """.write(to: part, atomically: true, encoding: .utf8)
            let kml = try Self.waypost("export", part.path, "--format", "kml")
            #expect(kml.status == 0, "\(kml.stderr)")
            #expect(!kml.stdout.contains("<when"), "\(kml.stdout)")
            #expect(
                kml.stderr
                    == "waypost: warning: \(part.path): kml: 2 lines are timed at some points only ('t': 1 of 2 points; 't': 1 of 2 points): a gx:Track needs a time at every point, so each is written as a LineString, without its times\n"
            )
            let gpx = try Self.waypost("export", part.path, "--format", "gpx")
            #expect(gpx.status == 0 && gpx.stderr.isEmpty, "\(gpx.stderr)")
            #expect(gpx.stdout.components(separatedBy: "<time>").count == 3)
        }
    }

    @Test func failedExportsWriteNothing() throws {
        try withTemporaryDirectory { directory in
            let bad = directory.appendingPathComponent("bad.kml")
            try "<kml><Placemark><Point><coordinates>1,95</coordinates></Point></Placemark></kml>".write(
                to: bad, atomically: true, encoding: .utf8)
            let target = directory.appendingPathComponent("out.geojson")
            let run = try Self.waypost("export", bad.path, "--format", "geojson", "--output", target.path)
            #expect(run.status == 65)
            #expect(!FileManager.default.fileExists(atPath: target.path))
            // An existing file is left as it was.
            try "previous".write(to: target, atomically: true, encoding: .utf8)
            _ = try Self.waypost("export", bad.path, "--format", "geojson", "--output", target.path)
            #expect(try String(contentsOf: target, encoding: .utf8) == "previous")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [
                    "bad.kml", "out.geojson",
                ])
            // And a good export replaces it.
            let good = try Self.waypost(
                "export", "tracks/cupertino-walk.kml", "--format", "geojson", "--output", target.path)
            #expect(good.status == 0)
            #expect(try JSONSerialization.jsonObject(with: Data(contentsOf: target)) is [String: Any])
        }
    }
}
