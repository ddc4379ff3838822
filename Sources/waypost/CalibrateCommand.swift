import ArgumentParser
import Foundation
import LocationSimulation
import SimulatedTime
import WaypostSupport

/// `waypost calibrate`: fits the field mechanism's parameter sets to their published figures and
/// reports each figure with the model's value (`make calibrate` writes both into the checkout).
struct Calibrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fit the field mechanism's parameters to published figures, and report them.",
        discussion: """
            For each parameter set (field: what phones were measured doing; device: what Apple \
            documents), every combination of the fitted parameters' grid is run over the set's \
            figures over --fit-trials trials a cell; the eight nearest the middle of each target \
            are run again over the report's crossings, and the best there that meets every figure \
            is kept (a fit on few trials can meet a figure by luck). The report gives each figure's source, its reading, the model's value over at \
            least 2,000 simulated crossings with its 95 % interval, and what the model predicts, \
            unfitted, for radii it was not fitted to. With --write (run in the checkout, as `make \
            calibrate` does) the parameters go to Sources/LocationSimulation/Field/FittedParameters.swift \
            and the report to docs/field-calibration.md. When no combination meets every figure of a \
            set, the report is printed with its misses, nothing is written, and the exit status is 1.

            Examples:
              waypost calibrate --fit-trials 40
              make calibrate
            """
    )

    @Option(parsing: .unconditional, help: "Trials per cell for each candidate of the grid.")
    var fitTrials = 100

    @Option(parsing: .unconditional, help: "Simulated crossings per figure in the report (at least).")
    var reportCrossings = 2_000

    @Flag(help: "Write the parameters and the report into the checkout (the current directory).")
    var write = false

    static let parametersFile = "Sources/LocationSimulation/Field/FittedParameters.swift"
    static let reportFile = "docs/field-calibration.md"

    func validate() throws {
        try OptionRange.check("--fit-trials", fitTrials, 1...100_000)
        try OptionRange.check("--report-crossings", reportCrossings, 1...1_000_000)
    }

    func run() async throws {
        try await reportingFailures {
            if write, !FileManager.default.fileExists(atPath: Self.parametersFile) {
                throw CommandFailure(.noInput, "--write runs in Waypost's checkout: \(Self.parametersFile) is not here")
            }
            let (fitTrials, crossings) = (self.fitTrials, self.reportCrossings)
            let fitted = await withTaskGroup(of: (FieldCalibration.Set, RegionMechanism, Bool).self) { group in
                for set in FieldCalibration.Set.allCases {
                    group.addTask {
                        let fit = FieldCalibration.fit(set, trials: fitTrials, crossings: crossings)
                        return (set, fit.mechanism, !fit.results.isEmpty && fit.results.allSatisfy(\.met))
                    }
                }
                var fitted: [FieldCalibration.Set: (mechanism: RegionMechanism, meetsAll: Bool)] = [:]
                for await (set, mechanism, meetsAll) in group { fitted[set] = (mechanism, meetsAll) }
                return fitted
            }
            let field = fitted[.field]?.mechanism ?? .field
            let device = fitted[.device]?.mechanism ?? .device
            let report = CalibrationReport(field: field, device: device, crossings: crossings, fitTrials: fitTrials)
                .markdown()
            // A set that meets no figure set is no calibration: the report shows what was missed,
            // and nothing is written over the parameters that do (the help says the kept set
            // "meets every figure"; it exited 0 and wrote one that did not).
            let unmet = FieldCalibration.Set.allCases.filter { fitted[$0]?.meetsAll != true }
            if !unmet.isEmpty {
                try BufferedOutput.writeToStandardOutput(report)
                let names = unmet.map(\.rawValue).joined(separator: " and ")
                throw CommandFailure(
                    .expectationFailed,
                    "no parameter set of the grid meets every \(names) figure over \(Counted.text(crossings, "crossing")) "
                        + "(the report marks the misses)\(write ? "; nothing was written" : "")")
            }
            if write {
                try OutputDestination(Self.parametersFile).write {
                    $0.write(Self.parametersSource(field: field, device: device))
                }
                try OutputDestination(Self.reportFile).write { $0.write(report) }
            }
            try BufferedOutput.writeToStandardOutput(report)
        }
    }

    static func parametersSource(field: RegionMechanism, device: RegionMechanism) -> String {
        func literal(_ m: RegionMechanism) -> String {
            """
            RegionMechanism(
                    cushion: \(SweepReport.number(m.cushion)), minimumInterval: Seconds(\(SweepReport.number(m.minimumInterval.seconds))), cadenceScale: \(SweepReport.number(m.cadenceScale)), satelliteAcquisition: Seconds(\(SweepReport.number(m.satelliteAcquisition.seconds))))
            """
        }
        return """
            // Generated by `waypost calibrate --write` (docs/field-calibration.md): edit the procedure, not this file.
            import SimulatedTime

            extension RegionMechanism {
                /// Fitted to what phones were measured doing.
                public static let field = \(literal(field))
                /// Fitted to what Apple documents.
                public static let device = \(literal(device))
            }

            """
    }
}

