import CheckinEngine
import Foundation
import SimulatedTime
import SocialAPI
import SocialEmulator
import TestSupport
import Testing
import WaypostSupport

/// The engine under X API v2 and the audience of each post, checked on the emulator's stored
/// objects: every posted record is read back (GET /2/tweets/:id, statuses/show, Graph's object)
/// and compared with what the audit says went out and who could see it.
@Suite("X API v2 and audiences, checked on the emulator's stored objects")
struct XAPIAudienceTests {
    static let poi = "e1a2b3c4d5e6f701"

    /// The emulator's clients for reading back, as the demo user.
    static func readers(_ run: RunResult) -> (TwitterClient, XClient, FacebookClient) {
        let credentials = OAuth1Credentials(
            consumerKey: "waypost-demo-consumer", consumerSecret: "waypost-demo-consumer-secret",
            token: "1001-waypost-demo-token", tokenSecret: "waypost-demo-token-secret")
        return (
            TwitterClient(
                baseURL: EmulatorTransport.twitterBaseURL, credentials: credentials, transport: run.transport,
                clock: run.clock),
            XClient(
                baseURL: EmulatorTransport.baseURL.appendingPathComponent("2/"),
                authorization: .bearer("waypost-demo-oauth2-user-token"), transport: run.transport),
            FacebookClient(
                baseURL: EmulatorTransport.baseURL, accessToken: "waypost-demo-graph-token",
                transport: run.transport)
        )
    }

    /// For every post that went out: the stored object carries exactly the location the audit
    /// recorded, and its audience (Twitter: the author's `protected`; Graph: `privacy`) is the
    /// audit's.
    static func checkAgainstStoredObjects(_ run: RunResult) async throws {
        let (twitter, x, facebook) = readers(run)
        let posted = run.audit.filter { $0.decision == .posted }
        #expect(!posted.isEmpty)
        for record in posted {
            let id = try #require(record.remoteID)
            switch record.network {
            case .twitter:
                let lookup = try await x.tweet(
                    id: id, expansions: ["geo.place_id", "author_id"], userFields: ["protected"])
                #expect(lookup.data.geo?.placeID == record.wireFields["place_id"] ?? record.wireFields["geo.place_id"])
                let author = try #require(lookup.includes?.users?.first)
                #expect(record.audience == (author.protected == true ? .followers : .public))
                let status = try await twitter.verifyCredentials()
                #expect(status.protected == author.protected)
            case .facebook:
                let object = try await facebook.object(id: id)
                #expect(object.place?.id == record.wireFields["place"])
                let privacy = try #require(object.privacy)
                #expect(record.audience == Audience(graphPrivacy: privacy.value))
            }
        }
    }

    @Test("Under v2 an exact rule is sent as a place id only, and the precision gate says why")
    func v2DowngradesExact() async throws {
        // X API v2 reference, POST /2/tweets: the body's `geo` has `place_id` and nothing else.
        // https://developer.x.com/en/docs/x-api/tweets/manage-tweets/api-reference/post-tweets
        let run = try await runEngine(
            rules: [rule([.twitter], precision: .exact)], profile: .permissive, events: enters([(2, 1)]),
            twitterAPI: .v2)
        let record = try #require(run.audit.first)
        #expect(record.decision == .posted && record.carriesLocation && record.precision == .place)
        #expect(record.wireFields == ["geo.place_id": Self.poi])
        let precision = try #require(record.gates.first { $0.gate == .precision })
        #expect(precision.reason.contains("X API v2 takes no coordinates"))
        #expect(precision.reason.hasPrefix("place (rule exact"))
        // On the wire: one POST /2/tweets, no v1.1 status update, no coordinates anywhere.
        let sent = run.journal.filter { $0.method == "POST" && $0.path == "/2/tweets" }
        #expect(sent.count == 1)
        // The JSON body as the journal shows it: the place id, no coordinates.
        #expect(sent.first?.parameters["geo.place_id"] == Self.poi)
        #expect(sent.first.map { Set($0.parameters.keys) } == ["text", "geo.place_id"])
        #expect(!run.journal.contains { $0.path.hasSuffix("statuses/update.json") })
        let (twitter, x, _) = Self.readers(run)
        let id = try #require(record.remoteID)
        let status = try await twitter.userTimeline().first { $0.idStr == id }
        #expect(status?.coordinates == nil && status?.geo == nil && status?.place?.id == Self.poi)
        let lookup = try await x.tweet(id: id, expansions: ["geo.place_id"], placeFields: ["name"])
        #expect(lookup.includes?.places?.first?.id == Self.poi)
        try await Self.checkAgainstStoredObjects(run)
    }

