import Atomics
import Foundation
import SimulatedTime
import Store

/// The store of a run nobody keeps: the engine's seams (``CheckinStore``, ``OutboxStore``) and
/// what a run reads back (its audit, what is still queued, its monitor's records) in memory,
/// with the outbox's rules as SQLite's ``Store/Store`` keeps them — keys written once, claims
/// under a lease, settling only by the claim's holder, audit records in the order first written.
/// What the engine writes it keeps as values (`PostValueStore`): a run's own posts are never
/// written as JSON and read back, and a reader of the seams (the outbox, the audit) gets the bytes
/// `StoredJSON` writes, as SQLite would hold them.
/// Trials, sweeps and scenarios without `--db` run on it; `InMemoryStoreTests` and the run-path
/// parity test hold it to SQLite's answers.
///
/// ```swift
/// let store = InMemoryStore()
/// let run = store.beginRun(name: "commute", track: "commute.kml", at: clock.now)
/// let engine = CheckinEngine(rules: rules, store: store, run: run, delivery: delivery)
/// ```
public final class InMemoryStore: CheckinStore, OutboxStore, @unchecked Sendable {
    // Delivery's lease heartbeat calls in from another task; one lock, as the real store has.
    private let lock = NSLock()
    private var entries: [OutboxEntry] = []
    /// The posts the engine handed over as values, by place in `entries`: read back as they are
    /// (``intent(of:)``); their JSON goes into the entry's payload only when something reads the
    /// entry (`unwritten`), so a run's own posts are never written out and read back.
    private var intents: [Int: PostIntent] = [:]
    private var unwritten: Set<Int> = []
    private var audit: [(key: String, run: Int64, record: Kept<AuditRecord>)] = []
    /// Where each key's audit record and post are: SQLite finds them by index, and so must a
    /// crowd's thousands of posts here (a scan per write made a 10,000-device run quadratic).
    private var auditIndex: [String: Int] = [:]
    private var entryIndex: [String: Int] = [:]
    private var runs: [RunRecord] = []
    public private(set) var regions: [Int64: [RegionRecord]] = [:]
    public private(set) var zones: [Int64: [ZoneRecord]] = [:]
    public private(set) var locations: [Int64: [LocationRecord]] = [:]
    public private(set) var events: [Int64: [EventRecord]] = [:]
    private var monitorRecords: [String: [StoredMonitorRecord]] = [:]
    /// Written under the lock, read without it: a run asks for it at every event (the lock
    /// there was about 1 % of a field trial, perf).
    private let changes = ManagedAtomic<Int>(0)

    public let path = ":memory:"

    public init() {}

    private func locked<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: Runs

    /// The run named `name`, created when new; an existing one is resumed (its `finishedAt`
    /// cleared), as the real store does.
    public func beginRun(name: String, track: String, at time: EpochInstant, dryRun: Bool = false) -> RunRecord {
        lock.withLock {
            if let index = runs.firstIndex(where: { $0.name == name }) {
                runs[index].finishedAt = nil
                return runs[index]
            }
            let run = RunRecord(
                id: Int64(runs.count + 1), name: name, track: track, startedAt: time, finishedAt: nil, dryRun: dryRun)
            runs.append(run)
            return run
        }
    }

    public func finishRun(_ id: Int64, at time: EpochInstant) {
        lock.withLock {
            if let index = runs.firstIndex(where: { $0.id == id }) { runs[index].finishedAt = time }
        }
    }

    /// The run's audit records, in the order they were first written.
    public func pendingPost(key: String) -> (payload: Data, audit: Data)? {
        lock.withLock {
            guard let index = entryIndex[key], entries[index].state == .pending, let kept = auditIndex[key] else {
                return nil
            }
            return (written(index).payload, audit[kept].record.bytes)
        }
    }

    public func auditRecords(run: Int64) -> [Data] {
        lock.withLock { audit.filter { $0.run == run }.map(\.record.bytes) }
    }

    /// Posts in the given states (all when nil), oldest first.
    public func outbox(states: Set<OutboxState>? = nil, run: Int64? = nil) -> [OutboxEntry] {
        lock.withLock {
            entries.indices.filter {
                (states?.contains(entries[$0].state) ?? true) && (run == nil || entries[$0].run == run)
            }.map(written)
        }
    }

    // MARK: Monitor records

