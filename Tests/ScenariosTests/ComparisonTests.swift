import ConfigFiles
import Foundation
import TestSupport
import Testing

@testable import Scenarios

/// `waypost compare`'s rules as values: reading a device's log, matching its events with the
/// trials' by type, region and occurrence, percentiles and the central 95 % (docs/compare.md).
struct ComparisonTests {
    static let scenario: Scenario = {
        let url = Corpus.repositoryRoot.appendingPathComponent("fixtures/scenarios/field-cafe-checkin.yaml")
        return try! ScenarioFile.read(contentsOf: url, displayName: "field-cafe-checkin.yaml")
    }()

    /// A log starting at 08:00:00Z; each event at its offset in seconds.
    static func log(_ events: [(String, String, Double)]) -> ObservedLog {
        var lines = [#"{"t":"2025-06-03T08:00:00.000Z","type":"authorization","status":"authorizedAlways"}"#]
        for (type, region, offset) in events {
            let t = EpochInstantText.at(offset)
            lines.append(#"{"t":"\#(t)","type":"\#(type)","region":"\#(region)","lat":37.3,"lon":-122.0}"#)
        }
        return try! ObservedLog.parse(Data(lines.joined(separator: "\n").utf8), name: "phone.jsonl")
    }

    enum EpochInstantText {
        /// 2025-06-03T08:00:00Z plus `offset` seconds.
        static func at(_ offset: Double) -> String {
            let ms = Int((offset * 1_000).rounded())
            let (h, m, s) = (8 + ms / 3_600_000, ms / 60_000 % 60, ms / 1_000 % 60)
            return String(format: "2025-06-03T%02d:%02d:%02d.%03dZ", h, m, s, ms % 1_000)
        }
    }

    static func occurrences(_ list: [(String, String, Double)]) -> [Prediction.Occurrence] {
        list.map { Prediction.Occurrence(type: $0.0, region: $0.1, offset: $0.2) }
    }

    /// Forty trials with `a`'s entry at 100…139 s (one a second), the exact run at 90 s.
    static let prediction = Prediction(
        exact: occurrences([("regionEnter", "a", 90)]),
        trials: (0..<40).map { occurrences([("regionEnter", "a", 100 + Double($0))]) })

    @Test func anEventInsideTheTrialsIsWithinWithItsLatenessAndPercentile() throws {
        let comparison = Comparison(
            Self.log([("regionEnter", "a", 110)]), with: Self.prediction, scenario: Self.scenario, seed: 1)
        let event = try #require(comparison.events.first)
        #expect(comparison.events.count == 1)
        #expect(event.key == EventKey(type: "regionEnter", region: "a", occurrence: 1))
        #expect(event.status == .observed && event.verdict == .within)
        #expect(event.lateness == 20)
        // 10 trials earlier, one tie counted half: (10 + 0.5) / 40.
        #expect(event.percentile == 26.25)
        // Nearest rank over 40: the 2.5th is the 1st value, the 97.5th the 39th.
        #expect(event.central == 100...138)
        #expect(event.produced == 40 && event.rate == 1)
        #expect(comparison.passed)
        #expect(comparison.ignored == 1 && comparison.lines == 2)
    }

    /// A black-box hunt: "late by +3.6 s … central 95 % late by +3.6 s to +30.5 s" was outside —
    /// 1 ms early. Outside by less than the tenth shown, the figures are in milliseconds.
    @Test func anEventOutsideByLessThanATenthShowsMilliseconds() throws {
        let comparison = Comparison(
            Self.log([("regionEnter", "a", 99.999)]), with: Self.prediction, scenario: Self.scenario, seed: 1)
        let event = try #require(comparison.events.first)
        #expect(event.verdict == .outside)
        #expect(
            comparison.figures(event).hasPrefix("late by +9.999 s against the exact run"),
            "\(comparison.figures(event))")
        let nearer = Comparison(
            Self.log([("regionEnter", "a", 99.96)]), with: Self.prediction, scenario: Self.scenario, seed: 1)
        let figures = try nearer.figures(#require(nearer.events.first))
        #expect(figures.contains("late by +9.96 s against the exact run"), "\(figures)")
        #expect(figures.contains("central 95 % late by +10 s to +48 s"), "\(figures)")
    }

    @Test(arguments: [99.0, 139.0, 1_910.0])
    func anEventBeyondTheCentral95IsOutside(offset: Double) throws {
        let comparison = Comparison(
            Self.log([("regionEnter", "a", offset)]), with: Self.prediction, scenario: Self.scenario, seed: 1)
        let event = try #require(comparison.events.first)
        #expect(event.verdict == .outside)
        #expect(event.reason.contains(offset < 100 ? "earlier" : "later"))
        #expect(!comparison.passed)
    }

    @Test func theNthOccurrenceOfARegionMatchesTheNthPredicted() throws {
        // Trials: a entered at 100+k and again at 1000+k; the log's second entry at 1010.
        let prediction = Prediction(
            exact: Self.occurrences([("regionEnter", "a", 90), ("regionExit", "a", 500), ("regionEnter", "a", 990)]),
            trials: (0..<40).map { k in
                Self.occurrences([
                    ("regionEnter", "a", 100 + Double(k)), ("regionExit", "a", 510 + Double(k)),
                    ("regionEnter", "a", 1000 + Double(k)),
                ])
            })
        let comparison = Comparison(
            Self.log([("regionEnter", "a", 120), ("regionExit", "a", 520), ("regionEnter", "a", 1010)]),
            with: prediction, scenario: Self.scenario, seed: 1)
        #expect(
            comparison.events.map(\.key.description) == ["regionEnter 'a'", "regionExit 'a'", "regionEnter 'a' #2"])
        let second = try #require(comparison.events.last)
        #expect(second.lateness == 20)
        #expect(second.central == 1000...1038)
        #expect(comparison.passed)
    }

    @Test func anEventNoTrialProducesIsUnpredictedAndOutside() throws {
        let comparison = Comparison(
            Self.log([("regionEnter", "a", 110), ("regionExit", "b", 300)]), with: Self.prediction,
            scenario: Self.scenario, seed: 1)
        let event = try #require(comparison.events.first { $0.key.region == "b" })
        #expect(event.status == .unpredicted && event.verdict == .outside)
        #expect(event.rate == 0 && event.percentile == nil)
        #expect(!comparison.passed)
    }

    @Test func anEventTheTrialsRarelyProduceIsOutsideWhenReported() throws {
        // b's exit in 1 of 40 trials: 2.5 % is not below 2.5 %, within; 1 of 41 would be.
        var prediction = Self.prediction
        prediction.trials[0] += Self.occurrences([("regionExit", "b", 300)])
        let once = Comparison(
            Self.log([("regionEnter", "a", 110), ("regionExit", "b", 300)]), with: prediction,
            scenario: Self.scenario, seed: 1)
        #expect(once.passed, "\(once.text())")
        prediction.trials.append(Self.occurrences([("regionEnter", "a", 120)]))
        let rarer = Comparison(
            Self.log([("regionEnter", "a", 110), ("regionExit", "b", 300)]), with: prediction,
            scenario: Self.scenario, seed: 1)
        let event = try #require(rarer.events.first { $0.key.region == "b" })
        #expect(event.status == .observed && event.verdict == .outside)
        #expect(event.reason.contains("below 2.5 %"))
    }

    @Test func aPredictedEventNeverReportedIsOutsideOnlyWhenTheTrialsRarelyMissIt() throws {
        // Every trial has a's entry: missed in 0 % of them, outside.
        let always = Comparison(Self.log([]), with: Self.prediction, scenario: Self.scenario, seed: 1)
        let event = try #require(always.events.first)
        #expect(event.status == .missed && event.verdict == .outside && event.missRate == 0)
        // Half the trials miss it: within.
        var prediction = Self.prediction
        for k in 0..<20 { prediction.trials[k] = [] }
        let half = Comparison(Self.log([]), with: prediction, scenario: Self.scenario, seed: 1)
        #expect(half.events.first?.verdict == .within)
        #expect(half.events.first?.missRate == 0.5)
        #expect(half.passed)
    }

    /// A black-box hunt: with the field scenario's last café — entered on a pass in the trials
    /// (~1,170 s) and at the stop (~1,615 s), by the exact run only at the stop (its first entry
    /// at 1,616.7 s) — a log without either listed the second entry before the first, ordered by
    /// the exact run's first. Missed events are in the trials' time order (docs/compare.md:
    /// "each event in time order").
    @Test func missedEventsAreInTheTrialsTimeOrder() throws {
        let prediction = Prediction(
            exact: Self.occurrences([("regionEnter", "cafe", 1_616.7), ("regionExit", "cafe", 1_700)]),
            trials: (0..<40).map {
                Self.occurrences([
                    ("regionEnter", "cafe", 1_162 + Double($0) / 2), ("regionExit", "cafe", 1_250),
                    ("regionEnter", "cafe", 1_600 + Double($0) / 2), ("regionExit", "cafe", 1_700),
                ])
            })
        let comparison = Comparison(Self.log([]), with: prediction, scenario: Self.scenario, seed: 1)
        #expect(
            comparison.events.map { "\($0.key.type) \($0.key.occurrence)" }
                == ["regionEnter 1", "regionExit 1", "regionEnter 2", "regionExit 2"])
    }

