import Foundation
import Testing
import WaypostSupport

@testable import Tracks

struct DateTimeTests {
    @Test(arguments: [
        ("1997", "1997-01-01T00:00:00Z"),
        ("1997-07", "1997-07-01T00:00:00Z"),
        ("1997-07-16", "1997-07-16T00:00:00Z"),
        ("1997-07-16T07:30:15Z", "1997-07-16T07:30:15Z"),
        ("1997-07-16T10:30:15+03:00", "1997-07-16T07:30:15Z"),
        ("1997-07-16T02:30:15-05:00", "1997-07-16T07:30:15Z"),
        ("1997-07-16T07:30:15", "1997-07-16T07:30:15Z"),
        ("1997-07-16T07:30", "1997-07-16T07:30:00Z"),
        ("2014-04-12T14:26:16.702Z", "2014-04-12T14:26:16.702Z"),
        ("2000-02-29T23:59:59Z", "2000-02-29T23:59:59Z"),
        ("  2010-05-28T02:02:09Z\n", "2010-05-28T02:02:09Z"),
        ("1969-12-31T23:59:59Z", "1969-12-31T23:59:59Z"),
        // Years the four-digit field does not hold are written on their own, sign and all.
        ("0000-03-01T00:00:00Z", "0000-03-01T00:00:00Z"),
        ("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"),
        ("-0044-03-15T12:00:00Z", "-0044-03-15T12:00:00Z"),
        ("12345-06-07T08:09:10.5Z", "12345-06-07T08:09:10.500Z"),
        // A leap second (IERS Bulletin C 52: 2016-12-31T23:59:60Z), also given in another offset,
        // is the next minute's first second, as POSIX time counts it.
        ("2016-12-31T23:59:60Z", "2017-01-01T00:00:00Z"),
        ("2016-12-31T23:59:60.5Z", "2017-01-01T00:00:00.500Z"),
        ("2017-01-01T01:59:60+02:00", "2017-01-01T00:00:00Z"),
    ])
    func parsesTheXSDFamily(input: String, expected: String) throws {
        let parsed = try #require(XSDDateTime.parse(input))
        #expect(XSDDateTime.formatCompact(parsed) == expected)
    }

    @Test func agreesWithFoundationOnFullTimestamps() throws {
        let formatter = ISO8601DateFormatter()
        for text in ["2010-05-28T02:02:09Z", "1901-12-13T20:45:52Z", "2038-01-19T03:14:08Z", "2400-02-29T12:00:00Z"] {
            #expect(XSDDateTime.parse(text) == formatter.date(from: text)?.timeIntervalSince1970, "\(text)")
        }
    }

    @Test func keepsFractionsMonotonic() throws {
        let a = try #require(XSDDateTime.parse("1901-12-13T20:45:52.207Z"))
        let b = try #require(XSDDateTime.parse("1901-12-13T20:45:52.2073437Z"))
        #expect(b > a)
        #expect(abs(b - a - 0.0003437) < 1e-6)
    }

    @Test(arguments: [
        "", "97", "1997-13", "1997-02-30", "1997-07-16T25:00:00Z", "1997-07-16T07:60:00Z",
        "1997-07-16T07:30:15.Z", "1997-07-16T07:30:15+3", "1997-07-16 07:30:15Z", "yesterday",
        "1997-07-16T07:30:15ZZ", "2001-02-29",
        // A second 60 where no leap second was inserted (XSD 1.0 Part 2, D.3.2): it read as a
        // minute on (hunt, stop 89).
        "2024-01-01T00:00:60Z", "2024-01-01T23:59:60Z", "2016-12-31T23:58:60Z", "2016-12-31T23:59:60+01:00",
    ])
    func refusesWhatIsNotADateTime(input: String) {
        #expect(XSDDateTime.parse(input) == nil)
    }

    @Test func formatsMilliseconds() {
        #expect(XSDDateTime.formatMilliseconds(0) == "1970-01-01T00:00:00.000Z")
        #expect(XSDDateTime.formatMilliseconds(1_275_012_129.5) == "2010-05-28T02:02:09.500Z")
        #expect(XSDDateTime.formatMilliseconds(-0.001) == "1969-12-31T23:59:59.999Z")
    }

    /// A year outside 0…9999 is written whole and signed, before the rest of the time.
    @Test func formatsYearsBeyondFourDigits() {
        #expect(XSDDateTime.formatMilliseconds(253_402_300_800) == "10000-01-01T00:00:00.000Z")
        #expect(XSDDateTime.formatMilliseconds(-62_167_219_200) == "0000-01-01T00:00:00.000Z")
        #expect(XSDDateTime.formatMilliseconds(-62_167_305_600) == "-0001-12-31T00:00:00.000Z")
        #expect(XSDDateTime.format(253_402_300_800.25, fractionDigits: 0) == "10000-01-01T00:00:00Z")
    }

    /// Past what an Int64 of milliseconds holds (a server's Retry-After of 2^63 seconds once
    /// reached `outbox list`, which stopped with a trap): the nearest time it holds, no trap.
    @Test func timesPastTheRangeAreClampedNotTrapped() {
        let latest = XSDDateTime.formatMilliseconds(9.2e15)
        #expect(latest.hasSuffix("Z") && !latest.hasPrefix("-"), "\(latest)")
        #expect(XSDDateTime.formatMilliseconds(9.3e18) == latest)
        #expect(XSDDateTime.format(.infinity, fractionDigits: 0) == XSDDateTime.format(9.2e18, fractionDigits: 0))
        #expect(XSDDateTime.formatMilliseconds(-.infinity).hasPrefix("-"))
    }
}
