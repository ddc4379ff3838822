import ConfigFiles
import Foundation
import Store

/// A run's share of scenario units — or all of them — as `waypost test --shard K/N --output FILE`
/// writes it and `waypost test --merge FILE…` reads it back: the verdict is aggregated from the
/// units alone, so N shards merged give the report one process gives, byte for byte.
public struct TrialResultsFile: Codable, Sendable, Equatable {
    /// One unit's record, and which scenario (by its place on the command line) it belongs to.
    public struct Unit: Codable, Sendable, Equatable {
        public var scenario: Int
        public var record: TrialRecord

        public init(scenario: Int, record: TrialRecord) {
            (self.scenario, self.record) = (scenario, record)
        }
    }

    /// Names the layout, for a reader to refuse what it does not know.
    public var format = Self.currentFormat
    /// This file's shard, K of N (1 of 1 for a whole run).
    public var shard: Int
    public var shards: Int
    /// Every scenario of the run, whichever shard runs its units.
    public var scenarios: [ScenarioHeader]
    /// The command's options that change verdicts, by flag (`--trials`, `--time-budget`, the
    /// digest of `--fixtures`): shards run with other options are another run.
    public var options: [String: String]
    public var units: [Unit]

    /// 2: every trials scenario runs its exact run (trial 0), whatever its expectations.
    /// 3: each scenario's seed, realism and input digests, and the run's options.
    public static let currentFormat = "waypost-trials/3"

    public init(
        shard: Int, shards: Int, scenarios: [ScenarioHeader], options: [String: String] = [:], units: [Unit]
    ) {
        (self.shard, self.shards, self.scenarios, self.options, self.units) = (
            shard, shards, scenarios, options, units
        )
    }

    /// The units of `scenarios`, in order; shard K of N takes every N-th, starting at the K-th.
    public static func units(of scenarios: [ScenarioHeader], shard: Int = 1, of shards: Int = 1) -> [(Int, Int)] {
        let all = scenarios.enumerated().flatMap { index, header in header.units.map { (index, $0) } }
        return all.enumerated().filter { $0.offset % shards == shard - 1 }.map(\.element)
    }

    /// The verdicts, scenario by scenario, from the units (each scenario's in trial order).
    public func results() -> [ScenarioResult] {
        let byScenario = Dictionary(grouping: units, by: \.scenario)
        return scenarios.enumerated().map { index, header in
            ScenarioResult(header, records: (byScenario[index] ?? []).map(\.record).sorted { $0.trial < $1.trial })
        }
    }

