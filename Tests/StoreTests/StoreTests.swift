import Foundation
import SimulatedTime
import Store
import TestSupport
import Testing

@Suite("SQLite store")
struct StoreTests {
    @Test("A post is written once per key; a claim survives a reopen and is taken over once its lease lapses")
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
            let first = OutboxLease(
                duration: .seconds(60), clock: SimulatedClock(start: EpochInstant(secondsSince1970: 1_000)))
            // Not before it is due: a flush listing it as due, while another put it off since,
            // claimed it again at once (a hunt: concurrent flushes spent six attempts in a second).
            #expect(try store?.claim(due.id, dueBy: 9, lease: first) == nil)
            let claimed = try #require(try store?.claim(due.id, dueBy: 10, lease: first))
            #expect(claimed.state == .sending && claimed.attempts == 1 && claimed.claimedBy == first.owner)
            #expect(try store?.claim(due.id, dueBy: 10, lease: first) == nil, "a claimed post cannot be claimed twice")
            store = nil  // as if the process stalled here
            let reopened = try Store(path: path)
            let later = OutboxLease(
                duration: .seconds(60), clock: SimulatedClock(start: EpochInstant(secondsSince1970: 1_061)))
            #expect(try reopened.reclaimLapsed(lease: later).map(\.key) == ["k"])
            #expect(
                try !reopened.settle(due.id, lease: first, state: .sent, at: 12, audit: Data()),
                "a lost claim settles nothing")
            try reopened.settle(
                due.id, lease: later, state: .sent, remoteID: "99", at: 12, audit: Data(#"{"a":1}"#.utf8))
            #expect(try reopened.outbox().first?.state == .sent)
            #expect(try reopened.outbox().first?.remoteID == "99")
            #expect(try reopened.auditRecords(run: run.id) == [Data(#"{"a":1}"#.utf8)])
            #expect(try reopened.beginRun(name: "r", track: "t", at: 2).id == run.id, "the same name resumes the run")
        }
    }

    /// A post is addressed to the server its run posted to (NULL: the in-process emulator), and a
    /// sender is handed only the posts addressed to its servers — due, next due, lapsed alike — so
    /// a flush without base URLs never sends a post queued for a real server to the emulator (a
    /// black-box hunt: marked sent, it never reached the server), nor one to another.
    @Test("A sender is handed only the posts addressed to its servers")
    func postsGoOnlyWhereTheyWereAddressed() throws {
        try withTemporaryDirectory { directory in
            let store = try Store(path: directory.appendingPathComponent("w.db").path)
            let run = try store.beginRun(name: "r", track: "t", at: 1)
            let real = "https://api.example.com/1.1/"
            for (key, network, server) in [
                ("emulated", "twitter", nil), ("real", "twitter", real),
                ("graph", "facebook", "https://graph.example/"),
            ] {
                try store.enqueue(
                    key: key, run: run.id, network: network, server: server, createdAt: 5, payload: Data("{}".utf8),
                    audit: Data("{}".utf8))
            }
            #expect(try store.outbox().map(\.server) == [nil, real, "https://graph.example/"])
            #expect(try store.duePosts(now: 10).map(\.key) == ["emulated", "real", "graph"], "no servers: every post")
            #expect(try store.duePosts(now: 10, servers: [:]).map(\.key) == ["emulated"], "the emulator's own")
            #expect(try store.duePosts(now: 10, servers: ["twitter": real]).map(\.key) == ["real"])
            #expect(
                try store.duePosts(now: 10, servers: ["twitter": real, "facebook": "https://graph.example/"])
                    .map(\.key) == ["real", "graph"])
            #expect(try store.duePosts(now: 10, servers: ["twitter": "https://other.example/1.1/"]).isEmpty)
            #expect(try store.nextDueTime(servers: ["twitter": "https://other.example/1.1/"]) == nil)
            #expect(try store.nextDueTime(servers: [:]) == 5)
            // A claim that lapsed is taken over only by a sender to the same server.
            let clock = SimulatedClock(start: EpochInstant(secondsSince1970: 1_000))
            let first = OutboxLease(duration: .seconds(60), clock: clock)
            let real1 = try #require(try store.duePosts(now: 10, servers: ["twitter": real]).first)
            _ = try #require(try store.claim(real1.id, dueBy: 10, lease: first))
            clock.advance(to: EpochInstant(secondsSince1970: 1_100))
            let later = OutboxLease(duration: .seconds(60), clock: clock)
            #expect(try store.reclaimLapsed(lease: later, servers: [:]).isEmpty)
            #expect(try store.reclaimLapsed(lease: later, servers: ["twitter": real]).map(\.key) == ["real"])
        }
    }

    /// Processes sharing a store (DESIGN.md: "claimed under a lease that names its owner"): a
    /// claim is taken over only once it lapses — its lease runs out unrenewed, or its owner is a
    /// process of this machine that has exited — and then by one sender only.
    @Test("A live claim is never taken; a lapsed one is taken once; renewing keeps it")
    func leases() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("w.db").path
            let store = try Store(path: path)
            let run = try store.beginRun(name: "r", track: "t", at: 1)
            for key in ["a", "b"] {
                try store.enqueue(
                    key: key, run: run.id, network: "twitter", createdAt: 1, payload: Data("{}".utf8),
                    audit: Data("{}".utf8))
            }
            let clock = SimulatedClock(start: EpochInstant(secondsSince1970: 1_000))
            let sender = OutboxLease(duration: .seconds(60), clock: clock)
            let ids = try store.duePosts(now: 1).map(\.id)
            for id in ids { _ = try #require(try store.claim(id, dueBy: 1, lease: sender)) }
            let other = OutboxLease(duration: .seconds(60), clock: clock)
            #expect(try store.reclaimLapsed(lease: other).isEmpty, "a live claim is left to its sender")
            clock.advance(to: EpochInstant(secondsSince1970: 1_050))
            try store.renewClaims(sender)
            clock.advance(to: EpochInstant(secondsSince1970: 1_100))
            #expect(try store.reclaimLapsed(lease: other).isEmpty, "a renewed claim holds")
            clock.advance(to: EpochInstant(secondsSince1970: 1_111))
            let third = OutboxLease(duration: .seconds(60), clock: clock)
            #expect(try store.reclaimLapsed(lease: other).map(\.key) == ["a", "b"])
            #expect(try store.reclaimLapsed(lease: third).isEmpty, "taken over once, by one sender")
            #expect(try store.outbox().allSatisfy { $0.claimedBy == other.owner })

            // A claim whose owner is an exited process of this machine lapses at once.
            let exited = Process()
            exited.executableURL = URL(fileURLWithPath: "/bin/sh")
            exited.arguments = ["-c", "exit 0"]
            try exited.run()
            exited.waitUntilExit()
            let owner = other.owner.replacingOccurrences(
                of: #"pid=\d+"#, with: "pid=\(exited.processIdentifier)", options: .regularExpression)
            try sqlite(path, "UPDATE outbox SET claimed_by = '\(owner)' WHERE key = 'a'")
            #expect(try store.reclaimLapsed(lease: third).map(\.key) == ["a"])
            #expect(try store.settle(ids[0], lease: third, state: .sent, at: 2, audit: Data("{}".utf8)))
            #expect(try store.outbox().first.map { $0.state == .sent && $0.claimedBy == nil } == true)
        }
    }

    /// Two recordings of one scenario into one store (`waypost test --db` in two terminals, two
    /// CI jobs) each deleted what the other wrote: one failed, the store held a mix. A run another
    /// live process is recording is not replaced; one whose recorder exited, or whose claim ran
    /// out, is; this process's own (an earlier recording that never completed) is too.
    @Test func aRunAnotherProcessIsRecordingIsNotReplaced() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("w.db").path
            let store = try Store(path: path)
            try store.reserveRuns([("s", "s.gpx", false)], at: 1)
            let run = try store.beginRun(name: "s", track: "s.gpx", at: 1)
            try store.resetRun(named: "s")  // a scenario starts this way: the claim stays
            try store.appendLocations(
                [
                    LocationRecord(
                        time: 1, latitude: 37.33, longitude: -122.03, horizontalAccuracy: 5, service: "standard")
                ],
                run: run.id)
            try store.reserveRuns([("s", "s.gpx", false)], at: 2, recorder: OutboxLease())
            // Another machine's recorder, its claim good for an hour: left alone.
            let later = Date().timeIntervalSince1970 + 3_600
            try sqlite(
                path, "UPDATE runs SET recorder = 'host=elsewhere pid=4242 start=1 token=x', recording_until = \(later)"
            )
            let recording = try store.runBeingRecorded(named: "s")?.id
            let busy = #expect(throws: StoreError.self) {
                try store.reserveRuns([("s", "s.gpx", false)], at: 3, recorder: OutboxLease())
            }
            #expect(busy?.message.hasPrefix("the run 's' is being recorded by another waypost (pid 4242)") == true)
            #expect(try store.runBeingRecorded(named: "s")?.id == recording, "the store as it was")
            #expect(try store.locations(run: run.id).count == 1)
            // Its claim run out: replaced.
            try sqlite(path, "UPDATE runs SET recording_until = 1 WHERE recorder IS NOT NULL")
            try store.reserveRuns([("s", "s.gpx", false)], at: 4, recorder: OutboxLease())
            try store.completeRuns(named: ["s"])
            let replaced = try #require(try store.run(named: "s"))
            #expect(try replaced.id != run.id && store.locations(run: run.id).isEmpty)
        }
    }

    /// `waypost replay --db` run again under a run's name (resumed after Ctrl-C or a crash, or
    /// repeated) appended its whole history to the first: `waypost report` counted 3,240 fixes
    /// for a run of 1,620, every event twice (found by a black-box hunt of the CLI contract). Two
    /// replays at once both recorded, each the whole history. Begun again, a run's history is
    /// recorded afresh and its outbox kept; another live process's recording is refused.
    @Test func aRunBegunAgainRecordsItsHistoryAfresh() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("w.db").path
            let store = try Store(path: path)
            let run = try store.beginRun(name: "r", track: "r.kml", at: 1)
            let fix = LocationRecord(
                time: 1, latitude: 37.33, longitude: -122.03, horizontalAccuracy: 5, service: "standard")
            try store.appendLocations([fix], run: run.id)
            try store.appendEvents([EventRecord(time: 1, type: "regionEnter", region: "cafe")], run: run.id)
            #expect(
                try store.enqueue(
                    key: "k", run: run.id, network: "twitter", createdAt: 1, payload: Data("{}".utf8),
                    audit: Data("{}".utf8)))
            try store.finishRun(run.id, at: 2)
            let again = try store.beginRun(name: "r", track: "r.kml", at: 3)
            #expect(again.id == run.id && again.finishedAt == nil)
            #expect(try store.locations(run: run.id).isEmpty && store.events(run: run.id).isEmpty)
            #expect(try store.outbox().map(\.key) == ["k"], "what was sent or queued stays")
            // Another machine's recorder, its claim good for an hour: refused, the store as it was.
            try store.appendLocations([fix], run: run.id)
            let later = Date().timeIntervalSince1970 + 3_600
            try sqlite(
                path, "UPDATE runs SET recorder = 'host=elsewhere pid=4242 start=1 token=x', recording_until = \(later)"
            )
            let busy = #expect(throws: StoreError.self) { try store.beginRun(name: "r", track: "r.kml", at: 4) }
            #expect(busy?.inUse == true)
            #expect(busy?.message.hasPrefix("the run 'r' is being recorded by another waypost (pid 4242)") == true)
            #expect(try store.locations(run: run.id).count == 1)
            // Its claim run out: begun again.
            try sqlite(path, "UPDATE runs SET recording_until = 1 WHERE recorder IS NOT NULL")
            #expect(try store.beginRun(name: "r", track: "r.kml", at: 5).id == run.id)
            #expect(try store.locations(run: run.id).isEmpty)
        }
    }

    /// Runs SQL on the file through Python's sqlite3: another program, as a user's would be.
    private func sqlite(_ path: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2])",
            path, sql,
        ]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(sql)")
    }

    @Test("History: purge before a time, and retention")
    func history() throws {
        try withTemporaryDirectory { directory in
            let store = try Store(path: directory.appendingPathComponent("w.db").path)
            let run = try store.beginRun(name: "r", track: "t", at: 0)
            try store.appendLocations(
                (0..<10).map {
                    LocationRecord(
                        time: EpochInstant(secondsSince1970: Double($0) * 100), latitude: 1, longitude: 2,
                        horizontalAccuracy: 5, service: "standard")
                }, run: run.id)
            let keep: (Data, EpochInstant?) -> Data? = { _, _ in nil }
            #expect(try store.purgeLocations(before: 300, forgettingPostPositions: keep).records == 3)
            try store.setRetention(.seconds(500))
            #expect(try store.retention() == .seconds(500))
            #expect(try store.applyRetention(now: 1_000, forgettingPostPositions: keep).records == 2)
            #expect(try store.locations().map(\.time) == [500, 600, 700, 800, 900])
            #expect(try store.purgeLocations(before: nil, forgettingPostPositions: keep).records == 5)
            try store.setRetention(nil)
            #expect(try store.applyRetention(now: 1e12, forgettingPostPositions: keep) == PurgeCount())
        }
    }

    /// The store cannot read the engine's audit records: it hands each to the engine with the
    /// cut and keeps what comes back; a settled post's payload from before the cut is emptied,
    /// a post still to be sent keeps its own.
    @Test("A purge rewrites the audit records the engine forgets, and empties settled posts' payloads")
    func purgeForgetsPostPositions() throws {
        try withTemporaryDirectory { directory in
            let store = try Store(path: directory.appendingPathComponent("w.db").path)
            let run = try store.beginRun(name: "r", track: "t", at: 0)
            let lease = OutboxLease(duration: .seconds(60), clock: SimulatedClock(start: 0))
            for (key, created) in [("old-sent", 100.0), ("old-pending", 100), ("new-sent", 900)] {
                try store.enqueue(
                    key: key, run: run.id, network: "twitter", createdAt: EpochInstant(secondsSince1970: created),
                    payload: Data(#"{"latitude":1}"#.utf8), audit: Data(#"{"at":"\#(key)"}"#.utf8))
            }
            for entry in try store.duePosts(now: 1_000) where entry.key != "old-pending" {
                _ = try #require(try store.claim(entry.id, dueBy: 1_000, lease: lease))
                try store.settle(
                    entry.id, lease: lease, state: .sent, at: 1_000, audit: Data(#"{"at":"\#(entry.key)"}"#.utf8))
            }
            var seen: [String] = []
            let purged = try store.purgeLocations(before: 500) { record, cut in
                #expect(cut == 500)
                let text = String(decoding: record, as: UTF8.self)
                seen.append(text)
                return text.contains("old-sent") ? Data(#"{"at":"forgotten"}"#.utf8) : nil
            }
            #expect(purged == PurgeCount(records: 0, posts: 1))
            #expect(seen.count == 3, "every record is offered: only the engine can read its time and decision")
            #expect(
                try store.auditRecords(run: run.id).map { String(decoding: $0, as: UTF8.self) }.sorted() == [
                    #"{"at":"forgotten"}"#, #"{"at":"new-sent"}"#, #"{"at":"old-pending"}"#,
                ])
            let payloads = try Dictionary(
                uniqueKeysWithValues: store.outbox().map { ($0.key, String(decoding: $0.payload, as: UTF8.self)) })
            #expect(payloads == ["old-sent": "{}", "old-pending": #"{"latitude":1}"#, "new-sent": #"{"latitude":1}"#])
            _ = try store.purgeLocations(before: nil) { _, _ in nil }
            #expect(
                try store.outbox().filter { $0.payload == Data("{}".utf8) }.map(\.key).sorted() == [
                    "new-sent", "old-sent",
                ])
        }
    }

    /// Issue: "a newer schema is refused — after the file was rewritten (journal mode changed)".
    @Test("A database from a newer schema is refused, not touched")
    func newerSchema() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("w.db").path
            _ = try Store(path: path)
            try sqlite(path, "PRAGMA journal_mode = DELETE; PRAGMA user_version = 99")
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(throws: StoreError.self) { try Store(path: path) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "not switched to WAL")
        }
    }

    /// The store's file is the user's: what is not a Waypost store (or something Waypost made)
    /// is refused with one line, and left byte for byte as it was.
    @Test(
        "Files that are not Waypost stores are refused untouched",
        arguments: [
            ("another program's database", "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('x')"),
            ("a clashing schema", "CREATE TABLE runs (x); CREATE TABLE outbox (y); CREATE TABLE cache (z)"),
            ("a tagged foreign database", "PRAGMA application_id = 42; CREATE TABLE runs (x)"),
        ])
    func foreignDatabases(kind: String, sql: String) throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("other.db").path
            try sqlite(path, sql)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let error = try #require(throws: StoreError.self) { try Store(path: path) }
            #expect(error.message.contains("not a Waypost store"), "\(kind): \(error)")
            #expect(!error.description.contains("\n"), "one line")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "\(kind): untouched")
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "\(kind): not switched to WAL")
        }
    }

    @Test("A text file, a dangling link and a link to an empty file are refused; nothing is created")
    func filesThatAreNotStores() throws {
        try withTemporaryDirectory { directory in
            let text = directory.appendingPathComponent("notes.txt").path
            try "my notes\n".write(toFile: text, atomically: true, encoding: .utf8)
            #expect(throws: StoreError.self) { try Store(path: text) }
            #expect(try String(contentsOfFile: text, encoding: .utf8) == "my notes\n")

            let target = directory.appendingPathComponent("elsewhere.db").path
            let dangling = directory.appendingPathComponent("dangling.db").path
            try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: target)
            let error = try #require(throws: StoreError.self) { try Store(path: dangling) }
            #expect(error.message.contains("symbolic link"))
            #expect(!FileManager.default.fileExists(atPath: target), "no file is created through the link")

            let empty = directory.appendingPathComponent("empty").path
            _ = FileManager.default.createFile(atPath: empty, contents: Data(), attributes: [.posixPermissions: 0o644])
            let linked = directory.appendingPathComponent("linked.db").path
            try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: empty)
            #expect(throws: StoreError.self) { try Store(path: linked) }
            #expect(throws: StoreError.self) { try Store(path: empty) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: empty)).isEmpty, "still an empty file")
        }
    }

    @Test("A store reached through a link opens; one written before the application id migrates")
    func storesThatAreWaypostsOpen() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("w.db").path
            _ = try Store(path: path).beginRun(name: "r", track: "t", at: 1)
            let link = directory.appendingPathComponent("link.db").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
            #expect(try Store(path: link).run(named: "r") != nil)
            // As a store from before this check: no application id, schema 4.
            try sqlite(
                path,
                "PRAGMA application_id = 0; PRAGMA user_version = 4; ALTER TABLE outbox DROP COLUMN claimed_by; "
                    + "ALTER TABLE outbox DROP COLUMN lease_until; DROP TABLE trial_times; DROP TABLE trial_expectations; "
                    + "ALTER TABLE runs DROP COLUMN recorder; ALTER TABLE runs DROP COLUMN recording_until; "
                    + "ALTER TABLE outbox DROP COLUMN server"
            )
            let store = try Store(path: path)
            #expect(try store.run(named: "r") != nil)
            #expect(try store.outbox().isEmpty)
        }
    }

    /// `audit`, `report` and `outbox list` open a store to read it only: it is never changed,
    /// and one an older Waypost wrote is refused with a reason the caller can act on (bringing it
    /// up to date is a write), not read through queries of a schema it lacks.
    @Test("A store opened for reading is read and never changed; an older schema or a non-store is refused")
    func storesOpenedForReading() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("w.db").path
            _ = try Store(path: path).beginRun(name: "r", track: "t", at: 1)
            let reader = try Store(readingAt: path)
            #expect(try reader.run(named: "r")?.track == "t")
            #expect(throws: StoreError.self) { try reader.beginRun(name: "s", track: "t", at: 2) }
            #expect(try Store(path: path).run(named: "s") == nil)

            try sqlite(path, "PRAGMA user_version = 4")
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let outdated = try #require(throws: StoreError.self) { try Store(readingAt: path) }
            #expect(outdated.needsUpgrade && outdated.message.contains("schema version 4"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

            let empty = directory.appendingPathComponent("empty.db").path
            _ = FileManager.default.createFile(atPath: empty, contents: Data(), attributes: [.posixPermissions: 0o600])
            let notAStore = try #require(throws: StoreError.self) { try Store(readingAt: empty) }
            #expect(notAStore.needsUpgrade && notAStore.message == "is an empty file, not a Waypost store")
            #expect(try Data(contentsOf: URL(fileURLWithPath: empty)).isEmpty)
        }
    }

    /// A black-box hunt: a FIFO given to a reading command held it forever, a directory was "disk
    /// I/O error", and a store cut short was named by the statement SQLite failed on. Each is one
    /// line a user acts on, the file left as it was.
    @Test("A FIFO, a directory or a store cut short is one clear refusal")
    func storesThatCannotBeRead() throws {
        try withTemporaryDirectory { directory in
            let fifo = directory.appendingPathComponent("fifo.db").path
            #expect(mkfifo(fifo, 0o600) == 0)
            for path in [fifo, directory.path] {
                let refused = try #require(throws: StoreError.self) { try Store(readingAt: path) }
                #expect(refused.message == "is not a regular file, so not a Waypost store", "\(refused)")
            }
            let path = directory.appendingPathComponent("w.db").path
            _ = try Store(path: path).beginRun(name: "r", track: "t", at: 1)
            let cut = directory.appendingPathComponent("cut.db").path
            try Data(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(8_192)).write(
                to: URL(fileURLWithPath: cut))
            // Damage met at a later read — a page overwritten mid-file — is said alike.
            do {  // closed (its -wal folded in) before the file is damaged
                let store = try Store(path: path)
                let run = try store.beginRun(name: "full", track: "t", at: 1)
                for index in 0..<200 {
                    try store.enqueue(
                        key: "k\(index)", run: run.id, network: "twitter", createdAt: 1,
                        payload: Data(repeating: UInt8(ascii: "x"), count: 1_000), audit: Data("{}".utf8))
                }
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seek(toOffset: 24_576)
            try handle.write(contentsOf: Data(repeating: 0xDE, count: 8_192))
            try handle.close()
            let later = try #require(throws: StoreError.self) { _ = try Store(readingAt: path).outbox() }
            #expect(later.message.hasPrefix("is damaged (SQLite: the database disk image is malformed"), "\(later)")
            for open in [{ try Store(path: cut) }, { try Store(readingAt: cut) }] {
                let damaged = try #require(throws: StoreError.self) { _ = try open() }
                #expect(
                    damaged.message.hasPrefix("is damaged (SQLite: the database disk image is malformed"), "\(damaged)")
            }
        }
    }

    @Test("Stores opened at once on a fresh file all open (the WAL switch is retried, not failed)")
    func concurrentOpens() throws {
        try withTemporaryDirectory { directory in
            for attempt in 0..<5 {
                let path = directory.appendingPathComponent("fresh-\(attempt).db").path
                let failures = Failures()
                DispatchQueue.concurrentPerform(iterations: 8) { index in
                    do {
                        let store = try Store(path: path)
                        _ = try store.beginRun(name: "run-\(index)", track: "-", at: 0)
                    } catch {
                        failures.append("\(error)")
                    }
                }
                #expect(failures.all == [])
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

/// Errors gathered from several threads, under a lock (`Mutex` is macOS 15 and iOS 18; the tests
/// build for Waypost's macOS 14 and iOS 17 too).
private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [String] = []

    func append(_ error: String) { lock.withLock { errors.append(error) } }
    var all: [String] { lock.withLock { errors } }
}
