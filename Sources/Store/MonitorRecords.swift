import SimulatedTime

/// One `CLMonitor` record as the store keeps it: the simulation writes and reads `record` (JSON);
/// the store only keeps it by device, monitor and identifier.
public struct StoredMonitorRecord: Sendable, Equatable {
    public var identifier: String
    /// Virtual time of the record's last event (retention and purges go by it).
    public var time: EpochInstant
    public var record: String

    public init(identifier: String, time: EpochInstant, record: String) {
        self.identifier = identifier
        self.time = time
        self.record = record
    }
}

extension Store {
    /// The records of the monitor named `monitor` on `device` (nil: a run's only device), in the
    /// order their conditions were added.
    public func monitorRecords(monitor: String, device: String?) throws(StoreError) -> [StoredMonitorRecord] {
        try locked { db throws(StoreError) in
            try db.rows(
                "SELECT identifier, time, record FROM monitor_records WHERE device = ? AND monitor = ? "
                    + "ORDER BY position",
                [.text(device ?? ""), .text(monitor)]
            ) { StoredMonitorRecord(identifier: $0.text(0), time: $0.instant(1), record: $0.text(2)) }
        }
    }

    /// Replaces the monitor's records with `records`, in one transaction.
    public func saveMonitorRecords(_ records: [StoredMonitorRecord], monitor: String, device: String?)
        throws(StoreError)
    {
        try transaction { db throws(StoreError) in
            try db.run(
                "DELETE FROM monitor_records WHERE device = ? AND monitor = ?", [.text(device ?? ""), .text(monitor)])
            for (position, record) in records.enumerated() {
                try db.run(
                    "INSERT INTO monitor_records (device, monitor, identifier, position, time, record) "
                        + "VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        .text(device ?? ""), .text(monitor), .text(record.identifier), .integer(Int64(position)),
                        SQLValue(record.time), .text(record.record),
                    ])
            }
        }
    }
}
