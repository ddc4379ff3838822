import CheckinEngine
import Foundation
import Geo
import SimulatedTime
import WaypostSupport

/// A run in plain text: its span and distance, the regions, the timeline of events and posts,
/// and how many posts carried location at which precision.
///
/// Every name in it came from a file or a server (the run and its track, devices, regions,
/// places, the reasons recorded with events) and is shown through ``DisplayEscaping``: the summary
/// is read on a terminal.
public enum RunSummary {
    public static func render(_ run: RunSnapshot) -> String {
        func shown(_ text: String) -> String { DisplayEscaping.escape(text) }
        var out = "Run '\(shown(run.run.name))' (\(shown(run.run.track)))\(run.run.dryRun ? ", dry run" : "")"
        // A run cut short (Ctrl-C, a crash) or still being recorded: what follows is partial.
        out += (run.run.finishedAt == nil ? "; not finished (cut short, or still being recorded)" : "") + "\n"
        guard let span = run.span else { return out + "nothing recorded (the history may have been purged)\n" }
        let start = span.lowerBound
        func offset(_ t: EpochInstant) -> String {
            let s = Int(start.seconds(to: t).rounded())
            return String(format: "+%d:%02d:%02d", s / 3_600, s / 60 % 60, s % 60)
        }
        out += "  \(SVGMap.time(span.lowerBound)) – \(SVGMap.time(span.upperBound)) UTC\n"
        for device in run.devices {
            let metres = run.stretches(of: device).reduce(0.0) { total, stretch in
                zip(stretch, stretch.dropFirst()).reduce(total) {
                    $0
                        + ShortDistance.distance(
                            Coordinate(latitude: $1.0.latitude, longitude: $1.0.longitude),
                            Coordinate(latitude: $1.1.latitude, longitude: $1.1.longitude))
                }
            }
            let fixes = run.fixes(of: device).count
            out += "  \(shown(device ?? "device")): \(fixes) fixes, \(String(format: "%.2f", metres / 1_000)) km\n"
        }
        if !run.regions.isEmpty {
            out += "Regions\n"
            for region in run.regions {
                out +=
                    "  \(shown(region.identifier))  \(region.latitude), \(region.longitude)  r \(Int(region.radius)) m\n"
            }
        }
        var lines: [(EpochInstant, Int, String)] = run.events.enumerated().map { index, e in
            let text =
                shown(e.type) + (e.region.map { " \(shown($0))" } ?? "") + (e.detail.map { " (\(shown($0)))" } ?? "")
                + (e.device.map { " on \(shown($0))" } ?? "")
            return (e.time, index, text)
        }
        lines += run.posts.enumerated().map { index, p in
            var text = "post \(p.network.rawValue) \(p.decision.rawValue)"
            if let place = p.placeName { text += " at \(shown(place))" }
            text += p.carriesLocation ? ", location: \(p.precision.rawValue)" : ", no location"
            if let gate = p.gates.first(where: { !$0.passed }) { text += ", blocked by \(gate.gate.rawValue)" }
            // Which device posted, as its events say (a run of one device names none).
            if let device = p.device { text += " on \(shown(device))" }
            return (p.time, run.events.count + index, text)
        }
        out += "Timeline\n"
        for (time, _, text) in lines.sorted(by: { ($0.0, $0.1) < ($1.0, $1.1) }) {
            out += "  \(offset(time))  \(text)\n"
        }
        let located = run.posts.filter(\.carriesLocation)
        out += "Posts: \(run.posts.count), \(run.posts.filter { $0.decision == .posted }.count) posted, "
        out += "\(located.count) carried location"
        let byPrecision = Dictionary(grouping: located, by: \.precision).map { "\($0.value.count) \($0.key.rawValue)" }
        out += byPrecision.isEmpty ? "\n" : " (\(byPrecision.sorted().joined(separator: ", ")))\n"
        return out
    }
}
