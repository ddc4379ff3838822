import Foundation

/// The posts and audit records a run wrote, by the bytes it wrote: reading back what it wrote
/// itself — a post when it is sent, the audit when the run ends — skips `JSONDecoder` (a
/// twentieth of a trials run's CPU). Found only by the very bytes, so a row another process
/// rewrote is decoded as usual; and ``StoredJSON``'s bytes decode to the value written
/// (`StoredJSONTests`), so the answer is the one decoding would give.
///
/// Only each post's latest writing is kept: as many entries as the run has posts.
final class WrittenValues {
    private var intents = Latest<PostIntent>()
    private var records = Latest<AuditRecord>()

    func wrote(_ intent: PostIntent, as bytes: Data, key: String) {
        intents.wrote(intent, as: bytes, key: key)
    }

    func wrote(_ record: AuditRecord, as bytes: Data) {
        records.wrote(record, as: bytes, key: record.key)
    }

    /// The post `bytes` hold.
    func intent(stored bytes: Data) throws -> PostIntent {
        try intents[bytes] ?? JSONDecoder().decode(PostIntent.self, from: bytes)
    }

    /// The audit record `bytes` hold.
    func record(stored bytes: Data) throws -> AuditRecord {
        try records[bytes] ?? AuditRecord(stored: bytes)
    }

    /// Each key's latest value, found by its bytes.
    private struct Latest<Value> {
        private var values: [Bytes: Value] = [:]
        private var bytesOfKey: [String: Bytes] = [:]

        mutating func wrote(_ value: Value, as data: Data, key: String) {
            let bytes = Bytes(data)
            if let old = bytesOfKey.updateValue(bytes, forKey: key), old != bytes { values[old] = nil }
            values[bytes] = value
        }

        subscript(data: Data) -> Value? { values[Bytes(data)] }
    }

    /// Bytes hashed whole: `Data`'s own hash reads only its first 80 bytes, which every record
    /// of a run shares.
    private struct Bytes: Hashable {
        let data: Data
        init(_ data: Data) { self.data = data }
        func hash(into hasher: inout Hasher) { data.withUnsafeBytes { hasher.combine(bytes: $0) } }
    }
}
