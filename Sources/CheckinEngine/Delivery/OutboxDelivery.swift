import Foundation
import Geo
import SimulatedTime
import SocialAPI
import Store
import WaypostSupport

/// Sends what the outbox holds, one post at a time: claim (committed before any request), check
/// staleness and the network's own settings, look the place up, compose, post, and write the
/// outcome with its audit record in one transaction.
///
/// Every post is claimed under an ``OutboxLease`` that names this sender and is renewed while it
/// works, so any number of processes can deliver from one store: a live sender's claim is
/// never taken, and a post is sent by whoever claimed it.
///
/// A post is in doubt when it may have arrived without Waypost knowing: its sender stopped
/// mid-request (its lease lapsed, or its process is gone), or the answer to it was lost (a timeout, a reset, an unreadable body). Before it is sent again
/// it is looked for on the network — the user's timeline, their check-ins — and a duplicate answer
/// (Twitter 187, Graph 506) also means the first request landed: so every post is delivered once,
/// and one whose fate cannot be learnt is audited `inDoubt`, never `failed`.
public final class OutboxDelivery {
    let store: any OutboxStore
    let clients: SocialClients
    let clock: any EpochClock
    let retry: RetryPolicy
    let lease: OutboxLease
    /// The one run whose posts this delivery sends; nil: every run's. A run on virtual time sets
    /// it: another run's posts are due on another clock and belong to another emulator.
    let run: Int64?
    /// The servers this delivery sends to (its clients' ``SocialAPI/SocialClients/servers``): the
    /// outbox hands it only the posts addressed to them, and the engine addresses its posts so.
    package let servers: OutboxServers
    /// The networks whose credentials the provider refused in this session, with its refusal:
    /// none of their posts is sent here after it — each stays pending, for a flush with
    /// credentials the provider accepts (``SocialAPI/SocialAPIError/refusesCredentials``). Failing
    /// them instead lost every queued post to one expired token.
    package private(set) var credentialsRefused: [Network: String] = [:]
    /// Each network's settings, asked once per delivery session.
    private var twitterGeoEnabled: Bool?
    /// The Twitter account's `protected` flag: who sees its tweets.
    private var twitterProtected = false
    private var facebookPermissions: Set<String>?
    /// After a pass that left nothing due: when the next post falls due, and the store's change
    /// count then. Until either moves, a pass has nothing to do and asks SQLite nothing — a run
    /// calls ``deliverDue()`` at every fix, and two queries per fix were a third of a
    /// 100-device scenario's time (file locking). Posts another process enqueues are delivered
    /// by that process.
    private var quiet: (until: EpochInstant, changes: Int)?

    /// ``servers`` as the outbox is asked for posts: a network whose credentials were refused
    /// is given an address no post has (a post's server is a base URL, or none).
    private var sendingTo: OutboxServers {
        var servers = servers
        for network in credentialsRefused.keys { servers[network.rawValue] = "" }
        return servers
    }

    /// Whether a pass now would find nothing to do (see `quiet`).
    package var isQuiet: Bool {
        guard let quiet else { return false }
        return clock.now < quiet.until && store.changeCount == quiet.changes
    }
    /// Posts of `run` queued before `createdBefore` — an earlier pass's, of a run resumed on the
    /// wall clock — wait for the pass's ``drain(maxWait:)``: the pass decides each again when its
    /// trigger comes (withdrawn under stricter choices) before any is sent. On the wall clock an
    /// earlier pass's posts were due at once, and went out before the pass reached them. (On
    /// virtual time they fall due after their trigger, which the pass reaches first.) Set by the
    /// engine. While 50 held posts are due, newer ones wait for the drain too.
    package var holding: (run: Int64, createdBefore: EpochInstant)?
    /// What this delivery and its engine wrote, read back without decoding.
    let written = WrittenValues()
    /// The store, when it keeps posts as values (a run nobody keeps).
    private let values: (any PostValueStore)?