    /// The records of the monitor named `monitor` on `device`, in the order they were saved.
    public func monitorRecords(monitor: String, device: String?) -> [StoredMonitorRecord] {
        lock.withLock { monitorRecords[Self.monitorKey(monitor, device)] ?? [] }
    }

    /// Replaces the monitor's records with `records`.
    public func saveMonitorRecords(_ records: [StoredMonitorRecord], monitor: String, device: String?) {
        lock.withLock { monitorRecords[Self.monitorKey(monitor, device)] = records }
    }

    private static func monitorKey(_ monitor: String, _ device: String?) -> String {
        "\(device ?? "")\u{0}\(monitor)"
    }

    // MARK: CheckinStore

    public func saveRegions(_ regions: [RegionRecord], run: Int64) throws(StoreError) {
        try locked { () throws(StoreError) in
            self.regions[run] = regions
            changes.wrappingIncrement(ordering: .releasing)
        }
    }

    public func saveZones(_ zones: [ZoneRecord], run: Int64) throws(StoreError) {
        try locked { () throws(StoreError) in
            self.zones[run] = zones
            changes.wrappingIncrement(ordering: .releasing)
        }
    }

    public func appendLocations(_ records: [LocationRecord], run: Int64) throws(StoreError) {
        try locked { () throws(StoreError) in
            locations[run, default: []] += records
            changes.wrappingIncrement(ordering: .releasing)
        }
    }

    public func appendEvents(_ events: [EventRecord], run: Int64) throws(StoreError) {
        try locked { () throws(StoreError) in
            self.events[run, default: []] += events
            changes.wrappingIncrement(ordering: .releasing)
        }
    }

    @discardableResult
    public func saveAudit(
        key: String, run: Int64, record: Data, withdrawingAt time: EpochInstant? = nil
    ) throws(StoreError) -> Bool {
        try locked { () throws(StoreError) in
            saveUnsent(key: key, run: run, record: .bytes(record), withdrawingAt: time)
        }
    }

    /// ``saveAudit(key:run:record:withdrawingAt:)``, as the real store does it.
    private func saveUnsent(key: String, run: Int64, record: Kept<AuditRecord>, withdrawingAt time: EpochInstant?)
        -> Bool
    {
        if let index = entryIndex[key] {
            guard entries[index].state == .pending, let time else { return false }
            entries[index].state = .failed
            entries[index].payload = Data("{}".utf8)
            entries[index].finishedAt = time
            entries[index].lastError = OutboxState.withdrawal
            intents[index] = nil
            unwritten.remove(index)
        } else if let kept = auditIndex[key], audit[kept].record.bytes == record.bytes {
            return false
        }
        writeAudit(key: key, run: run, record: record)
        return true
    }

    public func enqueue(
        key: String, run: Int64, network: String, server: String? = nil, createdAt: EpochInstant, payload: Data,
        audit: Data
    ) throws(StoreError) -> Bool {
        try locked { () throws(StoreError) -> Bool in
            append(
                key: key, run: run, network: network, server: server, createdAt: createdAt, payload: payload,
                audit: .bytes(audit))
        }
    }

    /// A new post, unless `key` exists (nothing written then).
    private func append(
        key: String, run: Int64, network: String, server: String?, createdAt: EpochInstant, payload: Data,
        audit: Kept<AuditRecord>
    ) -> Bool {
        guard entryIndex[key] == nil else { return false }
        entryIndex[key] = entries.count
        entries.append(
            OutboxEntry(
                id: Int64(entries.count + 1), key: key, run: run, network: network, state: .pending,
                createdAt: createdAt, notBefore: createdAt, attempts: 0, payload: payload, server: server))
        writeAudit(key: key, run: run, record: audit)
        return true
    }

    /// A post's place in `entries`: ids are given in order from 1, as SQLite's rowids are.
    private func position(of id: Int64) -> Int? {
        let index = Int(id) - 1
        return entries.indices.contains(index) ? index : nil
    }

    /// The entry at `index` as a reader sees it: with its post's JSON in the payload.
    private func written(_ index: Int) -> OutboxEntry {
        if unwritten.remove(index) != nil, let intent = intents[index] {
            entries[index].payload = Kept.value(intent).bytes
        }
        return entries[index]
    }

    /// Replaces a key's record in place (it keeps its first position), as the real store does.
    private func writeAudit(key: String, run: Int64, record: Kept<AuditRecord>) {
        if let index = auditIndex[key] {
            audit[index].record = record
        } else {
            auditIndex[key] = audit.count
            audit.append((key, run, record))
        }
        changes.wrappingIncrement(ordering: .releasing)
    }

