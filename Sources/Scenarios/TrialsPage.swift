import Foundation
import RunReports
import WaypostSupport

/// `waypost test --html FILE`: the verdicts as one self-contained page — for a trials run, per
/// expectation, the rate with its 95 % interval and the distribution of when its event or post
/// came across the trials (a histogram, the exact run's instant marked).
public enum TrialsPage {
    public static func html(_ file: TrialResultsFile) -> String {
        let results = file.results()
        var out = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>waypost test — \(escape(ScenarioReport.summary(results)))</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
            h2 { font-size: 1.1em; margin-top: 2em; } .pass { color: #2a7d2a; } .fail { color: #b3261e; }
            .expectation { margin: 1em 0; padding: 0.6em 0.8em; border-left: 3px solid #ccc; }
            .expectation.fail { border-color: #b3261e; } .expectation.pass { border-color: #2a7d2a; }
            .actual { color: #555; }
            \(TrialsPanel.histogramStyle)
            </style></head><body>
            <h1>\(escape(ScenarioReport.summary(results)))</h1>

            """
        let byScenario = Dictionary(grouping: file.units, by: \.scenario)
        for (index, result) in results.enumerated() {
            let records = (byScenario[index] ?? []).map(\.record)
            let exact = records.first { $0.trial == 0 }
            let trials = records.filter { $0.trial > 0 }
            let verdict = result.error != nil ? "ERROR" : result.passed ? "PASS" : "FAIL"
            out += "<section class=\"scenario\"><h2 class=\"\(result.passed ? "pass" : "fail")\">\(verdict) "
            out += "\(escape(result.name)) <small>(\(escape(result.file)))"
            out += result.trials.map { " — \(Counted.text($0, "trial"))" } ?? ""
            out += "</small></h2>\n"
            if let error = result.error { out += "<p class=\"fail\">\(escape(error.description))</p>\n" }
            for (number, expectation) in result.expectations.enumerated() {
                out += "<div class=\"expectation \(expectation.passed ? "pass" : "fail")\">"
                out += "<div>\(expectation.passed ? "✓" : "✗") \(escape(expectation.description))</div>"
                out += "<div class=\"actual\">\(escape(expectation.actual))</div>"
                out += TrialsPanel.histogram(
                    trials.compactMap { $0.firstMatch(number) }, exact: exact?.firstMatch(number),
                    label: expectation.description)
                out += "</div>\n"
            }
            out += "</section>\n"
        }
        return out + "</body></html>\n"
    }

    static func escape(_ text: String) -> String { ScenarioReport.escape(text) }
}
