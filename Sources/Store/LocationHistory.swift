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
    /// privacy zones of runs left with no history;
    /// returns how many records went.
    @discardableResult
    public func purgeLocations(before instant: EpochInstant?) throws(StoreError) -> Int {
        try transaction { db throws(StoreError) in
            guard let time = instant?.secondsSince1970 else {
                return try db.run("DELETE FROM locations") + db.run("DELETE FROM events")
                    + db.run("DELETE FROM monitor_records") + db.run("DELETE FROM zones")
            }
            return try db.run("DELETE FROM locations WHERE time < ?", [.real(time)])
                + db.run("DELETE FROM events WHERE time < ?", [.real(time)])
                + db.run("DELETE FROM monitor_records WHERE time < ?", [.real(time)])
                // A run's zones go with the last of its history.
                + db.run(
                    "DELETE FROM zones WHERE run NOT IN (SELECT run FROM locations UNION SELECT run FROM events)")
        }
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

    /// Applies the retention period at `now`: deletes what is older; returns how many went.
    @discardableResult
    public func applyRetention(now: EpochInstant) throws(StoreError) -> Int {
        guard let keep = try retentionSeconds() else { return 0 }
        return try purgeLocations(before: now.advanced(bySeconds: -keep))
    }
}
