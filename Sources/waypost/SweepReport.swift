import Foundation
import LocationSimulation
import WaypostSupport

/// `waypost sweep`'s output: a row per cell (text), the contract's JSON, or an offline page with
/// a heatmap per event and statistic (radius × speed, a panel per environment).
struct SweepReport {
    var summaries: [FieldSweep.CellSummary]
    var realism: String
    var seed: UInt64
    var trials: Int

    /// A cell's value as it was given: the shortest decimal that reads back as the same number
    /// (`1.45`, `0.04`), no `.0`. Rounded, two speeds 1.45 and 1.5 were both "1.5", and an
    /// offset of 0.04 m "0", which means through the centre.
    static func label(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }

    /// A statistic as the outputs print it: at most one decimal, no trailing zero.
    static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    // MARK: Text

    /// One row a cell: the cell, then for entry and exit the fraction notified (Wilson interval),
    /// lateness and distance from the centre, p5/p50/p95.
    func text() -> String {
        let event = "notified (95 % Wilson)  late s p5/p50/p95  from centre m p5/p50/p95"
        // As wide as the widest surroundings shown ("suburban, Wi-Fi off" pushed its row out).
        let surroundings = summaries.map(\.cell.surroundings.description.count).reduce(18, max)
        var lines = [
            "waypost sweep: \(realism) mechanism, \(Counted.text(trials, "trial")) a cell, seed \(seed)",
            "radius m  speed m/s  dwell s  offset m  \(pad("surroundings", surroundings))  | enter: \(event) | exit: \(event)",
        ]
        for summary in summaries {
            let cell = summary.cell
            let head = [
                pad(Self.label(cell.radius), 8), pad(Self.label(cell.speed), 9), pad(Self.label(cell.dwell), 7),
                pad(Self.label(cell.offset), 8), pad(cell.surroundings.description, surroundings),
            ].joined(separator: "  ")
            let events = [summary.entry, summary.exit].map { event in
                let rate =
                    "\(Proportions.percent(event.fraction)) (\(Proportions.percent(event.wilson.lowerBound))–\(Proportions.percent(event.wilson.upperBound)))"
                return [pad(rate, 22), pad(spread(event.lateSeconds), 18), pad(spread(event.distanceFromCentre), 24)]
                    .joined(separator: "  ")
            }
            lines.append(head + "  | " + events.joined(separator: " | "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private func spread(_ spread: FieldSweep.Spread?) -> String {
        spread.map { "\(Self.number($0.p5))/\(Self.number($0.p50))/\(Self.number($0.p95))" } ?? "—"
    }

    // MARK: JSON

    private struct Document: Encodable {
        var cells: [CellJSON]
        var realism: String
        var seed: UInt64
    }

    private struct CellJSON: Encodable {
        var radius, speed, dwell, offset: Double
        var environment: String
        var wifi: String
        var trials: Int
        var enter: EventJSON
        var exit: EventJSON
    }

    private struct EventJSON: Encodable {
        var notified: Double
        /// The trials notified: `notified` is rounded, and past 20,000 trials one miss would not show.
        var notifiedTrials: Int
        var wilson: [Double]
        var lateSeconds: SpreadJSON?
        var distanceFromCentre: SpreadJSON?

        enum CodingKeys: String, CodingKey { case notified, notifiedTrials, wilson, lateSeconds, distanceFromCentre }

        // Statistics are null, not absent, where nothing was notified.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(notified, forKey: .notified)
            try container.encode(notifiedTrials, forKey: .notifiedTrials)
            try container.encode(wilson, forKey: .wilson)
            try container.encode(lateSeconds, forKey: .lateSeconds)
            try container.encode(distanceFromCentre, forKey: .distanceFromCentre)
        }
    }

    private struct SpreadJSON: Encodable {
        var p5, p50, p95: Double
    }

    private static func rounded(_ value: Double, _ places: Double) -> Double { (value * places).rounded() / places }

    private func eventJSON(_ event: FieldSweep.EventSummary) -> EventJSON {
        func spread(_ s: FieldSweep.Spread?) -> SpreadJSON? {
            s.map {
                SpreadJSON(p5: Self.rounded($0.p5, 10), p50: Self.rounded($0.p50, 10), p95: Self.rounded($0.p95, 10))
            }
        }
        return EventJSON(
            notified: Self.rounded(event.fraction, 10_000), notifiedTrials: event.notified,
            wilson: [Self.rounded(event.wilson.lowerBound, 10_000), Self.rounded(event.wilson.upperBound, 10_000)],
            lateSeconds: spread(event.lateSeconds), distanceFromCentre: spread(event.distanceFromCentre))
    }

    func json() -> String {
        let document = Document(
            cells: summaries.map { summary in
                let cell = summary.cell
                return CellJSON(
                    radius: cell.radius, speed: cell.speed, dwell: cell.dwell, offset: cell.offset,
                    environment: cell.surroundings.environment.rawValue, wifi: cell.surroundings.wifi ? "on" : "off",
                    trials: summary.entry.trials, enter: eventJSON(summary.entry), exit: eventJSON(summary.exit))
            }, realism: realism, seed: seed)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(document)) ?? Data(), as: UTF8.self) + "\n"
    }

    // MARK: HTML

    /// One offline page: for each dwell, offset and Wi-Fi setting, a heatmap per event and
    /// statistic — rows radius, columns speed — with a panel per environment.
    func html() -> String {
        let radii = Array(Set(summaries.map(\.cell.radius))).sorted()
        let speeds = Array(Set(summaries.map(\.cell.speed))).sorted()
        let environments = Array(Set(summaries.map(\.cell.surroundings.environment))).sorted()
        var groups: [(dwell: Double, offset: Double, wifi: Bool)] = []
        for summary in summaries {
            let key = (summary.cell.dwell, summary.cell.offset, summary.cell.surroundings.wifi)
            if !groups.contains(where: { $0 == key }) { groups.append(key) }
        }
        let statistics: [(name: String, unit: String, value: (FieldSweep.EventSummary) -> Double?, high: Double)] = [
            ("notified", "%", { $0.fraction * 100 }, 100),
            ("lateness p50", "s", { $0.lateSeconds?.p50 }, 300),
            ("distance from centre p50", "m", { $0.distanceFromCentre?.p50 }, 1_000),
        ]
        var body = ""
        for group in groups {
            body +=
                "<section><h2>dwell \(Self.label(group.dwell)) s · offset \(Self.label(group.offset)) m · Wi-Fi \(group.wifi ? "on" : "off")</h2>\n"
            for (eventName, pick) in [("enter", { (s: FieldSweep.CellSummary) in s.entry }), ("exit", { $0.exit })] {
                for statistic in statistics {
                    body += "<h3>\(eventName): \(statistic.name) (\(statistic.unit))</h3><div class=\"panels\">\n"
                    for environment in environments {
                        body +=
                            "<table class=\"heatmap\" data-event=\"\(eventName)\" data-statistic=\"\(statistic.name)\" data-environment=\"\(environment.rawValue)\">"
                        body += "<caption>\(environment.rawValue)</caption><tr><th>radius m \\ speed m/s</th>"
                        body += speeds.map { "<th>\(Self.label($0))</th>" }.joined() + "</tr>\n"
                        for r in radii {
                            body += "<tr><th>\(Self.label(r))</th>"
                            for v in speeds {
                                let summary = summaries.first {
                                    $0.cell.radius == r && $0.cell.speed == v && $0.cell.dwell == group.dwell
                                        && $0.cell.offset == group.offset && $0.cell.surroundings.wifi == group.wifi
                                        && $0.cell.surroundings.environment == environment
                                }
                                guard let summary, let value = statistic.value(pick(summary)) else {
                                    body += "<td class=\"none\">—</td>"
                                    continue
                                }
                                let shade = Int((min(max(value, 0), statistic.high) / statistic.high * 200).rounded())
                                // A share notified is never rounded to 0 or 100 unless it is.
                                let text =
                                    statistic.unit == "%"
                                    ? Proportions.percentage(value / 100) : Self.number(value)
                                body +=
                                    "<td style=\"background:rgb(\(255 - shade),\(255 - shade / 2),255)\">\(text)</td>"
                            }
                            body += "</tr>\n"
                        }
                        body += "</table>\n"
                    }
                    body += "</div>\n"
                }
            }
            body += "</section>\n"
        }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>waypost sweep</title>
            <style>
            body { font: 14px system-ui, sans-serif; margin: 1.5em; color: #222 }
            .panels { display: flex; gap: 1.5em; flex-wrap: wrap }
            table.heatmap { border-collapse: collapse } caption { font-weight: 600; text-align: left }
            th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: right } td.none { color: #999 }
            </style></head><body>
            <h1>How often, how late, how far away: a geofence under the \(realism) mechanism</h1>
            <p>\(Counted.text(trials, "trial")) a cell, seed \(seed). Notified: the fraction of trials with the event. Lateness: seconds after the true crossing (negative: early). Distance: the true distance from the centre when notified.</p>
            \(body)</body></html>

            """
    }
}