    public init(
        store: any OutboxStore, clients: SocialClients, clock: any EpochClock, retry: RetryPolicy = RetryPolicy(),
        lease: OutboxLease = OutboxLease(), run: Int64? = nil
    ) {
        self.store = store
        values = store as? any PostValueStore
        self.clients = clients
        self.clock = clock
        self.retry = retry
        self.lease = lease
        self.run = run
        var servers = OutboxServers()
        servers[Network.twitter.rawValue] = clients.servers.twitter
        servers[Network.facebook.rawValue] = clients.servers.facebook
        self.servers = servers
    }

    /// Sends every post due now, and those whose sender stopped mid-request; returns their new
    /// audit records.
    public func deliverDue() async throws(StoreError) -> [AuditRecord] {
        if isQuiet { return [] }
        quiet = nil
        // This pass's claims are renewed while it works (a request may wait out a slow server),
        // so they lapse only if the process stalls or stops — where another sender could take them.
        let heartbeat = store.sharesClaims ? ClaimHeartbeat(store: store, lease: lease) : nil
        defer { heartbeat?.stop() }
        var changed: [AuditRecord] = []
        for entry in try store.reclaimLapsed(lease: lease, run: run, servers: sendingTo) {
            if let record = try await attempt(entry, inDoubt: true) { changed.append(record) }
        }
        while true {
            let due = try duePosts().filter { entry in
                holding.map { entry.run != $0.run || entry.createdAt >= $0.createdBefore } ?? true
            }
            if due.isEmpty { break }
            for entry in due where !credentialsRefused.keys.contains(where: { $0.rawValue == entry.network }) {
                guard let claimed = try claim(entry) else { continue }
                if let record = try await attempt(claimed, inDoubt: false) { changed.append(record) }
            }
        }
        quiet = (try store.nextDueTime(run: run, servers: sendingTo) ?? .distantFuture, store.changeCount)
        return changed
    }

    /// The posts due now; a store of values leaves them unwritten (``attempt(_:inDoubt:)``
    /// reads each as the value it holds).
    private func duePosts() throws(StoreError) -> [OutboxEntry] {
        if let values { return try values.duePostsAsHeld(now: clock.now, limit: 50, run: run, servers: sendingTo) }
        return try store.duePosts(now: clock.now, limit: 50, run: run, servers: sendingTo)
    }

    private func claim(_ entry: OutboxEntry) throws(StoreError) -> OutboxEntry? {
        let now = clock.now
        if let values { return try values.claimAsHeld(entry.id, dueBy: now, lease: lease) }
        return try store.claim(entry.id, dueBy: now, lease: lease)
    }

    /// Delivers until nothing is due within `maxWait` (nil: until nothing is due), waiting on the
    /// clock between retries.
    public func drain(maxWait: Duration?) async throws(StoreError) -> [AuditRecord] {
        // Held posts need no reset of `quiet`: its `until` is the earliest due time, theirs included.
        holding = nil
        var changed = try await deliverDue()
        let limit = maxWait?.inSeconds ?? .infinity
        while let next = try store.nextDueTime(run: run, servers: sendingTo), clock.now.seconds(to: next) <= limit {
            do { try await clock.sleep(until: next, tolerance: nil) } catch { break }
            changed += try await deliverDue()
        }
        return changed
    }

    // MARK: - One attempt

    private struct Outcome {
        var state: OutboxState
        var decision: PostDecision
        var detail: String?
        var notBefore: EpochInstant?
        var remoteID: String?
        var wireFields: [String: String] = [:]
        /// Set when this attempt's answer was lost: the post may have arrived.
        var lostAnswer: String?
    }