/// The calibration report: each figure with the model's value, and the model's unfitted answers.
struct CalibrationReport {
    var field: RegionMechanism
    var device: RegionMechanism
    var crossings: Int
    var fitTrials: Int

    private func row(_ name: String, _ m: RegionMechanism) -> String {
        let numbers = [
            "\(SweepReport.number(m.cushion)) m", "\(SweepReport.number(m.minimumInterval.seconds)) s",
            SweepReport.number(m.cadenceScale), "\(SweepReport.number(m.satelliteAcquisition.seconds)) s",
        ]
        return "| \(name) | " + numbers.joined(separator: " | ") + " |"
    }

    func markdown() -> String {
        var out = """
            # Field mechanism: calibration report

            Generated by `waypost calibrate --write` (`make calibrate`); do not edit by hand. The mechanism is
            described in the LocationSimulation documentation (`RegionMechanism`) and in docs/scenarios.md.

            ## What was fitted, and what was not

            Fitted, per parameter set, on a grid (cushion \(FieldCalibration.cushions.map { SweepReport.number($0) }.joined(separator: ", ")) m;
            minimum interval between estimates \(FieldCalibration.minimumIntervals.map { SweepReport.number($0) }.joined(separator: ", ")) s;
            cadence scale \(FieldCalibration.cadenceScales.map { SweepReport.number($0) }.joined(separator: ", "));
            satellite acquisition \(FieldCalibration.satelliteAcquisitions.map { SweepReport.number($0) }.joined(separator: ", ")) s,
            the range its sources give): four numbers, each combination run over \(fitTrials) trials
            a cell; the eight best were run again over the report's crossings, and the best there kept.
            Not fitted — sourced, and the same for both sets: the OS's positioning per surroundings
            (median error, re-estimation distance, staleness: `Surroundings.positioning`), the minimum
            effective radius (100 m), the persistence (20 s), the idle interval (120 s), the dispatch
            (log-normal, median 5 s, σ 0.5). No notified fraction, lateness or distance is an input.

            | set | cushion | minimum interval | cadence scale | satellite acquisition |
            |---|---|---|---|---|
            \(row("field", field))
            \(row("device", device))

            ## The figures

            Each figure's reading was fixed before fitting. The model's value is over at least \(crossings)
            simulated crossings (trials of the figure's cells pooled), with its 95 % interval.

            | set | figure | source | reading | model | 95 % interval | crossings | met |
            |---|---|---|---|---|---|---|---|

            """
        for figure in FieldCalibration.figures {
            let result = FieldCalibration.reportResult(
                figure, mechanism: figure.set == .field ? field : device, crossings: crossings)
            out +=
                "| \(figure.set.rawValue) | \(figure.name) | \(figure.source) | \(figure.reading) | \(format(result.value)) | \(format(result.interval.lowerBound))–\(format(result.interval.upperBound)) | \(result.trials) | \(result.met ? "yes" : "**no**") |\n"
        }
        out += """

            ## What the model predicts, unfitted

            `field`, suburban, Wi-Fi on, 500 trials a cell: the fraction notified, the median (nearest rank) lateness
            (seconds after the true crossing) and the median true distance from the centre when notified.

            | radius | speed | entry notified | entry late p50 | entry distance p50 | exit notified | exit late p50 | exit distance p50 |
            |---|---|---|---|---|---|---|---|

            """
        for radius in [10.0, 50, 100, 200] {
            for speed in [1.4, 15] {
                let s = FieldSweep.run(
                    FieldSweep.Cell(radius: radius, speed: speed), mechanism: field, trials: 500, seed: 7)
                out +=
                    "| \(SweepReport.number(radius)) m | \(SweepReport.number(speed)) m/s | \(format(s.entry.fraction)) | \(format(s.entry.lateSeconds?.p50)) | \(format(s.entry.distanceFromCentre?.p50)) | \(format(s.exit.fraction)) | \(format(s.exit.lateSeconds?.p50)) | \(format(s.exit.distanceFromCentre?.p50)) |\n"
            }
        }
        return out
    }

    private func format(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "—" }
        guard abs(value) < 1.5 && value != value.rounded() else { return SweepReport.number(value) }
        // A fraction that is neither none nor all never reads 0.000 or 1.000.
        return FixedPoint.printf(value, digits: Proportions.decimals(for: value, whole: 1, minimum: 3))
    }
}
