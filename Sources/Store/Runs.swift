import SimulatedTime

/// One replay, by name: a second run with the same name resumes it.
public struct RunRecord: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var track: String
    /// On the wall clock.
    public var startedAt: EpochInstant
    public var finishedAt: EpochInstant?
    public var dryRun: Bool

    package init(
        id: Int64, name: String, track: String, startedAt: EpochInstant, finishedAt: EpochInstant?, dryRun: Bool
    ) {
        (self.id, self.name, self.track, self.startedAt, self.finishedAt, self.dryRun) = (
            id, name, track, startedAt, finishedAt, dryRun
        )
    }
}

extension Store {
    /// The run named `name`, created when new; an existing one is resumed (its `finishedAt` cleared).
    public func beginRun(name: String, track: String, at time: EpochInstant, dryRun: Bool = false) throws(StoreError)
        -> RunRecord
    {
        try transaction { db throws(StoreError) in
            try db.run(
                "INSERT INTO runs (name, track, started_at, dry_run) VALUES (?, ?, ?, ?) "
                    + "ON CONFLICT(name) DO UPDATE SET finished_at = NULL",
                [.text(name), .text(track), SQLValue(time), SQLValue(dryRun)])
            return try Self.runs(db, where: "name = ?", [.text(name)])[0]
        }
    }

    /// Runs that will be recorded side by side, begun now in this order — each replacing any
    /// earlier run of its name — so that their order among the runs (and which is the latest)
    /// does not depend on which starts first.
    public func reserveRuns(_ runs: [(name: String, track: String, dryRun: Bool)], at time: EpochInstant)
        throws(StoreError)
    {
        try transaction { db throws(StoreError) in
            for run in runs {
                try db.run("DELETE FROM runs WHERE name = ?", [.text(run.name)])
                try db.run(
                    "INSERT INTO runs (name, track, started_at, dry_run) VALUES (?, ?, ?, ?)",
                    [.text(run.name), .text(run.track), SQLValue(time), SQLValue(run.dryRun)])
            }
        }
    }

    /// Deletes everything recorded under the run named `name` (history, outbox, audit), keeping
    /// the run itself and its place among the runs. A scenario starts this way, so running it
    /// again gives the same result.
    public func resetRun(named name: String) throws(StoreError) {
        try transaction { db throws(StoreError) in
            guard let run = try Self.runs(db, where: "name = ?", [.text(name)]).first else { return }
            try db.run("DELETE FROM runs WHERE id = ?", [.integer(run.id)])
            try db.run(
                "INSERT INTO runs (id, name, track, started_at, dry_run) VALUES (?, ?, ?, ?, ?)",
                [.integer(run.id), .text(run.name), .text(run.track), SQLValue(run.startedAt), SQLValue(run.dryRun)])
        }
    }

    /// Every run and everything recorded with it deleted, the monitor records and settings too:
    /// the store as it was made, for another run to use (``RunResources`` hands temporary stores on).
    public func clear() throws(StoreError) {
        try transaction { db throws(StoreError) in
            for table in ["runs", "monitor_records", "settings"] { try db.run("DELETE FROM \(table)", []) }
        }
    }

    public func finishRun(_ id: Int64, at time: EpochInstant) throws(StoreError) {
        try locked { db throws(StoreError) in
            try db.run("UPDATE runs SET finished_at = ? WHERE id = ?", [SQLValue(time), .integer(id)])
        }
    }

    /// The runs begun (wall clock) at or after `time`, oldest first.
    public func runsRecorded(since time: EpochInstant) throws(StoreError) -> [RunRecord] {
        try locked { db throws(StoreError) in try Self.runs(db, where: "started_at >= ?", [SQLValue(time)]) }
    }

    /// The run named `name`, or the latest run when `name` is nil.
    public func run(named name: String?) throws(StoreError) -> RunRecord? {
        try locked { db throws(StoreError) in
            if let name { return try Self.runs(db, where: "name = ?", [.text(name)]).first }
            return try Self.runs(db, where: "1", []).last
        }
    }

    private static func runs(_ db: SQLiteConnection, where condition: String, _ values: [SQLValue]) throws(StoreError)
        -> [RunRecord]
    {
        try db.rows(
            "SELECT id, name, track, started_at, finished_at, dry_run FROM runs WHERE \(condition) ORDER BY id", values
        ) {
            RunRecord(
                id: Int64($0.int(0)), name: $0.text(1), track: $0.text(2), startedAt: $0.instant(3),
                finishedAt: $0.optionalInstant(4), dryRun: $0.bool(5))
        }
    }
}