    /// One attempt at a claimed post; nil when its claim was lost meanwhile (this process stalled
    /// past its lease, and the sender that took the post over settles it).
    private func attempt(_ entry: OutboxEntry, inDoubt: Bool) async throws(StoreError) -> AuditRecord? {
        guard var intent = try? values?.intent(of: entry) ?? written.intent(stored: entry.payload, key: entry.key)
        else {
            let detail = "the outbox entry cannot be read by this version of waypost"
            // Nothing is made up: the record keeps only what the outbox row says.
            let record = AuditRecord.unreadableEntry(
                key: entry.key, queuedAt: entry.createdAt,
                network: Network(rawValue: entry.network) ?? .twitter,
                detail: detail, attempts: entry.attempts)
            guard
                try store.settle(
                    entry.id, lease: lease, state: .failed, lastError: detail, at: clock.now,
                    audit: record.storedJSON ?? Data("{}".utf8))
            else { return nil }
            return record
        }
        // A sender stopped mid-request leaves the same doubt as a lost answer, until the post is found or sent.
        if inDoubt && intent.lostAnswer == nil { intent.lostAnswer = "interrupted by a restart mid-request" }
        var outcome = await send(&intent, entry: entry)
        // The fields of a request whose answer was lost are kept with the post: if it is found
        // on the network later, or ends in doubt, they are what it may carry.
        if outcome.lostAnswer != nil {
            intent.sentWireFields = outcome.wireFields
        } else if outcome.state != .sent, !outcome.wireFields.isEmpty {
            // A refused request's fields went out on the wire too (a 5xx, a rate limit): kept, so
            // a post that ends unsent — expired at a later turn — still says what was sent. An
            // expired post's audit said "carries nothing" of coordinates its retries had sent.
            intent.refusedWireFields = outcome.wireFields
        }
        switch outcome.state {
        case .sent:
            intent.lostAnswer = nil
            intent.sentWireFields = nil
            intent.refusedWireFields = nil
        case .pending:
            intent.lostAnswer = outcome.lostAnswer ?? intent.lostAnswer
            // Still pending after an answer was lost (the search for it failed too): the audit keeps
            // the fields that may be on the network — a pending post audited "carries nothing"
            // hid a place that had gone out.
            if outcome.wireFields.isEmpty {
                outcome.wireFields =
                    (intent.lostAnswer == nil ? nil : intent.sentWireFields) ?? intent.refusedWireFields ?? [:]
            }
        default:
            // Ending unsent after an answer was lost: the post may be on the network after all,
            // with the fields of the request that may have landed.
            if let lost = outcome.lostAnswer ?? intent.lostAnswer {
                outcome.decision = .inDoubt
                outcome.detail = "\(lost); whether it arrived is unknown (\(outcome.detail ?? "not checked"))"
                if outcome.wireFields.isEmpty { outcome.wireFields = intent.sentWireFields ?? [:] }
            }
            if outcome.wireFields.isEmpty { outcome.wireFields = intent.refusedWireFields ?? [:] }
        }
        // A post that expired at its turn made no request then: its attempts are those that did.
        let record = intent.audit(
            key: entry.key, decision: outcome.decision, wireFields: outcome.wireFields, detail: outcome.detail,
            attempts: outcome.state == .expired ? entry.attempts - 1 : entry.attempts, remoteID: outcome.remoteID)
        // A value JSON cannot write takes the bytes' path (which keeps the stored post, and "{}").
        if let values, intent.numbersAreFinite && record.numbersAreFinite {
            return try values.settle(
                entry.id, lease: lease, state: outcome.state, notBefore: outcome.notBefore, intent: intent,
                lastError: outcome.state == .sent ? nil : outcome.detail, remoteID: outcome.remoteID, at: clock.now,
                audit: record) ? record : nil
        }
        let payload = intent.storedJSON
        let audit = record.storedJSON ?? Data("{}".utf8)
        guard
            try store.settle(
                entry.id, lease: lease, state: outcome.state, notBefore: outcome.notBefore, payload: payload,
                lastError: outcome.state == .sent ? nil : outcome.detail, remoteID: outcome.remoteID, at: clock.now,
                audit: audit)
        else { return nil }
        if let payload { written.wrote(intent, as: payload, key: entry.key) }
        written.wrote(record, as: audit)
        return record
    }

