import CheckinEngine
import Foundation
import Geo
import LocationEvents
import SimulatedTime
import SocialAPI
import SocialEmulator
import Store
import TestSupport

/// The shipped cafés' regions (fixtures/regions/commute-cafes.yaml), for synthetic events.
let cafes: [CircularRegion] = [
    CircularRegion(
        identifier: "sunnyvale-coffee-roasters", center: .init(latitude: 37.377, longitude: -122.0305), radius: 100),
    CircularRegion(
        identifier: "homestead-road-cafe", center: .init(latitude: 37.3368, longitude: -122.0322), radius: 150),
    CircularRegion(
        identifier: "stevens-creek-coffee-house", center: .init(latitude: 37.3236, longitude: -122.0315), radius: 150),
    CircularRegion(
        identifier: "infinite-loop-cafe", center: .init(latitude: 37.3316, longitude: -122.0305), radius: 200),
]

let start: EpochInstant = 1_748_960_000

/// Authorization, then one region enter per `(cafe index, minutes after start)`.
func enters(
    _ visits: [(Int, Int)], authorization: AuthorizationStatus = .authorizedAlways, appState: AppState = .foreground
) -> [TimedEvent] {
    [TimedEvent(time: start, event: .authorizationChanged(authorization))]
        + (appState == .foreground ? [] : [TimedEvent(time: start, event: .appStateChanged(appState))])
        + visits.map { cafe, minutes in
            TimedEvent(
                time: start + Double(minutes * 60), event: .enteredRegion(cafes[cafe], at: cafes[cafe].center))
        }
}

func rule(
    _ networks: [Network] = [.twitter, .facebook], precision: Precision = .place, message: String = "At {place} {time}",
    cooldown: Double = 0, maxAge: Double = 3_600
) -> CheckinRule {
    CheckinRule(
        id: "cafes", triggers: [.regionEnter], networks: networks, message: message, place: .nearest,
        precision: precision, consent: .auto, cooldown: .seconds(cooldown), maxAge: .seconds(maxAge))
}

/// What a run left behind: the audit (from the store) and the emulator's journal (the wire).
struct RunResult {
    var audit: [AuditRecord]
    var journal: [JournalEntry]
    var outbox: [OutboxEntry]
    /// The emulator the run posted to, in memory: to read its stored objects back.
    var transport: EmulatorTransport
    /// The run's clock, which the emulator checks OAuth timestamps against.
    var clock: SimulatedClock
    /// With `byParts`, how many events ``CheckinEngine/take(_:)`` left work for.
    var completions = 0

    /// Requests that carried any location field.
    var locating: [JournalEntry] { journal.filter(\.carriesLocation) }

    func posts(_ network: Network) -> [JournalEntry] {
        journal.filter {
            $0.method == "POST"
                && (network == .twitter
                    ? $0.path.hasSuffix("statuses/update.json") || $0.path == "/2/tweets"
                    : !$0.path.hasPrefix("/1") && !$0.path.hasPrefix("/2/"))
        }
    }
}

extension JournalEntry {
    static let locationFields = ["lat", "long", "place_id", "coordinates", "place", "center"]
    var carriesLocation: Bool { Self.locationFields.contains { parameters[$0] != nil } }
}

/// Where a test run keeps its outbox and audit.
enum Backing: Sendable, CaseIterable {
    /// SQLite's `Store`, in a temporary file: what every command uses.
    case sqlite
    /// ``InMemoryStore``: the seams alone, no file.
    case inMemory
}

/// Runs `events` through an engine wired to the emulator, on virtual time.
func runEngine(
    rules: [CheckinRule], profile: PrivacyProfile, events: [TimedEvent],
    configure: (inout EmulatorConfiguration) -> Void = { _ in }, faults: [Fault] = [], dryRun: Bool = false,
    retry: RetryPolicy = RetryPolicy(), twitterAPI: TwitterAPIVersion = .v1_1, backing: Backing = .sqlite,
    byParts: Bool = false, database: String? = nil, maxWait: Duration? = nil,
    answering: (@Sendable (HTTPRequestSpec) -> HTTPResponseSpec?)? = nil
) async throws -> RunResult {
    try await withTemporaryDirectory { directory in
        var configuration = EmulatorConfiguration.demo
        configure(&configuration)
        let clock = SimulatedClock(start: events.first?.time ?? start)
        let core = EmulatorCore(
            fixtures: try EmulatorFixtures.shipped(root: Corpus.repositoryRoot), configuration: configuration,
            clock: clock)
        for fault in faults { await core.addFault(fault) }
        // In memory: the same core the socket server runs, without a server per case (the
        // property test runs dozens); the CLI tests keep the real HTTP path covered.
        return try await drive(
            events, transport: EmulatorTransport(core: core), answering: answering, core: core, clock: clock,
            rules: rules, profile: profile,
            database: database ?? directory.appendingPathComponent("waypost.db").path, backing: backing,
            dryRun: dryRun, retry: retry, twitterAPI: twitterAPI, byParts: byParts, maxWait: maxWait)
    }
}

