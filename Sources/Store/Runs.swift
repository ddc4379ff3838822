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
    /// The run named `name`, created when new, recorded by this process (`recorder`). An existing
    /// one is resumed — replayed again after Ctrl-C or a crash, or simply again: its `finishedAt`
    /// is cleared and its history (fixes and events) deleted, for the replay records it afresh
    /// from the start (appended, a second replay doubled it); its outbox and audit stay, so what
    /// was sent is not sent again. Another process's recording of the name that still lives is
    /// an error (``StoreError/inUse``), the store left as it was: two recordings at once each
    /// appended the whole history. The claim holds while this process lives (at most a day), or
    /// until ``completeRuns(named:)``.
    public func beginRun(name: String, track: String, at time: EpochInstant, dryRun: Bool = false) throws(StoreError)
        -> RunRecord
    {
        try beginRun(name: name, track: track, at: time, dryRun: dryRun, recorder: Self.recording)
    }

    /// ``beginRun(name:track:at:dryRun:)`` recorded by `recorder` (tests give one on a simulated clock).
    public func beginRun(
        name: String, track: String, at time: EpochInstant, dryRun: Bool, recorder: OutboxLease
    ) throws(StoreError) -> RunRecord {
        try transaction { db throws(StoreError) in
            if let earlier = try Self.runs(db, where: "name = ?", [.text(name)]).first {
                let reserved = try refuseAnotherRecording(of: name, db, recorder: recorder)
                for table in ["locations", "events"] {
                    try db.run("DELETE FROM \(table) WHERE run = ?", [.integer(earlier.id)])
                }
                // Recorded afresh now: the latest run, and a retention period's own — unless this
                // process reserved it (``reserveRuns(_:at:)``), which set its time and its place.
                try db.run(
                    "UPDATE runs SET started_at = ?, finished_at = NULL, recorder = ?, recording_until = ? WHERE id = ?",
                    [
                        SQLValue(reserved ? earlier.startedAt : time), .text(recorder.owner), SQLValue(recorder.expiry),
                        .integer(earlier.id),
                    ])
            } else {
                try db.run(
                    "INSERT INTO runs (name, track, started_at, dry_run, recorder, recording_until) "
                        + "VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        .text(name), .text(track), SQLValue(time), SQLValue(dryRun), .text(recorder.owner),
                        SQLValue(recorder.expiry),
                    ])
            }
            return try Self.runs(db, where: "name = ?", [.text(name)])[0]
        }
    }

    /// A recording's claim: this process's, for as long as a day.
    public static var recording: OutboxLease { OutboxLease(duration: .seconds(86_400)) }

    /// Throws when another process that still lives is recording the run `name` (its claim has
    /// not lapsed); this process's own recordings may go on. Returns whether this process holds
    /// the claim (it reserved the run).
    @discardableResult
    private func refuseAnotherRecording(of name: String, _ db: SQLiteConnection, recorder: OutboxLease)
        throws(StoreError) -> Bool
    {
        let claims = try db.rows(
            "SELECT recorder, recording_until FROM runs WHERE name = ? AND recorder IS NOT NULL", [.text(name)]
        ) { (owner: $0.text(0), until: $0.optionalInstant(1)) }
        guard let claim = claims.first else { return false }
        if recorder.isThisProcess(claim.owner) { return true }
        guard !recorder.hasLapsed(owner: claim.owner, leaseUntil: claim.until) else { return false }
        let pid = OutboxLease.processID(of: claim.owner).map { " (pid \($0))" } ?? ""
        throw StoreError(
            path: path,
            message: "the run '\(name)' is being recorded by another waypost\(pid); it is left as it is: "
                + "run again when that one ends, or give this one another --db",
            inUse: true)
    }

    /// Runs that will be recorded side by side, begun now in this order — each to replace any
    /// earlier run of its name — so that their order among the runs (and which is the latest)
    /// does not depend on which starts first. The earlier run stays the one ``run(named:)`` gives
    /// until ``completeRuns(named:)``: a recording cut short (Ctrl-C, a time budget, a kill) never
    /// takes a complete run's place. A replacement that never completed is dropped here — unless
    /// another recorder's claim on it holds (`recorder`: another process still recording it, as
    /// ``OutboxLease`` tells a live sender), which makes this an error and leaves the store as it
    /// was: two recordings of one name at once would each delete what the other wrote.
    public func reserveRuns(
        _ runs: [(name: String, track: String, dryRun: Bool)], at time: EpochInstant,
        recorder: OutboxLease = Store.recording
    ) throws(StoreError) {
        try transaction { db throws(StoreError) in
            for run in runs {
                // This process's own recording that ended without completing may be replaced.
                try refuseAnotherRecording(of: run.name, db, recorder: recorder)
                let replaced = Self.replacedName(run.name)
                if try Self.runs(db, where: "name = ?", [.text(replaced)]).isEmpty {
                    if let earlier = try Self.runs(db, where: "name = ?", [.text(run.name)]).first {
                        // Kept aside with its posts' keys, which the new run's posts will have too.
                        try db.run("UPDATE runs SET name = ? WHERE id = ?", [.text(replaced), .integer(earlier.id)])
                        for table in ["outbox", "audit"] {
                            try db.run(
                                "UPDATE \(table) SET key = key || ? WHERE run = ?",
                                [.text(Self.replacedSuffix), .integer(earlier.id)])
                        }
                    }
                } else {
                    try db.run("DELETE FROM runs WHERE name = ?", [.text(run.name)])
                }
                try db.run(
                    "INSERT INTO runs (name, track, started_at, dry_run, recorder, recording_until) "
                        + "VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        .text(run.name), .text(run.track), SQLValue(time), SQLValue(run.dryRun),
                        .text(recorder.owner), SQLValue(recorder.expiry),
                    ])
            }
        }
    }

    /// The named runs' recordings are complete: the runs they replace (``reserveRuns(_:at:)``)
    /// are deleted, with everything recorded under them.
    public func completeRuns(named names: [String]) throws(StoreError) {
        try transaction { db throws(StoreError) in
            for name in names {
                try db.run("DELETE FROM runs WHERE name = ?", [.text(Self.replacedName(name))])
                try db.run("UPDATE runs SET recorder = NULL, recording_until = NULL WHERE name = ?", [.text(name)])
            }
        }
    }

    /// Where a run being replaced is kept until its replacement is complete: its name and this,
    /// led by a control character (U+0001) that no sensible run name carries.
    static let replacedSuffix = "\u{1}replaced"

    static func replacedName(_ name: String) -> String { name + replacedSuffix }

    /// Deletes everything recorded under the run named `name` (history, outbox, audit), keeping
    /// the run itself and its place among the runs. A scenario starts this way, so running it
    /// again gives the same result.
    public func resetRun(named name: String) throws(StoreError) {
        try transaction { db throws(StoreError) in
            guard let run = try Self.runs(db, where: "name = ?", [.text(name)]).first else { return }
            // Its recorder's claim stays with it (``reserveRuns(_:at:recorder:)``).
            let claim = try db.rows("SELECT recorder, recording_until FROM runs WHERE id = ?", [.integer(run.id)]) {
                (owner: $0.optionalText(0), until: $0.optionalInstant(1))
            }.first
            try db.run("DELETE FROM runs WHERE id = ?", [.integer(run.id)])
            try db.run(
                "INSERT INTO runs (id, name, track, started_at, dry_run, recorder, recording_until) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    .integer(run.id), .text(run.name), .text(run.track), SQLValue(run.startedAt), SQLValue(run.dryRun),
                    SQLValue(claim?.owner), SQLValue(claim?.until),
                ])
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

    /// The runs begun (wall clock) at or after `time`, oldest first, kept ones included.
    public func runsRecorded(since time: EpochInstant) throws(StoreError) -> [RunRecord] {
        try locked { db throws(StoreError) in try Self.runs(db, where: "started_at >= ?", [SQLValue(time)]) }
    }

    /// The run named `name`, or the latest run when `name` is nil: while a scenario records a
    /// run anew (``reserveRuns(_:at:)``), the run it replaces, in its own place among the runs.
    public func run(named name: String?) throws(StoreError) -> RunRecord? {
        try locked { db throws(StoreError) in
            guard let name else {
                // Each name's visible run: the kept one where there is one, else the run itself.
                let suffix = SQLValue.text(Self.replacedSuffix)
                // The one recorded last (a run replayed again is recorded anew, under its first id).
                return try Self.runs(
                    db, where: "instr(name, ?) > 0 OR name || ? NOT IN (SELECT name FROM runs)", [suffix, suffix]
                ).max { ($0.startedAt, $0.id) < ($1.startedAt, $1.id) }
            }
            if let kept = try Self.runs(db, where: "name = ?", [.text(Self.replacedName(name))]).first { return kept }
            return try Self.runs(db, where: "name = ?", [.text(name)]).first
        }
    }

    /// The run named `name` as it is being recorded, not the one it replaces.
    public func runBeingRecorded(named name: String) throws(StoreError) -> RunRecord? {
        try locked { db throws(StoreError) in try Self.runs(db, where: "name = ?", [.text(name)]).first }
    }

    private static func runs(_ db: SQLiteConnection, where condition: String, _ values: [SQLValue]) throws(StoreError)
        -> [RunRecord]
    {
        try db.rows(
            "SELECT id, name, track, started_at, finished_at, dry_run FROM runs WHERE \(condition) ORDER BY id", values
        ) {
            // A kept run is shown under its own name.
            let name = $0.text(1)
            return RunRecord(
                id: Int64($0.int(0)),
                name: name.hasSuffix(replacedSuffix) ? String(name.dropLast(replacedSuffix.count)) : name,
                track: $0.text(2), startedAt: $0.instant(3), finishedAt: $0.optionalInstant(4), dryRun: $0.bool(5))
        }
    }
}