    /// Per scenario run as trials whose every unit is here, the distributions its exact run's
    /// map shows: each expectation's verdict and when its event or post came, exact run and trials.
    public func distributions() -> [(scenario: ScenarioHeader, distributions: [TrialDistribution])] {
        let byScenario = Dictionary(grouping: units, by: \.scenario)
        return zip(scenarios, results()).enumerated().compactMap { index, pair in
            let (header, result) = pair
            let records = (byScenario[index] ?? []).map(\.record).sorted { $0.trial < $1.trial }
            guard header.trials != nil, records.map(\.trial) == header.units, result.error == nil,
                let exact = records.first
            else { return nil }
            let distributions = result.expectations.enumerated().map { position, expectation in
                TrialDistribution(
                    description: expectation.description, verdict: expectation.actual, passed: expectation.passed,
                    exact: exact.firstMatch(position), times: records.dropFirst().map { $0.firstMatch(position) })
            }
            return (header, distributions)
        }
    }

    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data()
    }

    /// Reads one file; `name` is what errors call it.
    public static func read(_ data: Data, name: String) throws(ScenarioError) -> TrialResultsFile {
        let file: TrialResultsFile
        do {
            file = try JSONDecoder().decode(TrialResultsFile.self, from: data)
        } catch {
            throw ScenarioError(.data, notResults(data, name: name, error))
        }
        guard file.format == currentFormat else {
            throw ScenarioError(
                .data, "\(name): results format '\(file.format)', this waypost reads '\(currentFormat)'")
        }
        if let damage = file.damage() {
            throw ScenarioError(.data, "\(name): not as waypost test --output writes it: \(damage)")
        }
        return file
    }

    /// Why `data` is not a results file, at its line and column: JSONDecoder says where in the
    /// structure it stopped (or nothing, for a file cut short), so the text is read again as
    /// strict JSON to find the place.
    private static func notResults(_ data: Data, name: String, _ error: any Error) -> String {
        let what = "not a waypost results file (written by waypost test --output)"
        let root: ConfigNode
        do {
            root = try ConfigNode.json(ConfigText.decode(data, name: name), name: name)
        } catch {
            guard error.line > 0 else { return "\(name): \(what): \(error.message)" }
            return "\(name):\(error.line):\(error.column): \(what): \(error.message)"
        }
        guard let error = error as? DecodingError else { return "\(name): \(what)" }
        let (node, reason) = root.locate(error)
        return "\(name)\(node.map { ":\($0.line):\($0.column)" } ?? ""): \(what): \(reason)"
    }

    /// What no run writes, in a file that decoded: a shard or a trial count out of range, a unit
    /// of no scenario, a record whose results are not its scenario's expectations', a time no run
    /// takes, a seed its trial does not have — an edited or damaged file; nil when there is none.
    /// (Aggregated as they were, such records trapped the tool, or gave verdicts no run gave.)
    func damage() -> String? {
        guard shards >= 1, shard >= 1, shard <= shards else { return "shard \(shard) of \(shards)" }
        for header in scenarios {
            if let trials = header.trials, !(1...ScenarioFile.mostTrials).contains(trials) {
                return
                    "scenario '\(header.name)' runs \(trials) trials (a scenario runs 1 to \(ScenarioFile.mostTrials))"
            }
        }
        for unit in units {
            guard scenarios.indices.contains(unit.scenario) else {
                return "a unit of scenario \(unit.scenario + 1) (there are \(scenarios.count))"
            }
            let (header, record) = (scenarios[unit.scenario], unit.record)
            guard (0...(header.trials ?? 0)).contains(record.trial) else {
                return "scenario '\(header.name)' has no trial \(record.trial)"
            }
            let what = record.trial == 0 ? "the run of '\(header.name)'" : "trial \(record.trial) of '\(header.name)'"
            let count = header.expectations.count
            if record.error == nil && (record.results.count != count || record.firstMatches.count != count) {
                return "\(what) has \(record.results.count) results and \(record.firstMatches.count) first matches "
                    + "for \(count) expectations"
            }
            if let time = record.firstMatches.compactMap({ $0 }).first(where: {
                !($0.seconds >= 0 && $0 <= ConfigNode.longestDuration)
            }) {
                return "\(what) matched first at \(time.seconds) s from its start, which no run reaches"
            }
            let seed =
                header.trials == nil || record.trial == 0 ? header.seed : Trials.seed(header.seed, trial: record.trial)
            guard record.seed == seed else {
                return "\(what) ran with seed \(record.seed), not its own \(seed)"
            }
        }
        return nil
    }

    /// What is wrong with the units this file holds, against those its shard runs — one missing,
    /// one twice, one of another shard or of no scenario (an edited or damaged file) — or nil: a
    /// merge must not give verdicts over other trials than the run's, silently.
    func unitsDiffer() -> String? {
        func named(_ unit: (scenario: Int, trial: Int)) -> String {
            let scenario =
                scenarios.indices.contains(unit.scenario)
                ? "'\(scenarios[unit.scenario].name)'" : "\(unit.scenario + 1) (there are \(scenarios.count))"
            return unit.trial == 0
                ? "the exact run of scenario \(scenario)" : "trial \(unit.trial) of scenario \(scenario)"
        }
        let expected = Self.units(of: scenarios, shard: shard, of: shards).map { (scenario: $0.0, trial: $0.1) }
        var held: [[Int]: Int] = [:]
        for unit in units { held[[unit.scenario, unit.record.trial], default: 0] += 1 }
        if let twice = units.first(where: { held[[$0.scenario, $0.record.trial]] ?? 0 > 1 }) {
            return "\(named((twice.scenario, twice.record.trial))) is in it twice"
        }
        let wanted = Set(expected.map { [$0.scenario, $0.trial] })
        if let stranger = units.first(where: { !wanted.contains([$0.scenario, $0.record.trial]) }) {
            return "\(named((stranger.scenario, stranger.record.trial))) is not in this shard"
        }
        if let missing = expected.first(where: { held[[$0.scenario, $0.trial]] == nil }) {
            return "\(named(missing)) is missing"
        }
        return nil
    }

    /// The shards of one run combined: each of 1…N exactly once, all of the same run, each whole.
    public static func merge(_ files: [(name: String, file: TrialResultsFile)]) throws(ScenarioError)
        -> TrialResultsFile
    {
        guard let (firstName, first) = files.first else { throw ScenarioError(.data, "no results files to merge") }
        var seen: [Int: String] = [:]
        for (name, file) in files {
            if let why = RunIdentity.difference(file, from: first) {
                throw ScenarioError(.data, "\(name) is from another run than \(firstName): \(why)")
            }
            if let other = seen[file.shard] {
                throw ScenarioError(.data, "\(name) and \(other) are both shard \(file.shard)/\(file.shards)")
            }
            if let why = file.unitsDiffer() {
                throw ScenarioError(.data, "\(name) is not the whole of shard \(file.shard)/\(file.shards): \(why)")
            }
            seen[file.shard] = name
        }
        let missing = (1...first.shards).filter { seen[$0] == nil }
        guard missing.isEmpty else {
            throw ScenarioError(
                .data,
                "shard\(missing.count > 1 ? "s" : "") \(missing.map { "\($0)/\(first.shards)" }.joined(separator: ", ")) missing"
            )
        }
        // The scenarios as shard 1 names them: shards run from other folders (CI runners checking
        // out elsewhere) spell a scenario's path differently; its digests say it is the same.
        // Each unit's expectations are located in the same spelling (`at:` lines, JUnit's failures).
        let base = files.first { $0.file.shard == 1 }?.file ?? first
        let units = files.flatMap(\.file.units).map { unit in
            var unit = unit
            let (old, new) = (unit.record.file, base.scenarios[unit.scenario].file)
            guard old != new else { return unit }
            unit.record.file = new
            for index in unit.record.results.indices where unit.record.results[index].location.hasPrefix(old + ":") {
                unit.record.results[index].location = new + unit.record.results[index].location.dropFirst(old.count)
            }
            return unit
        }
        return TrialResultsFile(shard: 1, shards: 1, scenarios: base.scenarios, options: base.options, units: units)
    }
}
