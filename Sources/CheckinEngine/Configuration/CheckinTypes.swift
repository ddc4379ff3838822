/// The networks Waypost posts to.
public enum Network: String, Sendable, Codable, CaseIterable, Comparable {
    case twitter, facebook

    public static func < (a: Network, b: Network) -> Bool { a.rawValue < b.rawValue }
}

/// How precisely a post locates the user, from nothing to exact coordinates.
public enum Precision: String, Sendable, Codable, CaseIterable, Comparable {
    /// No location at all.
    case none
    /// The city's place id, no coordinates.
    case city
    /// The venue's place id, no coordinates (Twitter's recommendation: `display_coordinates=false`).
    case place
    /// The venue and the coordinates.
    case exact

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    public static func < (a: Precision, b: Precision) -> Bool { a.rank < b.rank }
}

/// Who can see a post, from the narrowest: only the user, their friends (Facebook's
/// ALL_FRIENDS), their followers (a protected Twitter account's approved followers), their
/// friends' friends (Graph's FRIENDS_OF_FRIENDS, once audited as followers, which Graph has not),
/// or anyone.
public enum Audience: String, Sendable, Codable, CaseIterable, Comparable {
    case onlyMe, friends, followers, friendsOfFriends
    case `public`

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    public static func < (a: Audience, b: Audience) -> Bool { a.rank < b.rank }

    /// The Graph `privacy` value for a post capped at this audience: the widest that does not
    /// exceed it (Graph has no followers audience, so a followers cap posts to friends).
    public var graphPrivacy: String {
        switch self {
        case .onlyMe: "SELF"
        case .friends, .followers: "ALL_FRIENDS"
        case .friendsOfFriends: "FRIENDS_OF_FRIENDS"
        case .public: "EVERYONE"
        }
    }

    /// The audience a Graph `privacy` value stands for (CUSTOM names people: friends at most).
    public init?(graphPrivacy value: String) {
        switch value {
        case "SELF": self = .onlyMe
        case "ALL_FRIENDS", "CUSTOM": self = .friends
        case "FRIENDS_OF_FRIENDS": self = .friendsOfFriends
        case "EVERYONE": self = .public
        default: return nil
        }
    }
}

/// The location events a rule can turn into a check-in.
public enum Trigger: String, Sendable, Codable, CaseIterable {
    case regionEnter, regionExit, significantChange, visit
}

/// Whether each post asks the user first.
public enum ConsentMode: String, Sendable, Codable, CaseIterable, Comparable {
    /// Post without asking.
    case auto
    /// Ask; the answer comes from the profile's scripted `answers`.
    case ask
    /// Never post location.
    case never

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    /// Stricter modes compare greater.
    public static func < (a: ConsentMode, b: ConsentMode) -> Bool { a.rank < b.rank }
}

/// Which of the places a lookup returns a rule checks in at.
public enum PlaceChoice: Sendable, Codable, Equatable {
    /// The provider's first answer (Twitter's finest granularity; Graph's nearest).
    case first
    /// The one whose location is nearest the device.
    case nearest
    /// The first whose name contains this text, case-insensitively.
    case named(String)
    /// The first whose category contains this text (Facebook pages; Twitter places have none).
    case category(String)
}
