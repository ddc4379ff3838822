import ConfigFiles
import Foundation
import LocationEvents
import SimulatedTime
import WaypostSupport

// The comparison as text, JSON (docs/schemas/compare.schema.json) and JUnit.

extension Comparison {
    /// `7 events: 6 within, 1 outside`.
    package var summary: String {
        "\(events.count) events: \(events.count - outside.count) within, \(outside.count) outside"
    }

    /// One line of figures for an event: when, how late, its percentile, the central 95 %, how
    /// often the trials produce it.
    package func figures(_ event: Event) -> String {
        let produced = "in \(event.produced) of \(event.trials) trials"
        if event.status == .missed {
            return "never reported"
                + (event.exactOffset.map { " (the exact run has it at \(Offset.text($0)))" } ?? "")
                + "; missed in \(Proportions.percent(event.missRate)) of the trials (\(event.trials - event.produced) of \(event.trials))"
        }
        var parts: [String] = []
        // Outside by less than a tenth of a second shown: in milliseconds, as it is compared.
        var places = 1
        if let lateness = event.lateness, let central = event.central, let exact = event.exactOffset,
            event.verdict == .outside,
            [central.lowerBound - exact, central.upperBound - exact].contains(where: {
                Self.signed($0) == Self.signed(lateness)
            })
        {
            places = 3
        }
        if let lateness = event.lateness {
            parts.append("late by \(Self.signed(lateness, places: places)) against the exact run")
        }
        if let percentile = event.percentile { parts.append("percentile \(Self.decimal(percentile))") }
        if let central = event.central {
            if let exact = event.exactOffset {
                parts.append(
                    "central 95 % late by \(Self.signed(central.lowerBound - exact, places: places)) to \(Self.signed(central.upperBound - exact, places: places))"
                )
            } else {
                parts.append("central 95 % at \(Offset.text(central.lowerBound)) to \(Offset.text(central.upperBound))")
            }
        }
        parts.append(produced)
        return parts.joined(separator: "; ")
    }

    /// `PASS`/`OUTSIDE` and the scenario, then each event with ✓ (within) or ✗ (outside), in time
    /// order; an outside event says why, and names the expectation about it.
    package func text() -> String {
        func shown(_ text: String) -> String { DisplayEscaping.escape(text) }
        var out =
            (passed ? "PASS     " : "OUTSIDE  ") + "\(shown(scenario))  (\(shown(scenarioFile))) — "
            + (passed
                ? "every event within the central 95 % of \(trials) trials"
                : "\(outside.count) of \(events.count) events outside the central 95 % of \(trials) trials")
            + " (realism \(realism.joined(separator: ", ")), seed \(seed))\n"
        out +=
            "  log: \(shown(log)), \(Counted.text(lines, "line")) from \(EpochInstant(secondsSince1970: start).iso8601) "
            + (startGiven ? "(--start)" : "(its earliest line)")
            + "; \(ignored) of types not compared (only regionEnter and regionExit are)\n"
        out +=
            "  device: rests \(Self.decimal(rest)) s after its route (a replay set up as it: --realism "
            + realism.joined(separator: ",") + " --rest \(Self.decimal(rest)))\n"
        for event in events {
            let when = event.offset.map { Offset.text($0) + " " } ?? ""
            let line = event.line.map { " (line \($0))" } ?? ""
            let mark = event.verdict == .within ? "✓" : "✗"
            out += "  \(mark) \(when)\(shown(event.key.description))\(line): \(figures(event))\n"
            if event.verdict == .outside {
                out += "      why:         \(shown(event.reason))\n"
                if let line = event.line { out += "      at:          \(shown(log)):\(line)\n" }
            }
            if let expectation = event.expectation, event.verdict == .outside {
                out +=
                    "      expectation: \(shown(expectation))"
                    + (event.expectationLocation.map { " (\(shown($0)))" } ?? "") + "\n"
            }
        }
        return out + summary + "\n"
    }

