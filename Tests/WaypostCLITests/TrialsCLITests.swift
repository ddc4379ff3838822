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
                rate: ">= 0.5"
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
            let noOutput = try CLITests.waypost("test", scenario, "--shard", "1/2")
            #expect(noOutput.status == 64)
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
                // Seven trials cannot decide a rate of one half: the verdict is a failure, not an error.
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

    /// The README's failing example: on field phones the check-in goes out after the rider left.
    @Test func theFieldProfilesFailAnExactExpectation() throws {
        let run = try CLITests.waypost("test", "fixtures/examples/checkin-while-there.yaml")
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("late by max ≤ +1:18"))
    }
}