/// The emulator, but for the requests `answer` answers itself (a server's odd answer).
struct Intercepting: HTTPTransport {
    let inner: EmulatorTransport
    let answer: @Sendable (HTTPRequestSpec) -> HTTPResponseSpec?

    func send(_ request: HTTPRequestSpec) async throws(SocialAPIError) -> HTTPResponseSpec {
        if let answered = answer(request) { return answered }
        return try await inner.send(request)
    }
}

private func drive(
    _ events: [TimedEvent], transport emulator: EmulatorTransport,
    answering: (@Sendable (HTTPRequestSpec) -> HTTPResponseSpec?)?, core: EmulatorCore, clock: SimulatedClock,
    rules: [CheckinRule], profile: PrivacyProfile, database: String, backing: Backing, dryRun: Bool,
    retry: RetryPolicy, twitterAPI: TwitterAPIVersion, byParts: Bool, maxWait: Duration?
) async throws -> RunResult {
    let store: any CheckinStore & OutboxStore
    let run: RunRecord
    /// The run's audit records and the outbox, read back when it ends.
    let leftBehind: () throws -> ([Data], [OutboxEntry])
    switch backing {
    case .sqlite:
        let sqlite = try Store(path: database)
        run = try sqlite.beginRun(name: "test", track: "synthetic", at: 0, dryRun: dryRun)
        leftBehind = { [id = run.id] in (try sqlite.auditRecords(run: id), try sqlite.outbox()) }
        store = sqlite
    case .inMemory:
        let memory = InMemoryStore()
        run = memory.beginRun(name: "test", track: "synthetic", at: 0, dryRun: dryRun)
        leftBehind = { [id = run.id] in (memory.auditRecords(run: id), memory.outbox()) }
        store = memory
    }
    let transport: any HTTPTransport = answering.map { Intercepting(inner: emulator, answer: $0) } ?? emulator
    let twitter = TwitterClient(
        baseURL: EmulatorTransport.twitterBaseURL,
        credentials: OAuth1Credentials(
            consumerKey: "waypost-demo-consumer", consumerSecret: "waypost-demo-consumer-secret",
            token: "1001-waypost-demo-token", tokenSecret: "waypost-demo-token-secret"),
        transport: transport, clock: clock)
    let x = XClient(
        baseURL: EmulatorTransport.baseURL.appendingPathComponent("2/"),
        authorization: .oauth1(OAuth1Signer(credentials: twitter.signer.credentials)), transport: transport,
        clock: clock)
    let facebook = FacebookClient(
        baseURL: EmulatorTransport.baseURL, accessToken: "waypost-demo-graph-token", transport: transport)
    let delivery =
        dryRun
        ? nil
        : OutboxDelivery(
            store: store, clients: SocialClients(twitter: twitter, facebook: facebook, x: x, twitterAPI: twitterAPI),
            clock: clock, retry: retry)
    let engine = CheckinEngine(
        rules: rules, profile: profile, store: store, run: run, delivery: delivery, twitterAPI: twitterAPI)
    var completions = 0
    for event in events {
        clock.advance(to: event.time)
        if !byParts {
            _ = try await engine.handle(event)
        } else if let work = try engine.take(event) {
            // As a run takes its events: the part that waits only when there is one.
            completions += 1
            _ = try await engine.complete(work)
        }
    }
    _ = try await engine.finish(maxWait: maxWait)
    let (records, outbox) = try leftBehind()
    let audit = try records.map { try JSONDecoder().decode(AuditRecord.self, from: $0) }
    return RunResult(
        audit: audit, journal: await core.journal, outbox: outbox, transport: emulator, clock: clock,
        completions: completions)
}
