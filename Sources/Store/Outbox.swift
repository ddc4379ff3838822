import Foundation
import SimulatedTime

/// Where a post is in its delivery.
public enum OutboxState: String, Sendable, CaseIterable, Codable {
    /// Written, waiting for its turn (or its retry time).
    case pending
    /// Claimed by a sender under a lease: the request may or may not have reached the network
    /// (in doubt once the lease lapses).
    case sending
    case sent
    /// Gave up: a permanent error, or out of attempts.
    case failed
    /// Older than its maximum age when its turn came: never sent.
    case expired

    public var isFinal: Bool { self == .sent || self == .failed || self == .expired }

    /// The error of a pending post withdrawn unsent (`failed`): a later pass over its run found the
    /// user's choices stop it (``Store/saveAudit(key:run:record:withdrawingAt:)``).
    public static let withdrawal = "withdrawn unsent: the user's privacy choices now stop it"
}

/// A post in the durable outbox. The payload is the engine's own JSON; the store only keeps it.
public struct OutboxEntry: Sendable, Equatable {
    public var id: Int64
    /// One per intended post: a second enqueue with the same key is ignored.
    public var key: String
    public var run: Int64
    public var network: String
    public var state: OutboxState
    /// On the delivery clock.
    public var createdAt: EpochInstant
    public var notBefore: EpochInstant
    public var attempts: Int
    public var payload: Data
    public var lastError: String?
    public var remoteID: String?
    public var finishedAt: EpochInstant?
    /// While `sending`: the lease holder (``OutboxLease/owner``) and when its claim runs out (wall clock).
    public var claimedBy: String?
    public var leaseUntil: EpochInstant?
    /// The server the post is addressed to: its network's base URL as its run was given it; nil
    /// for the in-process emulator. A sender delivers only the posts addressed to its servers
    /// (``OutboxServers``).
    public var server: String?
}

/// The servers a sender delivers to, by network name (`twitter`, `facebook`): a network not named
/// is the in-process emulator's. The outbox hands a sender only the posts addressed to these
/// (``OutboxEntry/server``): a post queued for one server is never sent to another.
public typealias OutboxServers = [String: String]

extension OutboxEntry {
    /// A new pending post, as a store other than SQLite's (``CheckinEngine/InMemoryStore``) writes it.
    package init(
        id: Int64, key: String, run: Int64, network: String, state: OutboxState, createdAt: EpochInstant,
        notBefore: EpochInstant, attempts: Int, payload: Data, server: String?
    ) {
        (self.id, self.key, self.run, self.network, self.state) = (id, key, run, network, state)
        (self.createdAt, self.notBefore, self.attempts, self.payload) = (createdAt, notBefore, attempts, payload)
        self.server = server
    }

    /// Whether a sender delivering to `servers` may send this post (nil: any sender).
    package func isAddressed(to servers: OutboxServers?) -> Bool {
        guard let servers else { return true }
        return server == servers[network]
    }
}

/// The outbox and the audit: a post is written (with its audit record) before it is sent, and
/// its outcome is written with its audit record in one transaction.
extension Store {
    /// Writes a new pending post, addressed to `server` (nil: the in-process emulator), and its
    /// audit record; false (and nothing written) when the key exists.
    @discardableResult
    public func enqueue(
        key: String, run: Int64, network: String, server: String? = nil, createdAt: EpochInstant, payload: Data,
        audit: Data
    ) throws(StoreError) -> Bool {
        try transaction { db throws(StoreError) in
            let inserted = try db.run(
                "INSERT OR IGNORE INTO outbox (key, run, network, server, state, created_at, not_before, payload) "
                    + "VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)",
                [
                    .text(key), .integer(run), .text(network), SQLValue(server), SQLValue(createdAt),
                    SQLValue(createdAt), .text(String(decoding: payload, as: UTF8.self)),
                ])
            guard inserted == 1 else { return false }
            try Self.saveAudit(db, key: key, run: run, record: audit)
            return true
        }
    }

