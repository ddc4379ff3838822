import Foundation
import SimulatedTime
import Store
import TestSupport
import Testing

/// Runs recorded side by side (`waypost test --db` with several scenarios or trials), the stores
/// runs nobody keeps, and a trials run's distributions beside its exact run.
@Suite("Runs side by side")
struct RunOrderTests {
    static func fix(_ time: EpochInstant) -> LocationRecord {
        LocationRecord(
            time: time, latitude: 37.33, longitude: -122.03, horizontalAccuracy: 5, service: "standard")
    }

    @Test("Reserved runs keep their order, whichever begins first; resetting one empties it in place")
    func reservedRunsKeepTheirOrder() throws {
        try withTemporaryDirectory { directory in
            let store = try Store(path: directory.appendingPathComponent("w.db").path)
            let old = try store.beginRun(name: "b", track: "old.gpx", at: 1)
            try store.appendLocations([Self.fix(1)], run: old.id)
            try store.reserveRuns([("a", "a.gpx", false), ("b", "b.gpx", true)], at: 2)
            // The second begins first, then the first: the order stays as reserved.
            let b = try store.beginRun(name: "b", track: "b.gpx", at: 3, dryRun: true)
            let a = try store.beginRun(name: "a", track: "a.gpx", at: 4)
            #expect(a.id < b.id)
            // Recorded to the end, the last reserved is the latest.
            try store.completeRuns(named: ["a", "b"])
            #expect(try store.run(named: nil)?.name == "b")
            #expect(b.track == "b.gpx" && b.dryRun && b.id != old.id)
            #expect(try store.locations(run: b.id).isEmpty, "reserving replaces the earlier run of the name")

            try store.appendLocations([Self.fix(5)], run: a.id)
            try store.saveTrialDistributions(
                [TrialDistribution(description: "d", verdict: "v", passed: true, exact: 5, times: [6])], run: a.id)
            try store.resetRun(named: "a")
            let reset = try #require(try store.run(named: "a"))
            #expect(reset.id == a.id && reset.track == "a.gpx")
            #expect(try store.locations(run: a.id).isEmpty)
            #expect(try store.trialDistributions(run: a.id).isEmpty)
            try store.resetRun(named: "nobody")
            #expect(try store.run(named: "nobody") == nil)
        }
    }

    @Test("A scenario's run recorded anew takes the earlier one's place only once complete")
    func aRecordingCutShortLeavesTheEarlierRun() throws {
        try withTemporaryDirectory { directory in
            let store = try Store(path: directory.appendingPathComponent("w.db").path)
            let old = try store.beginRun(name: "s", track: "s.gpx", at: 1)
            try store.appendLocations([Self.fix(1)], run: old.id)
            try store.finishRun(old.id, at: 2)
            // Recorded again and cut short (Ctrl-C, a time budget): the earlier run is still read.
            try store.reserveRuns([("s", "s.gpx", false)], at: 3)
            let cut = try store.beginRun(name: "s", track: "s.gpx", at: 3)
            try store.appendLocations([Self.fix(3)], run: cut.id)
            #expect(try store.run(named: "s")?.id == old.id)
            #expect(try store.run(named: "s")?.name == "s")
            #expect(try store.run(named: nil)?.id == old.id)
            #expect(try store.runBeingRecorded(named: "s")?.id == cut.id)
            // A run recorded in between is the latest: the one cut short is not, nor is its
            // earlier run (which keeps its own place).
            let other = try store.beginRun(name: "t", track: "t.gpx", at: 3)
            #expect(try store.run(named: nil)?.id == other.id)
            // Recorded again, to the end: it takes the place; what was cut short is gone.
            try store.reserveRuns([("s", "s.gpx", false)], at: 4)
            let new = try store.beginRun(name: "s", track: "s.gpx", at: 4)
            #expect(try store.run(named: "s")?.id == old.id)
            try store.completeRuns(named: ["s"])
            #expect(try store.run(named: "s")?.id == new.id)
            #expect(try store.locations(run: old.id).isEmpty && store.locations(run: cut.id).isEmpty)
            #expect(try store.runsRecorded(since: 0).map(\.id) == [other.id, new.id])
        }
    }

    @Test("A trials run's distributions come back as saved, in order, with the trials that had nothing")
    func distributionsRoundTrip() throws {
        let store = try Store.temporary()
        let run = try store.beginRun(name: "exact", track: "t", at: 0)
        let saved = [
            TrialDistribution(
                description: "café entry", verdict: "held in 2 of 3", passed: false, exact: 48,
                times: [150, nil, 170.5]),
            TrialDistribution(
                description: "no raw coordinates", verdict: "held in 3 of 3", passed: true, exact: nil,
                times: [nil, nil, nil]),
        ]
        try store.saveTrialDistributions(saved, run: run.id)
        #expect(try store.trialDistributions(run: run.id) == saved)
        try store.saveTrialDistributions(Array(saved.prefix(1)), run: run.id)
        #expect(try store.trialDistributions(run: run.id) == Array(saved.prefix(1)), "saving again replaces")
    }

    @Test("A cleared store is as new: no runs, posts or monitor records, and ids start again")
    func clearedStoresAreAsNew() throws {
        let store = try Store.temporary()
        func fill() throws -> (run: Int64, post: Int64?) {
            let run = try store.beginRun(name: "trial#1", track: "t", at: 0)
            try store.enqueue(
                key: "k", run: run.id, network: "twitter", createdAt: 0, payload: Data("{}".utf8),
                audit: Data("{}".utf8))
            try store.appendLocations([Self.fix(1)], run: run.id)
            return (run.id, try store.outbox(run: run.id).first?.id)
        }
        let first = try fill()
        try store.saveMonitorRecords(
            [StoredMonitorRecord(identifier: "cafe", time: 0, record: "{}")], monitor: "m", device: nil)
        try store.clear()
        #expect(try store.run(named: nil) == nil)
        #expect(try store.outbox().isEmpty)
        #expect(try store.monitorRecords(monitor: "m", device: nil).isEmpty)
        let second = try fill()
        #expect(second.run == first.run && second.post == first.post)
    }

    @Test("A temporary store is a whole store of its own, named as such in errors")
    func temporaryStoresAreSeparate() throws {
        let first = try Store.temporary()
        let second = try Store.temporary()
        let run = try first.beginRun(name: "r", track: "t", at: 0)
        try first.appendLocations([Self.fix(1)], run: run.id)
        #expect(try first.locations(run: run.id).count == 1)
        #expect(try second.run(named: "r") == nil)
        #expect(first.path == Store.temporaryName)
    }
}