    // MARK: OutboxStore

    public var changeCount: Int { changes.load(ordering: .acquiring) }

    public func duePosts(now: EpochInstant, limit: Int, run: Int64?, servers: OutboxServers? = nil) throws(StoreError)
        -> [OutboxEntry]
    {
        try locked { () throws(StoreError) in due(now: now, limit: limit, run: run, servers: servers).map(written) }
    }

    /// The places in `entries` of the pending posts due by `now`, oldest first.
    private func due(now: EpochInstant, limit: Int, run: Int64?, servers: OutboxServers?) -> ArraySlice<Int> {
        entries.indices.filter {
            entries[$0].state == .pending && entries[$0].notBefore <= now && (run == nil || entries[$0].run == run)
                && entries[$0].isAddressed(to: servers)
        }
        .sorted { (entries[$0].notBefore, $0) < (entries[$1].notBefore, $1) }.prefix(limit)
    }

    public func nextDueTime(run: Int64?, servers: OutboxServers? = nil) throws(StoreError) -> EpochInstant? {
        try locked { () throws(StoreError) in
            entries.filter { $0.state == .pending && (run == nil || $0.run == run) && $0.isAddressed(to: servers) }
                .map(\.notBefore).min()
        }
    }

    public func claim(_ id: Int64, dueBy now: EpochInstant, lease: OutboxLease) throws(StoreError) -> OutboxEntry? {
        try locked { () throws(StoreError) -> OutboxEntry? in claimed(id, dueBy: now, lease: lease).map(written) }
    }

    /// Claims the post for `lease`; its place in `entries`, nil when it is not pending or not due.
    private func claimed(_ id: Int64, dueBy now: EpochInstant, lease: OutboxLease) -> Int? {
        guard let index = position(of: id), entries[index].state == .pending, entries[index].notBefore <= now else {
            return nil
        }
        entries[index].state = .sending
        entries[index].attempts += 1
        entries[index].claimedBy = lease.owner
        entries[index].leaseUntil = lease.expiry
        changes.wrappingIncrement(ordering: .releasing)
        return index
    }

    public func reclaimLapsed(lease: OutboxLease, run: Int64?, servers: OutboxServers? = nil) throws(StoreError)
        -> [OutboxEntry]
    {
        try locked { () throws(StoreError) -> [OutboxEntry] in
            var taken: [OutboxEntry] = []
            for index in entries.indices
            where entries[index].state == .sending && (run == nil || entries[index].run == run)
                && entries[index].isAddressed(to: servers)
                && lease.hasLapsed(owner: entries[index].claimedBy, leaseUntil: entries[index].leaseUntil)
            {
                entries[index].claimedBy = lease.owner
                entries[index].leaseUntil = lease.expiry
                changes.wrappingIncrement(ordering: .releasing)
                taken.append(written(index))
            }
            return taken
        }
    }

    /// Only this process holds the store: its claims lapse to nobody, so they are never renewed
    /// (starting a renewal each pass cost 1,000 trials up to a tenth of their CPU).
    public var sharesClaims: Bool { false }

    public func renewClaims(_ lease: OutboxLease) throws(StoreError) {
        try locked { () throws(StoreError) in
            for index in entries.indices
            where entries[index].state == .sending && entries[index].claimedBy == lease.owner {
                entries[index].leaseUntil = lease.expiry
                changes.wrappingIncrement(ordering: .releasing)
            }
        }
    }

    public func recordsRemoteID(_ remoteID: String, apartFrom entry: OutboxEntry) throws(StoreError) -> Bool {
        try locked { () throws(StoreError) -> Bool in
            entries.contains {
                $0.remoteID == remoteID && $0.network == entry.network && $0.id != entry.id && $0.server == entry.server
                    && (entry.server != nil || $0.run == entry.run)
            }
        }
    }

    public func renewClaim(_ id: Int64, lease: OutboxLease) throws(StoreError) -> Bool {
        try locked { () throws(StoreError) -> Bool in
            guard let index = position(of: id), entries[index].state == .sending,
                entries[index].claimedBy == lease.owner
            else { return false }
            entries[index].leaseUntil = lease.expiry
            return true
        }
    }

