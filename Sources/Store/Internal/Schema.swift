/// The schema as an ordered list of migrations; `PRAGMA user_version` counts those applied.
/// Append, never edit: a database written by an earlier build migrates forward from its version.
enum Schema {
    static let migrations = [
        """
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            track TEXT NOT NULL,
            started_at REAL NOT NULL,
            finished_at REAL,
            dry_run INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE locations (
            run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            time REAL NOT NULL,
            device TEXT,
            latitude REAL NOT NULL,
            longitude REAL NOT NULL,
            horizontal_accuracy REAL NOT NULL,
            service TEXT NOT NULL
        );
        CREATE INDEX locations_by_time ON locations(time);
        CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE outbox (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,
            run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            network TEXT NOT NULL,
            state TEXT NOT NULL,
            created_at REAL NOT NULL,
            not_before REAL NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            payload TEXT NOT NULL,
            last_error TEXT,
            remote_id TEXT,
            finished_at REAL
        );
        CREATE INDEX outbox_due ON outbox(state, not_before);
        CREATE TABLE audit (
            key TEXT PRIMARY KEY,
            run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            sequence INTEGER NOT NULL,
            record TEXT NOT NULL
        );
        CREATE INDEX audit_by_run ON audit(run, sequence);
        """,
        // 2: what a report draws besides fixes and posts — the regions a run monitored and its
        // events (enter, exit, failures, authorization). Events locate the user, so they are
        // history: purged and expired with the fixes.
        """
        CREATE TABLE regions (
            run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            identifier TEXT NOT NULL,
            latitude REAL NOT NULL,
            longitude REAL NOT NULL,
            radius REAL NOT NULL,
            UNIQUE (run, identifier)
        );
        CREATE TABLE events (
            run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            time REAL NOT NULL,
            device TEXT,
            type TEXT NOT NULL,
            region TEXT,
            latitude REAL,
            longitude REAL,
            detail TEXT
        );
        CREATE INDEX events_by_time ON events(time);
        """,
        // 3: the app's `CLMonitor` records, kept by monitor name between runs as iOS keeps them
        // between launches. A record names a place and whether the user was there: history,
        // purged and expired with the fixes (by its last event's time).
        """
        CREATE TABLE monitor_records (
            device TEXT NOT NULL,
            monitor TEXT NOT NULL,
            identifier TEXT NOT NULL,
            position INTEGER NOT NULL,
            time REAL NOT NULL,
            record TEXT NOT NULL,
            PRIMARY KEY (device, monitor, identifier)
        );
        """,
        // 4: the privacy zones a run's profile held, so its map shows where nothing located the
        // user. A zone is often a home: kept only while the run's history is.
        """
        CREATE TABLE zones (
            run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            latitude REAL NOT NULL,
            longitude REAL NOT NULL,
            radius REAL NOT NULL,
            UNIQUE (run, name)
        );
        """,
        // 5: a post being sent names its sender and how long its claim holds (wall clock), so
        // processes sharing a store never take a live claim for a crash leftover.
        """
        ALTER TABLE outbox ADD COLUMN claimed_by TEXT;
        ALTER TABLE outbox ADD COLUMN lease_until REAL;
        """,
        // 6: a trials run's verdict beside its exact run, so the run's map shows, per
        // expectation, when its event or post came across the trials.
        """
        CREATE TABLE trial_expectations (
            run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            description TEXT NOT NULL,
            verdict TEXT NOT NULL,
            passed INTEGER NOT NULL,
            exact REAL,
            PRIMARY KEY (run, position)
        );
        CREATE TABLE trial_times (
            run INTEGER NOT NULL,
            position INTEGER NOT NULL,
            trial INTEGER NOT NULL,
            seconds REAL,
            PRIMARY KEY (run, position, trial),
            FOREIGN KEY (run, position) REFERENCES trial_expectations(run, position) ON DELETE CASCADE
        );
        """,
        // 7: a run being recorded names its recorder and how long its claim holds (wall clock),
        // so a second recording of the same name never replaces one still going.
        """
        ALTER TABLE runs ADD COLUMN recorder TEXT;
        ALTER TABLE runs ADD COLUMN recording_until REAL;
        """,
        // 8: the server a post is addressed to (its network's base URL as the run was given it;
        // NULL: the in-process emulator), so it is delivered there and nowhere else — a flush
        // given no base URL sent posts queued for a real server to the emulator, marked sent.
        """
        ALTER TABLE outbox ADD COLUMN server TEXT;
        """,
    ]
}
