import Foundation
import TestSupport
import Testing

/// Issue 32, item 4: what help texts and the docs say is what the tool does. Counts are
/// generated from the checkout, never typed into a test.
struct WordsMatchBehaviourTests {
    static let root = Corpus.repositoryRoot

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The scenario files that ship, by file name.
    static func shippedScenarios() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("fixtures/scenarios").path)
            .filter { $0.hasSuffix(".yaml") }.sorted()
    }

    static let numberWords = [
        "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
        "twenty", "twenty-one", "twenty-two", "twenty-three", "twenty-four", "twenty-five", "twenty-six",
        "twenty-seven", "twenty-eight", "twenty-nine", "thirty",
    ]

    /// Every count of the scenario library the README gives — "N scenarios: N passed" in the
    /// sample output of `waypost test fixtures/scenarios/*.yaml`, and "`fixtures/scenarios/`
    /// holds N stories" — is the number of files there.
    @Test func readmeCountsTheScenariosThatShip() throws {
        let count = try Self.shippedScenarios().count
        let readme = try Self.read("README.md")
        var mentions: [(String, Int?)] = []
        for match in readme.matches(of: /(\d+) scenarios: (\d+) passed/) {
            mentions.append((String(match.output.0), Int(match.output.1)))
            mentions.append((String(match.output.0), Int(match.output.2)))
        }
        for match in readme.matches(of: /fixtures\/scenarios\/` holds ([a-z-]+|\d+) stories/) {
            let word = String(match.output.1)
            let number = Int(word) ?? Self.numberWords.firstIndex(of: word).map { $0 + 10 }
            mentions.append((String(match.output.0), number))
        }
        #expect(mentions.count >= 3, "the README no longer counts the scenario library where this test looks")
        for (text, number) in mentions {
            #expect(number == count, "README says '\(text)' where \(count) scenarios ship in fixtures/scenarios")
        }
    }

    /// docs/scenarios.md's table of the shipped library names every file there, and no other.
    @Test func scenarioDocsListEveryShippedScenario() throws {
        let docs = try Self.read("docs/scenarios.md")
        let listed = Set(docs.matches(of: /\| `([a-z0-9-]+\.yaml)` \|/).map { String($0.output.1) })
        #expect(listed == Set(try Self.shippedScenarios()))
    }

    /// The commands that read a database say they never create one, and do not: a missing
    /// database is exit 66 and no file appears. `replay --checkins` says it creates it, and does.
    @Test func helpSaysWhichCommandsCreateTheDatabase() throws {
        let readers: [[String]] = [
            ["audit"], ["report"], ["outbox", "list"], ["outbox", "flush"], ["history", "purge"],
            ["history", "retention"],
        ]
        try withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("none.db").path
            for command in readers {
                let help = try CLITests.waypost(command + ["--help"])
                #expect(!help.stdout.contains("created when missing"), "\(command)")
                #expect(help.stdout.contains("never") && help.stdout.contains("created here"), "\(command)")
                let run = try CLITests.waypost(command + ["--db", db])
                #expect(run.status == 66, "\(command): \(run.stderr)")
                #expect(!FileManager.default.fileExists(atPath: db), "\(command) created \(db)")
            }
            let help = try CLITests.waypost("replay", "--help")
            #expect(help.stdout.contains("(created when missing)"))
            let replay = try CLITests.waypost(
                "replay", "tracks/cupertino-walk.kml", "--checkins", "fixtures/rules/coffee.yaml", "--db", db)
            #expect(replay.status == 0, "\(replay.stderr)")
            #expect(FileManager.default.fileExists(atPath: db))
        }
    }

    /// `history retention` says that a fix's age is measured from its time on the route, that a
    /// run recorded within the period is kept for it, and that a period deleting fixes of a run
    /// just recorded is refused without --force; and so it behaves: the 2025 commute replayed now
    /// survives `retention 7d`, --force deletes it, and a run recorded afterwards is kept.
    @Test func retentionHelpSaysHowAgeIsMeasuredAndThatItRefuses() throws {
        let help = try CLITests.waypost("history", "retention", "--help")
        let text = help.stdout.replacingOccurrences(of: "\n", with: " ")
        #expect(text.contains("measured from its own time on the route"), "\(help.stdout)")
        #expect(text.contains("refused unless --force"), "\(help.stdout)")
        #expect(text.contains("A run recorded within the period is kept until"), "\(help.stdout)")
        try withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("runs.db").path
            let replay = try CLITests.waypost(
                "replay", "tracks/sunnyvale-commute.kml", "--regions", "fixtures/regions/commute-cafes.yaml",
                "--checkins", "fixtures/rules/coffee.yaml", "--db", db)
            #expect(replay.status == 0, "\(replay.stderr)")
            let refused = try CLITests.waypost("history", "retention", "7d", "--db", db)
            #expect(refused.status == 64)
            #expect(refused.stderr.contains("would delete fixes of run 'sunnyvale-commute.kml'"), "\(refused.stderr)")
            #expect(refused.stderr.contains("nothing was changed (--force deletes them)"))
            let kept = try CLITests.waypost("report", "--db", db)
            #expect(!kept.stdout.contains(" 0 fixes"), "\(kept.stdout)")
            let forced = try CLITests.waypost("history", "retention", "7d", "--force", "--db", db)
            #expect(forced.status == 0, "\(forced.stderr)")
            #expect(forced.stdout.contains("Location fixes are kept for"), "\(forced.stdout)")
            #expect(forced.stdout.contains(" older location records deleted; "), "\(forced.stdout)")
            #expect(!forced.stdout.contains("; 0 older"), "\(forced.stdout)")
            // A black-box hunt: a run recorded while the period is set was kept by its replay and
            // deleted, unasked, by the next `retention` (documented as "show") or another run's
            // replay. A run recorded within the period is kept for it.
            let walk = try CLITests.waypost(
                "replay", "tracks/cupertino-walk.kml", "--regions", "fixtures/regions/commute-cafes.yaml",
                "--checkins", "fixtures/rules/coffee.yaml", "--db", db)
            #expect(walk.status == 0, "\(walk.stderr)")
            let shown = try CLITests.waypost("history", "retention", "--db", db)
            #expect(shown.stdout.contains("; 0 older location records deleted"), "\(shown.stdout)")
            #expect(
                try CLITests.waypost(
                    "replay", "tracks/sunnyvale-commute.kml", "--regions", "fixtures/regions/commute-cafes.yaml",
                    "--checkins", "fixtures/rules/coffee.yaml", "--db", db
                ).status == 0)
            let walked = try CLITests.waypost("report", "cupertino-walk.kml", "--db", db)
            #expect(walked.status == 0 && !walked.stdout.contains(" 0 fixes"), "\(walked.stdout)")
            // A bare number is not an age here (7 s was read, and every fix went).
            let bare = try CLITests.waypost("history", "retention", "7", "--db", db)
            #expect(
                bare.status == 64 && bare.stderr.contains("'7' has no unit: write 7d, 7h, 7m or 7s"), "\(bare.stderr)")
        }
    }

    /// `test --db` on a file that is not a Waypost store is 73 with one line, as for `replay`.
    @Test func testDbOnATextFileIsCannotCreate() throws {
        try withTemporaryDirectory { directory in
            let text = directory.appendingPathComponent("notes.txt")
            try Data("hello\n".utf8).write(to: text)
            for command in [
                ["test", "fixtures/scenarios/privacy-zone-home.yaml", "--db", text.path],
                ["replay", "tracks/cupertino-walk.kml", "--checkins", "fixtures/rules/coffee.yaml", "--db", text.path],
            ] {
                let run = try CLITests.waypost(command)
                #expect(run.status == 73, "\(command[0]): \(run.stderr)")
                #expect(run.stderr.split(separator: "\n").count == 1, "\(command[0]): \(run.stderr)")
                #expect(run.stderr.contains("is not a Waypost store"), "\(run.stderr)")
            }
            #expect(try String(contentsOf: text, encoding: .utf8) == "hello\n")
        }
    }

    /// A `maxFixes` past what a scenario takes names the range it takes (the message once said
    /// only "≥ 1", which 2147483647 is); one inside it runs.
    @Test func scenarioMaxFixesOutOfRangeNamesTheRange() throws {
        try withTemporaryDirectory { directory in
            let route = Self.root.appendingPathComponent("tracks/cupertino-walk.kml").path
            for (value, status, message) in [
                ("2147483647", Int32(65), "expected a whole number from 1 to 999999999, not 2147483647"),
                ("0", 65, "expected a whole number from 1 to 999999999, not 0"),
                ("999999999", 0, ""),
            ] {
                let file = directory.appendingPathComponent("max-\(value).yaml")
                try Data(
                    """
                    name: max-fixes
                    device:
                      route: \(route)
                      maxFixes: \(value)
                    expect:
                      - { event: location }

                    """.utf8
                ).write(to: file)
                let run = try CLITests.waypost("test", file.path)
                #expect(run.status == status, "maxFixes \(value): \(run.stdout)\(run.stderr)")
                if !message.isEmpty { #expect(run.stderr.contains("4:13: \(message)"), "\(run.stderr)") }
            }
        }
    }
}
