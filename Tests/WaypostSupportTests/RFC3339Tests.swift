import Testing
import WaypostSupport

/// `RFC3339` reads the date-time of RFC 3339 §5.6 as `waypost compare`'s log and `--start` are
/// written: `t` and `z` in either case, an offset required, a second 60 only at a real leap second.
struct RFC3339Tests {
    static let noon = 1_748_952_000.0  // 2025-06-03T12:00:00Z

    @Test(arguments: [
        ("2025-06-03T12:00:00Z", 0.0), ("2025-06-03t12:00:00z", 0), ("2025-06-03T12:00:00.250Z", 0.25),
        ("2025-06-03T14:00:00+02:00", 0), ("2025-06-03T05:00:00-07:00", 0), ("2025-06-03T12:00:00-00:00", 0),
        // §5.6: time-numoffset's hour is any of 00–23, not xsd:dateTime's ±14:00 (these were refused).
        ("2025-06-04T03:00:00+15:00", 0), ("2025-06-02T18:00:00-18:00", 0), ("2025-06-04T11:59:00+23:59", 0),
    ])
    func readsTheForms(_ text: String, _ offset: Double) throws {
        #expect(try RFC3339.parse(text) == Self.noon + offset)
    }

    @Test(arguments: [
        "2025-06-03T12:00:00", "2025-06-03T12:00:00,5Z", "20250603T120000Z", "2025-06-03 12:00:00Z",
        "2025-06-03T12:00Z", "2025-06-03T24:00:00Z", "2025-06-03T12:00:00+0200", "2025-02-30T12:00:00Z",
        " 2025-06-03T12:00:00Z", "2025-06-03T12:00:00.Z", "yesterday",
    ])
    func refusesWhatIsNotRFC3339(_ text: String) {
        #expect(throws: RFC3339.Problem.form) { try RFC3339.parse(text) }
        #expect(RFC3339.Problem.form.description.contains("RFC 3339 date-time such as 2025-06-03T15:10:00.000Z"))
    }

    /// 23:59:60 UTC only where IERS inserted a leap second; it counts as the next minute's first.
    @Test func aSecond60IsTakenOnlyAtALeapSecond() throws {
        #expect(try RFC3339.parse("2016-12-31T23:59:60Z") == 1_483_228_800)
        #expect(try RFC3339.parse("2016-12-31T18:59:60.5-05:00") == 1_483_228_800.5)
        #expect(throws: RFC3339.Problem.noLeapSecond(day: "2025-06-03")) { try RFC3339.parse("2025-06-03T23:59:60Z") }
        #expect(throws: RFC3339.Problem.noLeapSecond(day: "2016-12-31")) { try RFC3339.parse("2016-12-31T12:00:60Z") }
    }
}