    @Test func theStartOverridesTheFirstLine() throws {
        let log = Self.log([("regionEnter", "a", 130)])
        // Aligned 20 s later, the entry is at +110.
        let comparison = Comparison(
            log, with: Self.prediction, start: log.events[0].time + 20, scenario: Self.scenario, seed: 1)
        #expect(comparison.events.first?.offset == 110)
        #expect(comparison.startGiven)
    }

    @Test func eventsAreNamedByTheScenariosExpectation() throws {
        let prediction = Prediction(
            exact: Self.occurrences([("regionEnter", "sunnyvale-coffee-roasters", 90)]),
            trials: (0..<40).map { Self.occurrences([("regionEnter", "sunnyvale-coffee-roasters", 100 + Double($0))]) })
        let comparison = Comparison(
            Self.log([("regionEnter", "sunnyvale-coffee-roasters", 2_000)]), with: prediction,
            scenario: Self.scenario, seed: 1)
        let event = try #require(comparison.events.first)
        #expect(event.expectation?.hasPrefix("the first café's entry") == true)
        #expect(event.expectationLocation?.hasPrefix("field-cafe-checkin.yaml:") == true)
        #expect(comparison.text().contains("✗ +33:20 regionEnter 'sunnyvale-coffee-roasters' (line 2)"))
        #expect(comparison.junit().contains("<failure message="))
    }

