import CSQLite
import Foundation

/// The database file as the user's: what Waypost may open, create or change at a path.
///
/// A store opens only a file it made or one that is already a Waypost store. Everything that
/// decides this runs before anything is written — the WAL switch and the first migration
/// included — so a refused file is left exactly as it was.
enum StoreFile {
    /// Written into every store's header (`PRAGMA application_id`, "WPST"), so a Waypost store
    /// is told from other SQLite files without guessing from its tables.
    static let applicationID: Int32 = 0x5750_5354

    /// Tables Waypost's migrations create; stores written before the application id existed
    /// are recognised by holding nothing else.
    static let tables: Set<String> = [
        "runs", "locations", "settings", "outbox", "audit", "regions", "events", "monitor_records", "zones",
        "trial_expectations", "trial_times",
    ]

    /// Makes sure `path` is a file Waypost may open: creates it (0600) when missing, refuses a
    /// dangling symbolic link, a non-regular file, and an empty file that Waypost cannot have
    /// made (reached through a link, readable by others, or someone else's).
    static func prepare(_ path: String) throws(StoreError) {
        var link = stat()
        guard lstat(path, &link) == 0 else {
            guard errno == ENOENT else { throw StoreError(path: path, message: "cannot open: \(errnoText())") }
            // O_NOFOLLOW|O_EXCL: a link put here in the meantime is not followed into a new file.
            let created = open(path, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0o600)
            if created >= 0 {
                close(created)
                return
            }
            guard errno == EEXIST else { throw StoreError(path: path, message: "cannot create: \(errnoText())") }
            return try prepare(path)  // another process created it first: check it as found
        }
        let isLink = link.st_mode & S_IFMT == S_IFLNK
        var file = link
        if isLink {
            guard stat(path, &file) == 0 else {
                throw StoreError(
                    path: path,
                    message:
                        "is a symbolic link to a missing file; waypost does not create a database through a link (remove the link, or point it at an existing store)"
                )
            }
        }
        guard file.st_mode & S_IFMT == S_IFREG else { throw notRegular(path) }
        // An empty file is a new store only when it is the kind Waypost creates: its own, private,
        // reached directly (left by a process that stopped before writing the first page).
        if file.st_size == 0 && (isLink || file.st_mode & 0o077 != 0 || file.st_uid != geteuid()) {
            throw StoreError(
                path: path,
                message:
                    "is an empty file waypost did not create\(isLink ? " (reached through a symbolic link)" : ""); it is left untouched — remove it to start a new store there"
            )
        }
    }

    /// Makes sure the existing `path` (through links) is a regular file before SQLite opens it to
    /// read: a FIFO held the open forever, a directory was "disk I/O error" (a black-box hunt).
    static func checkExisting(_ path: String) throws(StoreError) {
        var file = stat()
        guard stat(path, &file) == 0 else { throw StoreError(path: path, message: "cannot open: \(errnoText())") }
        guard file.st_mode & S_IFMT == S_IFREG else { throw notRegular(path) }
    }

    private static func notRegular(_ path: String) -> StoreError {
        StoreError(path: path, message: "is not a regular file, so not a Waypost store")
    }

    /// What the file holds, read before anything is written.
    struct Identity {
        var applicationID: Int32
        var userVersion: Int
        var tables: Set<String>

        /// Holds nothing yet: a file Waypost just created, or an empty database.
        var isEmpty: Bool { applicationID == 0 && userVersion == 0 && tables.isEmpty }

        /// Why this file is not a store this build may open, or nil when it is.
        func refusal(understanding version: Int) -> String? {
            if isEmpty { return nil }
            let foreign = tables.subtracting(StoreFile.tables).sorted()
            let ours =
                applicationID == StoreFile.applicationID
                || (applicationID == 0 && userVersion > 0 && tables.contains("runs") && tables.contains("outbox"))
            guard ours, foreign.isEmpty else {
                var found = "application_id \(applicationID), user_version \(userVersion)"
                if !tables.isEmpty {
                    let listed = tables.sorted().prefix(6).joined(separator: ", ")
                    found += ", tables \(listed)\(tables.count > 6 ? ", …" : "")"
                }
                return "is an SQLite database but not a Waypost store (\(found)); it is left untouched"
            }
            guard userVersion <= version else {
                return
                    "schema version \(userVersion) is newer than this waypost understands (\(version)); it is left untouched"
            }
            return nil
        }
    }

    static func identity(_ db: SQLiteConnection) throws(StoreError) -> Identity {
        var identity = Identity(applicationID: 0, userVersion: 0, tables: [])
        // One statement, so one read transaction: read apart, another process's first migration
        // could commit between them and show its tables without its application id.
        let snapshot = """
            SELECT 0, application_id FROM pragma_application_id
            UNION ALL SELECT 1, user_version FROM pragma_user_version
            UNION ALL SELECT 2, name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
            """
        try db.query(snapshot) { row in
            switch row.int(0) {
            case 0: identity.applicationID = Int32(truncatingIfNeeded: row.int(1))
            case 1: identity.userVersion = row.int(1)
            default: identity.tables.insert(row.text(1))
            }
        }
        return identity
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