    private func send(_ intent: inout PostIntent, entry: OutboxEntry) async -> Outcome {
        // A post in doubt is looked for as it was sent: the gates checked again below may change
        // its text (an account made public meanwhile blanks its place), and it would not be found.
        let sent =
            intent.lostAnswer == nil
            ? nil
            : Sent(
                text: intent.resolved == nil ? nil : intent.message(at: intent.precision), precision: intent.precision)
        let age = entry.createdAt.seconds(to: clock.now)
        let staleness = PrivacyGate.stalenessVerdict(age: age, maxAge: intent.maxAge)
        intent.gates.record(staleness)
        guard staleness.passed else {
            return Outcome(state: .expired, decision: .expired, detail: "expired after \(Self.seconds(age)) unsent")
        }
        do {
            switch intent.network {
            case .twitter:
                guard let twitter = clients.twitter else {
                    return permanent("no Twitter server to post to (no base URL or no credentials)")
                }
                if clients.twitterAPI == .v2 {
                    guard clients.x != nil else { return permanent("no X API v2 client") }
                    // A post queued for v1.1 and sent through v2 loses its coordinates here too.
                    if intent.precision == .exact {
                        let (verdict, precision) = PrivacyGate.precisionVerdict(
                            rule: .exact, profile: .exact, network: .twitter, twitterAPI: .v2)
                        intent.gates.record(verdict)
                        intent.precision = precision
                    }
                }
                if twitterGeoEnabled == nil {
                    // v1.1's account settings serve v2 too: v2 reports no geo_enabled.
                    let user = try await twitter.verifyCredentials()
                    twitterGeoEnabled = user.geoEnabled ?? false
                    twitterProtected = user.protected ?? false
                }
                let network = PrivacyGate.twitterNetworkVerdict(geoEnabled: twitterGeoEnabled == true)
                intent.gates.record(network)
                if !network.passed { intent.precision = .none }
                let audience: Audience = twitterProtected ? .followers : .public
                let verdict = PrivacyGate.audienceVerdict(
                    cap: intent.audienceCap ?? .public, actual: audience, network: .twitter)
                intent.gates.record(verdict)
                intent.audience = audience
                if !verdict.passed { intent.precision = .none }
                return try await postTweet(&intent, twitter, entry: entry, sent: sent)
            case .facebook:
                guard let facebook = clients.facebook else {
                    return permanent("no Facebook server to post to (no base URL or no access token)")
                }
                if facebookPermissions == nil {
                    facebookPermissions = Set(
                        try await facebook.permissions().filter { $0.status == "granted" }.map(\.permission))
                }
                let (network, permission) = PrivacyGate.facebookNetworkVerdict(granted: facebookPermissions ?? [])
                intent.gates.record(network)
                guard permission != nil else {
                    return Outcome(
                        state: .failed, decision: .blocked, detail: "Facebook permission publish_checkins missing")
                }
                // Graph narrows the post itself: `privacy` is sent with it.
                let cap = intent.audienceCap ?? .public
                let audience = Audience(graphPrivacy: cap.graphPrivacy) ?? cap
                intent.gates.record(PrivacyGate.audienceVerdict(cap: cap, actual: audience, network: .facebook))
                intent.audience = audience
                let outcome = try await postCheckin(&intent, facebook, entry: entry, sent: sent)
                // Graph never makes a post more public than the app's default audience the user
                // chose: the created object says who can see it, and the audit takes that. When
                // it cannot say, the audit says the audience is the one asked for, unconfirmed.
                if outcome.state == .sent, let id = outcome.remoteID {
                    let value = (try? await facebook.object(id: id))?.privacy?.value
                    if let value, let seen = Audience(graphPrivacy: value) {
                        if seen != audience {
                            intent.audience = seen
                            intent.gates.record(
                                PrivacyGate.audienceVerdict(
                                    cap: cap, actual: seen, network: .facebook, graphPrivacy: value))
                        }
                    } else {
                        intent.gates.record(
                            PrivacyGate.audienceVerdict(
                                cap: cap, actual: audience, network: .facebook,
                                unconfirmed: value.map { "the check-in reads privacy \($0.prefix(40))" }
                                    ?? "the check-in could not be read back"))
                    }
                }
                return outcome
            }
        } catch {
            return failure(error, intent: intent, entry: entry)
        }
    }

    private func permanent(_ detail: String) -> Outcome { Outcome(state: .failed, decision: .failed, detail: detail) }

