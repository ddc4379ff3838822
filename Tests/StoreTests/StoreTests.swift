import Foundation
import Store
import Synchronization
import TestSupport
import Testing

@Suite("SQLite store")
struct StoreTests {
    @Test("A post is written once per key; a claimed post stays in doubt across a reopen")
    func outboxSurvivesReopen() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("sub/w.db").path
            var store: Store? = try Store(path: path)
            let run = try #require(try store?.beginRun(name: "r", track: "t", at: 1))
            #expect(
                try store?.enqueue(
                    key: "k", run: run.id, network: "twitter", createdAt: 10, payload: Data("{}".utf8),
                    audit: Data("{}".utf8)) == true)
            #expect(
                try store?.enqueue(
                    key: "k", run: run.id, network: "twitter", createdAt: 11, payload: Data("{}".utf8),
                    audit: Data("{}".utf8)) == false)
            #expect(try store?.duePosts(now: 9).isEmpty == true)
            let due = try #require(try store?.duePosts(now: 10).first)
            let claimed = try #require(try store?.claim(due.id))
            #expect(claimed.state == .sending && claimed.attempts == 1)
            #expect(try store?.claim(due.id) == nil, "a claimed post cannot be claimed twice")
            store = nil  // as if the process died here
            let reopened = try Store(path: path)
            #expect(try reopened.inDoubtPosts().map(\.key) == ["k"])
            try reopened.settle(due.id, state: .sent, remoteID: "99", at: 12, audit: Data(#"{"a":1}"#.utf8))
            #expect(try reopened.outbox().first?.state == .sent)
            #expect(try reopened.outbox().first?.remoteID == "99")
            #expect(try reopened.auditRecords(run: run.id) == [Data(#"{"a":1}"#.utf8)])
            #expect(try reopened.beginRun(name: "r", track: "t", at: 2).id == run.id, "the same name resumes the run")
        }
    }

    @Test("History: purge before a time, and retention")
    func history() throws {
        try withTemporaryDirectory { directory in
            let store = try Store(path: directory.appendingPathComponent("w.db").path)
            let run = try store.beginRun(name: "r", track: "t", at: 0)
            try store.appendLocations(
                (0..<10).map {
                    LocationRecord(
                        time: Double($0) * 100, latitude: 1, longitude: 2, horizontalAccuracy: 5, service: "standard")
                }, run: run.id)
            #expect(try store.purgeLocations(before: 300) == 3)
            try store.setRetention(500)
            #expect(try store.retention() == 500)
            #expect(try store.applyRetention(now: 1_000) == 2)
            #expect(try store.locations().map(\.time) == [500, 600, 700, 800, 900])
            #expect(try store.purgeLocations(before: nil) == 5)
            try store.setRetention(nil)
            #expect(try store.applyRetention(now: 1e12) == 0)
        }
    }

    @Test("A database from a newer schema is refused, not damaged")
    func newerSchema() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("w.db").path
            _ = try Store(path: path)
            let sqlite = Process()
            sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            sqlite.arguments = [
                "python3", "-c",
                "import sqlite3; c = sqlite3.connect('\(path)'); c.execute('PRAGMA user_version = 99'); c.commit()",
            ]
            try sqlite.run()
            sqlite.waitUntilExit()
            #expect(throws: StoreError.self) { try Store(path: path) }
        }
    }

    @Test("Stores opened at once on a fresh file all open (the WAL switch is retried, not failed)")
    func concurrentOpens() throws {
        try withTemporaryDirectory { directory in
            for attempt in 0..<5 {
                let path = directory.appendingPathComponent("fresh-\(attempt).db").path
                let failures = Mutex<[String]>([])
                DispatchQueue.concurrentPerform(iterations: 8) { index in
                    do {
                        let store = try Store(path: path)
                        _ = try store.beginRun(name: "run-\(index)", track: "-", at: 0)
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
                #expect(failures.withLock { $0 } == [])
            }
        }
    }

    /// Location history is personal data: a new database, its WAL and its shared memory are the
    /// owner's alone.
    @Test func newDatabasesAreReadableByTheirOwnerOnly() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("private.db").path
            let store = try Store(path: path)
            _ = try store.beginRun(name: "r", track: "t", at: 0, dryRun: false)
            for file in [path, path + "-wal", path + "-shm"] {
                let mode = try #require(
                    try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber)
                #expect(mode.intValue & 0o777 == 0o600, "\(file): \(String(mode.intValue, radix: 8))")
            }
        }
    }
}
