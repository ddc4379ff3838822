import Geo
import LocationEvents
import SimulatedTime
import SocialAPI
import WaypostSupport

/// Evaluates the gates a post meets when it is intended — 1, 2, 4, 5, 6 and 8, in DESIGN.md's
/// order, every verdict recorded — and keeps what they remember between posts: the scripted
/// consent answers used so far and each place's last check-in. Gates 3 and 7 come when the post
/// is sent (``OutboxDelivery``); ``GateVerdict`` lists keep all eight in order wherever they are
/// recorded.
struct GateEvaluator {
    let profile: PrivacyProfile
    /// Which API tweets go through: under v2 they cannot carry coordinates.
    var twitterAPI: TwitterAPIVersion = .v1_1
    /// Scripted consent answers used so far, in order.
    private var answersUsed = 0
    /// The last check-in per network and place, for the cool-down.
    private var lastCheckin: [String: EpochInstant] = [:]

    init(profile: PrivacyProfile, twitterAPI: TwitterAPIVersion = .v1_1) {
        self.profile = profile
        self.twitterAPI = twitterAPI
    }

    /// The verdicts of the gates at intent, and the precision gate 6 allows.
    mutating func evaluate(
        _ rule: CheckinRule, _ network: Network, trigger: Trigger, region: String?, position: Coordinate,
        fix: Coordinate? = nil, time: EpochInstant, authorization: AuthorizationStatus, appState: AppState
    ) -> (gates: [GateVerdict], precision: Precision, audience: Audience) {
        var gates: [GateVerdict] = []
        gates.record(PrivacyGate.authorizationVerdict(trigger, authorization, appState))
        gates.record(PrivacyGate.optInVerdict(profile))
        gates.record(consent(rule, askable: gates.allSatisfy(\.passed)))
        gates.record(PrivacyGate.privacyZoneVerdict(position, fix: fix, zones: profile.zones))
        let (verdict, precision) = PrivacyGate.precisionVerdict(
            rule: rule.precision, profile: profile.maximumPrecision, network: network, twitterAPI: twitterAPI)
        gates.record(verdict)
        let audience = min(rule.audience ?? .public, profile.maximumAudience)
        gates.record(PrivacyGate.audienceVerdict(cap: audience, actual: nil, network: network))
        let place = Self.place(network, region: region, position: position)
        gates.record(
            PrivacyGate.volumeVerdict(
                sinceLast: lastCheckin[place].map { $0.seconds(to: time) },
                cooldown: max(rule.cooldown, profile.cooldown).inSeconds))
        if gates.allSatisfy(\.passed) { lastCheckin[place] = time }
        return (gates, precision, audience)
    }

    /// Gate 4, using up one scripted answer when the user is asked.
    private mutating func consent(_ rule: CheckinRule, askable: Bool) -> GateVerdict {
        let mode = max(rule.consent, profile.consent)
        var answer: Bool?
        if mode == .ask && askable {
            answer = answersUsed < profile.answers.count ? profile.answers[answersUsed] : nil
            answersUsed += 1
        }
        return PrivacyGate.consentVerdict(mode, askable: askable, answer: answer)
    }

    /// A post that failed or expired is no check-in: the cool-down counts from the one before
    /// (gate 8, "no check-in at this place within the cool-down"), as a post consent refused is
    /// none. Forgotten only while it is still the place's last.
    mutating func forgetCheckin(_ record: AuditRecord) {
        guard record.decision == .failed || record.decision == .expired, let position = record.coordinate else {
            return
        }
        let place = Self.place(record.network, region: record.region, position: position)
        if lastCheckin[place] == record.time { lastCheckin[place] = nil }
    }

    /// The cool-down's key: a network's check-ins at one region, or in one cell outside regions.
    private static func place(_ network: Network, region: String?, position: Coordinate) -> String {
        "\(network.rawValue)|" + (region ?? cell(position))
    }

    /// A ~100 m cell standing for "the same place" of triggers outside regions.
    static func cell(_ point: Coordinate) -> String {
        FixedPoint.printf(point.latitude, digits: 3) + "," + FixedPoint.printf(point.longitude, digits: 3)
    }
}