    private func failure(_ error: SocialAPIError, intent: PostIntent, entry: OutboxEntry) -> Outcome {
        if error.refusesCredentials {
            credentialsRefused[intent.network] = "\(error)"
            return Outcome(
                state: .pending, decision: .queued,
                detail: "kept pending: the credentials were refused (\(error)); a flush with credentials the "
                    + "server accepts sends it")
        }
        // A lost or unreadable answer is worth asking again, like a 5xx.
        let retryable = error.isRetryable || error.answerWasLost
        guard retryable, entry.attempts < retry.maxAttempts else {
            let reason = retryable ? "gave up after \(entry.attempts) attempts: \(error)" : "\(error)"
            return permanent(reason)
        }
        let hint = error.retryDelay(now: clock.now)
        // A server that asks for a wait past the post's maximum age: the post cannot go out in
        // time, so it expires now rather than sit queued until then (a Retry-After of years kept
        // every flush failing).
        if let hint, entry.createdAt.seconds(to: clock.now) + hint.seconds > intent.maxAge {
            return Outcome(
                state: .expired, decision: .expired,
                detail: "attempt \(entry.attempts) failed (\(error)); the server asks for a wait of "
                    + "\(Self.seconds(hint.seconds)), past the post's maximum age of \(Self.seconds(intent.maxAge)): "
                    + "expired unsent")
        }
        let delay = retry.delay(afterAttempt: entry.attempts, key: entry.key, hint: hint)
        return Outcome(
            state: .pending, decision: .queued,
            detail: "attempt \(entry.attempts) failed (\(error)); retry in \(Self.seconds(delay.seconds))",
            notBefore: clock.now.advanced(by: delay))
    }

    // MARK: - Posting

    /// One post request through a client: given the transport to send it through, it sends it
    /// and returns the network's id for the post.
    private typealias PostRequest = (any HTTPTransport) async throws(SocialAPIError) -> String

    /// Sends the post itself through a ``RecordingTransport`` over `base`, and audits the
    /// location fields of the request as it went out — on a failure too, since it may have
    /// arrived.
    private func post(
        over base: any HTTPTransport, entry: OutboxEntry, intent: PostIntent, _ request: PostRequest
    ) async -> Outcome {
        // Fencing: a sender that stalled past its lease (a stopped process, a suspended laptop)
        // may have had the post taken over and sent; it renews its claim just before sending,
        // and sends nothing once the claim is gone (its settle is refused too).
        if store.sharesClaims, (try? store.renewClaim(entry.id, lease: lease)) != true {
            return Outcome(state: .pending, decision: .queued, detail: "its claim was taken over by another sender")
        }
        let recorder = RecordingTransport(wrapping: base)
        do {
            let id = try await request(recorder)
            let details = [intent.resolved?.detail, intent.regionLeftOut].compactMap { $0 }
            return Outcome(
                state: .sent, decision: .posted, detail: details.isEmpty ? nil : details.joined(separator: "; "),
                remoteID: id, wireFields: Self.wireFields(recorder))
        } catch let error where error.isDuplicate && intent.lostAnswer != nil {
            // The duplicate answer says an earlier request landed: its fields are what the post carries.
            return Outcome(
                state: .sent, decision: .posted,
                detail: "\(intent.lostAnswer ?? ""); delivered then (the network reports a duplicate)",
                wireFields: intent.sentWireFields ?? Self.wireFields(recorder))
        } catch {
            // Retried like any transient failure; a lost answer also puts the post in doubt, and
            // ``attempt(_:inDoubt:)`` audits it `inDoubt`, never `failed`, if the retries run out.
            var outcome = failure(error, intent: intent, entry: entry)
            outcome.wireFields = Self.wireFields(recorder)
            if error.answerWasLost {
                let lost = "the answer to attempt \(entry.attempts) was lost (\(error))"
                outcome.lostAnswer = lost
                if outcome.state == .pending {
                    outcome.detail =
                        "\(lost); it is looked for on the network before it is sent again: \(outcome.detail ?? "")"
                }
            }
            return outcome
        }
    }

