import Geo
import LocationEvents
import SocialAPI

/// The eight gates as pure functions, one each, in DESIGN.md's order: each takes what its rule
/// looks at and returns its verdict, with the reason the audit shows. ``GateEvaluator`` asks
/// them in order; gates 3 and 7 need the network's answer and the time of sending, so
/// ``OutboxDelivery`` asks those when the post's turn comes.
extension PrivacyGate {
    /// Gate 1: Always allows a check-in at any time; When In Use only while the app is in the
    /// foreground — a trigger in the background needs Always.
    static func authorizationVerdict(_ trigger: Trigger, _ authorization: AuthorizationStatus, _ state: AppState)
        -> GateVerdict
    {
        switch authorization {
        case .authorizedAlways:
            return GateVerdict(.authorization, passed: true, "authorizedAlways")
        case .authorizedWhenInUse where state == .foreground:
            return GateVerdict(.authorization, passed: true, "authorizedWhenInUse, app in the foreground")
        case .authorizedWhenInUse:
            return GateVerdict(
                .authorization, passed: false, "\(trigger.rawValue) arrives in the \(state) app and needs Always")
        default:
            return GateVerdict(.authorization, passed: false, "location is \(authorization)")
        }
    }

    /// Gate 2: the app-level opt-in is on, and the location disclosure was acknowledged.
    static func optInVerdict(_ profile: PrivacyProfile) -> GateVerdict {
        profile.optIn && profile.disclosureAcknowledged
            ? GateVerdict(.optIn, passed: true, "opted in, disclosure acknowledged")
            : GateVerdict(
                .optIn, passed: false,
                profile.optIn ? "the location disclosure was not acknowledged" : "location check-ins are off")
    }

    /// Gate 3, Twitter: with `geo_enabled` off Twitter drops a tweet's location silently;
    /// Waypost does not send it, and says so (the tweet goes without location).
    static func twitterNetworkVerdict(geoEnabled: Bool) -> GateVerdict {
        geoEnabled
            ? GateVerdict(.network, passed: true, "geo_enabled is on")
            : GateVerdict(.network, passed: false, "geo_enabled is off: the tweet goes without location")
    }

    /// Gate 3, Facebook: a check-in needs `publish_checkins` (or the later `publish_actions`);
    /// returns the permission that allows it, if any.
    static func facebookNetworkVerdict(granted: Set<String>) -> (GateVerdict, permission: String?) {
        guard let permission = ["publish_checkins", "publish_actions"].first(where: granted.contains) else {
            return (
                GateVerdict(.network, passed: false, "neither publish_checkins nor publish_actions is granted"), nil
            )
        }
        return (GateVerdict(.network, passed: true, "\(permission) granted"), permission)
    }

    /// Gate 4: per-post consent. Asked only when every earlier gate passed; `answer` is the
    /// user's scripted answer to this question (nil: nobody answers, which counts as no).
    static func consentVerdict(_ mode: ConsentMode, askable: Bool, answer: Bool?) -> GateVerdict {
        switch mode {
        case .auto:
            return GateVerdict(.consent, passed: true, "automatic")
        case .never:
            return GateVerdict(.consent, passed: false, "never")
        case .ask:
            guard askable else { return GateVerdict(.consent, passed: false, "not asked: an earlier gate failed") }
            guard let answer else { return GateVerdict(.consent, passed: false, "asked; no answer (treated as no)") }
            return GateVerdict(
                .consent, passed: answer, answer ? "asked; the user said yes" : "asked; the user said no")
        }
    }

    /// Gate 5: within a zone's radius nothing locates the user — no coordinates, no place.
    /// `fix`: a fix the app got inside a zone in the last minute, if any. The trigger's position
    /// (a region event's: the OS's estimate, under a non-exact realism) may lie outside a zone the
    /// device is in, and the app's fix inside it: either inside blocks, as nothing may locate the
    /// user there.
    static func privacyZoneVerdict(_ position: Coordinate, fix: Coordinate? = nil, zones: [PrivacyZone])
        -> GateVerdict
    {
        guard let zone = zones.first(where: { $0.contains(position) || fix.map($0.contains) == true }) else {
            return GateVerdict(.privacyZone, passed: true, "outside every privacy zone")
        }
        return GateVerdict(.privacyZone, passed: false, PrivacyZone.blockedReason(zone: zone.name))
    }

