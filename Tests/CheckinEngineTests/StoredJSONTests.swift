import Foundation
import Geo
import SimulatedTime
import TestSupport
import Testing

@testable import CheckinEngine

/// The engine writes posts and audit records into the store by hand (``StoredJSON``), and reads
/// them with `Codable`: each writer must give the keys and values `JSONEncoder` gives, and read
/// back as the value written — for every optional absent and present, every place choice, and
/// text and numbers that JSON writes in more than one way.
@Suite("Posts and audit records written to the store")
struct StoredJSONTests {
    /// Text JSON escapes, or could: quotes, backslashes, slashes, controls, non-ASCII, emoji.
    static let awkward = [
        "", "Blue Bottle", #"say "hi" \ there"#, "a/b </script>", "tab\there\nline\r\u{0}\u{1B}[31m",
        "Café Zürich 東京 👩‍💻", "\u{202E}evil", "\u{7F}\u{9B}",
    ]
    /// Numbers whose shortest text differs in form: integral, tiny, huge, negative zero.
    static let numbers: [Double] = [0, -0.0, 1, 37.331_82, -122.030_98, 1e-7, 1.5e300, 3_600, 0.1 + 0.2, -1]

    static let gates = [
        GateVerdict(.authorization, passed: true, "always"),
        GateVerdict(.precision, passed: false, awkward[2]),
    ]

    static func intents() -> [PostIntent] {
        let places: [PlaceChoice] = [.first, .nearest, .named(awkward[3]), .category(awkward[5])]
        var intents: [PostIntent] = []
        for (index, number) in numbers.enumerated() {
            let text = awkward[index % awkward.count]
            var intent = PostIntent(
                network: index.isMultiple(of: 2) ? .twitter : .facebook, rule: text, trigger: .regionEnter,
                region: nil, device: nil, time: 1_700_000_000 + Double(index) / 8, latitude: number, longitude: -number,
                horizontalAccuracy: number, precision: .place, place: places[index % places.count],
                searchRadius: number, template: text, legacyLength: index.isMultiple(of: 3), maxAge: number,
                gates: index.isMultiple(of: 2) ? gates : [])
            if index.isMultiple(of: 2) {
                intent.region = text
                intent.device = "phone-\(index)"
                intent.resolved = .init(
                    id: text, name: awkward[5], precision: .exact, detail: text,
                    lookupFields: ["lat": "37.1", "long": text])
                intent.audienceCap = .followers
                intent.audience = .public
                intent.lostAnswer = text
                intent.sentWireFields = ["place_id": text, "display_coordinates": "false", "geo.place_id": "x"]
                intent.zones = [
                    PrivacyZone(name: text, center: Coordinate(latitude: number, longitude: -number), radius: number)
                ]
                intent.regionZone = text
            } else if index.isMultiple(of: 3) {
                intent.resolved = .init(id: nil, name: nil, precision: .none, detail: nil, lookupFields: [:])
                intent.sentWireFields = [:]
            }
            intents.append(intent)
        }
        return intents
    }

    static func records() -> [AuditRecord] {
        var records = intents().enumerated().map { index, intent in
            intent.audit(
                key: "run|rule|\(index)", decision: PostDecision.allCases[index % PostDecision.allCases.count],
                wireFields: index.isMultiple(of: 2) ? ["lat": "1", "long": awkward[index % awkward.count]] : [:],
                detail: index.isMultiple(of: 3) ? nil : awkward[index % awkward.count], attempts: index,
                remoteID: index.isMultiple(of: 2) ? "\(index)" : nil)
        }
        records.append(
            .unreadableEntry(key: awkward[2], queuedAt: 1_700_000_000.25, network: .facebook, detail: "?", attempts: 3))
        return records
    }

