import CheckinEngine
import Foundation
import SimulatedTime
import TestSupport

@testable import Store

/// The engine's store seams (``CheckinStore``, ``OutboxStore``) in memory, for unit tests: the
/// outbox's rules as SQLite's `Store` keeps them (keys written once, claims under a lease,
/// settling only by the claim's holder), with no file. `InMemoryStoreTests` holds it to the
/// real store's answers.
final class InMemoryStore: CheckinStore, OutboxStore, @unchecked Sendable {
    // Delivery's lease heartbeat calls in from another task; one lock, as the real store has.
    private let lock = NSLock()
    private var entries: [OutboxEntry] = []
    private var audit: [(key: String, run: Int64, record: Data)] = []
    private var runs: [RunRecord] = []
    private(set) var regions: [Int64: [RegionRecord]] = [:]
    private(set) var zones: [Int64: [ZoneRecord]] = [:]
    private(set) var locations: [Int64: [LocationRecord]] = [:]
    private(set) var events: [Int64: [EventRecord]] = [:]
    private var changes = 0

    let path = ":memory:"

    private func locked<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Runs as the real store begins them (tests need a ``RunRecord`` to hand the engine).
    func beginRun(name: String, track: String, at time: EpochInstant, dryRun: Bool = false) -> RunRecord {
        lock.lock()
        defer { lock.unlock() }
        if let run = runs.first(where: { $0.name == name }) { return run }
        let run = RunRecord(
            id: Int64(runs.count + 1), name: name, track: track, startedAt: time, finishedAt: nil, dryRun: dryRun)
        runs.append(run)
        return run
    }

    /// The run's audit records, in the order they were first written.
    func auditRecords(run: Int64) -> [Data] {
        lock.lock()
        defer { lock.unlock() }
        return audit.filter { $0.run == run }.map(\.record)
    }

    /// Every post, oldest first.
    func outbox() -> [OutboxEntry] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    // MARK: CheckinStore

    func saveRegions(_ regions: [RegionRecord], run: Int64) throws(StoreError) {
        try locked { () throws(StoreError) in
            self.regions[run] = regions
            changes += 1
        }
    }

    func saveZones(_ zones: [ZoneRecord], run: Int64) throws(StoreError) {
        try locked { () throws(StoreError) in
            self.zones[run] = zones
            changes += 1
        }
    }

    func appendLocations(_ records: [LocationRecord], run: Int64) throws(StoreError) {
        try locked { () throws(StoreError) in
            locations[run, default: []] += records
            changes += 1
        }
    }

    func appendEvents(_ events: [EventRecord], run: Int64) throws(StoreError) {
        try locked { () throws(StoreError) in
            self.events[run, default: []] += events
            changes += 1
        }
    }

    func saveAudit(key: String, run: Int64, record: Data) throws(StoreError) {
        try locked { () throws(StoreError) in writeAudit(key: key, run: run, record: record) }
    }

    func enqueue(
        key: String, run: Int64, network: String, createdAt: EpochInstant, payload: Data, audit: Data
    ) throws(StoreError) -> Bool {
        try locked { () throws(StoreError) -> Bool in
            guard !entries.contains(where: { $0.key == key }) else { return false }
            entries.append(
                OutboxEntry(
                    id: Int64(entries.count + 1), key: key, run: run, network: network, state: .pending,
                    createdAt: createdAt, notBefore: createdAt, attempts: 0, payload: payload))
            writeAudit(key: key, run: run, record: audit)
            return true
        }
    }

    /// Replaces a key's record in place (it keeps its first position), as the real store does.
    private func writeAudit(key: String, run: Int64, record: Data) {
        if let index = audit.firstIndex(where: { $0.key == key }) {
            audit[index].record = record
        } else {
            audit.append((key, run, record))
        }
        changes += 1
    }

    // MARK: OutboxStore

    var changeCount: Int { (try? locked { () throws(StoreError) in changes }) ?? 0 }

    func duePosts(now: EpochInstant, limit: Int, run: Int64?) throws(StoreError) -> [OutboxEntry] {
        try locked { () throws(StoreError) in
            Array(
                entries.filter { $0.state == .pending && $0.notBefore <= now && (run == nil || $0.run == run) }
                    .sorted { ($0.notBefore, $0.id) < ($1.notBefore, $1.id) }.prefix(limit))
        }
    }

    func nextDueTime(run: Int64?) throws(StoreError) -> EpochInstant? {
        try locked { () throws(StoreError) in
            entries.filter { $0.state == .pending && (run == nil || $0.run == run) }.map(\.notBefore).min()
        }
    }

    func claim(_ id: Int64, lease: OutboxLease) throws(StoreError) -> OutboxEntry? {
        try locked { () throws(StoreError) -> OutboxEntry? in
            guard let index = entries.firstIndex(where: { $0.id == id && $0.state == .pending }) else { return nil }
            entries[index].state = .sending
            entries[index].attempts += 1
            entries[index].claimedBy = lease.owner
            entries[index].leaseUntil = lease.expiry
            changes += 1
            return entries[index]
        }
    }

    func reclaimLapsed(lease: OutboxLease, run: Int64?) throws(StoreError) -> [OutboxEntry] {
        try locked { () throws(StoreError) -> [OutboxEntry] in
            var taken: [OutboxEntry] = []
            for index in entries.indices
            where entries[index].state == .sending && (run == nil || entries[index].run == run)
                && lease.hasLapsed(owner: entries[index].claimedBy, leaseUntil: entries[index].leaseUntil)
            {
                entries[index].claimedBy = lease.owner
                entries[index].leaseUntil = lease.expiry
                changes += 1
                taken.append(entries[index])
            }
            return taken
        }
    }

    func renewClaims(_ lease: OutboxLease) throws(StoreError) {
        try locked { () throws(StoreError) in
            for index in entries.indices
            where entries[index].state == .sending && entries[index].claimedBy == lease.owner {
                entries[index].leaseUntil = lease.expiry
                changes += 1
            }
        }
    }

    func settle(
        _ id: Int64, lease: OutboxLease, state: OutboxState, notBefore: EpochInstant?, payload: Data?,
        lastError: String?,
        remoteID: String?, at time: EpochInstant, audit: Data
    ) throws(StoreError) -> Bool {
        try locked { () throws(StoreError) -> Bool in
            guard
                let index = entries.firstIndex(where: {
                    $0.id == id && $0.state == .sending && $0.claimedBy == lease.owner
                })
            else { return false }
            var entry = entries[index]
            entry.state = state
            entry.notBefore = notBefore ?? entry.notBefore
            entry.payload = payload ?? entry.payload
            entry.lastError = lastError
            entry.remoteID = remoteID ?? entry.remoteID
            entry.finishedAt = state.isFinal ? time : nil
            entry.claimedBy = nil
            entry.leaseUntil = nil
            entries[index] = entry
            writeAudit(key: entry.key, run: entry.run, record: audit)
            return true
        }
    }
}
