import CSQLite
import Foundation
import SimulatedTime

/// A value bound to, or read from, an SQL statement.
enum SQLValue: Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case null
}

extension SQLValue {
    init(_ value: String?) { self = value.map(SQLValue.text) ?? .null }
    init(_ value: Double?) { self = value.map(SQLValue.real) ?? .null }
    init(_ value: EpochInstant?) { self = value.map { .real($0.secondsSince1970) } ?? .null }
    init(_ value: Int?) { self = value.map { .integer(Int64($0)) } ?? .null }
    init(_ value: Int64?) { self = value.map(SQLValue.integer) ?? .null }
    init(_ value: Bool) { self = .integer(value ? 1 : 0) }
}

/// One row of a result, read by column index.
struct SQLRow {
    fileprivate let statement: OpaquePointer

    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(statement, column)) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }
    func bool(_ column: Int32) -> Bool { sqlite3_column_int64(statement, column) != 0 }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
    func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }
    func instant(_ column: Int32) -> EpochInstant { EpochInstant(secondsSince1970: double(column)) }
    func optionalInstant(_ column: Int32) -> EpochInstant? { isNull(column) ? nil : instant(column) }

    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }
}

/// A thin typed layer over one sqlite3 connection: prepared statements (cached by their SQL),
/// bound parameters, transactions. Not thread-safe; ``Store`` serialises access.
final class SQLiteConnection {
    private let handle: OpaquePointer
    private let path: String
    private var statements: [String: OpaquePointer] = [:]

    /// Rows this connection has changed since it opened (SQLite's own count; no query, no lock).
    var totalChanges: Int { Int(sqlite3_total_changes64(handle)) }

