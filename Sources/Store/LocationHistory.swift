import Foundation
import SimulatedTime

/// A location fix kept in the history.
public struct LocationRecord: Sendable, Equatable {
    public var time: EpochInstant
    public var device: String?
    public var latitude: Double
    public var longitude: Double
    public var horizontalAccuracy: Double
    /// `standard` or `significantChange`.
    public var service: String

    public init(
        time: EpochInstant, device: String? = nil, latitude: Double, longitude: Double, horizontalAccuracy: Double,
        service: String
    ) {
        self.time = time
        self.device = device
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.service = service
    }
}

/// What a purge took: history records deleted, and posts whose audit no longer says where the
/// device was.
public struct PurgeCount: Sendable, Equatable {
    /// Fixes, events, monitor records and privacy zones deleted.
    public var records = 0
    /// Audit records that forgot the device's position.
    public var posts = 0

    public init(records: Int = 0, posts: Int = 0) {
        (self.records, self.posts) = (records, posts)
    }
}

/// The location history: what the user can destroy (`waypost history purge`) and how long it
/// is kept (`waypost history retention`).
extension Store {
    public func appendLocations(_ records: [LocationRecord], run: Int64) throws(StoreError) {
        guard !records.isEmpty else { return }
        try transaction { db throws(StoreError) in
            for r in records {
                try db.run(
                    "INSERT INTO locations (run, time, device, latitude, longitude, horizontal_accuracy, service) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        .integer(run), SQLValue(r.time), SQLValue(r.device), .real(r.latitude), .real(r.longitude),
                        .real(r.horizontalAccuracy), .text(r.service),
                    ])
            }
        }
    }

    /// Fixes of one run, or of all runs, in time order.
    public func locations(run: Int64? = nil) throws(StoreError) -> [LocationRecord] {
        try locked { db throws(StoreError) in
            try db.rows(
                "SELECT time, device, latitude, longitude, horizontal_accuracy, service FROM locations "
                    + (run == nil ? "" : "WHERE run = ? ") + "ORDER BY time, rowid",
                run.map { [.integer($0)] } ?? []
            ) {
                LocationRecord(
                    time: $0.instant(0), device: $0.optionalText(1), latitude: $0.double(2), longitude: $0.double(3),
                    horizontalAccuracy: $0.double(4), service: $0.text(5))
            }
        }
    }

    /// Deletes fixes, events and monitor records older than `time` (all of them when nil), and the
    /// privacy zones of runs left with no history; and makes the posts of that time forget where
    /// the device was, keeping what went out on the wire. With `recorded`, only the fixes, events,
    /// zones and posts of runs recorded before it (a retention period's own runs are kept for it,
    /// whatever their route's times).
    ///
    /// A post's audit record is the engine's JSON, which the store cannot read: `forgetPosition`
    /// is given each record with the cut and returns it without the device's position, or nil to
    /// keep it as it is (a post still queued needs its position to be sent). The payload of a
    /// settled outbox post from before the cut is emptied: nothing reads it again, and it holds
    /// the position too. One transaction: a purge is whole or not at all. A store file overwrites
    /// what it deletes (`secure_delete`), and the purge ends with a checkpoint that empties the
    /// write-ahead log, so the destroyed records are not left readable in the file's free pages or
    /// in old log frames (while another process holds the store open, its log empties when the
    /// last connection closes).
    @discardableResult
    public func purgeLocations(
        before instant: EpochInstant?, ofRunsRecordedBefore recorded: EpochInstant? = nil,
        forgettingPostPositions forgetPosition: (Data, EpochInstant?) -> Data?
    ) throws(StoreError) -> PurgeCount {
        // Every run when `recorded` is nil (NULL compares false, so nothing is spared).
        let spared = "run NOT IN (SELECT id FROM runs WHERE started_at >= ?)"
        let recordedAt = SQLValue(recorded)
        let count = try transaction { db throws(StoreError) in
            var count = PurgeCount()
            if let time = instant?.secondsSince1970 {
                count.records =
                    try db.run("DELETE FROM locations WHERE time < ? AND \(spared)", [.real(time), recordedAt])
                    + db.run("DELETE FROM events WHERE time < ? AND \(spared)", [.real(time), recordedAt])
                    // The app's records, which belong to no run, by their own time.
                    + db.run("DELETE FROM monitor_records WHERE time < ?", [.real(time)])
                    // A run's zones go with the last of its history.
                    + db.run(
                        "DELETE FROM zones WHERE run NOT IN (SELECT run FROM locations UNION SELECT run FROM events)")
            } else {
                count.records =
                    try db.run("DELETE FROM locations") + db.run("DELETE FROM events")
                    + db.run("DELETE FROM monitor_records") + db.run("DELETE FROM zones")
            }
            let records = try db.rows(
                "SELECT key, record FROM audit WHERE \(spared) ORDER BY run, sequence", [recordedAt]
            ) {
                ($0.text(0), Data($0.text(1).utf8))
            }
            for (key, record) in records {
                guard let forgotten = forgetPosition(record, instant) else { continue }
                count.posts += try db.run(
                    "UPDATE audit SET record = ? WHERE key = ?",
                    [.text(String(decoding: forgotten, as: UTF8.self)), .text(key)])
            }
            try db.run(
                "UPDATE outbox SET payload = '{}' WHERE state IN ('sent', 'failed', 'expired') AND payload != '{}' "
                    + "AND (? IS NULL OR created_at < ?) AND \(spared)",
                [SQLValue(instant), SQLValue(instant), recordedAt])
            return count
        }
        try locked { db throws(StoreError) in try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        return count
    }

    /// How many of a run's fixes happened before `time`.
    public func locationCount(run: Int64, before instant: EpochInstant) throws(StoreError) -> Int {
        try locked { db throws(StoreError) in
            var count = 0
            try db.query(
                "SELECT COUNT(*) FROM locations WHERE run = ? AND time < ?", [.integer(run), SQLValue(instant)]
            ) {
                count = $0.int(0)
            }
            return count
        }
    }

    /// How long fixes are kept; nil keeps them until purged.
    public func retention() throws(StoreError) -> Duration? {
        try retentionSeconds().map { .seconds($0) }
    }

    /// The retention as stored: seconds, in text.
    private func retentionSeconds() throws(StoreError) -> Double? {
        try locked { db throws(StoreError) in
            var value: Double?
            try db.query("SELECT value FROM settings WHERE key = 'retention'") { value = Double($0.text(0)) }
            return value
        }
    }

    public func setRetention(_ duration: Duration?) throws(StoreError) {
        try locked { db throws(StoreError) in
            if let seconds = duration?.inSeconds {
                try db.run(
                    "INSERT INTO settings (key, value) VALUES ('retention', ?) "
                        + "ON CONFLICT(key) DO UPDATE SET value = excluded.value", [.text(String(seconds))])
            } else {
                try db.run("DELETE FROM settings WHERE key = 'retention'")
            }
        }
    }

    /// Applies the retention period at `now`: purges what is older (see
    /// ``purgeLocations(before:ofRunsRecordedBefore:forgettingPostPositions:)``) of runs recorded
    /// longer ago than the period — a route from last year replayed a minute ago is kept for the
    /// period, as setting it refuses to delete it without `--force` — or of every run when
    /// `sparingNone` (that `--force`); returns how much went.
    @discardableResult
    public func applyRetention(
        now: EpochInstant, sparingNone: Bool = false,
        forgettingPostPositions forgetPosition: (Data, EpochInstant?) -> Data?
    ) throws(StoreError) -> PurgeCount {
        guard let keep = try retentionSeconds() else { return PurgeCount() }
        let cutoff = now.advanced(bySeconds: -keep)
        return try purgeLocations(
            before: cutoff, ofRunsRecordedBefore: sparingNone ? nil : cutoff, forgettingPostPositions: forgetPosition)
    }
}
