import Foundation
import SocialAPI

/// Everything the emulator remembers between requests; a reset starts it afresh from the
/// configuration. The route collections and middleware read and change it, inside
/// ``EmulatorCore``'s isolation.
struct EmulatorState: Sendable {
    var consumers: [String: String]
    var readOnlyConsumers: Set<String>
    /// Graph access tokens refused, and why (the 190 subcode).
    var refusedTokens: [String: GraphErrorSubcode] = [:]
    var twitterAccounts: [EmulatorConfiguration.TwitterAccount]
    var facebookAccounts: [EmulatorConfiguration.FacebookAccount]
    var geoEnabled: [String: Bool]
    /// Twitter accounts' `protected` flag, by user id.
    var protected: [String: Bool]
    /// Each Facebook user's app default audience (a Graph privacy value).
    var facebookAudience: [String: String]
    var permissions: [String: Set<String>]
    var tweets: [Int64: StoredTweet] = [:]
    /// Each user's tweet ids, oldest first.
    var timelines: [String: [Int64]] = [:]
    /// Texts already posted per user, for the duplicate check.
    var postedTexts: [String: Set<String>] = [:]
    /// Post times per user, oldest first, pruned to the last day.
    var postTimes: [String: [Double]] = [:]
    var checkins: [String: [GraphCheckin]] = [:]
    var lastGraphMessage: [String: String] = [:]
    var nonces = NonceCache()
    var limiter = FixedWindowLimiter()
    var nextID: Int64 = 100_000
    var journal: Journal
    var faults = FaultTable()
    /// Added to the real clock: lets a test move the emulator's "now".
    var clockOffset = 0.0

    init(_ configuration: EmulatorConfiguration, seed: UInt64, journalLimits: JournalLimits) {
        faults = FaultTable(seed: seed)
        journal = Journal(limits: journalLimits)
        consumers = configuration.consumers
        readOnlyConsumers = configuration.readOnlyConsumers
        twitterAccounts = configuration.twitterAccounts
        facebookAccounts = configuration.facebookAccounts
        geoEnabled = Dictionary(
            configuration.twitterAccounts.map { ($0.userID, $0.geoEnabled) }, uniquingKeysWith: { first, _ in first })
        protected = Dictionary(
            configuration.twitterAccounts.map { ($0.userID, $0.protected) }, uniquingKeysWith: { first, _ in first })
        facebookAudience = Dictionary(
            configuration.facebookAccounts.map { ($0.userID, $0.defaultAudience) },
            uniquingKeysWith: { first, _ in first })
        permissions = Dictionary(
            configuration.facebookAccounts.map { ($0.userID, $0.permissions) }, uniquingKeysWith: { first, _ in first })
    }

    /// A fresh id (tweets, check-ins, trace ids).
    mutating func makeID() -> Int64 {
        nextID += 1
        return nextID
    }
}
