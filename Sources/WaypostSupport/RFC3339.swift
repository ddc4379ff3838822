/// The date-time of RFC 3339 §5.6, as a log's time is read (`waypost compare`): a full date, `T`,
/// the time with its seconds, an optional fraction, and `Z` or an offset `±hh:mm` —
/// `2025-06-03T15:10:00.000Z`. RFC 3339 §5.6 allows `t` and `z` in lower case; ISO 8601's other
/// forms (a comma before the fraction, the basic format `20250603T151000Z`, no offset) are not
/// RFC 3339 and are refused. A second 60 is taken only where a leap second was inserted (23:59:60
/// UTC on the days of ``leapSecondDays``), and reads as the next minute's first second, as POSIX
/// time counts it.
package enum RFC3339 {
    /// Why a text is no RFC 3339 date-time.
    package enum Problem: Error, Equatable {
        /// Not of the form at all (or a field out of range).
        case form
        /// `:60` on a day (UTC) without a leap second.
        case noLeapSecond(day: String)

        /// What, and the form wanted, for an error message after the value.
        package var description: String {
            switch self {
            case .form:
                "is not an RFC 3339 date-time such as 2025-06-03T15:10:00.000Z (a date, T, the time "
                    + "with its seconds, a fraction after a point if any, then Z or an offset ±hh:mm)"
            case .noLeapSecond(let day):
                "has second 60, but no leap second was inserted at 23:59:60 UTC on \(day) (the last one: 2016-12-31)"
            }
        }
    }

    /// The UTC days (from IERS Bulletin C) whose last minute had 61 seconds: all 27 to date, none
    /// since 2016-12-31.
    package static let leapSecondDays: Set<String> = [
        "1972-06-30", "1972-12-31", "1973-12-31", "1974-12-31", "1975-12-31", "1976-12-31", "1977-12-31",
        "1978-12-31", "1979-12-31", "1981-06-30", "1982-06-30", "1983-06-30", "1985-06-30", "1987-12-31",
        "1989-12-31", "1990-12-31", "1992-06-30", "1993-06-30", "1994-06-30", "1995-12-31", "1997-06-30",
        "1998-12-31", "2005-12-31", "2008-12-31", "2012-06-30", "2015-06-30", "2016-12-31",
    ]

    /// Seconds since 1970-01-01T00:00:00Z.
    package static func parse(_ text: String) throws(Problem) -> Double {
        var bytes = Array(text.utf8)
        guard hasForm(bytes) else { throw .form }
        // Upper case for the xsd:dateTime reader, which computes the instant.
        bytes[10] = UInt8(ascii: "T")
        if bytes[bytes.count - 1] == UInt8(ascii: "z") { bytes[bytes.count - 1] = UInt8(ascii: "Z") }
        let leap = bytes[17] == UInt8(ascii: "6")
        if leap { bytes[17] = UInt8(ascii: "5"); bytes[18] = UInt8(ascii: "9") }
        // The offset is taken off here: xsd:dateTime allows ±14:00 at most, RFC 3339 any hour to
        // 23 (`+15:00` was refused as no date-time).
        var offset = 0.0
        if bytes[bytes.count - 1] != UInt8(ascii: "Z") {
            let at = bytes.count - 6
            func number(_ i: Int) -> Double { Double(Int(bytes[i] - 48) * 10 + Int(bytes[i + 1] - 48)) }
            offset = (bytes[at] == UInt8(ascii: "-") ? -1 : 1) * (number(at + 1) * 3_600 + number(at + 4) * 60)
            bytes.replaceSubrange(at..., with: [UInt8(ascii: "Z")])
        }
        guard let local = XSDDateTime.parse(String(decoding: bytes, as: UTF8.self)) else { throw .form }
        let seconds = local - offset
        guard leap else { return seconds }
        // 23:59:59 UTC of a leap second day, read with 59 for 60: one second on.
        guard XSDDateTime.endsLeapSecondDay(seconds) else {
            throw .noLeapSecond(day: String(XSDDateTime.format(seconds.rounded(.down), fractionDigits: 0).prefix(10)))
        }
        return seconds + 1
    }

    /// `yyyy-mm-ddThh:mm:ss(.f+)?(Z|±hh:mm)`, `t` and `z` in either case, each field in range
    /// (the day against its month is the xsd:dateTime reader's check).
    static func hasForm(_ b: [UInt8]) -> Bool {
        func digits(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= b.count else { return nil }
            var value = 0
            for i in range {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                value = value * 10 + Int(b[i] - 48)
            }
            return value
        }
        func at(_ i: Int, _ characters: String) -> Bool { i < b.count && characters.utf8.contains(b[i]) }
        guard digits(0..<4) != nil, at(4, "-"), let month = digits(5..<7), (1...12).contains(month), at(7, "-"),
            let day = digits(8..<10), (1...31).contains(day), at(10, "Tt"), let hour = digits(11..<13), hour <= 23,
            at(13, ":"), let minute = digits(14..<16), minute <= 59, at(16, ":"), let second = digits(17..<19),
            second <= 60
        else { return false }
        var i = 19
        if at(i, ".") {
            i += 1
            let start = i
            while at(i, "0123456789") { i += 1 }
            guard i > start else { return false }
        }
        if at(i, "Zz") { return i + 1 == b.count }
        guard at(i, "+-"), let offsetHours = digits(i + 1..<i + 3), offsetHours <= 23, at(i + 3, ":"),
            let offsetMinutes = digits(i + 4..<i + 6), offsetMinutes <= 59
        else { return false }
        return i + 6 == b.count
    }
}
