import CheckinEngine
import Foundation
import LocationEvents
import SimulatedTime
import SocialAPI
import Store
import TestSupport
import Testing

/// An outbox entry this version cannot read is audited as what it is: failed unsent, with no
/// trigger, coordinates, rule or gates made up — in the store, `waypost audit`'s table, CSV and
/// JSON, and the replay's post line.
@Suite("An unreadable outbox entry, audited as what it is")
struct UnreadableEntryTests {
    /// Delivers one entry whose payload is not a post this version knows; returns what the
    /// delivery handed back and what the store kept.
    static func deliverUnreadable() async throws -> (returned: AuditRecord, stored: [AuditRecord], entry: OutboxEntry) {
        try await withTemporaryDirectory { directory in
            let store = try Store(path: directory.appendingPathComponent("waypost.db").path)
            let run = try store.beginRun(name: "old", track: "synthetic", at: start)
            try store.enqueue(
                key: "k-unreadable", run: run.id, network: "facebook",
                createdAt: start + 60,
                payload: Data(#"{"version":99,"post":"from a later waypost"}"#.utf8), audit: Data("{}".utf8))
            let delivery = OutboxDelivery(
                store: store, clients: SocialClients(twitter: nil, facebook: nil),
                clock: SimulatedClock(start: start + 120))
            let returned = try #require(try await delivery.deliverDue().first)
            let stored = try store.auditRecords(run: run.id).map(AuditRecord.init(stored:))
            let entry = try #require(try store.outbox().first)
            return (returned, stored, entry)
        }
    }

    @Test("The record says only what the outbox row says, and the store keeps the same record")
    func record() async throws {
        let (record, stored, entry) = try await Self.deliverUnreadable()
        #expect(stored == [record], "the store keeps a readable record, not {}")
        #expect(record.isUnreadableEntry)
        #expect(record.trigger == nil && record.latitude == nil && record.longitude == nil && record.rule == nil)
        #expect(record.coordinate == nil)
        #expect(record.key == "k-unreadable" && record.network == .facebook && record.time == start + 60)
        #expect(record.decision == .failed && !record.carriesLocation && record.gates.isEmpty)
        #expect(record.wireFields.isEmpty && record.attempts == 1)
        #expect(record.detail == "the outbox entry cannot be read by this version of waypost")
        #expect(entry.state == .failed && entry.lastError == record.detail)
    }

    @Test("waypost audit shows it without inventing: '-' for its trigger, no gates evaluated, no coordinates")
    func shown() async throws {
        let (record, _, _) = try await Self.deliverUnreadable()
        let report = AuditReport(run: "old", records: [record])
        let table = report.render(.table)
        let row = try #require(table.split(separator: "\n").first { $0.contains("facebook") })
        #expect(row.hasPrefix("2025-06-03T14:14:20Z  -        -       facebook  -      failed"), "\(row)")
        #expect(row.hasSuffix("none evaluated; the outbox entry cannot be read by this version of waypost"))
        #expect(!table.contains("regionEnter") && !table.contains("?"))
        let csv = report.render(.csv)
        #expect(csv.contains(",-,-,facebook,-,failed,no,none,-,-,none evaluated; the outbox entry cannot be read"))

        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(report.render(.json).utf8)) as? [String: Any])
        let post = try #require((json["posts"] as? [[String: Any]])?.first)
        for absent in ["trigger", "latitude", "longitude", "rule", "region", "placeID"] {
            #expect(post[absent] == nil, "\(absent) is made up")
        }
        #expect(post["decision"] as? String == "failed" && post["carriesLocation"] as? Bool == false)

        let line = PostEventFormat.text(record.postEvent(at: start + 120))
        #expect(
            line.hasSuffix(
                "post            facebook failed without location (the outbox entry cannot be read by this version of waypost)"
            ))
        let event = try #require(
            try JSONSerialization.jsonObject(
                with: Data(PostEventFormat.json(record.postEvent(at: start + 120)).utf8)
            )
                as? [String: Any])
        #expect(event["rule"] == nil && event["trigger"] == nil && event["lat"] == nil)
    }
}