    /// Opens an existing file (``StoreFile/prepare(_:)`` creates it, 0600: location history is
    /// personal data, and SQLite gives its -wal and -shm files the database's mode).
    ///
    /// The empty path opens SQLite's private temporary database; `name` is what errors call it.
    init(path: String, name: String? = nil, access: Access = .readWrite) throws(StoreError) {
        var db: OpaquePointer?
        var flags = SQLITE_OPEN_FULLMUTEX
        var filename = path
        switch access {
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .immutable:
            // A URI filename (https://sqlite.org/uri.html): its path percent-encoded, so that a
            // `?` or `%` in the user's path is not read as a query or an escape.
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "/-._~"))
            let encoded = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
            // An absolute path after an empty authority: `//x` would name a host.
            filename = "file:\(path.hasPrefix("/") ? "//" : "")\(encoded)?immutable=1"
        }
        let status = sqlite3_open_v2(filename, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw StoreError(path: name ?? path, message: "cannot open: \(message)")
        }
        handle = db
        self.path = name ?? path
        // Another process (a second `waypost`, a crash-restart) may hold the write lock briefly.
        sqlite3_busy_timeout(handle, 5_000)
    }

    /// How a connection may use its file.
    enum Access {
        case readWrite
        /// Reads only; SQLite still needs the -shm file beside a database in WAL mode.
        case readOnly
        /// Reads a file nothing else may change meanwhile, without -wal or -shm files
        /// (`immutable=1`): the way to read a store in a directory that cannot be written.
        case immutable
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// SQLite's reason, with the statement it came from cut to its first words: an error is one
    /// line, never a page of schema.
    private func failure(_ what: String) -> StoreError {
        let words = what.split(whereSeparator: \.isWhitespace)
        let statement = words.prefix(8).joined(separator: " ") + (words.count > 8 ? " …" : "")
        let reason = String(cString: sqlite3_errmsg(handle))
        // What the user can act on, in words, not as the statement SQLite failed on (hunts).
        switch lastErrorCode {
        case SQLITE_NOTADB:
            return StoreError(
                path: path, message: "is not a Waypost store (not an SQLite database); it is left untouched")
        case SQLITE_CORRUPT:
            // Met at any read, the first or a later one (a page overwritten mid-file).
            return StoreError(
                path: path,
                message: "is damaged (SQLite: the database disk image is malformed — cut short, or overwritten); "
                    + "nothing more was written to it")
        case SQLITE_CANTOPEN:
            return StoreError(
                path: path,
                message: "cannot be opened: SQLite needs to write its -wal and -shm files beside it, and the "
                    + "directory or file system that holds it is read-only")
        case SQLITE_READONLY:
            // Even a read needs the -shm file beside a database in WAL mode, so a read-only
            // directory stops `audit` too.
            return StoreError(
                path: path,
                message: "cannot write to the database: the file, or the directory that holds it and its -wal and "
                    + "-shm files, is read-only (\(statement): \(reason))")
        default:
            return StoreError(path: path, message: "\(statement): \(reason)")
        }
    }

    /// SQLite's primary result code of the last call on this connection.
    var lastErrorCode: Int32 { sqlite3_errcode(handle) & 0xFF }

    /// Puts the file in WAL mode, a property of the file set by whichever connection comes first.
    /// The switch needs the file to itself and SQLite does not wait for it (the busy handler is
    /// not consulted), so stores opened at once — `waypost test --db` runs scenarios in parallel —
    /// retry for up to `timeout` seconds, and stop as soon as another connection has done it.
    func enableWriteAheadLog(timeout: Double = 5) throws(StoreError) {
        let deadline = Date().addingTimeInterval(timeout)
        var pause = 0.001
        while true {
            var mode = ""
            do {
                try query("PRAGMA journal_mode = WAL") { mode = $0.text(0).lowercased() }
            } catch {
                // A refused switch is SQLITE_BUSY (or the old mode handed back); anything else,
                // such as a file that is not a database, is final.
                guard [SQLITE_BUSY, SQLITE_LOCKED].contains(sqlite3_errcode(handle) & 0xFF) else { throw error }
            }
            if mode == "wal" || mode == "memory" { return }
            guard Date() < deadline else {
                throw StoreError(path: path, message: "cannot switch to WAL mode: the database stays locked")
            }
            Thread.sleep(forTimeInterval: pause)
            pause = min(pause * 2, 0.1)
        }
    }

    /// Runs one or more statements without parameters (schema, pragmas).
    func execute(_ sql: String) throws(StoreError) {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw failure(sql) }
    }

    /// Runs a statement; returns the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: [SQLValue] = []) throws(StoreError) -> Int {
        try query(sql, values) { _ in }
        return Int(sqlite3_changes(handle))
    }

    /// Runs a query, calling `row` for each result row.
    func query(_ sql: String, _ values: [SQLValue] = [], row: (SQLRow) throws(StoreError) -> Void) throws(StoreError) {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            let status: Int32
            switch value {
            case .integer(let v): status = sqlite3_bind_int64(statement, position, v)
            case .real(let v): status = sqlite3_bind_double(statement, position, v)
            case .text(let v): status = sqlite3_bind_text(statement, position, v, -1, transientDestructor)
            case .null: status = sqlite3_bind_null(statement, position)
            }
            guard status == SQLITE_OK else { throw failure("binding parameter \(position) of \(sql)") }
        }
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: try row(SQLRow(statement: statement))
            case SQLITE_DONE: return
            default: throw failure(sql)
            }
        }
    }

    /// The rows of a query, each mapped by `transform`.
    func rows<T>(_ sql: String, _ values: [SQLValue] = [], _ transform: (SQLRow) -> T) throws(StoreError) -> [T] {
        var out: [T] = []
        try query(sql, values) { out.append(transform($0)) }
        return out
    }

    /// Runs `body` in an immediate transaction: all of it is written, or none.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    private func prepared(_ sql: String) throws(StoreError) -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw failure("preparing \(sql)")
        }
        statements[sql] = statement
        return statement
    }
}

/// sqlite3's `SQLITE_TRANSIENT`: sqlite copies bound text before the call returns.
private let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