    /// The comparison as JSON (docs/schemas/compare.schema.json).
    package func json() -> String {
        struct Range: Encodable {
            var from: Double
            var to: Double
        }
        struct Named: Encodable {
            var name: String
            var location: String?
        }
        struct Row: Encodable {
            var type: String
            var region: String
            var occurrence: Int
            var status: Status
            var verdict: Verdict
            var reason: String
            var line: Int?
            var t: String?
            var offset: Double?
            var exactOffset: Double?
            var lateness: Double?
            var percentile: Double?
            var trials: Int
            var produced: Int
            var rate: Double
            var missRate: Double
            var central95: Range?
            var central95Lateness: Range?
            var expectation: Named?
        }
        struct ScenarioPart: Encodable {
            var name: String
            var file: String
            var trials: Int
            var seed: UInt64
            var realism: [String]
            var rest: Double
        }
        struct LogPart: Encodable {
            var file: String
            var start: String
            var startFrom: String
            var lines: Int
            var ignored: Int
        }
        struct Document: Encodable {
            var passed: Bool
            var summary: String
            var scenario: ScenarioPart
            var log: LogPart
            var events: [Row]
        }
        let rows = events.map { event in
            Row(
                type: event.key.type, region: event.key.region, occurrence: event.key.occurrence,
                status: event.status, verdict: event.verdict, reason: event.reason, line: event.line, t: event.time,
                offset: event.offset, exactOffset: event.exactOffset, lateness: event.lateness,
                percentile: event.percentile.map(Self.rounded), trials: event.trials, produced: event.produced,
                rate: Self.rounded(event.rate), missRate: Self.rounded(event.missRate),
                central95: event.central.map { Range(from: $0.lowerBound, to: $0.upperBound) },
                central95Lateness: zip2(event.central, event.exactOffset).map {
                    Range(
                        from: Self.milliseconds($0.lowerBound - $1), to: Self.milliseconds($0.upperBound - $1))
                },
                expectation: event.expectation.map { Named(name: $0, location: event.expectationLocation) })
        }
        let document = Document(
            passed: passed, summary: summary,
            scenario: ScenarioPart(
                name: scenario, file: scenarioFile, trials: trials, seed: seed, realism: realism, rest: rest),
            log: LogPart(
                file: log, start: EpochInstant(secondsSince1970: start).iso8601,
                startFrom: startGiven ? "--start" : "earliest line", lines: lines, ignored: ignored),
            events: rows)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(document)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// JUnit XML: one suite for the scenario, one case per event, an outside event a
    /// `<failure>`; valid against Jenkins' JUnit 4 schema and xUnit's junit-10, as
    /// ``ScenarioReport/junit(_:hostname:)`` is.
    package func junit() -> String {
        let escape = ScenarioReport.escape
        let name = escape(scenario)
        let failures = outside.count
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"waypost compare\" tests=\"\(events.count)\" failures=\"\(failures)\" errors=\"0\">\n"
        out += "  <testsuite name=\"\(name)\" tests=\"\(events.count)\" failures=\"\(failures)\" errors=\"0\">\n"
        out += "    <properties>\n"
        out += "      <property name=\"file\" value=\"\(escape(scenarioFile))\"/>\n"
        out += "      <property name=\"log\" value=\"\(escape(log))\"/>\n"
        out += "      <property name=\"trials\" value=\"\(trials)\"/>\n"
        out += "    </properties>\n"
        for event in events {
            out += "    <testcase classname=\"\(name)\" name=\"\(escape(event.key.description))\">\n"
            if event.verdict == .outside {
                var detail = "\(event.reason)\n\(figures(event))"
                if let line = event.line { detail += "\nat: \(log):\(line)" }
                if let expectation = event.expectation { detail += "\nexpectation: \(expectation)" }
                out += "      <failure message=\"\(escape(event.reason))\">\(escape(detail))</failure>\n"
            } else {
                out += "      <system-out>\(escape(figures(event)))</system-out>\n"
            }
            out += "    </testcase>\n"
        }
        out += "  </testsuite>\n</testsuites>\n"
        return out
    }

    /// `+6.2 s`, `-33 s` (early), `+7:26` from a minute on.
    static func signed(_ seconds: Double, places: Int = 1) -> String {
        abs(seconds) < 59.95
            ? (seconds < 0 ? "-" : "+") + decimal(abs(seconds), places: places) + " s"
            : Offset.text(seconds, decimals: places > 1 ? places : 0)
    }

    /// One decimal at most (or `places`), trailing zeros dropped.
    static func decimal(_ value: Double, places: Int = 1) -> String { FixedPoint.trimmed(value, digits: places) }

    /// Four decimals: a rate or percentile as JSON shows it.
    static func rounded(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }
}

private func zip2<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