    /// The location fields of the post request `recorder` saw go out; empty when none was sent.
    private static func wireFields(_ recorder: RecordingTransport) -> [String: String] {
        recorder.sent.last { $0.method == "POST" }?.locationFields ?? [:]
    }

    /// A post in doubt that is found on the network: posted, and the audit says how it was
    /// learnt. Its fields are those of the earlier request that landed, as recorded when its
    /// answer was lost; a restart mid-request leaves no record, and then they are read from the
    /// same request built again and not sent — which the detail says.
    private func found(
        _ id: String, on place: String, because lost: String, intent: PostIntent, _ request: PostRequest
    ) async -> Outcome {
        var detail = "\(lost); found on \(place), so not sent again"
        let wire: [String: String]
        if let sent = intent.sentWireFields {
            wire = sent
        } else {
            let recorder = RecordingTransport(wrapping: NotSent())
            _ = try? await request(recorder)
            wire = Self.wireFields(recorder)
            detail += "; its request was not recorded before the restart, so its fields are shown as it is built"
        }
        return Outcome(state: .sent, decision: .posted, detail: detail, remoteID: id, wireFields: wire)
    }

    /// Whether the network's post `remoteID` is already another outbox post's: the same text at
    /// the same place, sent on an earlier pass of the route, is not this post found. (A post sent
    /// from another store cannot be told apart.)
    private func isAnotherPost(_ remoteID: String, _ entry: OutboxEntry) -> Bool {
        (try? store.recordsRemoteID(remoteID, apartFrom: entry)) ?? false
    }

    /// Why a post names no place when every place found lies in a privacy zone.
    private static func inZone(_ zone: String) -> String {
        "every place found here lies in privacy zone '\(zone)': none is named"
    }

    /// The detail of a place named while places the lookup found lie in a zone.
    private static func leftOut(_ zone: String) -> String {
        "places in privacy zone '\(zone)' are never named: the nearest one outside it is"
    }

    /// A transport that sends nothing: for building a request only to read it.
    private struct NotSent: HTTPTransport {
        func send(_ request: HTTPRequestSpec) async throws(SocialAPIError) -> HTTPResponseSpec {
            throw .transport("not sent: the request was built only to be read")
        }
    }

    /// What an earlier request whose answer was lost sent: it is looked for by that text, and when
    /// found the post carries what that request did.
    private struct Sent {
        /// nil when the post's place was not yet kept with it (a sender stopped mid-request keeps
        /// the post as it was queued): its text is the one made with the place found again.
        var text: String?
        var precision: Precision

        /// The text to look for, once `intent`'s place is resolved.
        func text(_ intent: PostIntent) -> String { text ?? intent.message(at: precision) }
    }

