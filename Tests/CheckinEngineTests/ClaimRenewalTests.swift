import Foundation
import LocationEvents
import SimulatedTime
import SocialAPI
import SocialEmulator
import Store
import TestSupport
import Testing

@testable import CheckinEngine

/// A sender's claims lapse only if it stalls or stops: while a request waits on a slow server, the
/// pass renews them, in a store another process may share (`OutboxStore.sharesClaims`). An
/// in-memory store is this process's alone: nobody can take its claims, and none is renewed.
@Suite("Claims renewed while a request waits, where another sender could take them")
struct ClaimRenewalTests {
    /// What the requests saw of their post's claim: the lease's end first seen, and whether it moved.
    actor Observation {
        private var first: EpochInstant?
        private(set) var renewed = false
        private var requests = 0

        /// True for the run's first request: the one that waits.
        func isFirstRequest() -> Bool {
            requests += 1
            return requests == 1
        }

        func see(_ leaseUntil: EpochInstant?) {
            guard let leaseUntil else { return }
            if let first, leaseUntil > first { renewed = true }
            if first == nil { first = leaseUntil }
        }
    }

    /// The emulator, slow: the first request waits `watch` (less once the claim was seen
    /// renewed), reading the claim's lease as it waits.
    struct SlowTransport: HTTPTransport {
        let inner: EmulatorTransport
        let leaseUntil: @Sendable () -> EpochInstant?
        let observation: Observation
        let watch: Duration

        func send(_ request: HTTPRequestSpec) async throws(SocialAPIError) -> HTTPResponseSpec {
            guard await observation.isFirstRequest() else { return try await inner.send(request) }
            let deadline = ContinuousClock.now + watch
            // Looks before it checks the time: a wait for the busy pool is no missed renewal.
            while true {
                await observation.see(leaseUntil())
                if await observation.renewed || ContinuousClock.now >= deadline { break }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return try await inner.send(request)
        }
    }

    /// One region enter checked in on Facebook, sent by `delivery` until nothing is left.
    static func checkIn(
        through delivery: OutboxDelivery, store: any CheckinStore & OutboxStore, run: RunRecord, clock: SimulatedClock
    ) async throws {
        let engine = CheckinEngine(
            rules: [rule([.facebook])], profile: .permissive, store: store, run: run, delivery: delivery)
        for event in enters([(0, 1)]) {
            clock.advance(to: event.time)
            _ = try await engine.handle(event)
        }
        _ = try await engine.finish(maxWait: nil)
    }

    /// One region enter checked in on Facebook through `store` under a 0.3 s lease of the wall
    /// clock, the first request waiting up to `watch`; whether the post's claim was renewed meanwhile.
    static func renewed(
        _ store: any CheckinStore & OutboxStore, run: RunRecord, watch: Duration,
        outbox: @escaping @Sendable () -> [OutboxEntry]
    ) async throws -> Bool {
        let clock = SimulatedClock(start: start)
        let core = EmulatorCore(
            fixtures: try EmulatorFixtures.shipped(root: Corpus.repositoryRoot), configuration: .demo, clock: clock)
        let observation = Observation()
        let transport = SlowTransport(
            inner: EmulatorTransport(core: core),
            leaseUntil: { outbox().first { $0.state == .sending }?.leaseUntil }, observation: observation,
            watch: watch)
        let facebook = FacebookClient(
            baseURL: EmulatorTransport.baseURL, accessToken: "waypost-demo-graph-token", transport: transport)
        let delivery = OutboxDelivery(
            store: store, clients: SocialClients(twitter: nil, facebook: facebook), clock: clock,
            lease: OutboxLease(duration: .milliseconds(300)))
        try await checkIn(through: delivery, store: store, run: run, clock: clock)
        #expect(outbox().map(\.state) == [.sent], "the post went out")
        return await observation.renewed
    }