    /// Pending posts due at `now`, oldest first; only `run`'s when one is given, and only those
    /// addressed to `servers` when they are given.
    public func duePosts(
        now: EpochInstant, limit: Int = 100, run: Int64? = nil, servers: OutboxServers? = nil
    ) throws(StoreError) -> [OutboxEntry] {
        let (addressed, values) = Self.addressed(to: servers)
        return try entries(
            where: "state = 'pending' AND not_before <= ? AND (? IS NULL OR run = ?)\(addressed) "
                + "ORDER BY not_before, id LIMIT ?",
            [SQLValue(now), SQLValue(run), SQLValue(run)] + values + [.integer(Int64(limit))])
    }

    /// The condition (from ` AND` on, empty for nil) that a post is addressed to `servers`: its
    /// server the one named for its network, NULL for a network not named.
    private static func addressed(to servers: OutboxServers?) -> (condition: String, values: [SQLValue]) {
        guard let servers else { return ("", []) }
        let named = servers.sorted { $0.key < $1.key }
        let cases = named.map { _ in " WHEN ? THEN ?" }.joined()
        return (
            named.isEmpty ? " AND server IS NULL" : " AND server IS (CASE network\(cases) END)",
            named.flatMap { [SQLValue.text($0.key), .text($0.value)] }
        )
    }

    /// Rows this store has written since it opened: while it stays the same, what this process
    /// last read of the outbox still holds (other processes' writes aside).
    public var changeCount: Int {
        (try? locked { $0.totalChanges }) ?? 0
    }

    /// When the next pending post (of `run`, addressed to `servers`, when given) falls due, if any is pending.
    public func nextDueTime(run: Int64? = nil, servers: OutboxServers? = nil) throws(StoreError) -> EpochInstant? {
        let (addressed, values) = Self.addressed(to: servers)
        return try locked { db throws(StoreError) in
            var time: EpochInstant?
            try db.query(
                "SELECT MIN(not_before) FROM outbox WHERE state = 'pending' AND (? IS NULL OR run = ?)\(addressed)",
                [SQLValue(run), SQLValue(run)] + values
            ) { time = $0.optionalInstant(0) }
            return time
        }
    }

    /// Claims a pending post due by `now` for sending under `lease` (counting the attempt) and
    /// commits before any request is made; nil when another sender claimed it first, or put it
    /// off past `now`. (Listed as due, a post another sender has just tried and put off was
    /// claimed again at once: concurrent flushes spent its six attempts within a second, a
    /// black-box hunt.)
    public func claim(_ id: Int64, dueBy now: EpochInstant, lease: OutboxLease) throws(StoreError) -> OutboxEntry? {
        try transaction { db throws(StoreError) in
            let changed = try db.run(
                "UPDATE outbox SET state = 'sending', attempts = attempts + 1, claimed_by = ?, lease_until = ? "
                    + "WHERE id = ? AND state = 'pending' AND not_before <= ?",
                [.text(lease.owner), SQLValue(lease.expiry), .integer(id), SQLValue(now)])
            guard changed == 1 else { return nil }
            return try Self.entries(db, where: "id = ?", [.integer(id)]).first
        }
    }

    /// Takes over the posts whose sender's claim has lapsed (``OutboxLease/hasLapsed(owner:leaseUntil:)``):
    /// each is now in doubt, and this lease's to settle. A live sender's claim is never taken.
    public func reclaimLapsed(
        lease: OutboxLease, run: Int64? = nil, servers: OutboxServers? = nil
    ) throws(StoreError) -> [OutboxEntry] {
        var taken: [OutboxEntry] = []
        let (addressed, values) = Self.addressed(to: servers)
        for entry in try entries(
            where: "state = 'sending' AND (? IS NULL OR run = ?)\(addressed) ORDER BY id",
            [SQLValue(run), SQLValue(run)] + values)
        where lease.hasLapsed(owner: entry.claimedBy, leaseUntil: entry.leaseUntil) {
            let claimed = try transaction { db throws(StoreError) in
                // Compare-and-set: another process may take the same lapsed claim at the same time.
                let changed = try db.run(
                    "UPDATE outbox SET claimed_by = ?, lease_until = ? WHERE id = ? AND state = 'sending' "
                        + "AND claimed_by IS ? AND lease_until IS ?",
                    [
                        .text(lease.owner), SQLValue(lease.expiry), .integer(entry.id), SQLValue(entry.claimedBy),
                        SQLValue(entry.leaseUntil),
                    ])
                return changed == 1 ? try Self.entries(db, where: "id = ?", [.integer(entry.id)]).first : nil
            }
            if let claimed { taken.append(claimed) }
        }
        return taken
    }

