import Geo
import SimulatedTime

/// A post as the outbox keeps it: everything needed to look the place up and send it later,
/// after a restart or when the network is back.
struct PostIntent: Codable, Equatable {
    var network: Network
    var rule: String
    var trigger: Trigger
    var region: String?
    var device: String?
    /// Virtual time of the triggering event.
    var time: EpochInstant
    var latitude: Double
    var longitude: Double
    var horizontalAccuracy: Double
    /// The precision the gates allowed before the network was asked.
    var precision: Precision
    var place: PlaceChoice
    var searchRadius: Double
    var template: String
    var legacyLength: Bool
    var maxAge: Double
    /// The verdicts so far; delivery adds network and staleness, and may lower precision.
    var gates: [GateVerdict]
    /// The place found, once looked up: a retry does not look it up again.
    var resolved: ResolvedPlace?
    /// The most who may see it (the rule's and the profile's cap); nil in posts queued before
    /// audiences were modelled, which were public.
    var audienceCap: Audience?
    /// Who sees it, once the network was asked (Twitter's `protected`, the Graph privacy sent).
    var audience: Audience?
    /// Why the post is in doubt: an answer to it was lost, so it may have arrived. Before it is
    /// sent again it is looked for on the network.
    var lostAnswer: String?
    /// The location fields of the last request whose answer was lost, as it went out (nil: none
    /// recorded): the fields the post carries if that request landed.
    var sentWireFields: [String: String]?
    /// The location fields of the last request the network refused (a 5xx, a rate limit): they
    /// went out on the wire though no post was made (nil: none).
    var refusedWireFields: [String: String]?
    /// The profile's privacy zones when it was queued (nil: none): a place found inside one is
    /// not named, though the device stood outside — an apartment building's page names a home.
    var zones: [PrivacyZone]?
    /// The privacy zone the post's region lies in (its centre), when it was queued; nil when none
    /// does. Such a region is not named, as a place there is not: `home-gym` names a home.
    var regionZone: String?

    struct ResolvedPlace: Codable, Equatable {
        var id: String?
        var name: String?
        var precision: Precision
        var detail: String?
        /// The location fields the lookup request carried.
        var lookupFields: [String: String]
    }
}

extension PostIntent {
    var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }

    /// The name of the privacy zone a place at `point` lies in; nil when none does, or the place
    /// has no location.
    func zone(containing point: Coordinate?) -> String? {
        guard let point else { return nil }
        return zones?.first { $0.contains(point) }?.name
    }

    /// `places` without those lying in a privacy zone, and the zone the first one left out lay in.
    func outsideZones<Place>(_ places: [Place], location: (Place) -> Coordinate?) -> (places: [Place], zone: String?) {
        guard zones != nil else { return (places, nil) }
        var zone: String?
        let outside = places.filter { place in
            guard let inside = self.zone(containing: location(place)) else { return true }
            zone = zone ?? inside
            return false
        }
        return (outside, zone)
    }

    /// The post's text at `precision`. A post without location names neither its place nor its
    /// region: a region's identifier (`home`, `stevens-creek-coffee-house`) locates the user as
    /// a place name does, and the audit counts such a post as carrying none. At `city` the region
    /// is not named either: it would name the venue the city place stands for; nor is a region
    /// in a privacy zone.
    func message(at precision: Precision) -> String {
        MessageTemplate.render(
            template, place: precision > .none ? resolved?.name : nil,
            region: precision >= .place && regionZone == nil ? region : nil, time: time, network: network)
    }

    /// What the audit says of a post whose text would have named a region in a privacy zone.
    var regionLeftOut: String? {
        guard let regionZone, let region, template.contains("{region}") else { return nil }
        return "region '\(region)' lies in privacy zone '\(regionZone)': the text does not name it"
    }

    /// The audit record of this post as it now stands.
    func audit(
        key: String, decision: PostDecision, wireFields: [String: String] = [:], detail: String? = nil,
        attempts: Int = 0, remoteID: String? = nil
    ) -> AuditRecord {
        let placeName = precision > .none ? resolved?.name : nil
        return AuditRecord(
            key: key, time: time, device: device, trigger: trigger, region: region, latitude: latitude,
            longitude: longitude, rule: rule, network: network,
            placeID: precision > .none ? resolved?.id : nil, placeName: placeName, decision: decision,
            carriesLocation: !wireFields.isEmpty, precision: decision == .blocked ? .none : precision,
            wireFields: wireFields, lookupFields: resolved?.lookupFields ?? [:], gates: gates,
            message: message(at: precision), detail: detail, attempts: attempts, remoteID: remoteID,
            audience: decision == .posted || decision == .inDoubt ? audience : nil)
    }
}
