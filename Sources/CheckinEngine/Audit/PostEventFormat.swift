import Foundation
import WaypostSupport

/// `post` events in the replay's event stream (DESIGN.md's contract), as JSON lines or text.
public enum PostEventFormat {
    private struct Line: Encodable {
        var t: String
        var type = "post"
        var device: String?
        var network: Network
        var decision: PostDecision
        var carriesLocation: Bool
        var precision: Precision
        var placeId: String?
        var lat: Double?
        var lon: Double?
        // Absent (not made up) for an outbox entry that could not be read.
        var rule: String?
        var trigger: Trigger?
        var region: String?
        var detail: String?
        var gates: [GateVerdict]
    }

    /// `{"t":…,"type":"post",…}`; `lat`/`lon` only when coordinates went out.
    public static func json(_ record: AuditRecord, at time: Double) -> String {
        let exact = record.wireFields["lat"] != nil || record.wireFields["coordinates"] != nil
        let line = Line(
            t: XSDDateTime.formatMilliseconds(time), device: record.device, network: record.network,
            decision: record.decision, carriesLocation: record.carriesLocation, precision: record.precision,
            placeId: record.wireFields["place_id"] ?? record.wireFields["geo.place_id"] ?? record.wireFields["place"],
            lat: exact ? record.latitude : nil,
            lon: exact ? record.longitude : nil, rule: record.rule, trigger: record.trigger, region: record.region,
            detail: record.detail, gates: record.gates)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(line)) ?? Data(), as: UTF8.self)
    }

    /// `2025-06-02T08:14:05.000Z  post            twitter posted place "Philz Coffee" (rule coffee)`
    ///
    /// The device, the place's name (from the server), the rule and the reasons (which quote
    /// zone names and the provider's answers) are shown through ``DisplayEscaping``.
    public static func text(_ record: AuditRecord, at time: Double) -> String {
        func shown(_ text: String) -> String { DisplayEscaping.escape(text) }
        var out = XSDDateTime.formatMilliseconds(time) + "  "
        if let device = record.device { out += "[\(shown(device))] " }
        out += "post            \(record.network.rawValue) \(record.decision.rawValue)"
        out += record.carriesLocation ? " \(record.precision.rawValue)" : " without location"
        if let name = record.placeName, record.carriesLocation { out += " \"\(shown(name))\"" }
        // An unreadable outbox entry has no rule to name: its detail says what it is.
        var why = record.rule.map { ["rule \(shown($0))"] } ?? []
        if let failed = record.gates.first(where: { !$0.passed }) {
            why.append("\(failed.gate.rawValue): \(shown(failed.reason))")
        } else if let detail = record.detail {
            why.append(shown(detail))
        }
        return out + " (" + why.joined(separator: "; ") + ")"
    }
}