    /// Extends every claim `lease` holds: a sender renews while it works, so only a stalled or
    /// stopped one lets its claims lapse.
    public func renewClaims(_ lease: OutboxLease) throws(StoreError) {
        try locked { db throws(StoreError) in
            try db.run(
                "UPDATE outbox SET lease_until = ? WHERE state = 'sending' AND claimed_by = ?",
                [SQLValue(lease.expiry), .text(lease.owner)])
        }
    }

    /// Whether a post other than `entry`, of its network and server, is recorded as that
    /// server's post `remoteID`: an in-process emulator's only within `entry`'s run, whose
    /// emulator is its own (another run's, from the same first id, gave the same ids).
    public func recordsRemoteID(_ remoteID: String, apartFrom entry: OutboxEntry) throws(StoreError) -> Bool {
        try locked { db throws(StoreError) in
            var found = false
            try db.query(
                "SELECT 1 FROM outbox WHERE remote_id = ? AND network = ? AND id != ? AND server IS ? "
                    + "AND (server IS NOT NULL OR run = ?) LIMIT 1",
                [
                    .text(remoteID), .text(entry.network), .integer(entry.id), SQLValue(entry.server),
                    .integer(entry.run),
                ]
            ) { _ in found = true }
            return found
        }
    }

    /// Extends `lease`'s claim on one post; false when another sender holds it now (or it is
    /// settled): a sender that stalled past its lease must not send what was taken over.
    public func renewClaim(_ id: Int64, lease: OutboxLease) throws(StoreError) -> Bool {
        try locked { db throws(StoreError) in
            try db.run(
                "UPDATE outbox SET lease_until = ? WHERE id = ? AND state = 'sending' AND claimed_by = ?",
                [SQLValue(lease.expiry), .integer(id), .text(lease.owner)]) == 1
        }
    }

    /// Records what happened to a post, with its updated audit record, in one transaction — only
    /// while `lease` still holds its claim. False (nothing written) when the claim was lost: the
    /// sender stalled past its lease and another one took the post over.
    @discardableResult
    public func settle(
        _ id: Int64, lease: OutboxLease, state: OutboxState, notBefore: EpochInstant? = nil, payload: Data? = nil,
        lastError: String? = nil, remoteID: String? = nil, at time: EpochInstant, audit: Data
    ) throws(StoreError) -> Bool {
        try transaction { db throws(StoreError) in
            let changed = try db.run(
                "UPDATE outbox SET state = ?, not_before = COALESCE(?, not_before), payload = COALESCE(?, payload), "
                    + "last_error = ?, remote_id = COALESCE(?, remote_id), finished_at = ?, claimed_by = NULL, "
                    + "lease_until = NULL WHERE id = ? AND state = 'sending' AND claimed_by = ?",
                [
                    .text(state.rawValue), SQLValue(notBefore),
                    SQLValue(payload.map { String(decoding: $0, as: UTF8.self) }), SQLValue(lastError),
                    SQLValue(remoteID), state.isFinal ? SQLValue(time) : .null, .integer(id), .text(lease.owner),
                ])
            guard changed == 1 else { return false }
            var run: Int64 = 0
            var key = ""
            try db.query("SELECT run, key FROM outbox WHERE id = ?", [.integer(id)]) {
                run = Int64($0.int(0))
                key = $0.text(1)
            }
            try Self.saveAudit(db, key: key, run: run, record: audit)
            return true
        }
    }

    /// Posts in the given states (all when nil), oldest first.
    public func outbox(states: Set<OutboxState>? = nil, run: Int64? = nil) throws(StoreError) -> [OutboxEntry] {
        var conditions: [String] = []
        var values: [SQLValue] = []
        if let states {
            conditions.append("state IN (" + states.map { _ in "?" }.joined(separator: ", ") + ")")
            values += states.sorted { $0.rawValue < $1.rawValue }.map { .text($0.rawValue) }
        }
        if let run {
            conditions.append("run = ?")
            values.append(.integer(run))
        }
        let condition = conditions.isEmpty ? "1" : conditions.joined(separator: " AND ")
        return try entries(where: "\(condition) ORDER BY id", values)
    }

    // MARK: Audit

