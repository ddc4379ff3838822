import Foundation
import TestSupport
import Testing

/// Issue 31: routes in and out as other tools write and read them — through pipes (`-`), and
/// with negative numbers read as the numbers they are.
struct StandardStreamsCLITests {
    /// Runs `script` with `/bin/sh -c` in `directory`, `$WAYPOST` naming the tool: real pipes
    /// between real processes, as a user's shell makes them.
    static func shell(_ script: String, in directory: URL = Corpus.repositoryRoot) throws -> CLITests.Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["WAYPOST"] = CLITests.executable.path
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Standard error is small; standard output is read to its end first so the pipe never fills.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLITests.Run(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// An output that cannot be created is refused before the work, with the reason: a trials
    /// run used to print its whole report and only then find the folder missing; `--output` said
    /// "cannot create file" and not why.
    @Test func unwritableOutputsAreRefusedFirstWithTheReason() throws {
        for arguments in [
            ["test", "fixtures/scenarios/field-cafe-checkin.yaml", "--junit", "no-such-folder/x.xml"],
            ["test", "fixtures/scenarios/commute-cafe-checkin.yaml", "--html", "no-such-folder/x.html"],
            ["sweep", "--radius", "50", "--speed", "1.4", "-o", "no-such-folder/x.json"],
            ["export", "tracks/cupertino-walk.kml", "--format", "gpx", "--output", "no-such-folder/x.gpx"],
        ] {
            let run = try CLITests.waypost(arguments)
            #expect(run.status == 73, "\(arguments)")
            #expect(run.stdout.isEmpty, "\(arguments): \(run.stdout)")
            #expect(run.stderr.contains("no-such-folder/"), "\(run.stderr)")
            #expect(run.stderr.contains("cannot create file: No such file or directory"), "\(run.stderr)")
        }
    }

    /// An empty control token would match no request: the control plane would refuse everyone.
    @Test func anEmptyControlTokenIsAUsageError() throws {
        let run = try CLITests.waypost("emulator", "--port", "0", "--control-token", "")
        #expect(run.status == 64)
        #expect(run.stderr.contains("--control-token must not be empty"), "\(run.stderr)")
    }

    // MARK: Negative numbers

    /// `--speed -3` used to say "Missing value for '--speed'": the parser took `-3` for a flag.
    /// Every numeric option now reads it as a number, which its range check then refuses.
    @Test(arguments: [
        (["replay", "tracks/cupertino-walk.kml", "--speed", "-3"], "--speed -3 is out of range: 0.01…1000 m/s"),
        (
            ["replay", "tracks/cupertino-walk.kml", "--sample-interval", "-1"],
            "--sample-interval -1 is out of range: 0.01…3600 seconds"
        ),
        (
            ["replay", "tracks/cupertino-walk.kml", "--distance-filter", "-5"],
            "--distance-filter -5 is out of range: -1 (every fix), or 0…40075017 metres"
        ),
        (["replay", "tracks/cupertino-walk.kml", "--max-fixes", "-1"], "--max-fixes -1 is out of range: 1…"),
        (["replay", "tracks/cupertino-walk.kml", "--path", "-2"], "--path -2 is out of range: 1…"),
        (["replay", "tracks/cupertino-walk.kml", "--ios-version", "-13"], "--ios-version -13 is out of range: "),
        (
            ["replay", "tracks/cupertino-walk.kml", "--realtime", "--rate", "-10"],
            "--rate -10 is out of range: 0.001…1000000 times real time"
        ),
        (
            ["replay", "tracks/cupertino-walk.kml", "--temporary-full-accuracy-at", "-1"],
            "--temporary-full-accuracy-at -1 is out of range: 0…3155760000 seconds from the start"
        ),
        (["replay", "tracks/cupertino-walk.kml", "--signal-loss", "-5-10"], "--signal-loss '-5-10' is not FROM-TO"),
        (
            ["replay", "tracks/cupertino-walk.kml", "--accuracy", "-7"],
            "--accuracy -7 is out of range: more than 0 metres, or a name (best, ten-meters, …)"
        ),
        (
            ["replay", "tracks/cupertino-walk.kml", "--seed", "-1"],
            "The value '-1' is invalid for '--seed <seed>': out of range: a whole number 0…18446744073709551615"
        ),
        (
            ["replay", "tracks/cupertino-walk.kml", "--max-wait", "-1"],
            "--max-wait -1 is out of range: 0…86400 seconds"
        ),
        (
            ["test", "fixtures/scenarios/two-devices.yaml", "--time-budget", "-1"],
            "--time-budget -1.0 is out of range: more than 0 seconds"
        ),
        (["test", "fixtures/scenarios/two-devices.yaml", "--jobs", "-2"], "--jobs -2 is out of range: 1…"),
        (["emulator", "--port", "-1"], "--port -1 is out of range: 0…65535"),
        (["emulator", "--journal-bytes", "-1"], "--journal-bytes -1 is out of range: "),
        (
            ["outbox", "flush", "--seed", "-1", "--db", "/nonexistent/x.db"],
            "out of range: a whole number 0…18446744073709551615"
        ),
    ])
    func negativeNumbersAreValuesNotFlags(_ arguments: [String], _ message: String) throws {
        let run = try CLITests.waypost(arguments)
        #expect(run.status == 64, "\(arguments): \(run.stderr)")
        #expect(!run.stderr.contains("Missing value"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").first?.contains(message) == true, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// The negative values that are allowed work as written: `--distance-filter -1` is
    /// kCLDistanceFilterNone, `--accuracy -1` is kCLLocationAccuracyBest.
    @Test func allowedNegativeValuesRunAsWritten() throws {
        let plain = try CLITests.waypost("replay", "tracks/cafe-stop.kml", "--format", "jsonl")
        for arguments in [["--distance-filter", "-1"], ["--accuracy", "best"]] {
            let run = try CLITests.waypost(["replay", "tracks/cafe-stop.kml", "--format", "jsonl"] + arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(run.stdout == plain.stdout, "\(arguments)")
        }
        let oauth = try CLITests.waypost(
            "oauth-sign", "--url", "https://api.twitter.com/1.1/statuses/update.json", "--consumer-key", "k",
            "--consumer-secret", "s", "--nonce", "n", "--timestamp", "-1")
        #expect(oauth.status == 0 || oauth.status == 64, "\(oauth.stderr)")
        #expect(!oauth.stderr.contains("Missing value"), "\(oauth.stderr)")
    }

    // MARK: Standard input

    /// `waypost replay -` and `waypost export -` read the route from a pipe, its format sniffed
    /// from the content: the same events and the same exports as from the file.
    @Test(arguments: [
        "tracks/cupertino-walk.kml", "tracks/stevens-creek-ride.gpx", "tracks/cafe-stop.kml",
        "tracks/sunnyvale-commute.kml",
    ])
    func routesArePipedInThroughStandardInput(_ track: String) throws {
        let fromFile = try CLITests.waypost("replay", track, "--format", "jsonl")
        let piped = try Self.shell("cat \(track) | \"$WAYPOST\" replay - --format jsonl")
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stderr == fromFile.stderr.replacingOccurrences(of: track, with: "standard input"))
        #expect(!piped.stdout.isEmpty)
        #expect(piped.stdout == fromFile.stdout)
        for format in ["geojson", "gpx", "kml"] {
            let exported = try CLITests.waypost("export", track, "--format", format)
            let pipedExport = try Self.shell("cat \(track) | \"$WAYPOST\" export - --format \(format)")
            #expect(pipedExport.status == 0, "\(format): \(pipedExport.stderr)")
            #expect(pipedExport.stdout == exported.stdout, "\(format)")
        }
    }

    /// A KMZ archive down a pipe: a ZIP's directory is at its end, so it is read whole first.
    @Test func aKMZArchiveIsReadFromAPipe() throws {
        try withTemporaryDirectory { directory in
            let kml = try String(
                contentsOf: Corpus.repositoryRoot.appendingPathComponent("tracks/cupertino-walk.kml"), encoding: .utf8)
            try kml.write(to: directory.appendingPathComponent("doc.kml"), atomically: true, encoding: .utf8)
            let zipped = try Self.shell("zip -q walk.kmz doc.kml", in: directory)
            try #require(zipped.status == 0, "zip: \(zipped.stderr)")
            let fromFile = try CLITests.waypost(["replay", "walk.kmz", "--format", "jsonl"], in: directory)
            let piped = try Self.shell("cat walk.kmz | \"$WAYPOST\" replay - --format jsonl", in: directory)
            #expect(piped.status == 0, "\(piped.stderr)")
            #expect(!piped.stdout.isEmpty)
            #expect(piped.stdout == fromFile.stdout)
        }
    }

    /// Errors in piped input name "standard input", with the line and column, as for a file.
    @Test func badInputOnAPipeNamesStandardInput() throws {
        let bad = try Self.shell(
            "printf '<kml><Placemark><Point><coordinates>1,95</coordinates></Point></Placemark></kml>' "
                + "| \"$WAYPOST\" replay -")
        #expect(bad.status == 65, "\(bad.stderr)")
        #expect(bad.stderr.hasPrefix("waypost: error: standard input:1:"), "\(bad.stderr)")
        #expect(bad.stdout.isEmpty)
        let empty = try Self.shell("\"$WAYPOST\" export - --format gpx < /dev/null")
        #expect(empty.status == 65, "\(empty.stderr)")
        #expect(empty.stderr == "waypost: error: standard input: the file is empty\n", "\(empty.stderr)")
    }

    // MARK: Standard output

    /// `-o -` is standard output for every command that writes a file — not a file named `-`.
    @Test func dashOutputIsStandardOutput() throws {
        try withTemporaryDirectory { directory in
            let walk = Corpus.repositoryRoot.appendingPathComponent("tracks/cupertino-walk.kml").path
            let exported = try CLITests.waypost("export", walk, "--format", "gpx")
            for flag in ["-o", "--output"] {
                let run = try Self.shell("\"$WAYPOST\" export '\(walk)' --format gpx \(flag) - | cat", in: directory)
                #expect(run.status == 0, "\(run.stderr)")
                #expect(run.stdout == exported.stdout)
            }

            // A recorded run, reported to a pipe.
            let root = Corpus.repositoryRoot.path
            let recorded = try CLITests.waypost(
                [
                    "replay", "\(root)/tracks/sunnyvale-commute.kml", "--regions",
                    "\(root)/fixtures/regions/commute-cafes.yaml", "--checkins", "\(root)/fixtures/rules/coffee.yaml",
                    "--privacy", "\(root)/fixtures/privacy/demo.yaml", "--db", "runs.db",
                ], in: directory)
            try #require(recorded.status == 0, "\(recorded.stderr)")
            for format in ["text", "svg", "geojson"] {
                let plain = try CLITests.waypost(["report", "--db", "runs.db", "--format", format], in: directory)
                let run = try Self.shell(
                    "\"$WAYPOST\" report --db runs.db --format \(format) -o - | cat", in: directory)
                #expect(run.status == 0, "\(run.stderr)")
                #expect(!run.stdout.isEmpty)
                #expect(run.stdout == plain.stdout, "\(format)")
            }

            // JUnit XML alone on standard output; the readable report on standard error.
            let scenario = "\(root)/fixtures/scenarios/two-devices.yaml"
            let junit = try Self.shell("\"$WAYPOST\" test '\(scenario)' --junit - | cat", in: directory)
            #expect(junit.status == 0, "\(junit.stderr)")
            #expect(junit.stdout.hasPrefix("<?xml"), "\(junit.stdout)")
            #expect(junit.stdout.contains("<testsuite"))
            #expect(junit.stderr.contains("two-devices"), "\(junit.stderr)")
            #expect(junit.stdout.contains("<testcase"))
            #expect(junit.stdout.hasSuffix("</testsuites>\n"), "\(junit.stdout)")

            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("-").path))
        }
    }

