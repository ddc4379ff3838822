import ArgumentParser
import Foundation
import Scenarios
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

            Exit codes: 0 every expectation holds, 1 an expectation failed, 65 a scenario is \
            invalid, 66 a scenario file is missing; 130 or 143 when SIGINT or SIGTERM stopped the \
            runs (their temporary stores are removed).

            Examples:
              waypost test fixtures/scenarios/*.yaml
              waypost test fixtures/scenarios/*.yaml --junit out.xml
              waypost test fixtures/scenarios/privacy-zone-home.yaml --format json
              waypost test fixtures/scenarios/commute-cafe-checkin.yaml --db runs.db
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(
        help: "Scenario files (YAML or JSON; format: waypost help scenarios).",
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

    @Option(parsing: .unconditional, help: "Scenarios run at once (default: the number of cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(
        parsing: .unconditional,
        help: "Wall-clock seconds a scenario may run unless it sets its own timeBudget; past it, it fails.")
    var timeBudget: Double = ScenarioRunner.defaultTimeBudget

    func validate() throws {
        try OptionRange.check("--jobs", jobs, 1...Int.max)
        // A budget becomes a deadline in milliseconds on the wall clock: a year keeps it far inside.
        guard timeBudget > 0 else {
            throw ValidationError("--time-budget \(timeBudget) is out of range: more than 0 seconds")
        }
        try OptionRange.check("--time-budget", timeBudget, 0...(86_400 * 365), " seconds (a year)")
    }

    func run() async throws {
        var worst: SysExit = .ok
        try await reportingFailures {
            // SIGINT or SIGTERM (Ctrl-C, a CI job cancelled) removes the runs' temporary stores
            // from $TMPDIR, then exits 130 or 143.
            // `--db` is checked once before anything runs: a file that is not a Waypost store is
            // 73 with one line, as for every other command.
            if let db { _ = try openStore(db) }
            let stores = TemporaryStores()
            let signals = SignalCleanup { finish in stores.removeAll(then: finish) }
            defer { signals.cancel() }
            let runner = ScenarioRunner(
                fixtures: try loadFixtures(fixtures), storePath: db, timeBudget: timeBudget, temporaryStores: stores)
            let results = await runAll(runner)
            let report = format == .json ? ScenarioReport.json(results) : ScenarioReport.text(results)
            if let junit, OutputDestination(junit) == .standardOutput {
                // `--junit -`: standard output carries the XML alone, for a pipe to read whole;
                // the report a person reads moves to standard error.
                FileHandle.standardError.write(Data(report.utf8))
                try OutputDestination.standardOutput.write { $0.write(ScenarioReport.junit(results)) }
            } else {
                try BufferedOutput.writeToStandardOutput(report)
                if let junit {
                    try OutputDestination(junit).write { $0.write(ScenarioReport.junit(results)) }
                }
            }
            for result in results {
                // The report has each error too; standard error gets the one line every command gives.
                if let error = result.error {
                    FileHandle.standardError.write(
                        Data("waypost: error: \(DisplayEscaping.escape(error.description))\n".utf8))
                }
                switch result.error?.kind {
                case .missing?: worst = max(worst, .noInput)
                case .data?: worst = max(worst, .dataError)
                case .unavailable?: worst = max(worst, .unavailable)
                case .overBudget?: worst = max(worst, .expectationFailed)
                case nil: if !result.passed { worst = max(worst, .expectationFailed) }
                }
            }
        }
        if worst != .ok { throw ExitCode(worst.rawValue) }
    }

    /// Runs the scenarios `jobs` at a time; results keep the command line's order.
    private func runAll(_ runner: ScenarioRunner) async -> [ScenarioResult] {
        await withTaskGroup(of: (Int, ScenarioResult).self) { group in
            var results: [ScenarioResult?] = Array(repeating: nil, count: scenarios.count)
            var next = 0
            func start() {
                guard next < scenarios.count else { return }
                let (index, path) = (next, scenarios[next])
                next += 1
                group.addTask {
                    (index, await runner.run(contentsOf: URL(fileURLWithPath: path), displayName: path))
                }
            }
            for _ in 0..<min(jobs, scenarios.count) { start() }
            for await (index, result) in group {
                results[index] = result
                start()
            }
            return results.compactMap { $0 }
        }
    }
}

extension SysExit: Comparable {
    /// Which of two statuses a command with several outcomes reports: the more serious.
    static func < (a: SysExit, b: SysExit) -> Bool { a.rawValue < b.rawValue }
}
