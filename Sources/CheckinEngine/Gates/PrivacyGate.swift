/// The privacy gates, in the order DESIGN.md gives them; every post records each one's verdict.
public enum PrivacyGate: String, Sendable, Codable, CaseIterable {
    /// The OS allows location for this kind of trigger (background region events need Always).
    case authorization
    /// The app-level opt-in is on and the location disclosure was acknowledged.
    case optIn
    /// The network allows it: Twitter `geo_enabled`; Facebook `publish_checkins`/`publish_actions`.
    case network
    /// Per-post consent: asked (scripted answer), automatic, or never.
    case consent
    /// Nothing locates the user inside a privacy zone.
    case privacyZone
    /// The precision the post may carry.
    case precision
    /// Who will see the post fits the most the rule and the profile allow; a post whose
    /// network would show it wider goes without location.
    case audience
    /// A queued post older than its maximum age expires.
    case staleness
    /// No repeat check-in at the same place within the cool-down.
    case volume
}

/// One gate's verdict on one post.
public struct GateVerdict: Sendable, Codable, Equatable {
    public var gate: PrivacyGate
    public var passed: Bool
    public var reason: String

    public init(_ gate: PrivacyGate, passed: Bool, _ reason: String) {
        self.gate = gate
        self.passed = passed
        self.reason = reason
    }
}

extension Array where Element == GateVerdict {
    /// Adds or replaces `verdict`, keeping the gates in their defined order.
    mutating func record(_ verdict: GateVerdict) {
        removeAll { $0.gate == verdict.gate }
        append(verdict)
        let order = PrivacyGate.allCases
        sort { (order.firstIndex(of: $0.gate) ?? 0) < (order.firstIndex(of: $1.gate) ?? 0) }
    }

    /// Whether every gate was evaluated and passed.
    public var allPassed: Bool { count == PrivacyGate.allCases.count && allSatisfy(\.passed) }
}