    public func settle(
        _ id: Int64, lease: OutboxLease, state: OutboxState, notBefore: EpochInstant?, payload: Data?,
        lastError: String?,
        remoteID: String?, at time: EpochInstant, audit: Data
    ) throws(StoreError) -> Bool {
        try locked { () throws(StoreError) -> Bool in
            settle(
                id, lease: lease, state: state, notBefore: notBefore, payload: payload.map(Kept.bytes),
                lastError: lastError, remoteID: remoteID, at: time, audit: .bytes(audit))
        }
    }

    private func settle(
        _ id: Int64, lease: OutboxLease, state: OutboxState, notBefore: EpochInstant?, payload: Kept<PostIntent>?,
        lastError: String?, remoteID: String?, at time: EpochInstant, audit: Kept<AuditRecord>
    ) -> Bool {
        guard let index = position(of: id), entries[index].state == .sending, entries[index].claimedBy == lease.owner
        else { return false }
        var entry = entries[index]
        entry.state = state
        entry.notBefore = notBefore ?? entry.notBefore
        switch payload {
        case .bytes(let bytes):
            entry.payload = bytes
            intents[index] = nil
            unwritten.remove(index)
        case .value(let intent):
            intents[index] = intent
            unwritten.insert(index)
        case nil: break
        }
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

// MARK: - PostValueStore

extension InMemoryStore: PostValueStore {
    func saveAudit(_ record: AuditRecord, run: Int64, withdrawingAt time: EpochInstant?) throws(StoreError) -> Bool {
        try locked { () throws(StoreError) in
            saveUnsent(key: record.key, run: run, record: .value(record), withdrawingAt: time)
        }
    }

    func enqueue(
        _ intent: PostIntent, key: String, run: Int64, server: String? = nil, createdAt: EpochInstant,
        audit: AuditRecord
    ) throws(StoreError) -> Bool {
        try locked { () throws(StoreError) -> Bool in
            guard
                append(
                    key: key, run: run, network: intent.network.rawValue, server: server, createdAt: createdAt,
                    payload: Data(), audit: .value(audit))
            else { return false }
            intents[entries.count - 1] = intent
            unwritten.insert(entries.count - 1)
            return true
        }
    }

    func settle(
        _ id: Int64, lease: OutboxLease, state: OutboxState, notBefore: EpochInstant?, intent: PostIntent?,
        lastError: String?, remoteID: String?, at time: EpochInstant, audit: AuditRecord
    ) throws(StoreError) -> Bool {
        try locked { () throws(StoreError) -> Bool in
            settle(
                id, lease: lease, state: state, notBefore: notBefore, payload: intent.map(Kept.value),
                lastError: lastError, remoteID: remoteID, at: time, audit: .value(audit))
        }
    }

    func duePostsAsHeld(now: EpochInstant, limit: Int, run: Int64?, servers: OutboxServers? = nil) throws(StoreError)
        -> [OutboxEntry]
    {
        try locked { () throws(StoreError) in
            due(now: now, limit: limit, run: run, servers: servers).map { entries[$0] }
        }
    }

    func claimAsHeld(_ id: Int64, dueBy now: EpochInstant, lease: OutboxLease) throws(StoreError) -> OutboxEntry? {
        try locked { () throws(StoreError) -> OutboxEntry? in
            claimed(id, dueBy: now, lease: lease).map { entries[$0] }
        }
    }

    func intent(of entry: OutboxEntry) throws -> PostIntent {
        let kept = lock.withLock { position(of: entry.id).flatMap { intents[$0] } }
        return try kept ?? JSONDecoder().decode(PostIntent.self, from: entry.payload)
    }

    func auditValues(run: Int64) throws -> [AuditRecord] {
        try lock.withLock { audit.filter { $0.run == run }.map(\.record) }.map { kept in
            switch kept {
            case .value(let record): record
            case .bytes(let bytes): try AuditRecord(stored: bytes)
            }
        }
    }
}

/// A post or a record as it was handed to the store: JSON through the seams SQLite shares, or
/// the value from the engine, written as ``StoredJSON`` writes it when its bytes are asked for.
private enum Kept<Value: StoredJSON> {
    case bytes(Data)
    case value(Value)

    /// Values with a number JSON cannot hold never reach the store (the engine refuses them as
    /// it refuses them for SQLite), so the writing gives bytes.
    var bytes: Data {
        switch self {
        case .bytes(let bytes): bytes
        case .value(let value): value.storedJSON ?? Data()
        }
    }
}
