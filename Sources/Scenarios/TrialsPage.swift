import Foundation

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
            .actual { color: #555; } svg { display: block; max-width: 100%; height: auto; margin-top: 0.4em; }
            .bar { fill: #4a7bb7; } .exact { stroke: #b3261e; stroke-width: 2; } .axis { fill: #555; font-size: 11px; }
            </style></head><body>
            <h1>\(escape(ScenarioReport.summary(results)))</h1>

            """
        let byScenario = Dictionary(grouping: file.units, by: \.scenario)
        for (index, result) in results.enumerated() {
            let records = (byScenario[index] ?? []).map(\.record)
            let exact = records.first { $0.trial == 0 && file.scenarios[index].exactRun }
            let trials = records.filter { $0.trial > 0 }
            let verdict = result.error != nil ? "ERROR" : result.passed ? "PASS" : "FAIL"
            out += "<section class=\"scenario\"><h2 class=\"\(result.passed ? "pass" : "fail")\">\(verdict) "
            out += "\(escape(result.name)) <small>(\(escape(result.file)))"
            out += result.trials.map { " — \($0) trials" } ?? ""
            out += "</small></h2>\n"
            if let error = result.error { out += "<p class=\"fail\">\(escape(error.description))</p>\n" }
            for (number, expectation) in result.expectations.enumerated() {
                out += "<div class=\"expectation \(expectation.passed ? "pass" : "fail")\">"
                out += "<div>\(expectation.passed ? "✓" : "✗") \(escape(expectation.description))</div>"
                out += "<div class=\"actual\">\(escape(expectation.actual))</div>"
                let times = trials.compactMap { $0.firstMatches.indices.contains(number) ? $0.firstMatches[number] : nil }
                if !times.isEmpty {
                    out += histogram(times, exact: exact?.firstMatches[number], label: expectation.description)
                }
                out += "</div>\n"
            }
            out += "</section>\n"
        }
        return out + "</body></html>\n"
    }

    /// When the expectation's event or post came in each trial (seconds from the start), in
    /// twenty bins; the exact run's instant a red line.
    static func histogram(_ times: [Double], exact: Double?, label: String) -> String {
        let (width, height, left, bottom) = (600.0, 140.0, 30.0, 20.0)
        let all = times + (exact.map { [$0] } ?? [])
        let low = all.min() ?? 0
        let high = max((all.max() ?? 0), low + 1)
        let bins = 20
        var counts = Array(repeating: 0, count: bins)
        for time in times { counts[min(bins - 1, Int((time - low) / (high - low) * Double(bins)))] += 1 }
        let tallest = Double(counts.max() ?? 1)
        let step = (width - left) / Double(bins)
        func x(_ time: Double) -> Double { left + (time - low) / (high - low) * (width - left) }
        var svg =
            "<svg class=\"histogram\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" "
            + "aria-label=\"\(escape("when: " + label))\">"
        for (bin, count) in counts.enumerated() where count > 0 {
            let barHeight = Double(count) / tallest * (height - bottom - 10)
            svg += String(
                format: "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%d trials</title></rect>",
                left + Double(bin) * step + 1, height - bottom - barHeight, step - 2, barHeight, count)
        }
        if let exact {
            svg += String(
                format: "<line class=\"exact\" x1=\"%.1f\" x2=\"%.1f\" y1=\"4\" y2=\"%.1f\"><title>the exact run: %@</title></line>",
                x(exact), x(exact), height - bottom, Offset.text(exact))
        }
        svg += String(format: "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\">%@</text>", left, height - 4, Offset.text(low))
        svg += String(
            format: "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%@</text>", width, height - 4,
            Offset.text(high))
        return svg + "</svg>"
    }

    static func escape(_ text: String) -> String { ScenarioReport.escape(text) }
}