    /// The stored bytes as JSON values: what any reader sees, whatever the spelling.
    static func tree(_ data: Data) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary)
    }

    @Test("A post reads back as written, with the keys and values JSONEncoder gives")
    func posts() throws {
        for intent in Self.intents() {
            let stored = try #require(intent.storedJSON)
            #expect(try JSONDecoder().decode(PostIntent.self, from: stored) == intent)
            #expect(try Self.tree(stored) == Self.tree(JSONEncoder().encode(intent)))
        }
    }

    @Test("An audit record reads back as written, with the keys and values JSONEncoder gives")
    func auditRecords() throws {
        for record in Self.records() {
            let stored = try #require(record.storedJSON)
            #expect(try AuditRecord(stored: stored) == record)
            #expect(try Self.tree(stored) == Self.tree(JSONEncoder().encode(record)))
        }
    }

    /// `history purge`: a settled post's record before the cut forgets where the device was and
    /// keeps everything else; a queued post's, a later one's and an unreadable entry's stay as
    /// they are.
    @Test("A purge forgets a settled record's position, and nothing else")
    func forgettingPosition() throws {
        for record in Self.records() {
            let stored = try #require(record.storedJSON)
            let forgotten = AuditRecord.forgettingPosition(stored: stored, before: record.time.advanced(bySeconds: 1))
            #expect(AuditRecord.forgettingPosition(stored: stored, before: record.time) == nil, "not before the cut")
            if record.decision == .queued || record.coordinate == nil {
                #expect(forgotten == nil)
                continue
            }
            var expected = record
            (expected.latitude, expected.longitude) = (nil, nil)
            #expect(try AuditRecord(stored: try #require(forgotten)) == expected)
            #expect(
                AuditRecord.forgettingPosition(stored: stored, before: nil).map { try? AuditRecord(stored: $0) }
                    == expected)
        }
    }

    @Test("A dictionary is written in key order, so a value is the same bytes in every process")
    func dictionariesInKeyOrder() throws {
        var record = try #require(Self.records().first)
        record.wireFields = Dictionary(uniqueKeysWithValues: (0..<40).map { ("k\($0)", "\($0)") })
        let pairs = record.wireFields.keys.sorted().map { #""\#($0)":"\#(record.wireFields[$0] ?? "")""# }
        let text = String(decoding: try #require(record.storedJSON), as: UTF8.self)
        #expect(text.contains(#""wireFields":{"# + pairs.joined(separator: ",") + "}"))
    }

    @Test("What a run wrote reads back as decoding reads it; bytes it did not write are decoded")
    func writtenValues() throws {
        let written = WrittenValues()
        var stored: [Data] = []
        for (record, intent) in zip(Self.records(), Self.intents()) {
            let (recordBytes, intentBytes) = (try #require(record.storedJSON), try #require(intent.storedJSON))
            written.wrote(record, as: recordBytes)
            written.wrote(intent, as: intentBytes, key: record.key)
            stored.append(recordBytes)
            #expect(
                try written.intent(stored: intentBytes, key: record.key)
                    == JSONDecoder().decode(PostIntent.self, from: intentBytes))
        }
        #expect(try written.records(stored: stored) == stored.map(AuditRecord.init(stored:)))
        // The first post settled by another process, and a record of an earlier run before the
        // rest: bytes this run did not write are decoded, and the rest still read as written.
        var settled = try #require(Self.records().first)
        settled.detail = "settled by another process"
        var earlier = settled
        earlier.key = "an earlier process's post"
        let shifted = [try JSONEncoder().encode(earlier), try JSONEncoder().encode(settled)] + stored.dropFirst()
        #expect(try written.records(stored: shifted) == shifted.map(AuditRecord.init(stored:)))
        #expect(try written.records(stored: shifted)[1] == settled)
        // And those are read as written, not decoded: a value told apart from its bytes shows it.
        var marked = Self.records()[stored.count - 1]
        marked.detail = "read as written"
        written.wrote(marked, as: try #require(stored.last))
        #expect(try written.records(stored: shifted).last == marked)
        let otherIntent = try #require(Self.intents().last)
        #expect(
            try written.intent(stored: JSONEncoder().encode(otherIntent), key: try #require(Self.records().first).key)
                == otherIntent)
    }

    @Test("A store of values takes what the writer could write: the check reads every number written")
    func finiteCheckReadsEveryNumber() throws {
        // Every `Double` in a value, found by reflection: one added to a post or a record must
        // be added to its check too.
        func doubles(_ value: Any) -> Int {
            value is Double ? 1 : Mirror(reflecting: value).children.reduce(0) { $0 + doubles($1.value) }
        }
        let numbers: [WritableKeyPath<PostIntent, Double>] = [
            \.time.secondsSince1970, \.latitude, \.longitude, \.horizontalAccuracy, \.searchRadius, \.maxAge,
        ]
        let zoneNumbers: [WritableKeyPath<PrivacyZone, Double>] = [\.center.latitude, \.center.longitude, \.radius]
        for intent in Self.intents() {
            #expect(doubles(intent) == numbers.count + zoneNumbers.count * (intent.zones?.count ?? 0))
            #expect(intent.numbersAreFinite && intent.storedJSON != nil)
            for number in numbers {
                var broken = intent
                broken[keyPath: number] = .nan
                #expect(!broken.numbersAreFinite && broken.storedJSON == nil)
            }
            for number in zoneNumbers where intent.zones != nil {
                var broken = intent
                broken.zones?[0][keyPath: number] = .nan
                #expect(!broken.numbersAreFinite && broken.storedJSON == nil)
            }
        }
        let record = try #require(Self.records().first)
        #expect(doubles(record) == 3 && record.numbersAreFinite)
        for number: WritableKeyPath<AuditRecord, Double?> in [\.latitude, \.longitude] {
            var broken = record
            broken[keyPath: number] = .infinity
            #expect(!broken.numbersAreFinite && broken.storedJSON == nil)
        }
        var late = record
        late.time = EpochInstant(secondsSince1970: .nan)
        #expect(!late.numbersAreFinite && late.storedJSON == nil)
    }

    @Test("A number JSON has no form for is refused, not stored as something else")
    func nonFinite() throws {
        for number in [Double.nan, .infinity, -.infinity] {
            var intent = try #require(Self.intents().first)
            intent.latitude = number
            #expect(intent.storedJSON == nil)
            #expect(throws: (any Error).self) { try JSONEncoder().encode(intent) }
        }
    }
}