    /// DESIGN.md: "`-` is standard output (or input) wherever a file is named". `replay`'s regions,
    /// beacons, rules and privacy profile are read from standard input or from a pipe or FIFO
    /// (`<(…)`) as from their files — the same run — and an error there names standard input.
    /// One input at a time; a scenario, whose paths are relative to it, is not read from `-`.
    @Test func configurationFilesAreReadFromStandardInputAndPipes() throws {
        let base = "\"$WAYPOST\" replay tracks/sunnyvale-commute.kml --summary"
        let files = [
            "--regions": "fixtures/regions/commute-cafes.yaml", "--checkins": "fixtures/rules/coffee.yaml",
            "--privacy": "fixtures/privacy/demo.yaml",
        ]
        try withTemporaryDirectory { directory in
            // Each run in a store of its own: a store keeps monitor records for the next run on it
            // (and `.waypost/waypost.db`, the default, is shared by whatever runs beside).
            var runs = 0
            func replay(_ arguments: String, input: String = "") throws -> CLITests.Run {
                runs += 1
                return try Self.shell("\(input)\(base) \(arguments) --db '\(directory.path)/\(runs).db'")
            }
            let all = files.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: " ")
            let plain = try replay(all)
            try #require(plain.status == 0, "\(plain.stderr)")
            for (option, path) in files.sorted(by: { $0.key < $1.key }) {
                let others = files.filter { $0.key != option }.sorted { $0.key < $1.key }
                    .map { "\($0.key) \($0.value)" }.joined(separator: " ")
                let piped = try replay("\(others) \(option) -", input: "cat \(path) | ")
                #expect(piped.status == 0 && piped.stdout == plain.stdout, "\(option) -: \(piped.stderr)")
            }
            // A FIFO, as a shell's process substitution gives one.
            let fifo = directory.appendingPathComponent("regions.fifo").path
            let run = try replay(
                "--checkins fixtures/rules/coffee.yaml --privacy fixtures/privacy/demo.yaml --regions '\(fifo)'",
                input: "mkfifo '\(fifo)' && (cat fixtures/regions/commute-cafes.yaml > '\(fifo)' &) && ")
            #expect(run.status == 0 && run.stdout == plain.stdout, "\(run.stderr)")
        }
        let bad = try Self.shell("printf 'regions:\\n  - identifier: x\\n    latitude: 99\\n' | \(base) --regions -")
        #expect(
            bad.status == 65 && bad.stderr == "waypost: error: standard input:2:5: missing 'longitude'\n",
            "\(bad.stderr)")
        let twice = try Self.shell("\(base) --regions - --privacy - < fixtures/privacy/demo.yaml")
        #expect(twice.status == 64 && twice.stderr.contains("only one input can be read from standard input"))
        let scenario = try Self.shell("\"$WAYPOST\" test - < fixtures/scenarios/two-devices.yaml")
        #expect(
            scenario.status == 64 && scenario.stderr.contains("a scenario is read from a file"), "\(scenario.stderr)")
    }
}
