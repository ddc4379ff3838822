import ArgumentParser
import ConfigFiles
import Foundation
import Scenarios
import WaypostSupport

/// `waypost compare OBSERVED SCENARIO`: a real device's logged region events placed in the
/// scenario's trials (the rules: docs/compare.md).
struct Compare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Place a device's logged region events in a scenario's trials (exit 1 when one falls outside).",
        discussion: """
            OBSERVED is the event stream's JSONL, as `waypost replay --format jsonl` writes it and \
            an app can log from its delegate callbacks (docs/compare.md), its lines in any time \
            order; its earliest t is the route's start unless --start says otherwise. The \
            scenario (one device, a realism that varies) runs its exact run and its trials in \
            memory. The n-th regionEnter (or \
            regionExit) of a region in the log is matched with the n-th the runs predict. Per \
            logged event: its lateness against the exact run, its percentile among the trials \
            that produced it, and whether it is within their central 95 % (the 2.5th to the \
            97.5th percentile, nearest rank; produced in 2.5 % of the trials or more); one the \
            trials never produce is unpredicted, outside. Per predicted event never logged: the \
            trials' miss rate, outside when below 2.5 %.

            Exit codes: 0 every event within, 1 one is outside, 64 a scenario with realism: exact \
            or several devices, 65 an unreadable log or scenario, or a log naming a region the \
            scenario does not have, 66 a missing file.

            Examples:
              waypost replay tracks/sunnyvale-commute.kml --realism field --rest 840 \\
                --regions fixtures/regions/commute-cafes.yaml --seed 5 \\
                --format jsonl | tee phone.jsonl \\
                | waypost compare - fixtures/scenarios/field-cafe-checkin.yaml
              waypost compare phone.jsonl fixtures/scenarios/field-cafe-checkin.yaml
              waypost compare phone.jsonl fixtures/scenarios/field-cafe-checkin.yaml \\
                --format json
              waypost compare phone.jsonl fixtures/scenarios/field-cafe-checkin.yaml \\
                --junit out.xml
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(
        help: "The device's log: event stream JSONL (-: standard input).", completion: .file(extensions: ["jsonl"]))
    var observed: String

    @Argument(
        help: "A scenario file (YAML or JSON; format: waypost help scenarios).",
        completion: .file(extensions: configExtensions))
    var scenario: String

    @Option(
        parsing: .unconditional,
        help: "Trials that make the prediction (default: the scenario's 'trials', else 100).")
    var trials: Int?

    @Option(parsing: .unconditional, help: "Seed the trials derive their seeds from (default: the scenario's).")
    var seed: UInt64?

    @Option(help: "The instant the route starts in the log's clock, RFC 3339 (default: the log's earliest t).")
    var start: String?

    @Option(help: "text or json.")
    var format: Format = .text

    @Option(
        help:
            "Also write the verdicts as JUnit XML to this file (-: standard output, and the report to standard error).",
        completion: .file(extensions: ["xml"]))
    var junit: String?

    @Option(parsing: .unconditional, help: "Trials at once (default: twice the number of cores).")
    var jobs: Int = 2 * ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        try OptionRange.check("--jobs", jobs, 1...Int.max)
        if let trials { try OptionRange.check("--trials", trials, 2...1_000_000) }
        if let start {
            do throws(RFC3339.Problem) {
                _ = try RFC3339.parse(start)
            } catch {
                throw ValidationError("--start '\(start)' \(error.description)")
            }
        }
    }

    func run() async throws {
        var passed = true
        try await reportingFailures {
            try OutputDestination.checkCreatable(junit)
            // The log first: a bad one is 65 before anything runs.
            let log = try readLog()
            var scenario: Scenario
            do throws(ScenarioError) {
                scenario = try ScenarioFile.read(
                    contentsOf: URL(fileURLWithPath: self.scenario), displayName: self.scenario)
            } catch {
                throw CommandFailure(SysExit(error.kind, overBudget: .dataError), error.description)
            }
            if let problem = ScenarioRunner.trialsProblem(scenario) {
                throw CommandFailure(.usage, "\(self.scenario): compare needs trials, and \(problem)")
            }
            guard scenario.devices.count == 1 else {
                throw CommandFailure(
                    .usage,
                    "\(self.scenario): compare takes a scenario with one device (a log is one device's); it has \(scenario.devices.count)"
                )
            }
            // A spread needs two trials at least, as --trials does: one trial is every event outside.
            if trials == nil, let count = scenario.trials, count < 2 {
                throw CommandFailure(
                    .usage,
                    "\(self.scenario): its trials: \(count) is one run, no spread to place an event in; give --trials N (2…1000000)"
                )
            }
            // A region the scenario lacks is a log and scenario that do not fit: 65 at the line.
            do throws(ConfigFileError) {
                try log.checkRegions(scenario.regions.map(\.identifier), scenario: scenario.name)
            } catch {
                throw CommandFailure(error)
            }
            if let seed { scenario.seed = seed }
            let runner = ScenarioRunner(fixtures: try loadFixtures(nil))
            let prediction: Prediction
            do throws(ScenarioError) {
                prediction = try await runner.predict(scenario, trials: trials ?? scenario.trials ?? 100, jobs: jobs)
            } catch {
                throw CommandFailure(SysExit(error.kind, overBudget: .dataError), error.description)
            }
            let comparison = Comparison(
                log, with: prediction, start: start.flatMap { try? RFC3339.parse($0) }, scenario: scenario,
                seed: scenario.seed)
            passed = comparison.passed
            let report = format == .json ? comparison.json() : comparison.text()
            try writeReport(report, junit: junit) { comparison.junit() }
        }
        if !passed { throw ExitCode(SysExit.expectationFailed.rawValue) }
    }

    /// The log, from its file or standard input: missing → 66, a bad line → 65 at its line and column.
    private func readLog() throws -> ObservedLog {
        do {
            if observed == "-" {
                return try ObservedLog.parse(FileHandle.standardInput.readDataToEndOfFile(), name: "standard input")
            }
            return try ObservedLog.read(contentsOf: URL(fileURLWithPath: observed), displayName: observed)
        } catch {
            throw CommandFailure(error)
        }
    }
}