    /// Gate 6: the precision a post may carry, the lesser of the rule's and the profile's. A
    /// tweet through X API v2 cannot carry coordinates (`geo.place_id` is the only location
    /// `POST /2/tweets` takes): exact becomes place, and the reason says so.
    static func precisionVerdict(
        rule: Precision, profile: Precision, network: Network = .twitter, twitterAPI: TwitterAPIVersion = .v1_1
    ) -> (GateVerdict, Precision) {
        let allowed = min(rule, profile)
        let reason = "(rule \(rule.rawValue), profile at most \(profile.rawValue))"
        guard network == .twitter, twitterAPI == .v2, allowed == .exact else {
            return (GateVerdict(.precision, passed: true, "\(allowed.rawValue) \(reason)"), allowed)
        }
        return (
            GateVerdict(
                .precision, passed: true,
                "place \(reason): X API v2 takes no coordinates, only geo.place_id"),
            .place
        )
    }

    /// Gate 6b: who will see the post. `cap` is the narrower of the rule's and the profile's
    /// audience; `actual` the network's answer (nil before it is asked, at intent). A post the
    /// network would show wider than the cap does not pass: it goes without location.
    /// `graphPrivacy` is the Graph value the post has (sent, or as Graph echoed it).
    /// `learntAfterSending`: the audience was learnt from the answer to the post, which had gone
    /// out as it was — its verdict cannot say "goes without location" of a tweet that went with it.
    static func audienceVerdict(
        cap: Audience, actual: Audience?, network: Network, graphPrivacy: String? = nil,
        learntAfterSending: Bool = false, unconfirmed: String? = nil
    ) -> GateVerdict {
        guard let actual else {
            return GateVerdict(.audience, passed: true, "at most \(cap.rawValue); the network is asked when it is sent")
        }
        if actual <= cap {
            var how =
                network == .facebook
                ? "privacy \(graphPrivacy ?? cap.graphPrivacy)"
                : actual == .followers ? "the account is protected" : "the account is public"
            // Sent so, but the network did not say who can see it.
            if let unconfirmed { how = "sent with \(how), unconfirmed: \(unconfirmed)" }
            return GateVerdict(.audience, passed: true, "\(actual.rawValue) (\(how); at most \(cap.rawValue))")
        }
        // Twitter's audience is the account's: public, or a protected account's followers.
        let who =
            actual == .followers
            ? "the account is protected: its followers can see where you are"
            : "the account is public: anyone on Twitter can see where you are"
        let then =
            learntAfterSending
            ? "learnt from the tweet's answer, after it went out" : "the tweet goes without location"
        return GateVerdict(.audience, passed: false, "\(who), and at most \(cap.rawValue) may; \(then)")
    }

    /// Gate 7: a queued post older than its maximum age when its turn comes expires, unsent.
    static func stalenessVerdict(age: Double, maxAge: Double) -> GateVerdict {
        age <= maxAge
            ? GateVerdict(
                .staleness, passed: true,
                "waited \(OutboxDelivery.seconds(age)) of at most \(OutboxDelivery.seconds(maxAge))")
            : GateVerdict(
                .staleness, passed: false,
                "waited \(OutboxDelivery.seconds(age)), more than \(OutboxDelivery.seconds(maxAge))")
    }

    /// Gate 8: no repeat check-in at the same place within the cool-down; `sinceLast` is how long
    /// ago the last one there was (nil: none).
    static func volumeVerdict(sinceLast: Double?, cooldown: Double) -> GateVerdict {
        if let sinceLast, sinceLast < cooldown {
            return GateVerdict(
                .volume, passed: false,
                "checked in here \(OutboxDelivery.seconds(sinceLast)) ago; cool-down \(OutboxDelivery.seconds(cooldown))"
            )
        }
        return GateVerdict(.volume, passed: true, "no check-in here within \(OutboxDelivery.seconds(cooldown))")
    }
}
