import Foundation

/// A rule: on some location events, check in on some networks, with a message, a place choice,
/// a precision, a consent mode and a cool-down.
///
/// ```yaml
/// rules:
///   - id: coffee
///     on: regionEnter                 # regionEnter, regionExit, significantChange, visit (or a list)
///     regions: [stevens-creek-coffee] # optional: only these monitored regions
///     networks: [twitter, facebook]
///     message: "Coffee at {place} ({time})"
///     place: nearest                  # first, nearest, {name: Philz} or {category: Coffee}
///     precision: place                # exact, place, city, none (the profile may lower it)
///     consent: auto                   # auto, ask, never (the profile may make it stricter)
///     cooldown: 2h                    # no second check-in at the same place sooner
///     maxAge: 1h                      # expire the post if it cannot be sent within this
///     audience: followers             # public, friendsOfFriends, followers, friends, onlyMe: the most who may see it
/// ```
public struct CheckinRule: Sendable, Equatable {
    public var id: String
    public var triggers: Set<Trigger>
    /// Region identifiers the rule applies to; nil for any (and for non-region triggers).
    public var regions: Set<String>?
    public var networks: [Network]
    /// `{place}`, `{region}`, `{time}` (HH:mm UTC) and `{network}` are filled in.
    public var message: String
    public var place: PlaceChoice
    public var precision: Precision
    public var consent: ConsentMode
    public var cooldown: Duration
    public var maxAge: Duration
    /// Metres around the device a Graph place search covers; Graph searches within
    /// ``maximumSearchRadius`` at most, and the search asks no further.
    public var searchRadius: Double
    /// The farthest a Graph place search reaches, 50 km (the emulator's cap, docs/emulator.md):
    /// a rules file may not ask for more.
    public static let maximumSearchRadius = 50_000.0
    /// Count tweets against the legacy 140-character limit instead of 280 weighted.
    public var legacyLength: Bool
    /// The most who may see a post that carries location; nil: no cap of its own.
    public var audience: Audience?

    public init(
        id: String, triggers: Set<Trigger>, regions: Set<String>? = nil, networks: [Network] = [.twitter, .facebook],
        message: String = "At {place}", place: PlaceChoice = .first, precision: Precision = .place,
        consent: ConsentMode = .auto, cooldown: Duration = .seconds(3_600), maxAge: Duration = .seconds(3_600),
        searchRadius: Double = 250,
        legacyLength: Bool = false, audience: Audience? = nil
    ) {
        self.id = id
        self.triggers = triggers
        self.regions = regions
        self.networks = networks
        self.message = message
        self.place = place
        self.precision = precision
        self.consent = consent
        self.cooldown = cooldown
        self.maxAge = maxAge
        self.searchRadius = searchRadius
        self.legacyLength = legacyLength
        self.audience = audience
    }

    /// Whether the rule fires for this trigger in this region.
    public func applies(to trigger: Trigger, region: String?) -> Bool {
        guard triggers.contains(trigger) else { return false }
        guard let regions else { return true }
        return region.map(regions.contains) ?? false
    }
}
