import Foundation

/// Why the store could not do what was asked: the database file and sqlite's reason.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
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
/// let run = try store.beginRun(name: "commute", track: "tracks/sunnyvale-commute.kml", at: 1_700_000_000)
/// try store.purgeLocations(before: Date().timeIntervalSince1970 - 7 * 86_400)
/// ```
public final class Store: @unchecked Sendable {
    // A connection is not thread-safe; every call holds the lock for its whole transaction.
    private let lock = NSLock()
    private let connection: SQLiteConnection
    public let path: String

    /// The schema version this build writes.
    public static var schemaVersion: Int { Schema.migrations.count }

    /// Opens (creating when missing) the database at `path`, creating its directory too.
    public init(path: String) throws(StoreError) {
        self.path = path
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError(path: path, message: "cannot create \(directory.path): \(error.localizedDescription)")
        }
        connection = try SQLiteConnection(path: path)
        try connection.enableWriteAheadLog()
        try connection.execute("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON")
        try migrate()
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

    private func migrate() throws(StoreError) {
        try transaction { db throws(StoreError) in
            var version = 0
            try db.query("PRAGMA user_version") { version = $0.int(0) }
            guard version <= Schema.migrations.count else {
                throw StoreError(
                    path: path,
                    message:
                        "schema version \(version) is newer than this waypost understands (\(Schema.migrations.count))")
            }
            for (index, migration) in Schema.migrations.enumerated().dropFirst(version) {
                try db.execute(migration)
                try db.execute("PRAGMA user_version = \(index + 1)")
            }
        }
    }
}