    private func postTweet(_ intent: inout PostIntent, _ twitter: TwitterClient, entry: OutboxEntry, sent: Sent?)
        async throws(SocialAPIError) -> Outcome
    {
        if intent.precision > .none, intent.resolved == nil {
            let granularity = intent.precision == .city ? "city" : "poi"
            let places = try await twitter.reverseGeocode(
                latitude: intent.latitude, longitude: intent.longitude, accuracy: intent.horizontalAccuracy,
                granularity: granularity, maxResults: 20)
            let fields = ["lat": "\(intent.latitude)", "long": "\(intent.longitude)"]
            // A city whose centre lies in a zone is not named either, as a place there is not: a
            // zone drawn around a town hides the town (cities were exempt, and named).
            let (candidates, zone) = intent.outsideZones(
                intent.precision == .city ? places.filter { $0.placeType == "city" } : places,
                location: PlaceSelection.center)
            if let place = PlaceSelection.choose(
                candidates, intent.place, near: intent.coordinate, name: \.name, category: { _ in nil },
                location: PlaceSelection.center)
            {
                intent.resolved = .init(
                    id: place.id, name: place.name, precision: intent.precision, detail: zone.map(Self.leftOut),
                    lookupFields: fields)
            } else {
                // Exact coordinates need no place; a place-only post without a place carries nothing.
                intent.resolved = .init(
                    precision: intent.precision == .exact ? .exact : .none,
                    detail: zone.map(Self.inZone) ?? "no Twitter place at \(granularity) granularity here",
                    lookupFields: fields)
            }
        }
        var precision = intent.precision == .none ? .none : min(intent.precision, intent.resolved?.precision ?? .none)
        // Narrowed since its place was resolved (queued under v1.1 at `exact`, sent through v2):
        // below exact a post carries its place, or nothing.
        if precision < .exact && intent.resolved?.id == nil { precision = .none }
        intent.precision = precision
        let message = intent.message(at: precision)
        guard TweetLength.fits(message, legacy: intent.legacyLength) else {
            let limit = intent.legacyLength ? TweetLength.legacyMaximum : TweetLength.maximum
            let length = TweetLength.count(message, legacy: intent.legacyLength)
            return permanent("the tweet counts \(length) characters, over \(limit); it is refused, not truncated")
        }
        let placeID = precision > .none ? intent.resolved?.id : nil
        let base: any HTTPTransport
        let request: PostRequest
        let answered = AnsweredUser()
        if clients.twitterAPI == .v2, let x = clients.x {
            // X API v2: the place id is the only location field (`geo.place_id`).
            base = x.transport
            request = { transport async throws(SocialAPIError) in
                var client = x
                client.transport = transport
                return try await client.createTweet(message, placeID: placeID).id
            }
        } else {
            let exact = precision == .exact
            let (latitude, longitude) = (intent.latitude, intent.longitude)
            base = twitter.transport
            request = { transport async throws(SocialAPIError) in
                var client = twitter
                client.transport = transport
                let tweet = try await client.updateStatus(
                    message, latitude: exact ? latitude : nil, longitude: exact ? longitude : nil, placeID: placeID,
                    displayCoordinates: precision > .none ? exact : nil)
                answered.user = tweet.user
                return tweet.idStr
            }
        }
        if let lost = intent.lostAnswer,
            let tweet = try await twitter.userTimeline(count: 200).first(where: {
                $0.writtenText == sent?.text(intent) ?? message && !isAnotherPost($0.idStr, entry)
            })
        {
            intent.precision = sent?.precision ?? intent.precision
            return await found(tweet.idStr, on: "the user's timeline", because: lost, intent: intent, request)
        }
        let outcome = await post(over: base, entry: entry, intent: intent, request)
        if let user = answered.user {
            learn(protected: user.protected, geoEnabled: user.geoEnabled, posting: &intent)
        } else if outcome.state == .sent, clients.twitterAPI == .v2, let x = clients.x, let id = outcome.remoteID,
            let lookup = try? await x.tweet(id: id, expansions: ["author_id"], userFields: ["protected"])
        {
            // v2's answer to a post is its id and text: who could see it is read back, as a
            // Graph check-in's privacy is (`protected` was asked once a session, and a tweet the
            // public saw after the account was made public was audited "followers").
            let author = lookup.includes?.users?.first { $0.id == lookup.data.authorID }
            learn(protected: author?.protected, geoEnabled: nil, posting: &intent)
        }
        return outcome
    }

    /// What a tweet's answer says of its author now, for ``learn(_:posting:)``.
    private final class AnsweredUser {
        var user: TwitterUser?
    }

    /// The account as the tweet's answer shows it: asked once a session (`verify_credentials`),
    /// it may have changed since — made public, geo turned off. Who could see the tweet is what
    /// the answer says (the audit never says followers of a tweet the public saw), and the posts
    /// after it are gated on the account as it now is.
    private func learn(protected: Bool?, geoEnabled: Bool?, posting intent: inout PostIntent) {
        if let geoEnabled { twitterGeoEnabled = geoEnabled }
        guard let protected, protected != twitterProtected else { return }
        twitterProtected = protected
        let seen: Audience = protected ? .followers : .public
        intent.audience = seen
        intent.gates.record(
            PrivacyGate.audienceVerdict(
                cap: intent.audienceCap ?? .public, actual: seen, network: .twitter, learntAfterSending: true))
    }

