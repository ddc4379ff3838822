import Foundation
import TestSupport
import Testing

/// `waypost compare OBSERVED SCENARIO`: a replay under the scenario's realism at another seed
/// passes; the same log with the first café's entry half an hour late is flagged; a bad log is 65
/// at its line and column; an exact scenario is 64.
struct CompareCLITests {
    static let scenario = "fixtures/scenarios/field-cafe-checkin.yaml"
    /// A seed (not the scenario's trials') whose replay has the first café's entry.
    static let seed = "5"

    /// The scenario's device replayed: its route, regions and realism, resting after the route as
    /// the scenario's device does.
    static func replay(seed: String) throws -> String {
        let run = try CLITests.waypost(
            "replay", "tracks/sunnyvale-commute.kml", "--regions", "fixtures/regions/commute-cafes.yaml", "--realism",
            "field", "--rest", "840", "--seed", seed, "--format", "jsonl")
        try #require(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    /// `log` with the first `regionEnter` of `region` moved `seconds` later (the line stays where it is).
    static func moving(_ region: String, by seconds: Double, in log: String) throws -> String {
        var lines = log.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let index = try #require(
            lines.firstIndex { $0.contains(#""type":"regionEnter""#) && $0.contains(#""region":"\#(region)""#) },
            "the replay has no regionEnter of \(region)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[index].utf8)) as? [String: Any])
        let t = try #require(object["t"] as? String)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = try #require(formatter.date(from: t))
        lines[index] = lines[index].replacingOccurrences(
            of: t, with: formatter.string(from: date.addingTimeInterval(seconds)))
        return lines.joined(separator: "\n")
    }

    @Test func aReplayAtAnotherSeedPassesAndAHalfHourLateEntryIsFlagged() throws {
        try withTemporaryDirectory { directory in
            let log = try Self.replay(seed: Self.seed)
            let observed = directory.appendingPathComponent("phone.jsonl")
            try log.write(to: observed, atomically: true, encoding: .utf8)
            let passing = try CLITests.waypost("compare", observed.path, Self.scenario)
            #expect(passing.status == 0, "\(passing.stdout)\(passing.stderr)")
            #expect(passing.stdout.hasPrefix("PASS "), "\(passing.stdout)")
            #expect(passing.stdout.contains("✓ "), "\(passing.stdout)")
            // A log through a pipe, as `/dev/stdin` or `<(…)` hands it over: it said "no such
            // file, or it cannot be read", exit 66 (a black-box hunt of `compare`).
            let pipe = Pipe()
            let writer = Thread {
                pipe.fileHandleForWriting.write(Data(log.utf8))
                try? pipe.fileHandleForWriting.close()
            }
            writer.start()
            let piped = try CLITests.waypost(
                ["compare", "/dev/stdin", Self.scenario], standardInput: pipe.fileHandleForReading)
            #expect(piped.status == 0, "\(piped.stderr)")
            #expect(piped.stdout == passing.stdout.replacingOccurrences(of: observed.path, with: "/dev/stdin"))

            let late = directory.appendingPathComponent("late.jsonl")
            try Self.moving("sunnyvale-coffee-roasters", by: 1_800, in: log).write(
                to: late, atomically: true, encoding: .utf8)
            let junit = directory.appendingPathComponent("compare.xml")
            let flagged = try CLITests.waypost("compare", late.path, Self.scenario, "--junit", junit.path)
            #expect(flagged.status == 1, "\(flagged.stdout)\(flagged.stderr)")
            #expect(flagged.stdout.hasPrefix("OUTSIDE "), "\(flagged.stdout)")
            let outside = flagged.stdout.split(separator: "\n").filter { $0.contains("✗") }
            #expect(outside.count == 1, "\(flagged.stdout)")
            #expect(outside.first?.contains("regionEnter 'sunnyvale-coffee-roasters'") == true, "\(flagged.stdout)")
            #expect(flagged.stdout.contains("later than the central 95 %"), "\(flagged.stdout)")
            let xml = try String(contentsOf: junit, encoding: .utf8)
            #expect(xml.contains(#"failures="1""#), "\(xml)")
            #expect(
                xml.contains(
                    #"<testcase classname="field-cafe-checkin" name="regionEnter &apos;sunnyvale-coffee-roasters&apos;">"#
                ) || xml.contains("regionEnter 'sunnyvale-coffee-roasters'"), "\(xml)")

            let json = try CLITests.waypost("compare", late.path, Self.scenario, "--format", "json")
            #expect(json.status == 1)
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(document["passed"] as? Bool == false)
            let events = try #require(document["events"] as? [[String: Any]])
            let flaggedEvents = events.filter { $0["verdict"] as? String == "outside" }
            #expect(flaggedEvents.map { $0["region"] as? String } == ["sunnyvale-coffee-roasters"])
            #expect((flaggedEvents.first?["lateness"] as? Double ?? 0) > 1_700)
        }
    }

    @Test func anUnreadableLogIs65AtItsLineAndColumn() throws {
        try withTemporaryDirectory { directory in
            let observed = directory.appendingPathComponent("bad.jsonl")
            try """
            {"t":"2025-06-03T08:00:00.000Z","type":"authorization","status":"authorizedAlways"}
            {"t":"2025-06-03T08:03:00.000Z","type":"regionEnter"}
            """.write(to: observed, atomically: true, encoding: .utf8)
            let run = try CLITests.waypost("compare", observed.path, Self.scenario)
            #expect(run.status == 65, "\(run.stderr)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.hasPrefix("waypost: error: \(observed.path):2:"), "\(run.stderr)")
            #expect(run.stderr.contains("needs 'region'"), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        }
    }

    /// A log naming a region the scenario lacks does not fit the scenario: 65 at the line, not
    /// an "unpredicted" event of the device (exit 1).
    @Test func aRegionTheScenarioLacksIs65() throws {
        try withTemporaryDirectory { directory in
            let observed = directory.appendingPathComponent("phone.jsonl")
            try """
            {"t":"2025-06-03T08:00:00.000Z","type":"authorization","status":"authorizedAlways"}
            {"t":"2025-06-03T08:03:00.000Z","type":"regionEnter","region":"stevens-creek-coffeehouse"}
            """.write(to: observed, atomically: true, encoding: .utf8)
            let run = try CLITests.waypost("compare", observed.path, Self.scenario)
            #expect(run.status == 65, "\(run.stdout)\(run.stderr)")
            #expect(run.stdout.isEmpty)
            #expect(
                run.stderr.hasPrefix(
                    "waypost: error: \(observed.path):2:63: region 'stevens-creek-coffeehouse' is no region of scenario field-cafe-checkin"
                ), "\(run.stderr)")
            #expect(run.stderr.contains("did you mean 'stevens-creek-coffee-house'?"), "\(run.stderr)")
        }
    }

    @Test func aScenarioWithRealismExactIs64() throws {
        try withTemporaryDirectory { directory in
            let observed = directory.appendingPathComponent("phone.jsonl")
            try #"{"t":"2025-06-03T08:00:00.000Z","type":"authorization","status":"authorizedAlways"}"#.write(
                to: observed, atomically: true, encoding: .utf8)
            let run = try CLITests.waypost("compare", observed.path, "fixtures/scenarios/commute-cafe-checkin.yaml")
            #expect(run.status == 64, "\(run.stdout)\(run.stderr)")
            #expect(run.stderr.contains("realism: exact"), "\(run.stderr)")
        }
    }

    /// A scenario of one trial is no spread to place an event in (every event was "outside"):
    /// 64, as `--trials 1` is; `--trials N` makes the prediction instead.
    @Test func aScenarioOfOneTrialIs64() throws {
        try withTemporaryDirectory { directory in
            let observed = directory.appendingPathComponent("phone.jsonl")
            try #"{"t":"2025-06-03T08:00:00.000Z","type":"authorization","status":"authorizedAlways"}"#.write(
                to: observed, atomically: true, encoding: .utf8)
            let root = Corpus.repositoryRoot.path
            let one = directory.appendingPathComponent("one.yaml")
            try String(contentsOfFile: "\(root)/\(Self.scenario)", encoding: .utf8)
                .replacingOccurrences(of: "\ntrials: 40\n", with: "\ntrials: 1\n")
                .replacingOccurrences(of: " ../../", with: " \(root)/")
                .replacingOccurrences(of: " ../", with: " \(root)/fixtures/")
                .write(to: one, atomically: true, encoding: .utf8)
            let run = try CLITests.waypost("compare", observed.path, one.path)
            #expect(run.status == 64, "\(run.stdout)\(run.stderr)")
            #expect(run.stderr.contains("trials: 1 is one run"), "\(run.stderr)")
        }
    }
}

