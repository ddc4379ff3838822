import CheckinEngine
import Foundation
import SocialAPI
import SocialEmulator
import Store
import TestSupport
import Testing

/// The audit's wire fields are what the network received: every post's record is compared with
/// the emulator's journal entry of its request — Twitter v1.1, X API v2 and Graph — and no
/// secret ever reaches the audit.
@Suite("Audit wire fields, checked against the emulator's journal")
struct WireFieldsTests {
    /// The fields that locate a post, as the journal names them (listed here, apart from the
    /// code under test): v1.1 form, v2 JSON (dotted), Graph form.
    static let locationNames: Set<String> = [
        "lat", "long", "place_id", "display_coordinates", "geo.place_id", "place", "coordinates",
    ]

    /// The journal's post requests carrying `message` (v1.1 `status`, v2 `text`, Graph `message`).
    static func requests(of record: AuditRecord, in run: RunResult) -> [JournalEntry] {
        run.posts(record.network).filter {
            ($0.parameters["status"] ?? $0.parameters["text"] ?? $0.parameters["message"]) == record.message
        }
    }

    /// Every record's wire fields equal the location fields of its one request in the journal.
    static func expectWireFieldsAsReceived(_ run: RunResult, posts: Int) throws {
        #expect(run.audit.count == posts)
        for record in run.audit {
            let sent = requests(of: record, in: run)
            try #require(sent.count == 1, "\(record.network) \(record.message ?? ""): \(sent.count) requests")
            let received = sent[0].parameters.filter { locationNames.contains($0.key) }
            #expect(record.wireFields == received, "\(record.network) \(record.precision)")
            #expect(record.carriesLocation == !received.isEmpty)
        }
        let audit = String(decoding: try JSONEncoder().encode(run.audit), as: UTF8.self)
        for secret in [
            "oauth_signature", "access_token", "waypost-demo-graph-token", "1001-waypost-demo-token",
            "waypost-demo-token-secret", "waypost-demo-consumer-secret",
        ] {
            #expect(!audit.contains(secret), "\(secret) reached the audit")
        }
    }

    @Test(
        "v1.1 and Graph: the audit's wire fields are the journal's, at every precision",
        arguments: [Precision.exact, .place, .city, .none])
    func twitterAndGraph(_ precision: Precision) async throws {
        let run = try await runEngine(
            rules: [rule(precision: precision)], profile: .permissive, events: enters([(2, 1), (3, 20)]))
        try Self.expectWireFieldsAsReceived(run, posts: 4)
        if precision == .exact {
            #expect(run.audit.allSatisfy { $0.wireFields["lat"] != nil || $0.wireFields["coordinates"] != nil })
        }
    }

    /// A black-box hunt: a `city` tweet read "At Sunnyvale / sunnyvale-coffee-roasters" — the
    /// region's name said the venue the city place stands for. It is named from `place` up.
    @Test("The text names the region only at place precision and finer", arguments: [Precision.city, .place])
    func regionNamedFromPlacePrecision(_ precision: Precision) async throws {
        let run = try await runEngine(
            rules: [rule([.twitter], precision: precision, message: "At {place} / {region}")], profile: .permissive,
            events: enters([(2, 1)]))
        let text = try #require(run.audit.first?.message)
        #expect(text.contains("/ ") == (precision == .place), "\(text)")
        #expect(text.hasPrefix("At ") && text.count > 4, "\(text)")
    }

    @Test("X API v2: the audit's wire fields are the /2/tweets body's location fields")
    func xAPIv2() async throws {
        let run = try await runEngine(
            rules: [rule(precision: .exact)], profile: .permissive, events: enters([(2, 1), (3, 20)]),
            twitterAPI: .v2)
        try Self.expectWireFieldsAsReceived(run, posts: 4)
        let tweets = run.audit.filter { $0.network == .twitter }
        #expect(tweets.count == 2 && tweets.allSatisfy { $0.wireFields.keys.sorted() == ["geo.place_id"] })
    }

    /// A black-box hunt: queued under v1.1 at `exact` and flushed through v2, a tweet carried its
    /// place id only, and the audit still said `exact`.
    @Test("Queued under v1.1 at exact and sent through v2: audited at place, as it went")
    func queuedUnderV1SentThroughV2() async throws {
        try await withTemporaryDirectory { directory in
            let database = directory.appendingPathComponent("w.db").path
            let events = enters([(2, 1)])
            let queued = try await runEngine(
                rules: [rule([.twitter], precision: .exact)], profile: .permissive, events: events,
                faults: [Fault(kind: .status, pathContains: "statuses/update", status: 503)], database: database,
                maxWait: .zero)
            #expect(queued.outbox.map(\.state) == [.pending])
            let flushed = try await runEngine(
                rules: [rule([.twitter], precision: .exact)], profile: .permissive, events: events, twitterAPI: .v2,
                database: database)
            let tweet = try #require(flushed.audit.first)
            #expect(tweet.decision == .posted && tweet.wireFields.keys.sorted() == ["geo.place_id"])
            #expect(tweet.precision == .place, "\(tweet.precision)")
        }
    }

    @Test("A post whose answer was lost and that is found on the network: the fields of the request that landed")
    func foundAfterALostAnswer() async throws {
        let run = try await runEngine(
            rules: [rule(precision: .exact)], profile: .permissive, events: enters([(2, 1)]),
            faults: [
                Fault(id: 1, kind: .truncated, pathContains: "statuses/update", remaining: 1),
                Fault(id: 2, kind: .truncated, pathContains: "me/checkins", remaining: 1),
            ])
        #expect(run.audit.allSatisfy { $0.decision == .posted && $0.detail?.contains("found on") == true })
        try Self.expectWireFieldsAsReceived(run, posts: 2)
        #expect(run.audit.allSatisfy { $0.carriesLocation })
    }

    @Test("A post left in doubt is audited with the fields of the request that may have arrived")
    func inDoubt() async throws {
        let run = try await runEngine(
            rules: [rule([.twitter])], profile: .permissive, events: enters([(2, 1)]),
            faults: [
                Fault(id: 1, kind: .truncated, pathContains: "statuses/update"),
                Fault(id: 2, kind: .status, pathContains: "user_timeline", status: 404, code: 34),
            ])
        #expect(run.audit.map(\.decision) == [.inDoubt])
        try Self.expectWireFieldsAsReceived(run, posts: 1)
        #expect(run.audit.first?.wireFields["place_id"] != nil)
    }

    @Test("A post the network refused still reports the location fields its request carried")
    func refused() async throws {
        // The emulator refuses the post (403/261): the request went out, so its fields are audited.
        let run = try await runEngine(
            rules: [rule([.twitter], precision: .exact)], profile: .permissive, events: enters([(2, 1)]),
            faults: [Fault(kind: .status, pathContains: "statuses/update", status: 403, code: 261)])
        #expect(run.audit.map(\.decision) == [.failed])
        try Self.expectWireFieldsAsReceived(run, posts: 1)
    }
}
