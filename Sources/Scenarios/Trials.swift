import Foundation
import SimulatedTime
import WaypostSupport

/// `rate: ">= 0.8"`: the fraction of trials in which an expectation must hold, decided at 95 %
/// confidence from the Wilson score interval — a rate the trials cannot decide either way is
/// reported as undecided, never as passed.
public struct RateBound: Sendable, Equatable, Codable, CustomStringConvertible {
    public enum Relation: String, Sendable, Codable, CaseIterable {
        case atLeast = ">=", above = ">", atMost = "<=", below = "<"
    }

    public var relation: Relation
    public var value: Double

    /// `">= 0.8"`, `"> 0.5"`, `"<= 0.05"`, `"< 0.1"`; the value a fraction from 0 to 1.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // Longest operators first: ">=" before ">".
        guard
            let relation = [Relation.atLeast, .atMost, .above, .below].first(where: { trimmed.hasPrefix($0.rawValue) }),
            let value = Double(trimmed.dropFirst(relation.rawValue.count).trimmingCharacters(in: .whitespaces)),
            (0...1).contains(value)
        else { return nil }
        (self.relation, self.value) = (relation, value)
    }

    public var description: String {
        let symbol = ["<=": "≤", ">=": "≥", "<": "<", ">": ">"][relation.rawValue] ?? relation.rawValue
        return "\(symbol) \(Proportions.percent(value))"
    }

    /// Whether the interval lies wholly on the bound's side (true), wholly off it (false), or
    /// straddles it (nil: more trials would be needed to say).
    func decide(_ interval: ClosedRange<Double>) -> Bool? {
        switch relation {
        case .atLeast: interval.lowerBound >= value ? true : interval.upperBound < value ? false : nil
        case .above: interval.lowerBound > value ? true : interval.upperBound <= value ? false : nil
        case .atMost: interval.upperBound <= value ? true : interval.lowerBound > value ? false : nil
        case .below: interval.upperBound < value ? true : interval.lowerBound >= value ? false : nil
        }
    }
}

/// `lateBy: { p50: 2m, p95: 6m, max: 10m }`: upper bounds, in seconds, on statistics of how much
/// later than in the scenario's exact run the matched event or post comes.
public struct LateBy: Sendable, Equatable, Codable {
    public var p50: Seconds?
    public var p95: Seconds?
    public var max: Seconds?

    public init(p50: Seconds? = nil, p95: Seconds? = nil, max: Seconds? = nil) {
        (self.p50, self.p95, self.max) = (p50, p95, max)
    }
}

/// Trials: the same scenario run many times, each with its own seed.
public enum Trials {
    /// Trial k's seed (k from 1): the k-th number SplitMix64 draws when seeded with `seed`.
    /// Stable across versions: results files and reports name trials by it.
    public static func seed(_ seed: UInt64, trial k: Int) -> UInt64 { SplitMix64.derived(seed, k) }

    /// The Wilson score interval at 95 % of `successes` of `trials` (``Proportions/wilson(_:of:)``).
    public static func wilson(_ successes: Int, of trials: Int) -> ClosedRange<Double> {
        Proportions.wilson(successes, of: trials)
    }
}

/// What trials found for one expectation: how often it held, and how late its event came.
public struct TrialStatistics: Sendable, Codable, Equatable {
    public var trials: Int
    public var held: Int
    public var rate: Double
    /// The 95 % Wilson interval of the rate, [low, high].
    public var interval: [Double]
    /// False when `rate` was asserted and the trials cannot decide it at 95 %.
    public var decided: Bool
    public var lateness: Lateness?

    /// Seconds later than the exact run, over the trials in which the event or post came.
    public struct Lateness: Sendable, Codable, Equatable {
        public var count: Int
        /// Trials without the event or post (not counted as late).
        public var missing: Int
        public var p50: Seconds?
        public var p95: Seconds?
        public var max: Seconds?
    }
}

/// One run of a scenario: its plain run (trial 0, for a scenario without trials), its exact run
/// (trial 0, the oracle for `lateBy`), or trial k. A results file is a list of these.
public struct TrialRecord: Sendable, Codable, Equatable {
    public var file: String
    public var trial: Int
    public var seed: UInt64
    public var results: [ExpectationResult]
    /// Per expectation, from the start to its first matching event or post.
    public var firstMatches: [Seconds?]
    public var error: ScenarioError?
    /// When the unit began (wall clock), how long it took and how long each expectation's check
    /// took (measured): JUnit's `timestamp` and `time`.
    public var startedAt: EpochInstant?
    public var duration: Seconds?
    public var checkDurations: [Seconds] = []

    public init(
        file: String, trial: Int, seed: UInt64, results: [ExpectationResult], firstMatches: [Seconds?],
        error: ScenarioError? = nil
    ) {
        (self.file, self.trial, self.seed, self.results) = (file, trial, seed, results)
        (self.firstMatches, self.error) = (firstMatches, error)
    }

    /// From the start to expectation `position`'s first match; nil when there was none (or the
    /// record holds no such expectation).
    func firstMatch(_ position: Int) -> Seconds? {
        firstMatches.indices.contains(position) ? firstMatches[position] : nil
    }
}