    @Test("A dry run under v2 gates as v2 does: exact becomes place")
    func v2DryRun() async throws {
        let run = try await runEngine(
            rules: [rule([.twitter], precision: .exact)], profile: .permissive, events: enters([(2, 1)]),
            dryRun: true, twitterAPI: .v2)
        #expect(run.audit.first?.precision == .place)
    }

    @Test("A protected account's tweet carries its place to followers; the audit says followers")
    func protectedAccount() async throws {
        var profile = PrivacyProfile.permissive
        profile.maximumAudience = .followers
        let run = try await runEngine(
            rules: [rule()], profile: profile, events: enters([(2, 1)]),
            configure: { $0.twitterAccounts[0].protected = true }, twitterAPI: .v2)
        let tweet = try #require(run.audit.first { $0.network == .twitter })
        #expect(tweet.decision == .posted && tweet.carriesLocation && tweet.audience == .followers)
        #expect(tweet.gates.first { $0.gate == .audience }?.passed == true)
        let checkin = try #require(run.audit.first { $0.network == .facebook })
        #expect(checkin.audience == .friends && checkin.carriesLocation)
        let sent = try #require(run.posts(.facebook).first)
        #expect(sent.parameters["privacy"] == #"{"value":"ALL_FRIENDS"}"#)
        #expect(AuditReport(run: "t", records: run.audit).audiences.map(\.audience) == [.followers, .friends])
        try await Self.checkAgainstStoredObjects(run)
    }

    /// Found at stop 80: the text kept `{region}` — the app's name for the place, here the
    /// café's identifier — while the audit said the post carried no location.
    @Test("A public account under a followers cap: the tweet goes without location, its text naming no region")
    func publicAccountCapped() async throws {
        var profile = PrivacyProfile.permissive
        profile.maximumAudience = .followers
        let run = try await runEngine(
            rules: [rule([.twitter], message: "At {place} ({region}) {time}")], profile: profile,
            events: enters([(2, 1)]))
        let tweet = try #require(run.audit.first)
        #expect(tweet.decision == .posted && !tweet.carriesLocation && tweet.audience == .public)
        let region = try #require(tweet.region)
        let sent = try #require(run.posts(.twitter).first?.parameters["status"])
        #expect(!sent.contains(region) && sent.hasPrefix("At () "), "\(sent)")
        #expect(tweet.message == sent)
        let gate = try #require(tweet.gates.first { !$0.passed })
        #expect(gate.gate == .audience && gate.reason.contains("anyone on Twitter can see where you are"))
        #expect(run.journal.filter(\.carriesLocation).allSatisfy { !$0.path.hasSuffix("statuses/update.json") })
        try await Self.checkAgainstStoredObjects(run)
    }

