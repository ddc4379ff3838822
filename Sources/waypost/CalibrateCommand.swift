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
            // Both files are opened beside their places before the fit, and renamed into them only
            // once both are written: a report that could not be written (no docs/ folder) left the
            // parameters rewritten after minutes of fitting, the report not. Now it is said at once.
            let files = write ? try [Self.parametersFile, Self.reportFile].map { try TemporarySibling(of: $0) } : []
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
                files.forEach { $0.abandon() }
                try BufferedOutput.writeToStandardOutput(report)
                let names = unmet.map(\.rawValue).joined(separator: " and ")
                throw CommandFailure(
                    .expectationFailed,
                    "no parameter set of the grid meets every \(names) figure over \(Counted.text(crossings, "crossing")) "
                        + "(the report marks the misses)\(write ? "; nothing was written" : "")")
            }
            do {
                for (file, text) in zip(files, [Self.parametersSource(field: field, device: device), report]) {
                    let output = BufferedOutput(file.handle, name: file.destination)
                    output.write(text)
                    try output.finish()
                }
            } catch {
                files.forEach { $0.abandon() }
                throw error
            }
            for file in files { try file.commit() }
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

            \(Self.surroundings)

            \(knownNotFitted())

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

    /// The OS's positioning per surroundings, as `Surroundings.positioning` has it, and its sources.
    static var surroundings: String {
        var table = """
            The OS's positioning per surroundings (sourced defaults; `waypost sweep --environment … --wifi …`,
            scenario `environment:`/`wifi:`):

            | surroundings | source | median error | re-estimated every | stale by (mean) |
            |---|---|---|---|---|

            """
        for wifi in [true, false] {
            for environment in Surroundings.Environment.allCases {
                let place = Surroundings(environment, wifi: wifi)
                let p = place.positioning
                table +=
                    "| \(environment.rawValue), \(wifi ? "Wi-Fi" : "no Wi-Fi") | \(place.technology) | "
                    + "\(grouped(p.medianError)) m | \(grouped(p.changeDistance)) m moved | "
                    + "\(SweepReport.number(p.staleness.seconds)) s |\n"
            }
        }
        return table + """

            Wi-Fi: Cheng et al., MobiSys 2005 (median 13–40 m "depending upon the characteristics of the
            environment"); Zandbergen, J. Location Based Services 6:35 (2012, medians 43–92 m in three
            cities); Zandbergen, Transactions in GIS 13:5 (2009, iPhone Wi-Fi median 74 m). Cell: Zandbergen
            2009 (iPhone cellular median 600 m); Abdel Meniem et al., IJCSI 9:188 (2012, mean 120 m urban,
            394 m rural); Mozilla Location Service's accuracy notes (rural cells tens of kilometres).
            Re-estimation: an access point's reach (~40–100 m) for Wi-Fi; for cells the significant-change
            service's measured triggers (750 m moved: half the time, 2,500 m: 95 %; T. Stokes, 2010).
            Staleness: a Wi-Fi scan is "tens of seconds" old when reported (Mozilla Location Service).
            """
    }

    /// A known answer of the mechanism no source measures: fast small fences, Wi-Fi on and off —
    /// the figures `waypost sweep` gives with the same cells and seed.
    func knownNotFitted() -> String {
        let notified = [true, false].map { wifi in
            let cell = FieldSweep.Cell(radius: 200, speed: 20, surroundings: Surroundings(.suburban, wifi: wifi))
            return Proportions.percent(FieldSweep.run(cell, mechanism: field, trials: 400, seed: 11).entry.fraction)
        }
        return """
            Known, not fitted: for small fences passed fast, coarser positioning can notify *more* often —
            a 200 m fence at 20 m/s, suburban, is notified on entry in \(notified[0]) of trials with Wi-Fi on and
            \(notified[1]) with it off (`waypost sweep --radius 200 --speed 20 --wifi on,off --trials 400 --seed 11`): a
            coarse estimate reaches "near the boundary" sooner and powers satellites earlier. Apple says only
            that region monitoring is "significantly less accurate" without Wi-Fi; no source measures fast
            small fences per surroundings, so the mechanism's answer there is its own, not a published one.
            """
    }

    /// Whole metres with thousands grouped: `2,500`, `1,500,000`.
    private static func grouped(_ metres: Double) -> String {
        var digits = String(Int(metres.rounded()))
        var groups: [String] = []
        while digits.count > 3 {
            groups.insert(String(digits.suffix(3)), at: 0)
            digits.removeLast(3)
        }
        return ([digits] + groups).joined(separator: ",")
    }

    private func format(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "—" }
        guard abs(value) < 1.5 && value != value.rounded() else { return SweepReport.number(value) }
        // A fraction that is neither none nor all never reads 0.000 or 1.000.
        return FixedPoint.printf(value, digits: Proportions.decimals(for: value, whole: 1, minimum: 3))
    }
}