    @Test("SQLite: a claim is renewed while its request waits, so no other sender takes it")
    func sqlite() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(path: directory.appendingPathComponent("waypost.db").path)
            let run = try store.beginRun(name: "slow", track: "synthetic", at: start)
            #expect(store.sharesClaims)
            // Renewed every 0.1 s on a queue of its own; this test's own steps are tasks on the pool
            // the whole suite keeps busy (they waited 580–650 s there), so the watch looks first.
            let renewed = try await Self.renewed(store, run: run, watch: .seconds(60)) {
                (try? store.outbox()) ?? []
            }
            #expect(renewed, "the lease ran out under a request still waiting")
        }
    }

    /// The emulator, with a stall: the first request waits while the sender's lease runs out
    /// (its lease clock moved past it, as a stopped process sees on waking) and `takeOver` runs
    /// — another sender that takes the lapsed claim and delivers the post.
    struct StallingTransport: HTTPTransport {
        let inner: EmulatorTransport
        let observation: Observation
        let takeOver: @Sendable () async throws -> Void

        func send(_ request: HTTPRequestSpec) async throws(SocialAPIError) -> HTTPResponseSpec {
            if await observation.isFirstRequest() {
                do { try await takeOver() } catch { Issue.record("the other sender failed: \(error)") }
            }
            return try await inner.send(request)
        }
    }

    /// The other sender, called from the stalled one's request: one task at a time uses it.
    final class Unchecked<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    /// Found by a black-box hunt: a replay stopped (SIGSTOP) during its place lookup past its
    /// 60 s lease, a flush meanwhile took the post over and sent it, and the replay, resumed, sent
    /// it again 4 ms later — the post went out twice (the server's duplicate check hid it). The
    /// sender renews its claim just before the post request, and sends nothing once it is gone.
    @Test("SQLite: a sender that stalled past its lease does not send a post taken over and sent")
    func aStalledSenderDoesNotSendWhatWasTakenOver() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("waypost.db").path
            let store = try Store(path: path)
            let run = try store.beginRun(name: "stalled", track: "synthetic", at: start)
            let clock = SimulatedClock(start: start)
            let leases = SimulatedClock(start: start)  // the wall clock the leases run out on
            let core = EmulatorCore(
                fixtures: try EmulatorFixtures.shipped(root: Corpus.repositoryRoot), configuration: .demo, clock: clock)
            func facebook(_ transport: any HTTPTransport) -> SocialClients {
                SocialClients(
                    twitter: nil,
                    facebook: FacebookClient(
                        baseURL: EmulatorTransport.baseURL, accessToken: "waypost-demo-graph-token",
                        transport: transport))
            }
            let other = Unchecked(
                OutboxDelivery(
                    store: try Store(path: path), clients: facebook(EmulatorTransport(core: core)), clock: clock,
                    lease: OutboxLease(clock: leases)))
            let transport = StallingTransport(inner: EmulatorTransport(core: core), observation: Observation()) {
                leases.advance(to: start.advanced(by: .seconds(120)))
                _ = try await other.value.deliverDue()
            }
            let delivery = OutboxDelivery(
                store: store, clients: facebook(transport), clock: clock, lease: OutboxLease(clock: leases))
            try await Self.checkIn(through: delivery, store: store, run: run, clock: clock)
            let posts = await core.journal.filter { $0.method == "POST" }
            #expect(posts.count == 1, "\(posts.map(\.path))")
            #expect(try store.outbox().map(\.state) == [.sent])
        }
    }

    @Test("In memory: the claims are this process's alone, and are not renewed")
    func inMemory() async throws {
        let store = InMemoryStore()
        let run = store.beginRun(name: "slow", track: "synthetic", at: start)
        #expect(!store.sharesClaims)
        // Three times the lease: a renewing pass would have renewed it several times over.
        let renewed = try await Self.renewed(store, run: run, watch: .milliseconds(900)) { store.outbox() }
        #expect(!renewed)
    }
}

/// A black-box hunt: a flush exited 0 with its writes in the -wal file alone (a reader of the .db
/// file saw every post still pending), about one time in six — the stopped heartbeat's timer
/// still held the store, which was then never closed. Stopped, it holds nothing.
@Suite("A stopped heartbeat lets go of its store at once")
struct ClaimHeartbeatReleaseTests {
    @Test func aStoppedHeartbeatHoldsNoStore() {
        var store: InMemoryStore? = InMemoryStore()
        weak let held = store
        if let store {
            let heartbeat = ClaimHeartbeat(
                store: store, lease: OutboxLease(duration: .seconds(60), clock: SimulatedClock(start: 0)))
            heartbeat.stop()
        }
        store = nil
        #expect(held == nil, "the store outlived its last owner")
    }
}