    @Test func linesMayComeInAnyTimeOrder() throws {
        let text = """
            {"t":"2025-06-03T08:00:00.000Z","type":"authorization","status":"authorizedAlways"}
            {"t":"2025-06-03T08:05:00.000Z","type":"regionEnter","region":"a"}

            {"t":"2025-06-03T08:02:00.000Z","type":"regionEnter","region":"a"}
            """
        let log = try ObservedLog.parse(Data(text.utf8), name: "x.jsonl")
        let prediction = Prediction(exact: [], trials: [Self.occurrences([("regionEnter", "a", 120)])])
        let comparison = Comparison(log, with: prediction, scenario: Self.scenario, seed: 1)
        // The earlier one (line 4) is the first occurrence.
        #expect(comparison.events.map(\.line) == [4, 2])
        #expect(comparison.events.map(\.key.occurrence) == [1, 2])
    }

    /// RFC 3339 reads a time whose UTC year is 10000 or 0 (an offset across the year's edge), which
    /// compare's JSON then wrote as "10000-01-01T09:59:00.000Z", off its schema's four-digit
    /// pattern (a black-box hunt of `compare`): such a line is refused where it stands.
    @Test(arguments: ["9999-12-31T23:59:00-10:00", "0000-01-01T00:00:00+01:00"])
    func aTimeOutsideTheYearsWrittenIsRefusedAtItsLine(_ stamp: String) {
        let text = #"{"t":"\#(stamp)","type":"authorization","status":"authorizedAlways"}"#
        let error = #expect(throws: ConfigFileError.self) { try ObservedLog.parse(Data(text.utf8), name: "x.jsonl") }
        #expect(error?.line == 1 && error?.message.contains("must fall in the years 0001 to 9999") == true)
    }

