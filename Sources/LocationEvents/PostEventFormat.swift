import Foundation
import SimulatedTime
import WaypostSupport

/// One `post` line of the event stream: what the engine decided about one post, in the words
/// the stream prints. The engine fills it from its audit record; this module knows only names,
/// so the output contract does not depend on the engine.
public struct PostEvent: Sendable, Equatable {
    /// A gate's verdict as the line shows it.
    public struct Gate: Sendable, Equatable {
        public var gate: String
        public var passed: Bool
        public var reason: String

        public init(gate: String, passed: Bool, reason: String) {
            self.gate = gate
            self.passed = passed
            self.reason = reason
        }
    }

    /// Virtual time.
    public var time: EpochInstant
    /// The device's name in a run with several devices, nil otherwise.
    public var device: String?
    /// `twitter` or `facebook`.
    public var network: String
    /// `posted`, `queued`, `blocked`, `expired`, `failed` or `dryRun`.
    public var decision: String
    public var carriesLocation: Bool
    /// `exact`, `place`, `city` or `none`.
    public var precision: String
    /// The place id that went out, if any.
    public var placeId: String?
    /// The place's name as the server gave it; shown in the text line only.
    public var placeName: String?
    /// The coordinates, only when they went out.
    public var latitude: Double?
    public var longitude: Double?
    /// Absent (not made up) for an outbox entry that could not be read.
    public var rule: String?
    public var trigger: String?
    public var region: String?
    public var detail: String?
    /// In the order the gates ran.
    public var gates: [Gate]

    public init(
        time: EpochInstant, device: String?, network: String, decision: String, carriesLocation: Bool,
        precision: String,
        placeId: String?, placeName: String?, latitude: Double?, longitude: Double?, rule: String?, trigger: String?,
        region: String?, detail: String?, gates: [Gate]
    ) {
        self.time = time
        self.device = device
        self.network = network
        self.decision = decision
        self.carriesLocation = carriesLocation
        self.precision = precision
        self.placeId = placeId
        self.placeName = placeName
        self.latitude = latitude
        self.longitude = longitude
        self.rule = rule
        self.trigger = trigger
        self.region = region
        self.detail = detail
        self.gates = gates
    }
}

/// `post` events in the replay's event stream (DESIGN.md's contract), as JSON lines or text.
public enum PostEventFormat {
    /// `{"t":…,"type":"post",…}`, the fields in the contract's order; `lat`/`lon` only when
    /// coordinates went out. Written field by field: `JSONEncoder` on Linux does not keep a
    /// type's declaration order, and the same run printed its post lines' keys in a different
    /// order each time (DESIGN.md: the same inputs give the same output, byte for byte).
    public static func json(_ post: PostEvent) -> String {
        var json = JSONWriter()
        json.object { json in
            json.field("t", post.time.iso8601)
            json.field("type", "post")
            json.field("device", ifPresent: post.device)
            json.field("network", post.network)
            json.field("decision", post.decision)
            json.field("carriesLocation", post.carriesLocation)
            json.field("precision", post.precision)
            json.field("placeId", ifPresent: post.placeId)
            if let latitude = post.latitude { json.field("lat", latitude) }
            if let longitude = post.longitude { json.field("lon", longitude) }
            json.field("rule", ifPresent: post.rule)
            json.field("trigger", ifPresent: post.trigger)
            json.field("region", ifPresent: post.region)
            json.field("detail", ifPresent: post.detail)
            json.key("gates")
            json.array { json in
                for gate in post.gates {
                    json.object { json in
                        json.field("gate", gate.gate)
                        json.field("passed", gate.passed)
                        json.field("reason", gate.reason)
                    }
                }
            }
        }
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// `2025-06-02T08:14:05.000Z  post            twitter posted place "Philz Coffee" (rule coffee)`
    ///
    /// The device, the place's name (from the server), the rule and the reasons (which quote
    /// zone names and the provider's answers) are shown through ``DisplayEscaping``.
    public static func text(_ post: PostEvent) -> String {
        func shown(_ text: String) -> String { DisplayEscaping.escape(text) }
        var out = post.time.iso8601 + "  "
        if let device = post.device { out += "[\(shown(device))] " }
        out += "post            \(post.network) \(post.decision)"
        out += post.carriesLocation ? " \(post.precision)" : " without location"
        if let name = post.placeName, post.carriesLocation { out += " \"\(shown(name))\"" }
        // An unreadable outbox entry has no rule to name: its detail says what it is.
        var why = post.rule.map { ["rule \(shown($0))"] } ?? []
        if let failed = post.gates.first(where: { !$0.passed }) {
            why.append("\(failed.gate): \(shown(failed.reason))")
        } else if let detail = post.detail {
            why.append(shown(detail))
        }
        return out + " (" + why.joined(separator: "; ") + ")"
    }
}
