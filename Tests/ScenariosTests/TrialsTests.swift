import Foundation
import SimulatedTime
import TestSupport
import Testing
import WaypostSupport

@testable import Scenarios

/// The statistics a trials verdict rests on, against published values.
struct TrialsTests {
    /// Newcombe, "Two-sided confidence intervals for the single proportion: comparison of seven
    /// methods", Statistics in Medicine 17:857 (1998), Table I, method 3 (Wilson score).
    @Test(arguments: [
        (81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718),
    ])
    func wilsonIntervalsMatchNewcombe(successes: Int, trials: Int, low: Double, high: Double) {
        let interval = Trials.wilson(successes, of: trials)
        #expect(abs(interval.lowerBound - low) < 0.000_05, "\(interval)")
        #expect(abs(interval.upperBound - high) < 0.000_05, "\(interval)")
    }

    /// Trial k's seed is SplitMix64's k-th output from the scenario's seed; for seed 0 those are
    /// the generator's published first outputs (Vigna's splitmix64.c).
    @Test func trialSeedsAreSplitMix64sSequence() {
        #expect(Trials.seed(0, trial: 1) == 0xE220_A839_7B1D_CDAF)
        #expect(Trials.seed(0, trial: 2) == 0x6E78_9E6A_A1B9_65F4)
        #expect(Trials.seed(0, trial: 3) == 0x06C4_5D18_8009_454F)
        #expect(Trials.seed(7, trial: 5) != Trials.seed(8, trial: 5))
    }

    @Test func ratesAreDecidedAt95PercentOrSaidUndecided() throws {
        let atLeast = try #require(RateBound(">= 0.8"))
        // 10 of 10: Wilson's low end is 0.72, under 0.8 — ten trials cannot decide it.
        #expect(atLeast.decide(Trials.wilson(10, of: 10)) == nil)
        #expect(atLeast.decide(Trials.wilson(40, of: 40)) == true)
        #expect(atLeast.decide(Trials.wilson(50, of: 100)) == false)
        let below = try #require(RateBound("< 0.1"))
        #expect(below.decide(Trials.wilson(0, of: 60)) == true)
        #expect(below.decide(Trials.wilson(30, of: 60)) == false)
        // At every trial or none, the bound is exactly 1 or 0 (Wilson's, in exact arithmetic): a
        // rate "< 1" held in 30 of 30 trials was decided true by a bound of 0.9999999999999999;
        // the interval [0.886, 1] holds rates on both sides of 1, so it is undecided (not passed).
        for n in [1, 3, 30, 40, 300, 1_000, 10_000, 123_457] {
            #expect(Trials.wilson(n, of: n).upperBound == 1 && Trials.wilson(0, of: n).lowerBound == 0)
        }
        #expect(try #require(RateBound("< 1")).decide(Trials.wilson(30, of: 30)) == nil)
        #expect(try #require(RateBound(">= 1")).decide(Trials.wilson(30, of: 30)) == nil)
        #expect(try #require(RateBound("> 0")).decide(Trials.wilson(0, of: 30)) == nil)
        #expect(RateBound("0.8") == nil && RateBound(">= 1.5") == nil && RateBound("=> 0.8") == nil)
        #expect(RateBound("<=0.05")?.relation == .atMost)
        #expect(atLeast.description == "≥ 80 %")
    }

    @Test func aVerdictOverTooFewTrialsDoesNotPass() {
        let header = ScenarioHeader(
            name: "s", file: "s.yaml", trials: 5,
            expectations: [.init(rate: RateBound(">= 0.8"), lateBy: nil)])
        let held = ExpectationResult(description: "d", location: "s.yaml:1:1", passed: true, expected: "", actual: "")
        let trials = (1...5).map {
            TrialRecord(file: "s.yaml", trial: $0, seed: 0, results: [held], firstMatches: [nil])
        }
        let result = ScenarioResult(header, records: trials)
        #expect(!result.passed)
        #expect(result.expectations[0].trials?.decided == false)
        #expect(result.expectations[0].actual.contains("undecided: 5 trials cannot tell whether the rate is ≥ 80 %"))
    }

    @Test func latenessIsMeasuredAgainstTheExactRunAndMissingIsNotLate() {
        let header = ScenarioHeader(
            name: "s", file: "s.yaml", trials: 4,
            expectations: [.init(rate: nil, lateBy: LateBy(p50: 60, max: 100))])
        let result = ExpectationResult(description: "d", location: "s.yaml:1:1", passed: true, expected: "", actual: "")
        let exact = TrialRecord(file: "s.yaml", trial: 0, seed: 0, results: [result], firstMatches: [10])
        let times: [Seconds?] = [40, 70, nil, 100]
        let trials = times.enumerated().map {
            TrialRecord(file: "s.yaml", trial: $0.offset + 1, seed: 0, results: [result], firstMatches: [$0.element])
        }
        let verdict = ScenarioResult(header, records: [exact] + trials).expectations[0]
        let lateness = verdict.trials?.lateness
        #expect(lateness?.count == 3 && lateness?.missing == 1)
        #expect(lateness?.p50 == 60 && lateness?.max == 90)
        #expect(verdict.passed)
    }

