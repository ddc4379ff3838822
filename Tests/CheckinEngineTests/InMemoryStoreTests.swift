import CheckinEngine
import Foundation
import SimulatedTime
import SocialEmulator
import Store
import TestSupport
import Testing

/// The in-memory fake is only worth its tests if it keeps the outbox's rules as SQLite's store
/// does: the same runs through the engine leave the same audit and outbox on both.
@Suite("The in-memory store behaves as SQLite's at the engine's seam")
struct InMemoryStoreTests {
    @Test("Posts, blocks, cooldowns and dry runs leave the same audit and outbox")
    func sameRunSameRecords() async throws {
        var zoned = PrivacyProfile.permissive
        zoned.maximumPrecision = .place
        let cases: [(rules: [CheckinRule], profile: PrivacyProfile, dryRun: Bool)] = [
            ([rule(precision: .exact)], .permissive, false),
            ([rule(precision: .exact)], zoned, false),
            ([rule(cooldown: 3_600)], .permissive, false),
            ([rule()], .permissive, true),
        ]
        for (rules, profile, dryRun) in cases {
            let events = enters([(2, 1), (2, 3), (0, 9)])
            let sqlite = try await runEngine(rules: rules, profile: profile, events: events, dryRun: dryRun)
            let memory = try await runEngine(
                rules: rules, profile: profile, events: events, dryRun: dryRun, backing: .inMemory)
            #expect(memory.audit == sqlite.audit)
            #expect(memory.outbox == sqlite.outbox)
            #expect(memory.journal.map(\.path) == sqlite.journal.map(\.path))
        }
    }

    @Test("A post with a number JSON cannot hold is refused alike, though memory keeps values")
    func unwritablePostsAreRefusedAlike() async throws {
        var unbounded = rule()
        unbounded.searchRadius = .infinity
        for backing in Backing.allCases {
            await #expect {
                try await runEngine(
                    rules: [unbounded], profile: .permissive, events: enters([(2, 1)]), backing: backing)
            } throws: { error in
                (error as? StoreError)?.message == "cannot encode a post: a number in it is not finite"
            }
        }
    }

    @Test("Retries after 503s and expiry by maximum age settle alike")
    func retriesAndExpiry() async throws {
        let events = enters([(2, 1)])
        let faults = [Fault(kind: .status, pathContains: "statuses/update", status: 503)]
        let retry = RetryPolicy(maxAttempts: 20, base: .seconds(10))
        let sqlite = try await runEngine(
            rules: [rule([.twitter], maxAge: 60)], profile: .permissive, events: events, faults: faults, retry: retry)
        let memory = try await runEngine(
            rules: [rule([.twitter], maxAge: 60)], profile: .permissive, events: events, faults: faults, retry: retry,
            backing: .inMemory)
        #expect(memory.audit == sqlite.audit)
        #expect(memory.outbox == sqlite.outbox)
        #expect(memory.outbox.first?.state == .expired)
    }

    @Test("A claim is held by one lease; only its holder settles it")
    func claimsAreExclusive() throws {
        let store = InMemoryStore()
        let clock = SimulatedClock(start: EpochInstant(secondsSince1970: 100))
        let mine = OutboxLease(duration: .seconds(60), clock: clock)
        let theirs = OutboxLease(duration: .seconds(60), clock: clock)
        #expect(try store.enqueue(key: "k", run: 1, network: "twitter", createdAt: 10, payload: Data(), audit: Data()))
        #expect(try !store.enqueue(key: "k", run: 1, network: "twitter", createdAt: 11, payload: Data(), audit: Data()))
        #expect(try store.duePosts(now: 9, limit: 10, run: nil).isEmpty)
        let entry = try #require(try store.duePosts(now: 10, limit: 10, run: nil).first)
        // Not before it is due: listed as due, a post put off since is not claimed (a hunt).
        #expect(try store.claim(entry.id, dueBy: 9, lease: mine) == nil)
        #expect(try store.claim(entry.id, dueBy: 10, lease: mine)?.attempts == 1)
        #expect(try store.claim(entry.id, dueBy: 10, lease: theirs) == nil)
        #expect(try store.reclaimLapsed(lease: theirs, run: nil).isEmpty, "a live claim is never taken")
        #expect(try !store.settle(entry.id, lease: theirs, state: .sent, lastError: nil, at: 20, audit: Data()))
        #expect(try store.settle(entry.id, lease: mine, state: .sent, lastError: nil, at: 20, audit: Data()))
        #expect(store.outbox().first?.finishedAt == 20)
        #expect(try store.nextDueTime(run: nil) == nil)
    }
}
