import CSQLite
import Foundation

/// Why the store could not do what was asked: the database file and sqlite's reason.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String
    /// Another process holds what was asked for (a run it is recording): the store is fine, and
    /// the same call may succeed once that process ends (sysexits' "service unavailable").
    public var inUse: Bool
    /// A store opened for reading only was written by an older Waypost, or is empty: opened to be
    /// written, it would be brought up to date (``Store/init(readingAt:)``).
    public var needsUpgrade: Bool

    public init(path: String, message: String, inUse: Bool = false, needsUpgrade: Bool = false) {
        self.path = path
        self.message = message
        self.inUse = inUse
        self.needsUpgrade = needsUpgrade
    }

    public var description: String { "\(path): \(message)" }
}

/// Waypost's SQLite database: runs, location history, the outbox and the audit.
///
/// One file per user-chosen path, in WAL mode, with a schema version kept in
/// `PRAGMA user_version` and migrated forward on open. Every method is one transaction; a
/// process killed at any moment leaves the file as of the last committed call.
///
/// ```swift
/// let store = try Store(path: ".waypost/waypost.db")
/// let run = try store.beginRun(name: "commute", track: "tracks/sunnyvale-commute.kml", at: WallClock().now)
/// try store.purgeLocations(before: WallClock().now.advanced(by: .seconds(-7 * 86_400))) { record, cut in
///     nil  // the engine's AuditRecord.forgettingPosition(stored:before:) forgets where the device was
/// }
/// ```
public final class Store: @unchecked Sendable {
    // A connection is not thread-safe; every call holds the lock for its whole transaction.
    private let lock = NSLock()
    private let connection: SQLiteConnection
    public let path: String

    /// Opens (creating when missing) the database at `path`, creating its directory too.
    ///
    /// Only a Waypost store, or a file this call creates, is opened: a dangling symbolic link, an
    /// empty file Waypost did not make, another program's SQLite file and a newer schema are
    /// refused before anything is written to them.
    public convenience init(path: String) throws(StoreError) {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError(path: path, message: "cannot create \(directory.path): \(error.localizedDescription)")
        }
        try StoreFile.prepare(path)
        let connection = try SQLiteConnection(path: path)
        _ = try Self.identity(connection, path: path)  // before the WAL switch, which rewrites the header
        try connection.enableWriteAheadLog()
        // What a user deletes (`history purge`, retention) is overwritten, not left in free pages.
        try connection.execute("PRAGMA secure_delete = ON")
        try self.init(connection, path: path)
    }

    /// Opens the existing store at `path` for reading only: nothing is written to it, so it
    /// may be another user's or lie in a directory that cannot be written (a CI artifact, a
    /// read-only mount). A store in WAL mode needs its -shm file beside it; where that cannot be
    /// made, the file is read as immutable — unless a -wal file holds writes not yet in it.
    ///
    /// A store written by an older Waypost is refused: bringing its schema up to date is a write.
    public convenience init(readingAt path: String) throws(StoreError) {
        try StoreFile.checkExisting(path)
        var connection = try SQLiteConnection(path: path, access: .readOnly)
        var identity: StoreFile.Identity
        do {
            identity = try Self.identity(connection, path: path)
        } catch  where [SQLITE_CANTOPEN, SQLITE_READONLY].contains(connection.lastErrorCode) {
            // SQLite could not create the -shm file (https://sqlite.org/wal.html#readonly).
            guard !FileManager.default.fileExists(atPath: path + "-wal") else {
                throw StoreError(
                    path: path,
                    message: "cannot be read here: its -wal file holds writes not yet in the database, and SQLite "
                        + "reads them only through a -shm file it cannot create in this directory")
            }
            connection = try SQLiteConnection(path: path, access: .immutable)
            identity = try Self.identity(connection, path: path)
        }
        // Empty: a store whose first write never came (schema version 0), or not a store at all —
        // which a writable open tells apart.
        guard !identity.isEmpty else {
            throw StoreError(path: path, message: "is an empty file, not a Waypost store", needsUpgrade: true)
        }
        guard identity.userVersion == Schema.migrations.count else {
            throw StoreError(
                path: path,
                message: "was written by an older waypost (schema version \(identity.userVersion), this one "
                    + "\(Schema.migrations.count)); reading it means bringing it up to date, which needs it writable",
                needsUpgrade: true)
        }
        try self.init(connection, path: path, migrating: false)
    }

    /// A store nobody keeps: SQLite's private temporary database, in memory until it grows and
    /// then in a file SQLite has already unlinked, gone when the store is. A run that is not
    /// recorded (a scenario without `--db`, a trial) leaves nothing behind, whatever ends the
    /// process — and skips the file system and its syncs.
    public static func temporary() throws(StoreError) -> Store {
        let connection = try SQLiteConnection(path: "", name: temporaryName)
        // Nothing outlives the process: the rollback journal need not be a file either (each
        // transaction, the schema's first, would otherwise write and truncate one).
        try connection.execute("PRAGMA journal_mode = MEMORY")
        return try Store(connection, path: temporaryName)
    }

    /// What errors call a temporary store.
    public static let temporaryName = "(temporary store)"

    private init(_ connection: SQLiteConnection, path: String, migrating: Bool = true) throws(StoreError) {
        self.connection = connection
        self.path = path
        try connection.execute("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON")
        if migrating { try migrate() }
    }

    @discardableResult
    func locked<T>(_ body: (SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }

    @discardableResult
    func transaction<T>(_ body: (SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        try locked { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) in try body(connection) }
        }
    }

    /// What the file holds; refuses a file that is not a Waypost store this build understands.
    private static func identity(_ connection: SQLiteConnection, path: String) throws(StoreError)
        -> StoreFile.Identity
    {
        // A file SQLite cannot read as a database is said in words (SQLiteConnection's failure).
        let identity = try StoreFile.identity(connection)
        if let refusal = identity.refusal(understanding: Schema.migrations.count) {
            throw StoreError(path: path, message: refusal)
        }
        return identity
    }

    private func migrate() throws(StoreError) {
        try transaction { db throws(StoreError) in
            // Checked again under the write lock: another process may have written it meanwhile.
            let identity = try StoreFile.identity(db)
            if let refusal = identity.refusal(understanding: Schema.migrations.count) {
                throw StoreError(path: path, message: refusal)
            }
            if identity.applicationID != StoreFile.applicationID {
                try db.execute("PRAGMA application_id = \(StoreFile.applicationID)")
            }
            for (index, migration) in Schema.migrations.enumerated().dropFirst(identity.userVersion) {
                try db.execute(migration)
                try db.execute("PRAGMA user_version = \(index + 1)")
            }
        }
    }
}