extension ScenarioResult {
    /// The verdict of a scenario run as trials: each expectation's rate and lateness over
    /// `trials`, against the `exact` run where an expectation bounds lateness.
    static func aggregating(
        _ header: ScenarioHeader, exact: TrialRecord?, trials: [TrialRecord]
    ) -> ScenarioResult {
        var result = ScenarioResult(name: header.name, file: header.file, expectations: [])
        result.trials = trials.count
        if let failed = ([exact].compactMap { $0 } + trials).first(where: { $0.error != nil }) {
            result.error = failed.error
            return result
        }
        result.expectations = header.expectations.enumerated().map { index, spec in
            let runs = trials.map { $0.results[index] }
            let held = runs.filter(\.passed).count
            let interval = Trials.wilson(held, of: trials.count)
            var statistics = TrialStatistics(
                trials: trials.count, held: held, rate: trials.isEmpty ? 0 : Double(held) / Double(trials.count),
                interval: [interval.lowerBound, interval.upperBound], decided: true)
            var passed: Bool
            var expected: String
            var actual = "held in \(held) of \(trials.count) trials: \(Proportions.percent(statistics.rate))"
            if let rate = spec.rate {
                let decision = rate.decide(interval)
                statistics.decided = decision != nil
                passed = decision ?? false
                expected = "a rate \(rate) at 95 % confidence"
                actual +=
                    " (95 % Wilson \(Proportions.percent(interval.lowerBound))–\(Proportions.percent(interval.upperBound)))"
                if decision == nil {
                    actual +=
                        "; undecided: \(Counted.text(trials.count, "trial")) cannot tell whether the rate is \(rate)"
                }
            } else {
                passed = held == trials.count
                expected = "in every trial"
            }
            if let lateBy = spec.lateBy {
                let (lateness, verdict, text) = Self.lateness(lateBy, index, exact: exact, trials: trials)
                statistics.lateness = lateness
                passed = passed && verdict
                expected +=
                    "; late by "
                    + lateBy.bounds.map { "\($0.name) ≤ \(Offset.bound($0.value.seconds))" }.joined(separator: ", ")
                actual += "; " + text
            }
            // Where the expectation is written, in the header's spelling of the file: shards run
            // from other folders name it otherwise, and a merge gives the report one process gives.
            var location = runs.first?.location ?? ""
            if let record = trials.first, location.hasPrefix(record.file + ":") {
                location = header.file + location.dropFirst(record.file.count)
            }
            return ExpectationResult(
                description: runs.first?.description ?? "", location: location,
                passed: passed, expected: expected, actual: actual, trials: statistics)
        }
        return result
    }

    private static func lateness(_ bounds: LateBy, _ index: Int, exact: TrialRecord?, trials: [TrialRecord])
        -> (TrialStatistics.Lateness?, Bool, String)
    {
        guard let oracle = exact?.firstMatch(index) else {
            return (nil, false, "the exact run has no matching event or post to be late against")
        }
        let late = trials.compactMap { $0.firstMatch(index) }.map { $0 - oracle }.sorted()
        var lateness = TrialStatistics.Lateness(count: late.count, missing: trials.count - late.count)
        guard !late.isEmpty else { return (lateness, false, "no trial had a matching event or post") }
        lateness.p50 = Proportions.percentile(late, 0.5)
        lateness.p95 = Proportions.percentile(late, 0.95)
        lateness.max = late.last
        let measured = ["p50": lateness.p50, "p95": lateness.p95, "max": lateness.max]
        let holds = bounds.bounds.allSatisfy { bound in (measured[bound.name] ?? nil).map { $0 <= bound.value } ?? false
        }
        // A figure over its bound by less than the second shown says so in decimals
        // (`max +0:30.45` against `max ≤ +0:30`).
        func shown(_ name: String, _ value: Seconds?) -> String {
            let seconds = value?.seconds ?? 0
            let bound = bounds.bounds.first { $0.name == name }?.value.seconds
            let decimals = bound.flatMap { Offset.decimals(showing: seconds, over: $0) } ?? 0
            return Offset.text(seconds, decimals: decimals)
        }
        let text =
            "late by p50 \(shown("p50", lateness.p50)), p95 \(shown("p95", lateness.p95)), "
            + "max \(shown("max", lateness.max)) over \(Counted.text(late.count, "trial"))"
            + (lateness.missing > 0 ? " (\(lateness.missing) without it)" : "")
        return (lateness, holds, text)
    }
}

extension LateBy {
    /// The bounds given, by statistic name, in a fixed order.
    var bounds: [(name: String, value: Seconds)] {
        [("p50", p50), ("p95", p95), ("max", max)].compactMap { name, value in value.map { (name, $0) } }
    }
}

/// What aggregating a scenario's trial records needs to know of the scenario itself, kept in
/// results files so that merging them does not need the scenario files.
public struct ScenarioHeader: Sendable, Codable, Equatable {
    public var name: String
    public var file: String
    /// nil: a plain run, not trials.
    public var trials: Int?
    public var expectations: [Spec]
    /// What makes two runs of the same file the same run, for `--merge` to compare: the seed,
    /// each device's realism, and the digest of the scenario file and of every file it reads.
    public var seed: UInt64
    public var realism: [String]
    public var inputs: [InputDigest]

    public init(
        name: String, file: String, trials: Int?, expectations: [Spec], seed: UInt64 = 0, realism: [String] = [],
        inputs: [InputDigest] = []
    ) {
        (self.name, self.file, self.trials, self.expectations) = (name, file, trials, expectations)
        (self.seed, self.realism, self.inputs) = (seed, realism, inputs)
    }

    /// A scenario that could not be read: one unit, which carries the error.
    public static func unreadable(_ file: String) -> ScenarioHeader {
        ScenarioHeader(name: file, file: file, trials: nil, expectations: [])
    }

    public struct Spec: Sendable, Codable, Equatable {
        public var rate: RateBound?
        public var lateBy: LateBy?
    }

    /// The units it runs: trial 0 — the plain run, or for trials the exact run, the oracle
    /// `lateBy` measures against and the run `--db` records — and trials 1…N.
    public var units: [Int] {
        guard let trials else { return [0] }
        return [0] + Array(1...Swift.max(1, trials))
    }
}