    /// Found at stop 80: a protected account under a friends cap was told "the account is public".
    @Test("A protected account under a narrower cap: the tweet goes without location, the verdict says protected")
    func protectedAccountCapped() async throws {
        var capped = rule([.twitter])
        capped.audience = .friends
        let run = try await runEngine(
            rules: [capped], profile: .permissive, events: enters([(2, 1)]),
            configure: { $0.twitterAccounts[0].protected = true })
        let tweet = try #require(run.audit.first)
        #expect(tweet.decision == .posted && !tweet.carriesLocation && tweet.audience == .followers)
        let gate = try #require(tweet.gates.first { !$0.passed })
        #expect(
            gate.gate == .audience && gate.reason.hasPrefix("the account is protected: its followers"), "\(gate.reason)"
        )
    }

    @Test("A rule's onlyMe cap posts Graph check-ins with privacy SELF; the default is EVERYONE, public")
    func ruleCaps() async throws {
        var onlyMe = rule([.facebook])
        onlyMe.audience = .onlyMe
        let run = try await runEngine(rules: [onlyMe], profile: .permissive, events: enters([(2, 1)]))
        #expect(run.audit.first?.audience == .onlyMe)
        #expect(run.posts(.facebook).first?.parameters["privacy"] == #"{"value":"SELF"}"#)
        try await Self.checkAgainstStoredObjects(run)
        let open = try await runEngine(rules: [rule()], profile: .permissive, events: enters([(2, 1)]))
        #expect(open.audit.allSatisfy { $0.audience == .public })
        try await Self.checkAgainstStoredObjects(open)
    }

    @Test("Graph keeps a post within the app's default audience: the audit reads it back from the object")
    func appDefaultAudience() async throws {
        let run = try await runEngine(
            rules: [rule([.facebook])], profile: .permissive, events: enters([(2, 1)]),
            configure: { $0.facebookAccounts[0].defaultAudience = "SELF" })
        let record = try #require(run.audit.first)
        #expect(record.decision == .posted && record.audience == .onlyMe)
        #expect(run.posts(.facebook).first?.parameters["privacy"] == #"{"value":"EVERYONE"}"#)
        #expect(record.gates.first { $0.gate == .audience }?.reason == "onlyMe (privacy SELF; at most public)")
        try await Self.checkAgainstStoredObjects(run)
    }

    /// The audience gate said `public (privacy EVERYONE; …)` — worded as Graph's own answer —
    /// when reading the check-in back failed or gave no audience it names (a black-box hunt
    /// against a hostile server): the audit says it was sent so, and unconfirmed.
    @Test("A check-in whose read-back fails or names no audience is audited as sent, unconfirmed")
    func unconfirmedAudience() async throws {
        for (answer, why) in [
            (
                HTTPResponseSpec(status: 500, body: Data(#"{"error":{"message":"x","code":2}}"#.utf8)),
                "the check-in could not be read back"
            ),
            (
                HTTPResponseSpec(status: 200, body: Data(#"{"id":"1","privacy":{"value":"EVERYBODY"}}"#.utf8)),
                "the check-in reads privacy EVERYBODY"
            ),
        ] {
            let run = try await runEngine(
                rules: [rule([.facebook])], profile: .permissive, events: enters([(2, 1)]),
                answering: { request in
                    request.method == "GET" && request.url.lastPathComponent.contains("_") ? answer : nil
                })
            let record = try #require(run.audit.first)
            #expect(record.decision == .posted && record.audience == .public)
            #expect(
                record.gates.first { $0.gate == .audience }?.reason
                    == "public (sent with privacy EVERYONE, unconfirmed: \(why); at most public)")
        }
    }

    /// Graph's FRIENDS_OF_FRIENDS is wider than friends and is not Twitter's followers: it was
    /// audited "followers" (a black-box hunt). A profile may cap posts there too.
    @Test("A check-in Graph keeps to friends of friends is audited so, and a cap there posts so")
    func friendsOfFriends() async throws {
        let run = try await runEngine(
            rules: [rule([.facebook])], profile: .permissive, events: enters([(2, 1)]),
            configure: { $0.facebookAccounts[0].defaultAudience = "FRIENDS_OF_FRIENDS" })
        let record = try #require(run.audit.first)
        #expect(record.decision == .posted && record.audience == .friendsOfFriends)
        #expect(AuditReport(run: "t", records: run.audit).audiences.map(\.audience) == [.friendsOfFriends])
        try await Self.checkAgainstStoredObjects(run)
        var profile = PrivacyProfile.permissive
        profile.maximumAudience = .friendsOfFriends
        let capped = try await runEngine(rules: [rule([.facebook])], profile: profile, events: enters([(2, 1)]))
        #expect(capped.posts(.facebook).first?.parameters["privacy"] == #"{"value":"FRIENDS_OF_FRIENDS"}"#)
        #expect(capped.audit.first?.audience == .friendsOfFriends)
    }

    /// A black-box hunt: a place named 咖啡館咖啡館 padded by its characters pushed every later
    /// column of its row six columns right on a terminal.
    @Test("The audit table's columns line up on a terminal, whatever script a place is named in")
    func tableColumnsLineUpOnATerminal() async throws {
        let run = try await runEngine(rules: [rule()], profile: .permissive, events: enters([(2, 1)]))
        var records = run.audit
        records[0].placeName = "咖啡館咖啡館"
        let lines = AuditReport(run: "t", records: records).render(.table).split(separator: "\n").prefix(4)
        let columns = lines.map { line in
            // Where the decision column begins, in terminal columns.
            let text = String(line)
            guard let decision = ["decision", "posted"].compactMap({ text.range(of: "  \($0)") }).first else {
                return -1
            }
            return TerminalWidth.of(String(text[..<decision.lowerBound]))
        }
        #expect(columns.count == 4 && Set(columns.filter { $0 >= 0 }).count == 1, "\(lines)")
    }

    @Test("The audit's audience column, in the table, CSV and JSON, with counts per audience")
    func auditFormats() async throws {
        let run = try await runEngine(rules: [rule()], profile: .permissive, events: enters([(2, 1)]))
        let report = AuditReport(run: "t", records: run.audit)
        let table = report.render(.table)
        #expect(table.contains("  audience  "))
        #expect(table.contains("Who could see where the user was:\n  public: 2\n"))
        #expect(
            report.render(.csv).hasPrefix("time,trigger,region,network,place,decision,location,precision,audience,"))
        let json = report.render(.json)
        #expect(json.contains(#""audience" : "public""#))
        #expect(json.contains(#""audiences" : ["#))
    }
}
