import Foundation
import SimulatedTime
import Store
import Testing

@testable import CheckinEngine

/// Posts the engine hands the in-memory store as values read back through every byte-level
/// reader as the bytes `StoredJSON` writes: the store fed the same posts as bytes (as SQLite
/// is) answers the same, entry by entry.
@Suite("The in-memory store's values read back as bytes")
struct InMemoryStoreValuesTests {
    @Test("Due, claimed, lapsed, settled and listed posts, and the audit, are the bytes' answers")
    func valuesReadBackAsTheirBytes() throws {
        let values = InMemoryStore()
        let bytes = InMemoryStore()
        let intents = StoredJSONTests.intents()
        for (index, intent) in intents.enumerated() {
            let key = "post \(index)"
            let record = intent.audit(key: key, decision: .queued)
            let createdAt = EpochInstant(secondsSince1970: Double(index))
            #expect(try values.enqueue(intent, key: key, run: 1, createdAt: createdAt, audit: record))
            #expect(
                try bytes.enqueue(
                    key: key, run: 1, network: intent.network.rawValue, createdAt: createdAt,
                    payload: #require(intent.storedJSON), audit: #require(record.storedJSON)))
        }
        let now = EpochInstant(secondsSince1970: 1_000)
        #expect(try values.duePosts(now: now, limit: 2, run: nil) == bytes.duePosts(now: now, limit: 2, run: nil))
        // Settled with a changed post, the next reader gets the new post's bytes.
        let lease = OutboxLease(duration: .seconds(60), clock: SimulatedClock(start: now))
        for id: Int64 in [1, 2] {
            #expect(try values.claim(id, dueBy: now, lease: lease) == bytes.claim(id, dueBy: now, lease: lease))
        }
        var changed = intents[0]
        changed.lostAnswer = "lost"
        let record = changed.audit(key: "post 0", decision: .inDoubt)
        #expect(
            try values.settle(
                1, lease: lease, state: .pending, notBefore: now, intent: changed, lastError: "lost", remoteID: nil,
                at: now, audit: record))
        #expect(
            try bytes.settle(
                1, lease: lease, state: .pending, notBefore: now, payload: #require(changed.storedJSON),
                lastError: "lost", remoteID: nil, at: now, audit: #require(record.storedJSON)))
        // The delivery's own reads leave a post held as a value unwritten.
        #expect(try values.claimAsHeld(3, dueBy: now, lease: lease)?.payload == Data())
        #expect(try bytes.claim(3, dueBy: now, lease: lease) != nil)
        let later = OutboxLease(duration: .seconds(60), clock: SimulatedClock(start: now.advanced(bySeconds: 3_600)))
        #expect(try values.reclaimLapsed(lease: later, run: nil) == bytes.reclaimLapsed(lease: later, run: nil))
        #expect(values.outbox() == bytes.outbox())
        #expect(values.auditRecords(run: 1) == bytes.auditRecords(run: 1))
        #expect(try values.auditValues(run: 1) == bytes.auditValues(run: 1))
        #expect(try values.intent(of: #require(values.outbox().first)) == changed)
    }
}