/// `waypost calibrate` keeps a parameter set only when it meets every figure (its help: "the best
/// there that meets every figure is kept"). Over one crossing a figure no set meets, it exited 0,
/// and `--write` replaced the checked-in parameters and report with a set marked **no** (a
/// black-box hunt of `calibrate`). Now: the report with its misses, exit 1, nothing written.
struct CalibrateCLITests {
    @Test func aSetThatMissesAFigureIsNotKept() throws {
        try withTemporaryDirectory { checkout in
            let parameters = checkout.appendingPathComponent("Sources/LocationSimulation/Field/FittedParameters.swift")
            try FileManager.default.createDirectory(
                at: parameters.deletingLastPathComponent(), withIntermediateDirectories: true)
            try "// the checked-in parameters\n".write(to: parameters, atomically: true, encoding: .utf8)
            let docs = checkout.appendingPathComponent("docs")
            try FileManager.default.createDirectory(at: docs, withIntermediateDirectories: true)
            let run = try CLITests.waypost(
                ["calibrate", "--write", "--fit-trials", "1", "--report-crossings", "1"], in: checkout)
            #expect(run.status == 1, "\(run.stderr)")
            #expect(
                run.stderr.hasPrefix(
                    "waypost: error: no parameter set of the grid meets every field figure over 1 crossing"),
                "\(run.stderr)")
            #expect(run.stdout.contains("**no**"))
            #expect(try String(contentsOf: parameters, encoding: .utf8) == "// the checked-in parameters\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: docs.path).isEmpty, "no report, no temporary")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: parameters.deletingLastPathComponent().path) == [
                    "FittedParameters.swift"
                ])
        }
    }

    /// A black-box hunt: with the parameters' file but no docs/ folder, `--write` rewrote the
    /// parameters after minutes of fitting, then failed on the report (73) — code and report out
    /// of step after an error. Both files are opened before the fit: it fails at once, and
    /// nothing is written or left behind.
    @Test func aReportThatCannotBeWrittenFailsBeforeTheFitAndWritesNothing() throws {
        try withTemporaryDirectory { checkout in
            let folder = checkout.appendingPathComponent("Sources/LocationSimulation/Field")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let parameters = folder.appendingPathComponent("FittedParameters.swift")
            try "// the checked-in parameters\n".write(to: parameters, atomically: true, encoding: .utf8)
            let run = try CLITests.waypost(["calibrate", "--write"], in: checkout)
            #expect(run.status == 73, "\(run.stderr)")
            #expect(
                run.stderr.hasPrefix("waypost: error: docs/field-calibration.md: cannot create file"), "\(run.stderr)")
            #expect(run.stdout.isEmpty, "no fit was run")
            #expect(try String(contentsOf: parameters, encoding: .utf8) == "// the checked-in parameters\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["FittedParameters.swift"])
        }
    }
}
