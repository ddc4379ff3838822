import ArgumentParser
import Foundation
import LocationSimulation
import WaypostSupport

/// `waypost sweep`: how often, how late and how far from the centre a geofence is notified, for
/// the user's own radius, speed, stop and surroundings, by the field mechanism.
struct Sweep: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "How often, how late and how far away a geofence fires: synthetic crossings under the field mechanism.",
        discussion: """
            Each cell is one combination of the lists: a straight route passing OFFSET metres from \
            a circular region's centre (0: through it) at SPEED, stopping DWELL seconds at the \
            closest point, from radius + 2 km before to radius + 2 km after (six times the \
            surroundings' median positioning error where that is farther: 5.4 km rural without \
            Wi-Fi, beyond where the start could decide anything; and on at speed for at least ten \
            minutes after the exit, so a late notification is measured where the device is), then resting until \
            nothing is pending (30 minutes at most). The device has Always authorization and the \
            app is suspended. An OFFSET at or beyond the radius is a pass-by: any notification is a \
            false alarm, timed from the closest approach. Per cell and event: the fraction of \
            trials notified (95 % Wilson interval), the lateness against the true crossing \
            (negative: early; `waypost test` measures against the exact run instead) and the true \
            distance from the centre when notified, p5/p50/p95 (nearest rank: each a trial's own \
            value). Units: m, m/s, s. The same seed gives the same output.

            Each list option may be repeated, its lists joined (--radius 50 --radius 100 is \
            --radius 50,100); a value given twice in an option is a usage error (64).

            Examples:
              waypost sweep --radius 10,50,100 --speed 1.4,15
              waypost sweep --radius 50 --speed 5 \\
                --environment urban,suburban,rural --wifi on,off
              waypost sweep --radius 100,200 --speed 1.4 --offset 0,150 \\
                --format json -o sweep.json
              waypost sweep --radius 25,50,100,200 --speed 1.4,5,15 \\
                --format html -o sweep.html
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, html
    }

    // Each list option may be given several times, its lists joined (`--radius 50 --radius 100`
    // is `--radius 50,100`): keeping only the last one swept less than was asked for.

    @Option(parsing: .unconditionalSingleValue, help: "Region radii, metres (comma-separated; repeatable).")
    var radius: [NumberList]

    @Option(parsing: .unconditionalSingleValue, help: "Speeds past the region, m/s (comma-separated; repeatable).")
    var speed: [NumberList]

    @Option(
        parsing: .unconditionalSingleValue,
        help: "Seconds stopped at the closest point (comma-separated; repeatable).")
    var dwell = [NumberList([0])]

    @Option(
        parsing: .unconditionalSingleValue,
        help: "Metres between the route and the centre (comma-separated; repeatable).")
    var offset = [NumberList([0])]

    @Option(help: "urban, suburban, rural (comma-separated; repeatable).")
    var environment = ["suburban"]

    @Option(help: "on, off (comma-separated; repeatable).")
    var wifi = ["on"]

    var radii: [Double] { radius.flatMap(\.values) }
    var speeds: [Double] { speed.flatMap(\.values) }
    var dwells: [Double] { dwell.flatMap(\.values) }
    var offsets: [Double] { offset.flatMap(\.values) }

    @Option(help: "The mechanism's parameters: field (fitted to measurements) or device (to Apple's documentation).")
    var realism: RealismProfile = .field

    @Option(parsing: .unconditional, help: "Trials per cell.")
    var trials = 200

    @Option(parsing: .unconditional, help: "Seeds every trial.")
    var seed: UInt64 = 0

    @Option(help: "text, json or html (an offline page of heatmaps).")
    var format: Format = .text

    @Option(
        name: .shortAndLong,
        help: "Write here instead of standard output (replaced only on success; - is standard output).",
        completion: .file())
    var output: String?

    @Option(parsing: .unconditional, help: "Cells computed at once (default: the number of cores).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        try OptionRange.check("--trials", trials, 1...100_000)
        try OptionRange.check("--jobs", jobs, 1...1_024)
        for value in radii { try OptionRange.check("--radius", value, 1...400_000, " m") }
        for value in speeds { try OptionRange.check("--speed", value, 0.1...100, " m/s") }
        for value in dwells { try OptionRange.check("--dwell", value, 0...86_400, " s") }
        for value in offsets { try OptionRange.check("--offset", value, 0...100_000, " m") }
        try Self.refuseRepeats("--radius", radii.map(SweepReport.label))
        try Self.refuseRepeats("--speed", speeds.map(SweepReport.label))
        try Self.refuseRepeats("--dwell", dwells.map(SweepReport.label))
        try Self.refuseRepeats("--offset", offsets.map(SweepReport.label))
        guard realism.mechanism != nil else {
            throw ValidationError("--realism exact has no field mechanism: every trial would be the same run")
        }
        _ = try surroundings()
    }

    /// A value given twice would be the same cells twice, each row a duplicate: refused. Numbers
    /// are compared as values (`100` and `1e2` are one), by the label that prints them.
    static func refuseRepeats(_ option: String, _ items: [String]) throws {
        var seen: Set<String> = []
        for item in items where !seen.insert(item).inserted {
            throw ValidationError("\(option) gives \(item) twice: each value is swept once")
        }
    }

    /// The surroundings named, environments in the order given, then Wi-Fi.
    func surroundings() throws -> [Surroundings] {
        let environmentWords = try environment.flatMap { try words($0, "--environment") }
        let wifiWords = try wifi.flatMap { try words($0, "--wifi") }
        try Self.refuseRepeats("--environment", environmentWords)
        try Self.refuseRepeats("--wifi", wifiWords)
        let environments = try environmentWords.map { word in
            guard let value = Surroundings.Environment(rawValue: word) else {
                throw ValidationError("--environment '\(word)' is not urban, suburban or rural")
            }
            return value
        }
        let wifis = try wifiWords.map { word in
            guard word == "on" || word == "off" else { throw ValidationError("--wifi '\(word)' is not on or off") }
            return word == "on"
        }
        return environments.flatMap { environment in wifis.map { Surroundings(environment, wifi: $0) } }
    }

    private func words(_ list: String, _ option: String) throws -> [String] {
        let words = list.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard !words.contains(where: \.isEmpty) else { throw ValidationError("\(option) '\(list)' has an empty item") }
        return words
    }

    func run() async throws {
        try await reportingFailures {
            try OutputDestination.checkCreatable(output)
            guard let mechanism = realism.mechanism else { return }
            var cells: [FieldSweep.Cell] = []
            for place in try surroundings() {
                for r in radii {
                    for v in speeds {
                        for d in dwells {
                            for o in offsets {
                                cells.append(
                                    FieldSweep.Cell(radius: r, speed: v, dwell: d, offset: o, surroundings: place))
                            }
                        }
                    }
                }
            }
            let (trials, seed, jobs) = (self.trials, self.seed, self.jobs)
            let summaries = await mapConcurrently(count: cells.count, jobs: jobs) { [cells] index in
                FieldSweep.run(cells[index], mechanism: mechanism, trials: trials, seed: seed)
            }
            let report = SweepReport(summaries: summaries, realism: realism.rawValue, seed: seed, trials: trials)
            try OutputDestination(output).write { out in
                switch format {
                case .text: out.write(report.text())
                case .json: out.write(report.json())
                case .html: out.write(report.html())
                }
            }
        }
    }
}

/// A comma-separated list of numbers, as an option's value.
struct NumberList: ExpressibleByArgument, Sendable {
    var values: [Double]

    init(_ values: [Double]) { self.values = values }

    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard !parts.isEmpty, numbers.count == parts.count, numbers.allSatisfy(\.isFinite) else { return nil }
        values = numbers
    }

    var defaultValueDescription: String { values.map { SweepReport.label($0) }.joined(separator: ",") }
}
