import Foundation
import Tracks

/// Renders events as DESIGN.md's event stream: one JSON object per line (`jsonl`), or a
/// readable line per event (`text`). Deterministic: the same events give the same bytes.
public enum EventStreamEncoder {
    public enum Format: String, Sendable, CaseIterable {
        case text, jsonl
    }

    public static func encode(_ timed: TimedEvent, as format: Format) -> String {
        switch format {
        case .jsonl: json(timed)
        case .text: text(timed)
        }
    }

    /// `{"t":"…","type":"…",…}` with DESIGN.md's field names.
    public static func json(_ timed: TimedEvent) -> String {
        var out = "{\"t\":\"" + XSDDateTime.formatMilliseconds(timed.time) + "\""
        if let device = timed.device { out += ",\"device\":" + quoted(device) }
        switch timed.event {
        case .authorizationChanged(let status):
            out += ",\"type\":\"authorization\",\"status\":\"\(status)\""
        case .locationUpdated(let fix, let service):
            out += ",\"type\":\"location\",\"lat\":\(fix.coordinate.latitude),\"lon\":\(fix.coordinate.longitude)"
            out += ",\"alt\":\(round(fix.altitude, 3)),\"hacc\":\(round(fix.horizontalAccuracy, 2))"
            out += ",\"vacc\":\(round(fix.verticalAccuracy, 2)),\"speed\":\(round(fix.speed, 3))"
            out += ",\"course\":\(round(fix.course, 2)),\"service\":\"\(service.rawValue)\""
        case .failed(let error):
            out += ",\"type\":\"error\",\"code\":\(error.code.rawValue),\"error\":\"\(error.name)\""
        case .enteredRegion(let region, let at), .exitedRegion(let region, let at):
            let type = if case .enteredRegion = timed.event { "regionEnter" } else { "regionExit" }
            out += ",\"type\":\"\(type)\",\"region\":" + quoted(region.identifier)
            out += ",\"lat\":\(at.latitude),\"lon\":\(at.longitude)"
        case .determinedState(let state, let region):
            out += ",\"type\":\"regionState\",\"region\":" + quoted(region.identifier) + ",\"state\":\"\(state)\""
        case .monitoringFailed(let region, let error):
            out += ",\"type\":\"monitoringFailed\",\"region\":" + (region.map { quoted($0.identifier) } ?? "null")
            out += ",\"code\":\(error.code.rawValue),\"error\":\"\(error.name)\""
        case .visited(let visit):
            out += ",\"type\":\"visit\",\"lat\":\(visit.coordinate.latitude),\"lon\":\(visit.coordinate.longitude)"
            out += ",\"arrival\":\"\(XSDDateTime.formatMilliseconds(visit.arrival))\""
            out += ",\"departure\":\"\(XSDDateTime.formatMilliseconds(visit.departure))\""
        }
        return out + "}"
    }

    /// `2025-06-02T16:00:00.000Z  location  37.331817,-122.031175  ±5 m  1.38 m/s  198.7°`
    public static func text(_ timed: TimedEvent) -> String {
        var out = XSDDateTime.formatMilliseconds(timed.time) + "  "
        if let device = timed.device { out += "[\(device)] " }
        switch timed.event {
        case .authorizationChanged(let status):
            out += "authorization   \(status)"
        case .locationUpdated(let fix, let service):
            out += (service == .standard ? "location        " : "significant     ")
            out += String(format: "%.6f,%.6f", fix.coordinate.latitude, fix.coordinate.longitude)
            out += String(format: "  ±%.0f m", fix.horizontalAccuracy)
            if fix.verticalAccuracy >= 0 { out += String(format: "  alt %.1f m", fix.altitude) }
            if fix.speed >= 0 { out += String(format: "  %.2f m/s", fix.speed) }
            if fix.course >= 0 { out += String(format: "  %.1f°", fix.course) }
        case .failed(let error):
            out += "error           \(error.name) (\(error.code.rawValue))"
        case .enteredRegion(let region, _):
            out += "enter           \(region.identifier)"
        case .exitedRegion(let region, _):
            out += "exit            \(region.identifier)"
        case .determinedState(let state, let region):
            out += "state           \(region.identifier): \(state)"
        case .monitoringFailed(let region, let error):
            out += "monitoringFailed \(region?.identifier ?? "-"): \(error)"
        case .visited(let visit):
            out += String(
                format: "visit           %.6f,%.6f  %@ → %@", visit.coordinate.latitude, visit.coordinate.longitude,
                XSDDateTime.formatMilliseconds(visit.arrival), XSDDateTime.formatMilliseconds(visit.departure))
        }
        return out
    }

    private static func round(_ value: Double, _ digits: Int) -> Double {
        let scale = [1.0, 10, 100, 1000][digits]
        return (value * scale).rounded() / scale
    }

    private static func quoted(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data()
        let array = String(decoding: data, as: UTF8.self)
        return String(array.dropFirst().dropLast())
    }
}
