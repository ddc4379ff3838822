import Foundation
import Geo

/// A circle inside which nothing may locate the user: no coordinates, no place.
public struct PrivacyZone: Sendable, Equatable, Codable {
    public var name: String
    public var center: Coordinate
    public var radius: Double

    public init(name: String, center: Coordinate, radius: Double) {
        self.name = name
        self.center = center
        self.radius = radius
    }

    /// Whether `point` lies in the zone, as `ShortDistance.distance` measures it: the engine asks
    /// at every fix, so the cheap bounds of ``ShortDistance/isWithin(_:of:_:)`` answer for the
    /// fixes far outside or well inside.
    public func contains(_ point: Coordinate) -> Bool {
        ShortDistance.isWithin(radius, of: center, point)
    }

    /// The privacy gate's reason for a post the zone named `name` blocked, as the audit records it.
    public static func blockedReason(zone name: String) -> String { "inside privacy zone '\(name)'" }
}

/// The user's privacy choices. The defaults are the safe ones: nothing is shared until the user
/// opts in and acknowledges the disclosure, and then at most a place (never coordinates) with
/// consent asked per post.
///
/// ```yaml
/// optIn: true                   # the app-level switch for location check-ins
/// disclosureAcknowledged: true  # the user saw how location is used
/// precision: place              # the most a post may carry: exact, place, city, none
/// consent: ask                  # auto, ask, never
/// answers: [yes, no, yes]       # scripted answers when asked, in order (missing: no)
/// zones:
///   - name: home
///     latitude: 37.3318
///     longitude: -122.0312
///     radius: 300
/// maxAge: 1h                    # posts older than this when their turn comes expire
/// cooldown: 30m                 # at least this between check-ins at one place
/// audience: followers           # the most who may see a post: public, friendsOfFriends, followers, friends, onlyMe
/// ```
public struct PrivacyProfile: Sendable, Equatable {
    public var optIn = false
    public var disclosureAcknowledged = false
    public var maximumPrecision = Precision.place
    public var consent = ConsentMode.ask
    public var answers: [Bool] = []
    public var zones: [PrivacyZone] = []
    /// The most a post may wait; a rule may ask for less.
    public var maxAge: Duration = .seconds(3_600)
    /// The least time between check-ins at one place; a rule may ask for more.
    public var cooldown: Duration = .zero
    /// The most who may see a post that carries location; a rule may ask for fewer.
    public var maximumAudience = Audience.public

    public init() {}

    /// Everything allowed: opted in, acknowledged, exact precision, consent automatic.
    public static var permissive: PrivacyProfile {
        var profile = PrivacyProfile()
        profile.optIn = true
        profile.disclosureAcknowledged = true
        profile.maximumPrecision = .exact
        profile.consent = .auto
        return profile
    }
}