    /// A black-box hunt: "expected max ≤ +0:30 / actual max +0:30" failed — the maximum was
    /// 30.45 s. A figure over its bound by less than the second shown carries decimals.
    @Test func aFigureOverItsBoundBySecondsFractionSaysSo() {
        let header = ScenarioHeader(
            name: "s", file: "s.yaml", trials: 2, expectations: [.init(rate: nil, lateBy: LateBy(max: 30))])
        let held = ExpectationResult(description: "d", location: "s.yaml:1:1", passed: true, expected: "", actual: "")
        let exact = TrialRecord(file: "s.yaml", trial: 0, seed: 0, results: [held], firstMatches: [10])
        let trials = [Seconds(20), Seconds(40.452)].enumerated().map {
            TrialRecord(file: "s.yaml", trial: $0.offset + 1, seed: 0, results: [held], firstMatches: [$0.element])
        }
        let verdict = ScenarioResult(header, records: [exact] + trials).expectations[0]
        #expect(!verdict.passed)
        #expect(verdict.expected.hasSuffix("late by max ≤ +0:30"))
        #expect(verdict.actual.contains("p50 +0:10, p95 +0:30, max +0:30.5 over 2 trials"), "\(verdict.actual)")
        #expect(Offset.text(-0.45, decimals: 2) == "-0:00.45" && Offset.text(3_725.5, decimals: 1) == "+1:02:05.5")
        #expect(Offset.decimals(showing: 30.04, over: 30) == 2 && Offset.decimals(showing: 31.2, over: 30) == nil)
        #expect(Offset.decimals(showing: 29.9, over: 30) == nil)
        // A hunt: `before: 47.8s` read "before +0:48" beside an event seen "at +0:48" that missed it.
        #expect(Offset.bound(47.8) == "+0:47.8" && Offset.bound(48) == "+0:48" && Offset.bound(0.125) == "+0:00.125")
        #expect(Window(after: nil, before: Seconds(47.8)).description == "before +0:47.8")
        // And a bound with decimals is shown with them: `lateBy: {max: 30.45}` read "≤ +0:30"
        // (a black-box hunt).
        let fractional = ScenarioHeader(
            name: "s", file: "s.yaml", trials: 2, expectations: [.init(rate: nil, lateBy: LateBy(max: 30.45))])
        #expect(
            ScenarioResult(fractional, records: [exact] + trials).expectations[0].expected.hasSuffix(
                "late by max ≤ +0:30.45"))
    }

    /// A black-box hunt: 1,999 of 2,000 trials printed "100 %" beside a failed "in every trial".
    /// A rate neither none nor all never reads 0 % or 100 %.
    @Test func aRateThatIsNotAllNeverReadsAHundredPercent() {
        #expect(Proportions.percent(1_999.0 / 2_000) == "99.95 %")
        #expect(Proportions.percent(99_999.0 / 100_000) == "99.999 %")
        #expect(Proportions.percent(1.0 / 4_000) == "0.03 %")
        #expect(Proportions.percent(1) == "100 %" && Proportions.percent(0) == "0 %")
        #expect(Proportions.percent(37.0 / 40) == "92.5 %" && Proportions.percent(0.25) == "25 %")
        #expect(Proportions.decimals(for: 0.9995, whole: 1, minimum: 3) == 4)
        #expect(Proportions.decimals(for: 0.942, whole: 1, minimum: 3) == 3)
        let header = ScenarioHeader(
            name: "s", file: "s.yaml", trials: 2_000, expectations: [.init(rate: nil, lateBy: nil)])
        let held = ExpectationResult(description: "d", location: "s.yaml:1:1", passed: true, expected: "", actual: "")
        let missed = ExpectationResult(
            description: "d", location: "s.yaml:1:1", passed: false, expected: "", actual: "")
        let trials = (1...2_000).map {
            TrialRecord(file: "s.yaml", trial: $0, seed: 0, results: [$0 == 7 ? missed : held], firstMatches: [nil])
        }
        let verdict = ScenarioResult(header, records: trials).expectations[0]
        #expect(!verdict.passed && verdict.actual == "held in 1999 of 2000 trials: 99.95 %")
    }

    /// Nearest rank, each percentile a value a trial had: the median of an even count is the
    /// lower middle one (NumPy's `inverted_cdf`), as docs/scenarios.md says.
    @Test func percentilesAreNearestRank() {
        #expect(Proportions.percentile([5.295, 9.881], 0.5) == 5.295)
        #expect(Proportions.percentile(Array(1...20), 0.95) == 19)
        #expect(Proportions.percentile(Array(1...40), 0.025) == 1)
    }
}
