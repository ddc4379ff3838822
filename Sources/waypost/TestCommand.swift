import ArgumentParser
import ConfigFiles
import Foundation
import Runs
import Scenarios
import SimulatedTime
import WaypostSupport

/// `waypost test SCENARIO…`: scripted runs with assertions, for CI.
struct Test: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run scenario files and check their expectations (exit 0 only when all hold).",
        discussion: """
            Each scenario runs its devices through the simulated location manager, its events \
            through the check-in engine to an in-process emulator set up as the scenario says, on \
            virtual time, and checks every expectation against the events, the audit and the \
            emulator's request journal. Independent scenarios run in parallel; the same scenario \
            gives the same result every run. The file format: waypost help scenarios.

            Exit codes: 0 every expectation holds, 1 an expectation failed (or a run went past \
            its time budget), 64 a usage error, 65 a scenario is invalid, 66 a scenario file is \
            missing, 69 the emulator could not start or another process is recording the run \
            into --db. SIGINT or SIGTERM stops the runs at once (a \
            shell reports 130 or 143); runs not recorded with --db leave no files behind.

            Examples:
              waypost test fixtures/scenarios/*.yaml
              waypost test fixtures/scenarios/*.yaml --junit out.xml
              waypost test fixtures/scenarios/privacy-zone-home.yaml --format json
              waypost test fixtures/scenarios/commute-cafe-checkin.yaml --db runs.db
              waypost test fixtures/scenarios/field-cafe-checkin.yaml --html trials.html
              waypost test fixtures/scenarios/field-cafe-checkin.yaml \\
                --shard 1/2 -o shard-1.json
              waypost test fixtures/scenarios/field-cafe-checkin.yaml \\
                --shard 2/2 -o shard-2.json
              waypost test --merge shard-1.json shard-2.json --junit out.xml
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(
        help: "Scenario files (YAML or JSON; format: waypost help scenarios); with --merge, results files.",
        completion: .file(extensions: configExtensions))
    var scenarios: [String]

    @Option(
        help:
            "Also write the results as JUnit XML to this file (-: standard output, and the report to standard error).",
        completion: .file(extensions: ["xml"])
    )
    var junit: String?

    @Option(help: "text or json.")
    var format: Format = .text

    @Option(
        help: "Record the runs in this database (each under its scenario's name) for `waypost report`.",
        completion: .file())
    var db: String?

    @Option(
        help:
            "Places for the emulator: a directory with twitter-places.json and facebook-pages.json (default: the built-in places, as in fixtures/places; a scenario's own 'places' wins).",
        completion: .directory
    )
    var fixtures: String?

    // A run waits on the emulator across loopback between its requests: two per core keep the
    // cores busy (200 trials on 2 cores: 3.0 s at 2 jobs, 2.4 s at 4, no faster at 6).
    @Option(parsing: .unconditional, help: "Scenario runs (and trials) at once (default: twice the number of cores).")
    var jobs: Int = 2 * ProcessInfo.processInfo.activeProcessorCount

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Wall-clock seconds a scenario run may take unless it sets its own timeBudget; past it, it fails (default: \(Int(ScenarioRunner.defaultTimeBudget.inSeconds)))."
        ))
    var timeBudget: Double?

    /// `--time-budget`, or its default: optional only so that `--merge` can refuse it.
    var budget: Double { timeBudget ?? ScenarioRunner.defaultTimeBudget.inSeconds }

    @Option(
        parsing: .unconditional,
        help:
            "Run every scenario as N trials, each with its own seed (overrides a scenario's 'trials'); needs a realism that varies."
    )
    var trials: Int?

    // Unconditional: `--shard -1/3` is a wrong value to name, not a missing one.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Run only shard K of N of the (scenario, trial) units and write them to --output; default from a Kubernetes Indexed Job's JOB_COMPLETION_INDEX and JOB_COMPLETIONS, or a Slurm job array's task (SLURM_ARRAY_TASK_ID, _MIN, _MAX, _COUNT).",
            valueName: "K/N"))
    var shard: String?

    @Option(
        name: [.short, .long], help: "Write the units' results to this file, for --merge (-: standard output).",
        completion: .file())
    var output: String?

    @Flag(help: "Combine the results files given as arguments (one per shard) into one report.")
    var merge = false

    @Option(
        help:
            "Also write the verdicts as a self-contained HTML page: for trials, each expectation's rate and a histogram of when its event or post came, the exact run's instant marked.",
        completion: .file(extensions: ["html"]))
    var html: String?

    // Hidden: the run-path parity test runs every shipped scenario both ways and compares bytes.
    @Option(
        help: ArgumentHelp(
            "How runs not recorded in --db reach their store and emulator: memory (default) or durable (a temporary SQLite store and loopback HTTP, as recorded runs).",
            visibility: .hidden))
    var runPath: RunPath = .inMemory

    func validate() throws {
        try OptionRange.check("--jobs", jobs, 1...Int.max)
        // A budget becomes a deadline in milliseconds on the wall clock: a year keeps it far inside.
        if let timeBudget {
            guard timeBudget > 0 else {
                throw ValidationError("--time-budget \(timeBudget) is out of range: more than 0 seconds")
            }
            try OptionRange.check("--time-budget", timeBudget, 0...(86_400 * 365), " seconds (a year)")
        }
        if let trials { try OptionRange.check("--trials", trials, 1...ScenarioFile.mostTrials) }
        if let shard { _ = try Self.shard(shard, flag: "--shard") }
        if !merge && scenarios.contains("-") {
            // Its route and files are named relative to the scenario's own folder.
            throw ValidationError("a scenario is read from a file, its routes and files relative to it: not from -")
        }
        if merge && scenarios.filter({ $0 == "-" }).count > 1 {
            throw ValidationError("standard input is one results file: give - once")
        }
        let toStandardOutput = [("-o", output), ("--junit", junit), ("--html", html)].filter { $0.1 == "-" }.map(\.0)
        if toStandardOutput.count > 1 {
            throw ValidationError(
                "\(toStandardOutput.joined(separator: " and ")) would \(toStandardOutput.count == 2 ? "both" : "all") write to standard output: give all but one a file"
            )
        }
        // A report never replaces what is read (`--junit` whose file was forgotten takes the first
        // scenario's name) nor another report.
        let reports = [("-o", output), ("--junit", junit), ("--html", html)].compactMap { flag, path in
            path.flatMap { $0 == "-" ? nil : (flag: flag, path: $0) }
        }
        for report in reports {
            if let input = scenarios.first(where: { isSameFile($0, report.path) }) {
                throw ValidationError(
                    "\(report.flag) \(report.path) is \(merge ? "a results file" : "a scenario") being read (\(input)): the report would overwrite it"
                )
            }
        }
        // Nor the store the runs are recorded in (`--junit runs.db` for `runs.xml` replaced it).
        if let db, let report = reports.first(where: { isSameFile($0.path, db) }) {
            throw ValidationError("\(report.flag) \(report.path) is the --db store: the report would overwrite it")
        }
        for (index, first) in reports.enumerated() {
            for second in reports[(index + 1)...] where isSameFile(first.path, second.path) {
                throw ValidationError(
                    "\(first.flag) and \(second.flag) both write \(first.path): give each its own file")
            }
        }
        // Only the shard holding the exact run recorded it, and no shard the trials' panel.
        if shard != nil && db != nil {
            throw ValidationError("--db records a whole run, its exact run and its trials: run the shards without it")
        }
        if merge
            && (shard != nil || output != nil || trials != nil || db != nil || fixtures != nil || timeBudget != nil)
        {
            throw ValidationError(
                "--merge reads results files: it cannot be combined with --shard, --output, --trials, --db, --fixtures or --time-budget (the shards' own are in their files)"
            )
        }
    }

    /// `K/N` with 1 ≤ K ≤ N.
    static func shard(_ text: String, flag: String) throws -> (Int, Int) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(k) else {
            throw ValidationError("\(flag) '\(text)' is not K/N with 1 ≤ K ≤ N, e.g. 2/4")
        }
        return (k, n)
    }

    /// The shard to run: --shard, else — for a run that writes its results to --output — a
    /// Kubernetes Indexed Job's (index from 0), else a Slurm job array's task, else all. Without
    /// --output the environment's shard is not taken (a plain `waypost test` in an array task runs
    /// every unit), and a line on standard error says so.
    func chosenShard() throws -> (Int, Int)? {
        if let shard { return try Self.shard(shard, flag: "--shard") }
        let environment = ProcessInfo.processInfo.environment
        guard output != nil else {
            if let name = ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"].first(where: { environment[$0] != nil }) {
                FileHandle.standardError.write(
                    Data("waypost: note: \(name) is set, but without --output this runs every unit, not a shard\n".utf8)
                )
            }
            return nil
        }
        do {
            return try Self.environmentShard(environment)
        } catch {
            throw CommandFailure(.usage, "\(error)")
        }
    }

    /// Kubernetes: `JOB_COMPLETION_INDEX` (0…N−1) of `JOB_COMPLETIONS`. Slurm (sbatch --array,
    /// slurm-wlm's job_array.html): task `SLURM_ARRAY_TASK_ID` of an array from
    /// `SLURM_ARRAY_TASK_MIN` to `SLURM_ARRAY_TASK_MAX`, `SLURM_ARRAY_TASK_COUNT` tasks; only a
    /// whole range (`--array=0-3`) maps task to shard one to one, so a stepped or listed array
    /// is refused rather than leaving units unrun.
    static func environmentShard(_ environment: [String: String]) throws -> (Int, Int)? {
        /// A variable's whole number ≥ 0, said as the user set it when it is not one.
        func number(_ name: String, _ flag: String) throws -> Int? {
            guard let text = environment[name] else { return nil }
            guard let value = Int(text), value >= 0 else {
                throw ValidationError("\(flag): \(name)='\(text)' is not a whole number from 0")
            }
            return value
        }
        if environment["JOB_COMPLETION_INDEX"] != nil {
            let flag = "JOB_COMPLETION_INDEX/JOB_COMPLETIONS"
            guard let index = try number("JOB_COMPLETION_INDEX", flag),
                let completions = try number("JOB_COMPLETIONS", flag)
            else { throw ValidationError("\(flag): an Indexed Job's shard needs JOB_COMPLETIONS beside its index") }
            guard index < completions else {
                throw ValidationError(
                    "\(flag): index \(index) of \(completions) completions; the index runs from 0 to JOB_COMPLETIONS − 1"
                )
            }
            return (index + 1, completions)
        }
        let flag = "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT"
        guard let task = try number("SLURM_ARRAY_TASK_ID", flag) else { return nil }
        guard let count = try number("SLURM_ARRAY_TASK_COUNT", flag),
            let low = try number("SLURM_ARRAY_TASK_MIN", flag),
            let high = try number("SLURM_ARRAY_TASK_MAX", flag)
        else {
            throw ValidationError("\(flag): a Slurm array task needs SLURM_ARRAY_TASK_ID, _COUNT, _MIN and _MAX")
        }
        let step = try number("SLURM_ARRAY_TASK_STEP", flag) ?? 1
        // Compared without adding: the numbers are the environment's, as large as it makes them.
        guard step == 1, count >= 1, low <= high, high - low == count - 1 else {
            throw ValidationError(
                "\(flag): the array \(low)-\(high) has \(count) tasks with step \(step); shards need a whole range such as --array=0-\(max(count, 1) - 1)"
            )
        }
        guard (low...high).contains(task) else {
            throw ValidationError("\(flag): task \(task) is not in the array \(low)-\(high)")
        }
        return (task - low + 1, count)
    }

    func run() async throws {
        var worst: SysExit = .ok
        try await reportingFailures {
            try OutputDestination.checkCreatable(output, html, junit)
            let file: TrialResultsFile
            if merge {
                let files = try scenarios.map { path in
                    // `-` is standard input, as wherever a file is named (a shard piped from a runner).
                    // A results file has no size limit of a configuration file: it grows with the trials.
                    let (name, data) = try readConfig(path) { url, name throws(ConfigFileError) in
                        (name, try ConfigText.bytes(url, name: name, largest: .max))
                    }
                    do {
                        return (name: name, file: try TrialResultsFile.read(data, name: name))
                    } catch {
                        throw CommandFailure(.dataError, "\(error)")
                    }
                }
                do {
                    file = try TrialResultsFile.merge(files)
                } catch {
                    throw CommandFailure(.dataError, "\(error)")
                }
            } else {
                let shard = try chosenShard()
                if shard != nil && output == nil {
                    throw CommandFailure(.usage, "a shard writes its results to --output FILE, for --merge")
                }
                // A shard's report would judge a part of the trials: the reports are --merge's.
                if shard != nil && (junit != nil || html != nil) {
                    throw CommandFailure(
                        .usage, "a shard writes only its results file: give --junit and --html to --merge")
                }
                let places = try loadFixtures(fixtures)
                // `--db` is checked once before anything runs: a file that is not a Waypost store is
                // 73 with one line, as for every other command. One not there yet is made by the
                // first run recorded into it: scenarios that cannot be read create no store.
                if let db {
                    if FileManager.default.fileExists(atPath: db) {
                        _ = try openStore(db)
                    } else {
                        try OutputDestination.checkCreatable(db)
                    }
                }
                // Runs nobody records live in memory (or, durable, in SQLite's private temporary
                // stores): whatever ends the process (Ctrl-C, a cancelled CI job, SIGKILL) leaves
                // nothing in $TMPDIR.
                var runner = ScenarioRunner(fixtures: places, storePath: db, timeBudget: .seconds(budget))
                runner.unrecordedPath = runPath
                file = try await runUnits(runner, shard: shard ?? (1, 1))
                do {
                    try runner.finishRecording(of: file)
                } catch {
                    throw CommandFailure(.unavailable, "\(error)")
                }
                if let output {
                    try OutputDestination(output).write {
                        $0.write(String(decoding: file.encoded(), as: UTF8.self) + "\n")
                    }
                    if let shard {
                        FileHandle.standardError.write(
                            Data(
                                "waypost: shard \(shard.0)/\(shard.1): \(file.units.count) runs written to \(output)\n"
                                    .utf8))
                        return
                    }
                }
            }
            let results = file.results()
            if let html { try OutputDestination(html).write { $0.write(TrialsPage.html(file)) } }
            let report = format == .json ? ScenarioReport.json(results) : ScenarioReport.text(results)
            try writeReport(
                report, junit: junit,
                standardOutputTaken: output.map { OutputDestination($0) == .standardOutput } ?? false
            ) { ScenarioReport.junit(results) }
            for result in results {
                // The report has each error too; standard error gets the one line every command gives.
                if let error = result.error {
                    FileHandle.standardError.write(
                        Data("waypost: error: \(DisplayEscaping.escape(error.description))\n".utf8))
                }
                if let kind = result.error?.kind {
                    worst = max(worst, SysExit(kind, overBudget: .expectationFailed))
                } else if !result.passed {
                    worst = max(worst, .expectationFailed)
                }
            }
        }
        if worst != .ok { throw ExitCode(worst.rawValue) }
    }

    /// Reads every scenario, then runs this shard's units `jobs` at a time.
    private func runUnits(_ runner: ScenarioRunner, shard: (Int, Int)) async throws -> TrialResultsFile {
        var read: [Scenario?] = []
        var failures: [Int: (error: ScenarioError, at: EpochInstant, took: Seconds)] = [:]
        var headers: [ScenarioHeader] = []
        let clock = ContinuousClock()
        for (index, path) in scenarios.enumerated() {
            let (started, begin) = (WallClock().now, clock.now)
            do {
                let scenario = try ScenarioFile.read(contentsOf: URL(fileURLWithPath: path), displayName: path)
                headers.append(try runner.header(scenario, trials: trials))
                read.append(scenario)
            } catch {
                // A scenario that cannot be read or run as asked is one unit: its error.
                headers.append(.unreadable(path))
                read.append(nil)
                failures[index] = (error, started, Seconds(clock.now - begin))
            }
        }
        let units = TrialResultsFile.units(of: headers, shard: shard.0, of: shard.1)
        let scenarios = read
        // The runs `--db` records (each scenario's unit 0 in this shard) begin in command-line
        // order before any runs: the latest run is the last scenario's, however the jobs interleave.
        do {
            try runner.reserveRuns(for: units.filter { $0.1 == 0 }.compactMap { scenarios[$0.0] })
        } catch {
            throw CommandFailure(.unavailable, "\(error)")
        }
        // Units one after another on a job hand their stores and emulators on.
        let resources = RunResources()
        let records = await mapConcurrently(count: units.count, jobs: jobs) { [headers, failures] position in
            let (index, trial) = units[position]
            guard let scenario = scenarios[index] else {
                // Its attempt is what was measured: JUnit's timestamp and time.
                var record = TrialRecord(
                    file: headers[index].file, trial: trial, seed: 0, results: [], firstMatches: [],
                    error: failures[index]?.error)
                record.startedAt = failures[index]?.at
                record.duration = failures[index]?.took
                return TrialResultsFile.Unit(scenario: index, record: record)
            }
            let record = await runner.run(scenario, unit: trial, of: headers[index], reusing: resources)
            return TrialResultsFile.Unit(scenario: index, record: record)
        }
        await resources.stop()
        return TrialResultsFile(
            shard: shard.0, shards: shard.1, scenarios: headers, options: verdictOptions, units: records)
    }

    /// What changes verdicts besides the scenarios, as `--merge` compares it: the options, the
    /// tool's version and its field mechanism's fitted parameters (shards run by other builds
    /// are another run). The scenarios' own inputs, and their trials — `--trials` or their own —
    /// are in their headers.
    private var verdictOptions: [String: String] {
        var options = ["--time-budget": "\(budget)"]
        options["waypost"] = Waypost.configuration.version
        options["field mechanism"] = RunIdentity.mechanismDigest
        if let fixtures {
            let digest = InputDigest(ScenarioInput(name: fixtures, url: URL(fileURLWithPath: fixtures)))
            options["--fixtures"] = "sha256:\(digest.sha256.prefix(12))…"
        }
        return options
    }
}

extension SysExit: Comparable {
    /// Which of two statuses a command with several outcomes reports: the more serious.
    static func < (a: SysExit, b: SysExit) -> Bool { a.rawValue < b.rawValue }
}

extension RunPath: ExpressibleByArgument {}
