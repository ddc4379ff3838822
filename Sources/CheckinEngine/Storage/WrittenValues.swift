import Foundation

/// The posts and audit records a run wrote, with the bytes it wrote: reading back what it wrote
/// itself — a post when it is sent, the audit when the run ends — skips `JSONDecoder` (a
/// twentieth of a trials run's CPU). A value is given back only for the very bytes it was
/// written as, so a row another process rewrote is decoded as usual; and ``StoredJSON``'s bytes
/// decode to the value written (`StoredJSONTests`), so the answer is the one decoding would give.
///
/// Found by the post's key, or for the audit by its place in the order first written (the
/// order both stores give it back in), and then compared: hashing every record's bytes whole, at
/// each writing and reading, cost more than the comparison (perf, 1,000 field trials).
///
/// Only each post's latest writing is kept: as many entries as the run has posts.
final class WrittenValues {
    private var intents: [String: (bytes: Data, intent: PostIntent)] = [:]
    /// Each record with its place in the order first written.
    private var records: [String: (bytes: Data, record: AuditRecord, place: Int)] = [:]
    private var recordOrder: [String] = []

    func wrote(_ intent: PostIntent, as bytes: Data, key: String) {
        intents[key] = (bytes, intent)
    }

    func wrote(_ record: AuditRecord, as bytes: Data) {
        let place = records[record.key]?.place ?? recordOrder.count
        if place == recordOrder.count { recordOrder.append(record.key) }
        records[record.key] = (bytes, record, place)
    }

    /// The post `bytes` hold, stored under `key`.
    func intent(stored bytes: Data, key: String) throws -> PostIntent {
        if let written = intents[key], written.bytes == bytes { return written.intent }
        return try JSONDecoder().decode(PostIntent.self, from: bytes)
    }

    /// The audit records `stored` holds, a run's in the order first written: each matched
    /// against the next this run wrote, decoded when it is not that one's bytes (a record of an
    /// earlier process's run under the same name, one another process settled).
    func records(stored: [Data]) throws -> [AuditRecord] {
        var next = 0
        return try stored.map { bytes in
            if next < recordOrder.count, let written = records[recordOrder[next]], written.bytes == bytes {
                next += 1
                return written.record
            }
            let record = try AuditRecord(stored: bytes)
            // One of this run's, rewritten elsewhere: the next is the one this run wrote after it.
            if let place = records[record.key]?.place, place >= next { next = place + 1 }
            return record
        }
    }
}
