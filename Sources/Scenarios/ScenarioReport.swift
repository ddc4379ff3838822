import Foundation
import SimulatedTime
import WaypostSupport

/// Writes scenario results for people (text), programs (JSON) and CI systems (JUnit XML).
///
/// Nothing here reads the wall clock: the same results print the same bytes (JUnit's `time`,
/// `timestamp` and `hostname` are what the results measured, and the machine's name).
public enum ScenarioReport {
    /// `PASS`/`FAIL` per scenario, then each expectation with ✓ or ✗; failures show what was
    /// expected and what happened, and where the expectation is written.
    ///
    /// Scenario names, files, region and place names and error messages all came from files or
    /// servers: each is shown through ``DisplayEscaping``, as the report is read on a terminal.
    public static func text(_ results: [ScenarioResult]) -> String {
        func shown(_ text: String) -> String { DisplayEscaping.escape(text) }
        var out = ""
        for result in results {
            if let error = result.error {
                out += "ERROR \(shown(result.name))  (\(shown(result.file)))\n      \(shown(error.description))\n"
                continue
            }
            let failed = result.expectations.filter { !$0.passed }.count
            let over = result.trials.map { " over \(Counted.text($0, "trial"))" } ?? ""
            out +=
                (result.passed ? "PASS  " : "FAIL  ") + "\(shown(result.name))  (\(shown(result.file))) — "
                + (failed == 0
                    ? "\(Counted.text(result.expectations.count, "expectation")) \(result.expectations.count == 1 ? "holds" : "hold")\(over)\n"
                    : "\(failed) of \(result.expectations.count) expectations failed\(over)\n")
            for expectation in result.expectations {
                if expectation.passed {
                    out += "  ✓ \(shown(expectation.description)): \(shown(expectation.actual))\n"
                } else {
                    out += "  ✗ \(shown(expectation.description))\n"
                    out += "      expected: \(shown(expectation.expected))\n"
                    out += "      actual:   \(shown(expectation.actual))\n"
                    out += "      at:       \(shown(expectation.location))\n"
                }
            }
        }
        out += summary(results) + "\n"
        return out
    }

    /// One line: how many scenarios passed, failed and could not run.
    public static func summary(_ results: [ScenarioResult]) -> String {
        let errors = results.filter { $0.error != nil }.count
        let passed = results.filter(\.passed).count
        return
            "\(Counted.text(results.count, "scenario")): \(passed) passed, \(results.count - passed - errors) failed, "
            + Counted.text(errors, "error")
    }

    /// `{"passed":…, "scenarios":[{"name","file","passed","error","expectations":[…]}]}`.
    public static func json(_ results: [ScenarioResult]) -> String {
        struct Scenario: Encodable {
            var name: String
            var file: String
            var passed: Bool
            var error: String?
            /// Set for a trials run: how many trials the rates are over.
            var trials: Int?
            var expectations: [ExpectationResult]
        }
        struct Document: Encodable {
            var passed: Bool
            var summary: String
            var scenarios: [Scenario]
        }
        let document = Document(
            passed: results.allSatisfy(\.passed), summary: summary(results),
            scenarios: results.map {
                Scenario(
                    name: $0.name, file: $0.file, passed: $0.passed, error: $0.error?.description, trials: $0.trials,
                    expectations: $0.expectations)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(document)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// JUnit XML as Jenkins, GitLab, GitHub Actions reporters and others read it: a test suite
    /// per scenario, a test case per expectation; a scenario that could not run is one case
    /// with an `<error>`. Valid against both the Jenkins JUnit 4 schema and xUnit's junit-10.
    ///
    /// Where the results were measured (``ScenarioResult/duration``), each suite has `time` (the
    /// scenario read, run and checked, seconds), `timestamp` (its start, ISO 8601 UTC) and
    /// `hostname`; each case `time` (its check; an error case, the whole attempt); the root the
    /// sum. The scenario's file is a `<property name="file">`: JUnit 4 has no attribute for it.
    public static func junit(_ results: [ScenarioResult], hostname: String? = localHostname()) -> String {
        let failures = results.reduce(0) { $0 + $1.expectations.filter { !$0.passed }.count }
        let errors = results.filter { $0.error != nil }.count
        let tests = results.reduce(0) { $0 + max($1.expectations.count, $1.error == nil ? 0 : 1) }
        let durations = results.compactMap(\.duration)
        let total = durations.count == results.count && !results.isEmpty ? seconds(durations.reduce(.zero, +)) : ""
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out +=
            "<testsuites name=\"waypost\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\""
            + (total.isEmpty ? "" : " time=\"\(total)\"") + ">\n"
        for result in results {
            let name = escape(result.name)
            let failed = result.expectations.filter { !$0.passed }.count
            var measured = ""
            if let duration = result.duration { measured += " time=\"\(seconds(duration))\"" }
            if let started = result.startedAt {
                measured += " timestamp=\"\(XSDDateTime.format(started.secondsSince1970, fractionDigits: 0))\""
                if let hostname { measured += " hostname=\"\(escape(hostname))\"" }
            }
            out +=
                "  <testsuite name=\"\(name)\" "
                + "tests=\"\(max(result.expectations.count, result.error == nil ? 0 : 1))\" "
                + "failures=\"\(failed)\" errors=\"\(result.error == nil ? 0 : 1)\"\(measured)>\n"
            out +=
                "    <properties>\n      <property name=\"file\" value=\"\(escape(result.file))\"/>\n    </properties>\n"
            if let error = result.error {
                let time = result.duration.map { " time=\"\(seconds($0))\"" } ?? ""
                out += "    <testcase classname=\"\(name)\" name=\"run\"\(time)>\n"
                out +=
                    "      <error message=\"\(escape(error.description))\">\(escape(error.description))</error>\n"
                out += "    </testcase>\n"
            }
            for (index, expectation) in result.expectations.enumerated() {
                out += "    <testcase classname=\"\(name)\" name=\"\(escape(expectation.description))\""
                if index < result.checkDurations.count { out += " time=\"\(seconds(result.checkDurations[index]))\"" }
                if expectation.passed && expectation.trials == nil {
                    out += "/>\n"
                } else if expectation.passed {
                    // A trials verdict passes with figures a CI page should show: the rate, the lateness.
                    out += ">\n      <system-out>\(escape(expectation.actual))</system-out>\n    </testcase>\n"
                } else {
                    let message = "expected \(expectation.expected); actual \(expectation.actual)"
                    out += ">\n      <failure message=\"\(escape(message))\">"
                    out += escape(
                        "expected: \(expectation.expected)\nactual:   \(expectation.actual)\nat:       \(expectation.location)"
                    )
                    out += "</failure>\n    </testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }

    /// Seconds with three decimals, as surefire's `SUREFIRE_TIME` (junit-10) allows.
    static func seconds(_ value: Seconds) -> String {
        String(format: "%.3f", max(0, value.seconds))
    }

    /// This machine's name, for JUnit's `hostname` (nil when it cannot be read).
    public static func localHostname() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }

    /// Escaped for an attribute or element; line breaks kept as character references, other
    /// control and bidi characters written visibly (``DisplayEscaping``): CI systems show these
    /// messages in logs and web pages.
    static func escape(_ text: String) -> String {
        XMLEscaping.escape(DisplayEscaping.escape(text, keepingLineBreaks: true), attribute: true)
    }
}