    // MARK: - Facebook

    /// The search's `distance`: whole metres, no farther than Graph searches (a rule made in code
    /// may ask for more; converting a radius past `Int`'s range would stop the process).
    private static func searchDistance(_ intent: PostIntent) -> Int {
        Int(min(intent.searchRadius, CheckinRule.maximumSearchRadius))
    }

    private func postCheckin(_ intent: inout PostIntent, _ facebook: FacebookClient, entry: OutboxEntry, sent: Sent?)
        async throws(SocialAPIError) -> Outcome
    {
        if intent.precision > .none, intent.resolved == nil {
            if intent.precision == .city {
                // A Graph check-in names a page; there is no city-level one, so nothing is sent.
                intent.resolved = .init(
                    precision: .none, detail: "Facebook has no city-level check-in; posted without place",
                    lookupFields: [:])
            } else {
                let pages = try await facebook.searchPlaces(
                    latitude: intent.latitude, longitude: intent.longitude, distance: Self.searchDistance(intent),
                    limit: 25)
                let fields = ["center": "\(intent.latitude),\(intent.longitude)"]
                let (candidates, zone) = intent.outsideZones(pages.data, location: PlaceSelection.location)
                if let page = PlaceSelection.choose(
                    candidates, intent.place, near: intent.coordinate, name: \.name, category: \.category,
                    location: PlaceSelection.location)
                {
                    intent.resolved = .init(
                        id: page.id, name: page.name, precision: intent.precision, detail: zone.map(Self.leftOut),
                        lookupFields: fields)
                } else {
                    intent.resolved = .init(
                        precision: .none,
                        detail: zone.map(Self.inZone) ?? "no Facebook place within \(Self.searchDistance(intent)) m",
                        lookupFields: fields)
                }
            }
        }
        let precision = intent.precision == .none ? .none : intent.resolved?.precision ?? .none
        intent.precision = precision
        let message = intent.message(at: precision)
        let privacy = (intent.audienceCap ?? .public).graphPrivacy
        guard precision > .none, let place = intent.resolved?.id else {
            let request: PostRequest = { transport async throws(SocialAPIError) in
                var client = facebook
                client.transport = transport
                return try await client.postToFeed(message: message, privacy: privacy)
            }
            if let lost = intent.lostAnswer,
                let earlier = try await facebook.feed().data.first(where: {
                    $0.message == sent?.text(intent) ?? message && $0.place == nil && !isAnotherPost($0.id, entry)
                })
            {
                intent.precision = sent?.precision ?? intent.precision
                return await found(earlier.id, on: "the user's feed", because: lost, intent: intent, request)
            }
            return await post(over: facebook.transport, entry: entry, intent: intent, request)
        }
        let exact = precision == .exact
        let (latitude, longitude) = (intent.latitude, intent.longitude)
        let request: PostRequest = { transport async throws(SocialAPIError) in
            var client = facebook
            client.transport = transport
            return try await client.checkIn(
                place: place, latitude: exact ? latitude : nil, longitude: exact ? longitude : nil, message: message,
                privacy: privacy)
        }
        if let lost = intent.lostAnswer,
            let checkin = try await facebook.checkins().data.first(where: {
                $0.message == sent?.text(intent) ?? message && $0.place?.id == place && !isAnotherPost($0.id, entry)
            })
        {
            intent.precision = sent?.precision ?? intent.precision
            return await found(checkin.id, on: "the user's check-ins", because: lost, intent: intent, request)
        }
        return await post(over: facebook.transport, entry: entry, intent: intent, request)
    }

    /// A span as the audit says it: `42 s`, `15 min`, `2.5 h` (as `%.0f` and `%.1f` write them,
    /// without Foundation's formatter, which was most of a gate verdict's cost).
    static func seconds(_ value: Double) -> String {
        value < 120
            ? FixedPoint.printf(value, digits: 0) + " s"
            : value < 7_200
                ? FixedPoint.printf(value / 60, digits: 0) + " min" : FixedPoint.printf(value / 3_600, digits: 1) + " h"
    }
}
