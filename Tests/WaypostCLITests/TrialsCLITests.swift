import Foundation
import TestSupport
import Testing

/// `waypost test --trials`, `--shard K/N --output` and `--merge`: trials across processes give
/// the report one process gives.
struct TrialsCLITests {
    /// A small trials scenario: the Cupertino walk past two regions under the 2024 field profile,
    /// with a crowd of generated devices when `crowd` is set.
    static func scenario(in directory: URL, crowd: Bool = false) throws -> String {
        let root = Corpus.repositoryRoot.path
        let device =
            crowd
            ? """
            devices:
              - name: walkers
                count: 3
                route: \(root)/tracks/cupertino-walk.kml
                spread: { time: 2m }
            """
            : """
            device:
              route: \(root)/tracks/cupertino-walk.kml
            """
        let text = """
            name: walk-trials
            seed: 5
            realism: reips-2024
            trials: 7
            \(device)
            regions: \(root)/fixtures/regions/commute-cafes.yaml
            privacy: \(root)/fixtures/privacy/demo.yaml
            rules: \(root)/fixtures/rules/coffee.yaml
            expect:
              - event: regionEnter
                region: infinite-loop-cafe
                rate: ">= 0.9"
                lateBy: { p95: 15m }
              - post: twitter
                decision: posted
                rate: ">= 0.5"
              - noRequest: statuses/update
                with: [lat]
            """
        let url = directory.appendingPathComponent(crowd ? "crowd.yaml" : "walk.yaml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// The scenario's results in two shards, `s1.json` and `s2.json` in `directory`.
    static func twoShards(of scenario: String, in directory: URL) throws -> [String] {
        var files: [String] = []
        for k in 1...2 {
            let file = directory.appendingPathComponent("s\(k).json").path
            let run = try CLITests.waypost("test", scenario, "--shard", "\(k)/2", "-o", file)
            #expect(run.status == 0, "\(run.stderr)")
            files.append(file)
        }
        return files
    }

    @Test(arguments: [false, true])
    func shardsMergedGiveWhatOneProcessGives(crowd: Bool) throws {
        try withTemporaryDirectory { directory in
            let scenario = try Self.scenario(in: directory, crowd: crowd)
            let whole = try CLITests.waypost(
                "test", scenario, "fixtures/scenarios/twenty-first-region.yaml", "--format", "json", "--junit",
                directory.appendingPathComponent("whole.xml").path)
            #expect(whole.stdout.contains("\"trials\""), "\(whole.stdout)\(whole.stderr)")
            var files: [String] = []
            for k in 1...3 {
                let file = directory.appendingPathComponent("shard-\(k).json").path
                let shard = try CLITests.waypost(
                    "test", scenario, "fixtures/scenarios/twenty-first-region.yaml", "--shard", "\(k)/3", "--output",
                    file)
                #expect(shard.status == 0, "\(shard.stderr)")
                #expect(shard.stdout.isEmpty)
                files.append(file)
            }
            let merged = try CLITests.waypost(
                ["test", "--merge"] + files.reversed()
                    + ["--format", "json", "--junit", directory.appendingPathComponent("merged.xml").path])
            #expect(merged.status == whole.status)
            #expect(merged.stdout == whole.stdout)
            let wholeXML = try String(contentsOf: directory.appendingPathComponent("whole.xml"), encoding: .utf8)
            let mergedXML = try String(contentsOf: directory.appendingPathComponent("merged.xml"), encoding: .utf8)
            #expect(Self.maskingTimes(mergedXML) == Self.maskingTimes(wholeXML))
        }
    }

    /// JUnit's measured `time` and `timestamp` are the only bytes that may differ.
    static func maskingTimes(_ xml: String) -> String {
        xml.replacingOccurrences(of: #" (time|timestamp|hostname)="[^"]*""#, with: "", options: .regularExpression)
    }

    @Test func aMissingRepeatedOrForeignShardIsOneClearError() throws {
        try withTemporaryDirectory { directory in
            let scenario = try Self.scenario(in: directory)
            func shard(_ k: Int, of n: Int, _ extra: [String] = []) throws -> String {
                let file = directory.appendingPathComponent("s\(k)of\(n)\(extra.count).json").path
                let run = try CLITests.waypost(["test", scenario, "--shard", "\(k)/\(n)", "-o", file] + extra)
                #expect(run.status == 0, "\(run.stderr)")
                return file
            }
            let (one, two) = (try shard(1, of: 2), try shard(2, of: 2))
            let missing = try CLITests.waypost("test", "--merge", one)
            #expect(missing.status == 65)
            #expect(missing.stderr == "waypost: error: shard 2/2 missing\n")
            let repeated = try CLITests.waypost("test", "--merge", one, one, two)
            #expect(repeated.status == 65)
            #expect(repeated.stderr.contains("are both shard 1/2"))
            let foreign = try shard(2, of: 2, ["--trials", "3"])
            let mixed = try CLITests.waypost("test", "--merge", one, foreign)
            #expect(mixed.status == 65)
            #expect(mixed.stderr.contains("is from another run"))
            let notResults = try CLITests.waypost("test", "--merge", scenario)
            #expect(notResults.status == 65)
            #expect(notResults.stderr.contains("not a waypost results file"))
            let absent = try CLITests.waypost("test", "--merge", directory.appendingPathComponent("none.json").path)
            #expect(absent.status == 66)
            // A directory was "no such results file"; a file cut short or edited had no position.
            let folder = try CLITests.waypost("test", "--merge", directory.path, two)
            #expect(folder.status == 66 && folder.stderr.contains("is a directory"), "\(folder.stderr)")
            let text = try String(contentsOfFile: one, encoding: .utf8)
            let cut = directory.appendingPathComponent("cut.json").path
            try Data(text.prefix(200).utf8).write(to: URL(fileURLWithPath: cut))
            let truncated = try CLITests.waypost("test", "--merge", cut, two)
            #expect(truncated.status == 65 && truncated.stderr.contains("cut.json:1:"), "\(truncated.stderr)")
            let edited = directory.appendingPathComponent("edited.json").path
            let shardsAt = try #require(text.range(of: "\"shards\":2"))
            let column = text.distance(from: text.startIndex, to: shardsAt.lowerBound) + 10
            try Data(text.replacingCharacters(in: shardsAt, with: "\"shards\":\"2\"").utf8)
                .write(to: URL(fileURLWithPath: edited))
            let wrongType = try CLITests.waypost("test", "--merge", edited, two)
            #expect(wrongType.status == 65)
            #expect(wrongType.stderr.contains("edited.json:1:\(column): "), "\(wrongType.stderr)")
            #expect(wrongType.stderr.contains("shards: expected a number, found a string"), "\(wrongType.stderr)")
            // A number its field cannot hold was "1:1 … not valid JSON" (JSONDecoder's words, at no
            // path); past a double it is placed, otherwise said without a place.
            for (value, said) in [
                (
                    "1e400",
                    "edited.json:1:\(column): not a waypost results file (written by waypost test --output): "
                        + "a number past what a double holds"
                ),
                (
                    "1.5",
                    "edited.json: not a waypost results file (written by waypost test --output): a number its "
                        + "field cannot hold"
                ),
            ] {
                try Data(text.replacingCharacters(in: shardsAt, with: "\"shards\":\(value)").utf8)
                    .write(to: URL(fileURLWithPath: edited))
                let number = try CLITests.waypost("test", "--merge", edited, two)
                #expect(number.status == 65 && number.stderr.contains(said), "\(value): \(number.stderr)")
                #expect(!number.stderr.contains("not valid JSON"), "\(number.stderr)")
            }
            // The shards' budget is in their files: a budget given to --merge was accepted and ignored.
            let budget = try CLITests.waypost("test", "--merge", one, two, "--time-budget", "5")
            #expect(budget.status == 64 && budget.stderr.contains("--time-budget"), "\(budget.stderr)")
            // A negative shard was "Missing value for '--shard <K/N>'" (read as an option).
            let negative = try CLITests.waypost("test", scenario, "--shard", "-1/2", "-o", one)
            #expect(negative.status == 64 && negative.stderr.contains("'-1/2' is not K/N"), "\(negative.stderr)")
            let noOutput = try CLITests.waypost("test", scenario, "--shard", "1/2")
            #expect(noOutput.status == 64)
            // The shards' fixtures are in their files (by digest): another folder would be ignored.
            let fixtures = try CLITests.waypost("test", "--merge", one, two, "--fixtures", "/nonexistent")
            #expect(fixtures.status == 64 && fixtures.stderr.contains("--fixtures"), "\(fixtures.stderr)")
            // A shard's JUnit would judge a part of the trials; it was silently not written.
            let junit = directory.appendingPathComponent("shard.xml").path
            let partReport = try CLITests.waypost(
                "test", scenario, "--shard", "1/2", "-o", directory.appendingPathComponent("s.json").path,
                "--junit", junit)
            #expect(partReport.status == 64)
            #expect(partReport.stderr.contains("give --junit and --html to --merge"))
            #expect(!FileManager.default.fileExists(atPath: junit))
        }
    }

    /// A black-box hunt: a shard file with a unit taken out, one copied, one renumbered or one of
    /// no scenario merged into "PASS … over 39 (41) trials", exit 0 — verdicts over other trials
    /// than the run's. Each shard must hold exactly its own units.
    @Test func aShardThatIsNotWholeIsOneClearError() throws {
        try withTemporaryDirectory { directory in
            let scenario = try Self.scenario(in: directory)
            let files = try Self.twoShards(of: scenario, in: directory)
            let original = try Data(contentsOf: URL(fileURLWithPath: files[0]))
            func merged(after edit: (inout [[String: Any]]) -> Void) throws -> CLITests.Run {
                var root = try #require(JSONSerialization.jsonObject(with: original) as? [String: Any])
                var units = try #require(root["units"] as? [[String: Any]])
                edit(&units)
                root["units"] = units
                try JSONSerialization.data(withJSONObject: root).write(to: URL(fileURLWithPath: files[0]))
                return try CLITests.waypost(["test", "--merge"] + files)
            }
            func trial(_ unit: [String: Any]) -> Int { (unit["record"] as? [String: Any])?["trial"] as? Int ?? -1 }
            func renumbered(_ unit: [String: Any], trial: Int) -> [String: Any] {
                var unit = unit
                var record = unit["record"] as? [String: Any] ?? [:]
                record["trial"] = trial
                unit["record"] = record
                return unit
            }
            let removed = try merged { $0.removeLast() }
            #expect(removed.status == 65, "\(removed.stdout)")
            #expect(removed.stderr.contains("s1.json is not the whole of shard 1/2: trial"), "\(removed.stderr)")
            #expect(removed.stderr.contains("of scenario 'walk-trials' is missing"), "\(removed.stderr)")
            let copied = try merged { $0.append($0[1]) }
            #expect(copied.status == 65 && copied.stderr.contains("is in it twice"), "\(copied.stderr)")
            let foreign = try merged { $0[1] = renumbered($0[1], trial: trial($0[1]) + 1) }
            // Renumbered, its seed is another trial's.
            #expect(foreign.status == 65 && foreign.stderr.contains("ran with seed"), "\(foreign.stderr)")
            let noScenario = try merged { $0[1]["scenario"] = 5 }
            #expect(noScenario.status == 65, "\(noScenario.stdout)")
            #expect(noScenario.stderr.contains("a unit of scenario 6 (there are 1)"), "\(noScenario.stderr)")
            let exact = try merged { $0.removeFirst() }
            #expect(exact.stderr.contains("the exact run of scenario 'walk-trials' is missing"), "\(exact.stderr)")
            try original.write(to: URL(fileURLWithPath: files[0]))
            let whole = try CLITests.waypost(["test", "--merge"] + files)
            let once = try CLITests.waypost("test", scenario)
            #expect(whole.status == once.status && whole.stdout == once.stdout, "\(whole.stderr)")
        }
    }

    /// A black-box hunt: shards of one run whose runners named the scenario by other paths (CI
    /// runners checking out to different folders) were refused as "from another run", though every
    /// digest agreed. The scenario's path is not its identity; the report names it as shard 1 did.
    @Test func shardsRunFromOtherFoldersMerge() throws {
        try withTemporaryDirectory { directory in
            let scenario = try Self.scenario(in: directory)
            let one = directory.appendingPathComponent("one.json").path
            let two = directory.appendingPathComponent("two.json").path
            let first = try CLITests.waypost(["test", "walk.yaml", "--shard", "1/2", "-o", one], in: directory)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(try CLITests.waypost("test", scenario, "--shard", "2/2", "-o", two).status == 0)
            let merged = try CLITests.waypost(["test", "--merge", two, one, "--format", "json"])
            #expect(merged.stderr.isEmpty, "\(merged.stderr)")
            let whole = try CLITests.waypost(["test", "walk.yaml", "--format", "json"], in: directory)
            #expect(merged.status == whole.status && merged.stdout == whole.stdout)
            // A plain scenario's unit (its `at:` lines) run by a shard that named it otherwise is
            // named as shard 1 named it (a hunt: one report mixed the two spellings).
            let plain = directory.appendingPathComponent("plain.yaml")
            try String(contentsOfFile: scenario, encoding: .utf8).replacingOccurrences(of: "trials: 7\n", with: "")
                .replacingOccurrences(of: "name: walk-trials", with: "name: plain").write(
                    to: plain, atomically: true, encoding: .utf8)
            let thirds = (1...3).map { directory.appendingPathComponent("third-\($0).json").path }
            for k in 1...3 {
                let names = k == 3 ? [scenario, plain.path] : ["walk.yaml", "plain.yaml"]
                let run = try CLITests.waypost(
                    ["test"] + names + ["--shard", "\(k)/3", "-o", thirds[k - 1]], in: directory)
                #expect(run.status == 0, "\(run.stderr)")
            }
            let spelled = try CLITests.waypost(["test", "--merge"] + thirds + ["--format", "json"])
            let named = try CLITests.waypost(["test", "walk.yaml", "plain.yaml", "--format", "json"], in: directory)
            #expect(spelled.stdout == named.stdout, "\(spelled.stdout)")
            #expect(spelled.stdout.contains(#""location" : "plain.yaml:"#), "\(spelled.stdout)")
            // `-` is standard input for a results file, as wherever a file is named (a hunt: refused).
            let piped = try CLITests.waypost(
                ["test", "--merge", "-", one, "--format", "json"], standardInput: FileHandle(forReadingAtPath: two))
            #expect(piped.stdout == whole.stdout, "\(piped.stderr)")
        }
    }

    /// A black-box hunt: `waypost test --junit a.yaml b.yaml` (the report's file forgotten) wrote
    /// the JUnit over the first scenario and ran the other, exit 0; `-o X --junit X` kept one
    /// report. A report never replaces what is read, nor another report.
    @Test func aReportNeverOverwritesAScenarioOrAnotherReport() throws {
        try withTemporaryDirectory { directory in
            let scenario = try Self.scenario(in: directory)
            let before = try Data(contentsOf: URL(fileURLWithPath: scenario))
            let clobber = try CLITests.waypost("test", "--junit", scenario, scenario)
            #expect(clobber.status == 64, "\(clobber.stderr)")
            #expect(clobber.stderr.contains("--junit \(scenario) is a scenario being read"), "\(clobber.stderr)")
            let html = try CLITests.waypost("test", scenario, "--html", scenario)
            #expect(html.status == 64)
            #expect(try Data(contentsOf: URL(fileURLWithPath: scenario)) == before)
            let same = directory.appendingPathComponent("same.out").path
            let twice = try CLITests.waypost("test", scenario, "-o", same, "--junit", same)
            #expect(twice.status == 64 && twice.stderr.contains("-o and --junit both write"), "\(twice.stderr)")
            #expect(!FileManager.default.fileExists(atPath: same))
        }
    }

    /// What changes a run, one field at a time: the edit made before shard 2/2 runs, and what
    /// the refusal must name.
    enum Edit: String, CaseIterable, CustomTestStringConvertible {
        case seed, realism, trialsInFile, trialsOption, expectation, route, regions, rules, privacy, places
        case fixtures, timeBudget
        var testDescription: String { rawValue }
    }

    /// Issue 43: `--merge` compared only the shard count and the scenarios' names, so shards of a
    /// scenario whose seed, realism or files changed between them merged into one verdict.
    @Test(arguments: Edit.allCases)
    func shardsOfAnEditedRunAreRefused(_ edit: Edit) throws {
        try withTemporaryDirectory { directory in
            let root = Corpus.repositoryRoot.appendingPathComponent("fixtures")
            let places = directory.appendingPathComponent("places")
            try FileManager.default.createDirectory(at: places, withIntermediateDirectories: true)
            for name in ["twitter-places.json", "facebook-pages.json"] {
                try FileManager.default.copyItem(
                    at: root.appendingPathComponent("places/\(name)"), to: places.appendingPathComponent(name))
            }
            let copies = [
                ("route.kml", "../tracks/cupertino-walk.kml"), ("regions.yaml", "regions/commute-cafes.yaml"),
                ("rules.yaml", "rules/coffee.yaml"), ("privacy.yaml", "privacy/demo.yaml"),
            ]
            for (name, source) in copies {
                try FileManager.default.copyItem(
                    at: root.appendingPathComponent(source), to: directory.appendingPathComponent(name))
            }
            func scenario(seed: Int = 5, realism: String = "reips-2024", trials: Int = 4, rate: String = "0.5") throws {
                try """
                name: walk-trials
                seed: \(seed)
                realism: \(realism)
                trials: \(trials)
                device: { route: route.kml }
                regions: regions.yaml
                privacy: privacy.yaml
                rules: rules.yaml
                places: places
                expect:
                  - { event: regionEnter, region: infinite-loop-cafe, rate: ">= \(rate)" }
                """.write(to: directory.appendingPathComponent("walk.yaml"), atomically: true, encoding: .utf8)
            }
            func shard(_ k: Int, _ extra: [String] = []) throws -> String {
                let file = directory.appendingPathComponent("shard-\(k).json").path
                let run = try CLITests.waypost(
                    ["test", "walk.yaml", "--shard", "\(k)/2", "-o", file] + extra, in: directory)
                try #require(run.status == 0, "\(run.stderr)")
                return file
            }
            try scenario()
            let fixtures = ["--fixtures", root.appendingPathComponent("places").path]
            let first = try shard(1, fixtures)
            var extra = fixtures
            let named: String
            func append(_ text: String, to name: String) throws {
                let handle = try FileHandle(forWritingTo: directory.appendingPathComponent(name))
                handle.seekToEndOfFile()
                handle.write(Data(text.utf8))
                handle.closeFile()
            }
            switch edit {
            case .seed:
                try scenario(seed: 6)
                named = "seed 6 against 5"
            case .realism:
                try scenario(realism: "radius-2015")
                named = "realism [radius-2015] against [reips-2024]"
            case .trialsInFile:
                try scenario(trials: 5)
                named = "trials 5 against 4"
            case .trialsOption:
                // `--trials` equal to the file's own is the same run (a hunt: it was refused).
                extra += ["--trials", "5"]
                named = "trials 5 against 4"
            case .expectation:
                try scenario(rate: "0.4")
                named = "walk.yaml differs"
            case .route:
                try append("<!-- moved -->\n", to: "route.kml")
                named = "route.kml differs"
            case .regions, .rules, .privacy:
                try append("# edited\n", to: "\(edit.rawValue).yaml")
                named = "\(edit.rawValue).yaml differs"
            case .places:
                try append(" ", to: "places/twitter-places.json")
                named = "places differs"
            case .fixtures:
                extra = []
                named = "--fixtures not given against sha256:"
            case .timeBudget:
                extra += ["--time-budget", "120"]
                named = "--time-budget 120.0 against"
            }
            let second = try shard(2, extra)
            let merged = try CLITests.waypost(["test", "--merge", first, second], in: directory)
            #expect(merged.status == 65)
            #expect(merged.stdout.isEmpty)
            #expect(merged.stderr.hasPrefix("waypost: error: \(second) is from another run than \(first): "))
            #expect(merged.stderr.contains(named), "\(merged.stderr)")
            #expect(merged.stderr.split(separator: "\n").count == 1, "\(merged.stderr)")
            // Unedited, the same two shards merge.
            if edit == .trialsOption || edit == .timeBudget || edit == .fixtures {
                let again = try shard(2, fixtures)
                let merged = try CLITests.waypost(["test", "--merge", first, again], in: directory)
                #expect(merged.status != 65 && merged.stdout.contains("walk-trials"), "\(merged.stderr)")
            }
        }
    }

    /// A black-box hunt: a results file edited or damaged in ways that still decode trapped the
    /// tool (132, 139) or gave verdicts no run gave — fewer results than expectations, a first
    /// match past what an `Int` holds, a trial count of 2⁶³ − 1, a seed that is not its trial's.
    /// Each is one error, 65. Shards of a build fitted otherwise are another run.
    @Test func aDamagedResultsFileIsOneClearError() throws {
        try withTemporaryDirectory { directory in
            let scenario = try Self.scenario(in: directory)
            let files = try Self.twoShards(of: scenario, in: directory)
            let original = try Data(contentsOf: URL(fileURLWithPath: files[0]))
            func merged(after edit: (inout [String: Any]) -> Void) throws -> CLITests.Run {
                var root = try #require(JSONSerialization.jsonObject(with: original) as? [String: Any])
                edit(&root)
                try JSONSerialization.data(withJSONObject: root).write(to: URL(fileURLWithPath: files[0]))
                return try CLITests.waypost(["test", "--merge"] + files)
            }
            func editRecord(_ root: inout [String: Any], unit: Int, _ edit: (inout [String: Any]) -> Void) {
                var units = root["units"] as? [[String: Any]] ?? []
                var record = units[unit]["record"] as? [String: Any] ?? [:]
                edit(&record)
                units[unit]["record"] = record
                root["units"] = units
            }
            let cases: [(String, (inout [String: Any]) -> Void)] = [
                (
                    "trial 2 of 'walk-trials' has 1 results and 3 first matches for 3 expectations",
                    { root in
                        editRecord(&root, unit: 1) { $0["results"] = Array(($0["results"] as? [Any] ?? []).prefix(1)) }
                    }
                ),
                (
                    "trial 2 of 'walk-trials' matched first at 1e+19 s from its start",
                    { root in editRecord(&root, unit: 1) { $0["firstMatches"] = [1e19, NSNull(), NSNull()] } }
                ),
                (
                    "the run of 'walk-trials' matched first at -1e+19 s",
                    { root in editRecord(&root, unit: 0) { $0["firstMatches"] = [-1e19, NSNull(), NSNull()] } }
                ),
                (
                    "scenario 'walk-trials' runs 9223372036854775807 trials (a scenario runs 1 to 1000000)",
                    { root in
                        var headers = root["scenarios"] as? [[String: Any]] ?? []
                        headers[0]["trials"] = Int.max
                        root["scenarios"] = headers
                    }
                ),
                (
                    "trial 2 of 'walk-trials' ran with seed 12345, not its own",
                    { root in editRecord(&root, unit: 1) { $0["seed"] = 12345 } }
                ),
                ("shard 3 of 2", { $0["shard"] = 3 }),
            ]
            for (message, edit) in cases {
                let run = try merged(after: edit)
                #expect(run.status == 65 && run.stdout.isEmpty, "\(message): \(run.stderr)")
                #expect(
                    run.stderr.hasPrefix(
                        "waypost: error: \(files[0]): not as waypost test --output writes it: \(message)"),
                    "\(run.stderr)")
            }
            let otherBuild = try merged { root in
                var options = root["options"] as? [String: String] ?? [:]
                options["field mechanism"] = "sha256:000000000000"
                root["options"] = options
            }
            #expect(otherBuild.status == 65, "\(otherBuild.stderr)")
            #expect(otherBuild.stderr.contains("field mechanism sha256:"), "\(otherBuild.stderr)")
            try original.write(to: URL(fileURLWithPath: files[0]))
            #expect(
                try CLITests.waypost(["test", "--merge"] + files).stdout == CLITests.waypost("test", scenario).stdout)
        }
    }

    /// A black-box hunt: the schedulers' variables at the ends of their range trapped the tool
    /// (132, arithmetic overflow); a value said converted (`'3/2'` for index 2 of 2), `1x` as
    /// missing. Each is one usage error naming the variable as set. Without --output the
    /// variables are not read: a plain run in an array task runs every unit, and says so.
    @Test func schedulerVariablesOutOfRangeAreOneUsageError() throws {
        try withTemporaryDirectory { directory in
            let scenario = try Self.scenario(in: directory)
            let file = directory.appendingPathComponent("task.json").path
            let big = "\(Int.max)"
            let cases: [([String: String], String)] = [
                (
                    [
                        "SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": big,
                        "SLURM_ARRAY_TASK_COUNT": "4",
                    ],
                    "the array 0-\(big) has 4 tasks"
                ),
                (
                    [
                        "SLURM_ARRAY_TASK_ID": big, "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3",
                        "SLURM_ARRAY_TASK_COUNT": "4",
                    ],
                    "task \(big) is not in the array 0-3"
                ),
                (
                    [
                        "SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "\(Int.min)", "SLURM_ARRAY_TASK_MAX": "3",
                        "SLURM_ARRAY_TASK_COUNT": "4",
                    ],
                    "SLURM_ARRAY_TASK_MIN='\(Int.min)' is not a whole number from 0"
                ),
                (
                    [
                        "SLURM_ARRAY_TASK_ID": "1x", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3",
                        "SLURM_ARRAY_TASK_COUNT": "4",
                    ],
                    "SLURM_ARRAY_TASK_ID='1x' is not a whole number from 0"
                ),
                (["JOB_COMPLETION_INDEX": big, "JOB_COMPLETIONS": big], "index \(big) of \(big) completions"),
                (["JOB_COMPLETION_INDEX": "2", "JOB_COMPLETIONS": "2"], "index 2 of 2 completions"),
                (
                    ["JOB_COMPLETION_INDEX": "-1", "JOB_COMPLETIONS": "2"],
                    "JOB_COMPLETION_INDEX='-1' is not a whole number"
                ),
            ]
            for (environment, message) in cases {
                let run = try CLITests.waypost(["test", scenario, "-o", file], environment: environment)
                #expect(run.status == 64 && run.stderr.contains(message), "\(environment): \(run.stderr)")
            }
            let task = [
                "SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "7", "SLURM_ARRAY_TASK_MAX": "7",
                "SLURM_ARRAY_TASK_COUNT": "1",
            ]
            let plain = try CLITests.waypost(["test", scenario], environment: task)
            #expect(plain.stdout == (try CLITests.waypost("test", scenario)).stdout, "\(plain.stderr)")
            #expect(plain.stderr.contains("SLURM_ARRAY_TASK_ID is set, but without --output this runs every unit"))
            // A shard records no whole run; two documents on standard output are refused, whichever two.
            let recorded = try CLITests.waypost(
                ["test", scenario, "--shard", "1/2", "-o", file, "--db", directory.appendingPathComponent("r.db").path])
            #expect(recorded.status == 64 && recorded.stderr.contains("--db records a whole run"), "\(recorded.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("r.db").path))
            for pair in [["--junit", "-", "--html", "-"], ["-o", "-", "--html", "-"]] {
                let two = try CLITests.waypost(["test", scenario] + pair)
                #expect(two.status == 64 && two.stderr.contains("both write to standard output"), "\(two.stderr)")
            }
        }
    }

    /// Results on standard output (`-o -`): the report moves to standard error and `--junit FILE`
    /// is still written; `-o -` with `--junit -` would put two documents on one stream, refused.
    @Test func resultsOnStandardOutputKeepTheJUnitFile() throws {
        try withTemporaryDirectory { directory in
            let scenario = try Self.scenario(in: directory)
            let junit = directory.appendingPathComponent("out.xml").path
            let run = try CLITests.waypost(["test", scenario, "-o", "-", "--junit", junit])
            let alone = try CLITests.waypost(["test", scenario])
            #expect(run.status == alone.status, "the verdict's exit status, as without -o: \(run.stderr)")
            #expect(run.stderr.contains(alone.stdout), "the report, as without -o, on standard error")
            let results = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8))
            #expect((results as? [String: Any])?["units"] != nil, "standard output is the results file alone")
            let xml = try String(contentsOfFile: junit, encoding: .utf8)
            #expect(xml.contains("<testsuites"))
            let both = try CLITests.waypost(["test", scenario, "-o", "-", "--junit", "-"])
            #expect(both.status == 64 && both.stderr.contains("both write to standard output"), "\(both.stderr)")
        }
    }

    /// Kubernetes' Indexed Job gives each pod JOB_COMPLETION_INDEX (from 0) and JOB_COMPLETIONS:
    /// https://kubernetes.io/docs/concepts/workloads/controllers/job/#completion-mode
    @Test func aKubernetesIndexedJobPicksItsShard() throws {
        try withTemporaryDirectory { directory in
            let scenario = try Self.scenario(in: directory)
            let file = directory.appendingPathComponent("pod.json").path
            let run = try CLITests.waypost(
                ["test", scenario, "-o", file],
                environment: ["JOB_COMPLETION_INDEX": "1", "JOB_COMPLETIONS": "4"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("shard 2/4"))
            let written = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file)))
            let object = try #require(written as? [String: Any])
            #expect(object["shard"] as? Int == 2 && object["shards"] as? Int == 4)
        }
    }

    /// A Slurm job array (`sbatch --array=4-7`) gives each task SLURM_ARRAY_TASK_ID with the
    /// array's _MIN, _MAX, _COUNT and _STEP (slurm-wlm's job_array.html): task 5 of 4–7 is shard
    /// 2/4. A stepped or listed array cannot map tasks to shards one to one: refused, 64.
    @Test func aSlurmArrayTaskPicksItsShard() throws {
        try withTemporaryDirectory { directory in
            let scenario = try Self.scenario(in: directory)
            let file = directory.appendingPathComponent("task.json").path
            let array = ["SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_MAX": "7", "SLURM_ARRAY_TASK_COUNT": "4"]
            let run = try CLITests.waypost(
                ["test", scenario, "-o", file],
                environment: array.merging(["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_STEP": "1"]) { $1 })
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("shard 2/4"))
            let stepped = try CLITests.waypost(
                ["test", scenario, "-o", file],
                environment: [
                    "SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "6",
                    "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_STEP": "2",
                ])
            #expect(stepped.status == 64)
            #expect(stepped.stderr.contains("step 2"), "\(stepped.stderr)")
        }
    }

    /// `--db` records the exact run alone, under the scenario's name, with the trials'
    /// distributions beside it; the runs' order in the store does not depend on the jobs, so the
    /// audit of the latest run is the same every time; the run's map draws the distributions.
    @Test func aTrialsRunRecordsItsExactRunWithTheDistributions() throws {
        try withTemporaryDirectory { directory in
            let scenario = try Self.scenario(in: directory)
            var audits: [String] = []
            for jobs in ["1", "4"] {
                let db = directory.appendingPathComponent("runs-\(jobs).db").path
                let run = try CLITests.waypost(
                    "test", scenario, "fixtures/scenarios/twenty-first-region.yaml", "--db", db, "--jobs", jobs)
                // Seven trials cannot decide a rate of nine in ten: the verdict is a failure, not an error.
                #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
                let audit = try CLITests.waypost("audit", "--db", db)
                #expect(audit.status == 0)
                audits.append(audit.stdout)
                #expect(try CLITests.waypost("audit", "walk-trials#1", "--db", db).status == 66, "trials are not kept")
                let map = try CLITests.waypost("report", "walk-trials", "--db", db, "--format", "html")
                #expect(map.stdout.contains("<details id=\"trials\" class=\"trials\"><summary>7 trials: "))
                #expect(map.stdout.components(separatedBy: "<svg class=\"histogram\"").count - 1 == 2)
                #expect(map.stdout.contains("<title>the exact run: +"))
                let plain = try CLITests.waypost("report", "twenty-first-region", "--db", db, "--format", "html")
                #expect(!plain.stdout.contains("id=\"trials\""), "a plain run has no trials panel")
            }
            #expect(audits[0] == audits[1])
            #expect(
                audits[0].hasPrefix("Audit of run twenty-first-region:"),
                "the latest run is the last on the command line")
        }
    }

    @Test func exactTrialsAreRefused() throws {
        let run = try CLITests.waypost("test", "fixtures/scenarios/commute-cafe-checkin.yaml", "--trials", "5")
        #expect(run.status == 65)
        #expect(run.stderr.contains("with realism: exact every trial would be the same run"))
    }

    /// The README's failing example, as the README shows it: forty field trials cannot show that
    /// nine in ten check in before an exact run's exit notification.
    @Test func theFieldProfilesFailAnExactExpectation() throws {
        let run = try CLITests.waypost("test", "fixtures/examples/checkin-while-there.yaml")
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("late by max ≤ +1:18"))
        let readme = try String(
            contentsOf: Corpus.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let shown = readme.components(separatedBy: "\n")
            .drop { !$0.hasPrefix("$ waypost test fixtures/examples/checkin-while-there.yaml") }.dropFirst()
            .prefix { $0 != "…" }
        #expect(shown.count == 5 && Array(shown) == Array(run.stdout.components(separatedBy: "\n").prefix(5)))
    }
}