    /// A log written from several threads: its first line is stamped 30 s after the rest.
    /// Offsets count from the earliest `t`, not the first line's.
    @Test func offsetsCountFromTheEarliestLineWhereverItIs() throws {
        let text = """
            {"t":"2025-06-03T08:00:30.000Z","type":"authorization","status":"authorizedAlways"}
            {"t":"2025-06-03T08:00:00.000Z","type":"authorization","status":"notDetermined"}
            {"t":"2025-06-03T08:01:50.000Z","type":"regionEnter","region":"a"}
            """
        let log = try ObservedLog.parse(Data(text.utf8), name: "x.jsonl")
        let comparison = Comparison(log, with: Self.prediction, scenario: Self.scenario, seed: 1)
        #expect(comparison.start == log.events[1].time)
        #expect(comparison.events.first?.offset == 110)
        #expect(comparison.passed)
        #expect(comparison.text().contains("(its earliest line)"), "\(comparison.text())")
    }

    /// RFC 3339 §5.6 allows `t` and `z` in lower case: the same instant as upper case.
    @Test func lowerCaseTAndZAreRFC3339() throws {
        let log = try ObservedLog.parse(
            Data(#"{"t":"2025-06-03t08:00:00.000z","type":"regionEnter","region":"a"}"#.utf8), name: "p")
        #expect(log.events.first?.time == Self.log([]).events.first?.time)
    }

    /// A region the scenario lacks is a typo or another app's region, not the device's anomaly:
    /// an error at the region's line and column, listing the scenario's regions and the near one.
    @Test func aRegionTheScenarioLacksIsAnErrorNamingItsRegions() throws {
        let text = """
            {"t":"2025-06-03T08:00:00.000Z","type":"authorization","status":"authorizedAlways"}
            {"t":"2025-06-03T08:01:00.000Z","type":"regionEnter","region":"sunyvale-coffee-roasters"}
            """
        let log = try ObservedLog.parse(Data(text.utf8), name: "p.jsonl")
        let regions = Self.scenario.regions.map(\.identifier)
        let error = try #require(throws: ConfigFileError.self) {
            try log.checkRegions(regions, scenario: "field-cafe-checkin")
        }
        #expect(error.line == 2 && error.column == 63, "\(error)")
        #expect(
            error.description.contains(
                "region 'sunyvale-coffee-roasters' is no region of scenario field-cafe-checkin (its regions: "),
            "\(error)")
        #expect(error.description.contains(regions.joined(separator: ", ")), "\(error)")
        #expect(error.description.hasSuffix("did you mean 'sunnyvale-coffee-roasters'?"), "\(error)")
        // The scenario's own regions, and other types' regions, pass.
        try Self.log([("regionEnter", regions[0], 60)]).checkRegions(regions, scenario: "s")
        let other = try ObservedLog.parse(
            Data(#"{"t":"2025-06-03T08:00:00Z","type":"monitoringStarted","region":"elsewhere"}"#.utf8), name: "p")
        try other.checkRegions(regions, scenario: "s")
    }

    /// An event logged after the runs end is no anomaly of the device: the reason says so.
    @Test func anEventAfterTheRunsEndSaysSo() throws {
        var prediction = Self.prediction
        prediction.end = 1_000
        let comparison = Comparison(
            Self.log([("regionEnter", "a", 110), ("regionExit", "a", 1_500)]), with: prediction,
            scenario: Self.scenario, seed: 1)
        let late = try #require(comparison.events.first { $0.key.type == "regionExit" })
        #expect(late.status == .unpredicted && late.verdict == .outside)
        #expect(
            late.reason.hasPrefix("unpredicted: logged at +25:00, after the run ends at +16:40 (its route and rest)"),
            "\(late.reason)")
        let early = Comparison(
            Self.log([("regionExit", "a", 5)]), with: prediction, start: Self.log([]).events[0].time + 60,
            scenario: Self.scenario, seed: 1)
        #expect(early.events.first?.reason.contains("before the run starts") == true, "\(early.text())")
    }

    @Test(arguments: [
        ("{\"t\":\"2025-06-03T08:00:00.000Z\",\"type\":\"regionEnter\",\"region\":\"a\"}\n{\"t\": 1,", 2, 0, "JSON"),
        ("{\"t\":\"2025-06-03T08:00:00.000Z\",\"type\":\"regionEnter\",\"region\":\"a\"}\n[1]", 2, 1, "JSON object"),
        ("{\"t\":\"yesterday\",\"type\":\"regionEnter\",\"region\":\"a\"}", 1, 6, "not an RFC 3339 date-time"),
        ("{\"t\":\"2025-06-03T08:00:00,5Z\",\"type\":\"location\"}", 1, 6, "not an RFC 3339 date-time such as"),
        ("{\"t\":\"2025-06-03T23:59:60Z\",\"type\":\"location\"}", 1, 6, "no leap second was inserted"),
        ("{\"type\":\"regionEnter\",\"region\":\"a\"}", 1, 1, "missing 't'"),
        ("{\"t\":\"2025-06-03T08:00:00Z\",\"type\":\"teleport\"}", 1, 36, "unknown type 'teleport'"),
        ("{\"t\":\"2025-06-03T08:00:00Z\",\"type\":\"regionExit\"}", 1, 36, "needs 'region'"),
        ("{t: 2025-06-03T08:00:00Z, type: regionExit}", 1, 2, "not JSON (RFC 8259): expected a key in double quotes"),
        // JSON, not YAML: a trailing comma, a region that is no string, a key given twice.
        ("{\"t\":\"2025-06-03T08:00:00Z\",\"type\":\"regionExit\",\"region\":\"a\",}", 1, 62, "a comma before '}'"),
        (
            "{\"t\":\"2025-06-03T08:00:00Z\",\"type\":\"regionExit\",\"region\":5}", 1, 58,
            "region must be a JSON string"
        ),
        ("{\"t\":\"2025-06-03T08:00:00Z\",\"type\":\"regionExit\",\"region\":true}", 1, 58, "it is true"),
        ("{\"t\":\"2025-06-03T08:00:00Z\",\"type\":\"location\",\"region\":[\"a\"]}", 1, 56, "it is an array"),
        (
            "{\"t\":\"2025-06-03T08:00:00Z\",\"type\":\"regionExit\",\"type\":\"regionEnter\"}", 1, 49,
            "'type' is given twice"
        ),
        ("{\"t\":1749000000,\"type\":\"regionExit\",\"region\":\"a\"}", 1, 6, "t must be a JSON string"),
        ("[{\"t\":\"2025-06-03T08:00:00Z\",\"type\":\"location\"},]", 1, 1, "expected a JSON object"),
        // A hunt: JSON takes a bare CR for a line break; the column counts from the log line's start.
        ("{\"t\":\"2025-06-03T08:00:00.000Z\",\"type\":\"authorization\"}\rx", 1, 57, "text after the JSON value"),
        ("{\"t\":\r\r\"2025-06-03T08:00:00Z\",\"type\":\"teleport\"}", 1, 38, "unknown type 'teleport'"),
        ("", 0, 0, "no events"),
    ])
    func aBadLineIsOneErrorAtItsLineAndColumn(text: String, line: Int, column: Int, what: String) throws {
        let error = try #require(throws: ConfigFileError.self) {
            try ObservedLog.parse(Data(text.utf8), name: "p.jsonl")
        }
        #expect(error.kind == .invalid)
        #expect(error.line == line, "\(error)")
        if column > 0 { #expect(error.column == column, "\(error)") }
        #expect(error.description.contains(what), "\(error)")
        #expect(error.description.hasPrefix(line > 0 ? "p.jsonl:\(line):" : "p.jsonl: "), "\(error)")
    }

    @Test func aLineThatIsNotUTF8IsRefusedAtItsByte() throws {
        var data = Data("{\"t\":\"2025-06-03T08:00:00Z\",\"type\":\"regionExit\",\"region\":\"".utf8)
        data.append(contentsOf: [0xFF, 0x22, 0x7D])
        let error = try #require(throws: ConfigFileError.self) { try ObservedLog.parse(data, name: "p.jsonl") }
        #expect(error.description.hasPrefix("p.jsonl:1:59: the line is not UTF-8"), "\(error)")
    }

    @Test func aMissingLogIsUnreadable() throws {
        let error = try #require(throws: ConfigFileError.self) {
            try ObservedLog.read(contentsOf: URL(fileURLWithPath: "/nonexistent/p.jsonl"), displayName: "p.jsonl")
        }
        #expect(error.kind == .unreadable)
    }

    @Test(arguments: [(2.5, [1.0, 2, 3, 4], 50.0), (5, [5, 5, 5], 50), (3, [1, 2], 100), (0.5, [1, 2], 0)])
    func percentilesAreMidRank(value: Double, values: [Double], expected: Double) {
        #expect(Comparison.percentile(value, among: values) == expected)
    }
}
