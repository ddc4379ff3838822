import Foundation
import SimulatedTime
import Store

/// What the engine writes for a run: the world it saw, the history it kept, and each post — into
/// the outbox when it is to be sent, into the audit alone when it never will be.
///
/// The engine's seam to persistence: SQLite's ``Store/Store`` is the one implementation; unit
/// tests use an in-memory fake. Calls are synchronous and each is one transaction.
public protocol CheckinStore: AnyObject, Sendable {
    /// Where the store lives, to name it in errors.
    var path: String { get }
    func saveRegions(_ regions: [RegionRecord], run: Int64) throws(StoreError)
    func saveZones(_ zones: [ZoneRecord], run: Int64) throws(StoreError)
    func appendLocations(_ records: [LocationRecord], run: Int64) throws(StoreError)
    func appendEvents(_ events: [EventRecord], run: Int64) throws(StoreError)
    /// Writes (or replaces) the audit record of a post that never reaches the outbox; false,
    /// nothing written, when its key is in the outbox — unless it is pending and `withdrawingAt`
    /// is given: then it is withdrawn unsent (see ``Store/Store/saveAudit(key:run:record:withdrawingAt:)``);
    /// false too when the key has this record already.
    @discardableResult
    func saveAudit(key: String, run: Int64, record: Data, withdrawingAt time: EpochInstant?) throws(StoreError) -> Bool
    /// Writes a pending post, addressed to `server` (nil: the in-process emulator), and its audit
    /// record; false, and nothing written, when `key` exists.
    @discardableResult
    func enqueue(
        key: String, run: Int64, network: String, server: String?, createdAt: EpochInstant, payload: Data,
        audit: Data
    ) throws(StoreError) -> Bool
    /// The run's audit records, in the order the posts were first recorded.
    func auditRecords(run: Int64) throws(StoreError) -> [Data]
    /// The post pending under `key` and its audit record, as written; nil when none is.
    func pendingPost(key: String) throws(StoreError) -> (payload: Data, audit: Data)?
}

/// A store that keeps the engine's posts and audit records as the values they are — a run
/// nobody keeps (``InMemoryStore``): the engine and its delivery hand them over and read them
/// back without writing JSON or reading it, where any other store is handed the JSON
/// ``StoredJSON`` writes. What a value store holds reads back through the byte-level seams as the
/// same bytes (written when asked for), so the two kinds answer alike.
protocol PostValueStore: AnyObject {
    /// ``CheckinStore/saveAudit(key:run:record:withdrawingAt:)`` of a record.
    func saveAudit(_ record: AuditRecord, run: Int64, withdrawingAt time: EpochInstant?) throws(StoreError) -> Bool
    /// ``CheckinStore/enqueue(key:run:network:server:createdAt:payload:audit:)`` of a post and its record.
    func enqueue(
        _ intent: PostIntent, key: String, run: Int64, server: String?, createdAt: EpochInstant, audit: AuditRecord
    ) throws(StoreError) -> Bool
    /// ``OutboxStore/settle(_:lease:state:notBefore:payload:lastError:remoteID:at:audit:)`` with
    /// the post (nil: as it stands) and its record.
    func settle(
        _ id: Int64, lease: OutboxLease, state: OutboxState, notBefore: EpochInstant?, intent: PostIntent?,
        lastError: String?, remoteID: String?, at time: EpochInstant, audit: AuditRecord
    ) throws(StoreError) -> Bool
    /// ``OutboxStore/duePosts(now:limit:run:servers:)`` and ``OutboxStore/claim(_:lease:)`` for a
    /// reader of each post through ``intent(of:)``: a post handed over as a value is not written
    /// out for it (its payload left empty until another reader asks).
    func duePostsAsHeld(now: EpochInstant, limit: Int, run: Int64?, servers: OutboxServers?) throws(StoreError)
        -> [OutboxEntry]
    func claimAsHeld(_ id: Int64, dueBy now: EpochInstant, lease: OutboxLease) throws(StoreError) -> OutboxEntry?
    /// The post `entry` holds; decoded when it was written as bytes.
    func intent(of entry: OutboxEntry) throws -> PostIntent
    /// The run's audit records, in the order the posts were first recorded.
    func auditValues(run: Int64) throws -> [AuditRecord]
}

/// The durable outbox as ``OutboxDelivery`` works it: posts fall due, are claimed under a lease,
/// and are settled with their audit record — only while the lease still holds the claim.
public protocol OutboxStore: AnyObject, Sendable {
    /// A number that moves whenever anything is written: delivery skips a pass while it stands still.
    var changeCount: Int { get }
    /// Pending posts whose time has come, oldest first; only `run`'s when one is given, and only
    /// those addressed to `servers` when they are given (a sender's: ``OutboxServers``).
    func duePosts(now: EpochInstant, limit: Int, run: Int64?, servers: OutboxServers?) throws(StoreError)
        -> [OutboxEntry]
    /// When the earliest pending post (of `run`, addressed to `servers`, when given) falls due;
    /// nil when none is pending.
    func nextDueTime(run: Int64?, servers: OutboxServers?) throws(StoreError) -> EpochInstant?
    /// Takes a pending post due by `now` for `lease`; nil when another sender took it first or
    /// put it off past `now`.
    func claim(_ id: Int64, dueBy now: EpochInstant, lease: OutboxLease) throws(StoreError) -> OutboxEntry?
    /// Takes over the claims (of `run`, addressed to `servers`, when given) whose lease lapsed
    /// (their sender stalled or stopped): each is in doubt.
    func reclaimLapsed(lease: OutboxLease, run: Int64?, servers: OutboxServers?) throws(StoreError) -> [OutboxEntry]
    /// Extends every claim `lease` holds.
    func renewClaims(_ lease: OutboxLease) throws(StoreError)
    /// Whether a post other than `entry`, of its network and server, is recorded as the post
    /// `remoteID`: a post in doubt is never "found" as one an earlier post already is (the same
    /// text at the same place, on a route travelled again). An in-process emulator's posts count
    /// only within the run, each run's emulator being its own.
    func recordsRemoteID(_ remoteID: String, apartFrom entry: OutboxEntry) throws(StoreError) -> Bool
    /// Extends `lease`'s claim on one post, just before its request goes out; false when the claim
    /// is no longer this lease's (it stalled past the lease, and another sender took the post).
    func renewClaim(_ id: Int64, lease: OutboxLease) throws(StoreError) -> Bool
    /// Whether another sender may take this store's claims once they lapse (another process on
    /// the same file): a pass then renews its claims while it works. False for a store only this
    /// process holds, whose claims nobody else can take. Default: true.
    var sharesClaims: Bool { get }
    /// Records a post's outcome with its audit record; false, and nothing written, when `lease`
    /// no longer holds the claim. Nil values leave the stored ones as they are.
    @discardableResult
    func settle(
        _ id: Int64, lease: OutboxLease, state: OutboxState, notBefore: EpochInstant?, payload: Data?,
        lastError: String?,
        remoteID: String?, at time: EpochInstant, audit: Data
    ) throws(StoreError) -> Bool
}

extension OutboxStore {
    public var sharesClaims: Bool { true }

    /// Settles a post with nothing to change but its state and error.
    @discardableResult
    public func settle(
        _ id: Int64, lease: OutboxLease, state: OutboxState, lastError: String?, at time: EpochInstant, audit: Data
    ) throws(StoreError) -> Bool {
        try settle(
            id, lease: lease, state: state, notBefore: nil, payload: nil, lastError: lastError, remoteID: nil,
            at: time, audit: audit)
    }
}

extension Store: CheckinStore, OutboxStore {}
