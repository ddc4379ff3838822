import Foundation
import SimulatedTime
import Store
import WaypostSupport

/// A trials run's distributions, for the pages that show them (the run's map, and
/// `waypost test --html`): per expectation, when its event or post came across the trials — a
/// histogram with the exact run's instant marked.
public enum TrialsPanel {
    /// The run's map section: collapsed under a summary line, one histogram per expectation
    /// with times; each bar and the exact instant link to that moment on the map (`#t=`).
    static func html(_ distributions: [TrialDistribution]) -> String {
        guard let trials = distributions.map(\.times.count).max() else { return "" }
        let held = distributions.filter(\.passed).count
        var out = "<details id=\"trials\" class=\"trials\"><summary>\(Counted.text(trials, "trial")): "
        out += "\(held) of \(distributions.count) expectations hold</summary>\n"
        for distribution in distributions {
            out += "<div class=\"trial \(distribution.passed ? "pass" : "fail")\">"
            out += "<div>\(distribution.passed ? "✓" : "✗") \(escape(distribution.description))</div>"
            out += "<div class=\"verdict\">\(escape(distribution.verdict))</div>"
            out += histogram(
                distribution.times.compactMap { $0 }, exact: distribution.exact, label: distribution.description,
                linked: true)
            out += "</div>\n"
        }
        return out + "</details>\n"
    }

    /// The panel's look, for a page's `<style>`; nothing when there is no panel.
    static func style(_ distributions: [TrialDistribution]) -> String {
        distributions.isEmpty ? "" : "\n" + style
    }

    private static let style = """
        .trials { margin-top: 4px; font-size: 13px; }
        .trials summary { cursor: pointer; color: #4a4e69; }
        .trials[open] { max-height: 45vh; overflow: auto; }
        .trial { margin: 6px 0; padding: 2px 8px; border-left: 3px solid #2a7d2a; }
        .trial.fail { border-color: #b3261e; }
        .trial .verdict { color: #4a4e69; overflow-wrap: anywhere; }
        """ + histogramStyle

    /// The histogram's look, for a page's `<style>`.
    public static let histogramStyle = """
        svg.histogram { display: block; max-width: 600px; width: 100%; height: auto; margin-top: 4px; }
        .histogram .bar { fill: #4a7bb7; } .histogram a:hover .bar { fill: #f46036; }
        .histogram .exact { stroke: #b3261e; stroke-width: 2; } .histogram .axis { fill: #555; font-size: 11px; }
        """

    /// When the expectation's event or post came in each trial (seconds from the start), in
    /// twenty bins; the exact run's instant a red line. Empty when no trial had one. `linked`:
    /// each bar and the line link to their instant on the page's map.
    public static func histogram(_ spans: [Seconds], exact: Seconds?, label: String, linked: Bool = false) -> String {
        guard !spans.isEmpty else { return "" }
        let (times, exact) = (spans.map(\.seconds), exact?.seconds)
        let (width, height, left, bottom) = (600.0, 140.0, 30.0, 20.0)
        let all = times + (exact.map { [$0] } ?? [])
        let low = all.min() ?? 0
        let high = max(all.max() ?? 0, low + 1)
        let bins = 20
        var counts = Array(repeating: 0, count: bins)
        for time in times { counts[min(bins - 1, Int((time - low) / (high - low) * Double(bins)))] += 1 }
        let tallest = Double(counts.max() ?? 1)
        let step = (width - left) / Double(bins)
        func x(_ time: Double) -> Double { left + (time - low) / (high - low) * (width - left) }
        func link(_ time: Double, _ body: String) -> String {
            linked ? "<a href=\"#t=\(max(0, Int(time.rounded())))\">\(body)</a>" : body
        }
        var svg =
            "<svg class=\"histogram\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" "
            + "aria-label=\"\(escape("when: " + label))\">"
        for (bin, count) in counts.enumerated() where count > 0 {
            let barHeight = Double(count) / tallest * (height - bottom - 10)
            let from = low + Double(bin) / Double(bins) * (high - low)
            let to = low + Double(bin + 1) / Double(bins) * (high - low)
            let bar = String(
                format:
                    "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%@, %@ to %@</title></rect>",
                left + Double(bin) * step + 1, height - bottom - barHeight, step - 2, barHeight,
                Counted.text(count, "trial"),
                Offset.text(from),
                Offset.text(to))
            svg += link(from, bar)
        }
        if let exact {
            let line = String(
                format:
                    "<line class=\"exact\" x1=\"%.1f\" x2=\"%.1f\" y1=\"4\" y2=\"%.1f\"><title>the exact run: %@</title></line>",
                x(exact), x(exact), height - bottom, Offset.text(exact))
            svg += link(exact, line)
        }
        svg += String(
            format: "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\">%@</text>", left, height - 4, Offset.text(low))
        svg += String(
            format: "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%@</text>", width, height - 4,
            Offset.text(high))
        return svg + "</svg>"
    }

    static func escape(_ text: String) -> String { SVGWriter.escape(text, attribute: true) }
}
