import Foundation
import Geo
import SimulatedTime

/// What became of a post.
public enum PostDecision: String, Sendable, Codable, CaseIterable {
    /// Sent, and the network accepted it.
    case posted
    /// In the outbox, waiting to be sent or retried.
    case queued
    /// A gate stopped it; nothing was sent.
    case blocked
    /// Its maximum age passed before it could be sent; nothing was sent.
    case expired
    /// The network refused it for good, or the attempts ran out.
    case failed
    /// `--dry-run`: evaluated, never sent.
    case dryRun
    /// Sent, but the answer was lost and the network could not be asked whether it arrived: it
    /// may be there. Never reported as failed, which would be untrue if it is.
    case inDoubt
}

/// The audit of one post: when, why, where, what it carried on the wire, and each gate's verdict.
public struct AuditRecord: Sendable, Codable, Equatable {
    /// The post's idempotency key.
    public var key: String
    /// Virtual time of the triggering event; for an outbox entry that could
    /// not be read (``isUnreadableEntry``), when it was queued.
    public var time: EpochInstant
    public var device: String?
    /// What fired the rule; nil only when the outbox entry could not be read.
    public var trigger: Trigger?
    public var region: String?
    /// Where the device was when the event fired; nil when the outbox entry could not be read, or
    /// once `history purge` (or retention) forgot it.
    public var latitude: Double?
    public var longitude: Double?
    /// The rule's id; nil only when the outbox entry could not be read.
    public var rule: String?
    public var network: Network
    public var placeID: String?
    public var placeName: String?
    public var decision: PostDecision
    /// Whether any location field went out with the post.
    public var carriesLocation: Bool
    /// The precision the post was decided at by the gates so far: a dry run's and a queued post's
    /// too, though nothing went. What went out is ``carriesLocation`` (and ``wireFields``): the
    /// audit's table and CSV and the event stream's post lines say `none` where nothing did, and
    /// the JSON audit, this record whole, keeps both.
    public var precision: Precision
    /// The location fields of the request as sent (`lat`, `long`, `place_id`, `display_coordinates`,
    /// `place`, `coordinates`), empty when none.
    public var wireFields: [String: String]
    /// The location the place lookup sent (`lat`/`long` to Twitter, `center` to Graph), empty when none.
    public var lookupFields: [String: String]
    public var gates: [GateVerdict]
    public var message: String?
    /// Why it ended as it did, in words (the error, the gate).
    public var detail: String?
    public var attempts: Int
    /// The network's id for the post, once posted.
    public var remoteID: String?
    /// Who could see the post once it went out (nil: it did not go out, so nobody): Twitter's
    /// audience follows the account's `protected` flag, Graph's the `privacy` sent with it.
    public var audience: Audience?
}

extension AuditRecord {
    /// The audit of an outbox entry this version of waypost cannot read (written by another
    /// version, or damaged): it failed unsent, and nothing is known of it but what the outbox row
    /// says — no trigger, coordinates, rule or gates are made up.
    public static func unreadableEntry(
        key: String, queuedAt time: EpochInstant, network: Network, detail: String, attempts: Int
    ) -> AuditRecord {
        AuditRecord(
            key: key, time: time, trigger: nil, latitude: nil, longitude: nil, rule: nil, network: network,
            decision: .failed, carriesLocation: false, precision: .none, wireFields: [:], lookupFields: [:],
            gates: [], detail: detail, attempts: attempts)
    }

    /// Whether this records an outbox entry that could not be read (see
    /// ``unreadableEntry(key:queuedAt:network:detail:attempts:)``).
    public var isUnreadableEntry: Bool { rule == nil && trigger == nil }

    /// Where the device was when the event fired; nil when the outbox entry could not be read, or
    /// once a purge forgot it.
    public var coordinate: Coordinate? {
        guard let latitude, let longitude else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    /// For `waypost history purge` and retention (``Store/purgeLocations(before:ofRunsRecordedBefore:forgettingPostPositions:)``):
    /// the stored record `data` without where the device was, when its post is settled and its
    /// time before `cut` (any time when nil); nil when it keeps its position — a queued post's
    /// record is written again from its outbox entry when it is sent, and an unreadable record has
    /// nothing to forget. What went out on the wire (``wireFields``, ``lookupFields``) stays: it
    /// is the disclosure the audit exists to show, and the network has it.
    public static func forgettingPosition(stored data: Data, before cut: EpochInstant?) -> Data? {
        guard var record = try? AuditRecord(stored: data), record.decision != .queued,
            record.latitude != nil || record.longitude != nil,
            cut.map({ record.time < $0 }) ?? true
        else { return nil }
        (record.latitude, record.longitude) = (nil, nil)
        return record.storedJSON
    }

    /// Reads a record as the store keeps it (``Store/auditRecords(run:)``).
    public init(stored data: Data) throws {
        self = try JSONDecoder().decode(AuditRecord.self, from: data)
    }
}

extension AuditRecord {
    /// This record of a post withdrawn unsent under stricter choices (its gates and reason),
    /// keeping what its earlier attempts already sent: "What went out on the wire stays in the
    /// audit" (docs/checkins-and-privacy.md) — the lookups' and the attempts' fields. A post one
    /// of whose answers was lost may have landed: it is in doubt, as a post that ends unsent after
    /// a lost answer is (``OutboxDelivery``), with the fields of the request that may have landed.
    func withdrawing(_ post: PostIntent, previous: AuditRecord) -> AuditRecord {
        var record = self
        if let lost = post.lostAnswer {
            record = post.audit(
                key: key, decision: .inDoubt, wireFields: post.sentWireFields ?? previous.wireFields,
                detail: "\(detail ?? "withdrawn"); \(lost): it may have arrived, and is not sent again",
                attempts: previous.attempts)
            record.gates = gates
        } else {
            record.wireFields = previous.wireFields
            record.carriesLocation = previous.carriesLocation
        }
        record.lookupFields = previous.lookupFields
        record.attempts = previous.attempts
        return record
    }
}