    /// Writes (or replaces) the audit record of a post that never reaches the outbox: one a gate
    /// stopped, or a dry run's. Where its key is already in the outbox — an earlier pass over the
    /// same run queued it — that post's own record stands (false, nothing written), except that a
    /// post still pending is withdrawn when `withdrawingAt` is given, because the user's choices
    /// now stop it: it fails unsent at that time, its payload emptied, and takes this record.
    /// The record a key already has, the same bytes, is not news: false.
    @discardableResult
    public func saveAudit(
        key: String, run: Int64, record: Data, withdrawingAt time: EpochInstant? = nil
    ) throws(StoreError) -> Bool {
        try transaction { db throws(StoreError) in
            var state: String?
            try db.query("SELECT state FROM outbox WHERE key = ?", [.text(key)]) { state = $0.text(0) }
            if let state {
                guard state == OutboxState.pending.rawValue, let time else { return false }
                try db.run(
                    "UPDATE outbox SET state = 'failed', payload = '{}', finished_at = ?, last_error = ? "
                        + "WHERE key = ? AND state = 'pending'",
                    [SQLValue(time), .text(OutboxState.withdrawal), .text(key)])
                try Self.saveAudit(db, key: key, run: run, record: record)
                return true
            }
            // The same post decided the same way again (the event delivered by both the delegate
            // and CLMonitor, a run replayed again) is no news: the write changes no row.
            return try Self.saveAudit(db, key: key, run: run, record: record)
        }
    }

    /// The post pending under `key` and its audit record, as written; nil when none is.
    public func pendingPost(key: String) throws(StoreError) -> (payload: Data, audit: Data)? {
        try locked { db throws(StoreError) in
            try db.rows(
                "SELECT o.payload, a.record FROM outbox o JOIN audit a ON a.key = o.key "
                    + "WHERE o.key = ? AND o.state = 'pending'", [.text(key)]
            ) { (payload: Data($0.text(0).utf8), audit: Data($0.text(1).utf8)) }.first
        }
    }

    /// The audit records of a run, in the order the posts were first recorded.
    public func auditRecords(run: Int64) throws(StoreError) -> [Data] {
        try locked { db throws(StoreError) in
            try db.rows("SELECT record FROM audit WHERE run = ? ORDER BY sequence", [.integer(run)]) {
                Data($0.text(0).utf8)
            }
        }
    }

    /// Writes `record` under `key`; false when the key already holds these bytes (no row changed).
    @discardableResult
    private static func saveAudit(_ db: SQLiteConnection, key: String, run: Int64, record: Data) throws(StoreError)
        -> Bool
    {
        try db.run(
            "INSERT INTO audit (key, run, sequence, record) "
                + "VALUES (?, ?, (SELECT COALESCE(MAX(sequence), 0) + 1 FROM audit WHERE run = ?), ?) "
                + "ON CONFLICT(key) DO UPDATE SET record = excluded.record WHERE record IS NOT excluded.record",
            [.text(key), .integer(run), .integer(run), .text(String(decoding: record, as: UTF8.self))]) > 0
    }

    private func entries(where condition: String, _ values: [SQLValue]) throws(StoreError) -> [OutboxEntry] {
        try locked { db throws(StoreError) in try Self.entries(db, where: condition, values) }
    }

    private static func entries(_ db: SQLiteConnection, where condition: String, _ values: [SQLValue])
        throws(StoreError) -> [OutboxEntry]
    {
        try db.rows(
            "SELECT id, key, run, network, state, created_at, not_before, attempts, payload, last_error, remote_id, "
                + "finished_at, claimed_by, lease_until, server FROM outbox WHERE \(condition)", values
        ) {
            OutboxEntry(
                id: Int64($0.int(0)), key: $0.text(1), run: Int64($0.int(2)), network: $0.text(3),
                state: OutboxState(rawValue: $0.text(4)) ?? .failed, createdAt: $0.instant(5),
                notBefore: $0.instant(6), attempts: $0.int(7), payload: Data($0.text(8).utf8),
                lastError: $0.optionalText(9), remoteID: $0.optionalText(10), finishedAt: $0.optionalInstant(11),
                claimedBy: $0.optionalText(12), leaseUntil: $0.optionalInstant(13), server: $0.optionalText(14))
        }
    }
}
