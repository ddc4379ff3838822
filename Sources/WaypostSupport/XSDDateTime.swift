/// Parsing and formatting of the xsd:dateTime family KML and GPX use, without Foundation's
/// date formatters (ISO8601DateFormatter measured ~40 µs a call on Linux; this is ~20 ns).
///
/// Accepted: `2010`, `2010-05`, `2010-05-28`, `2010-05-28T02:02`, `2010-05-28T02:02:09`,
/// with optional fractional seconds of any length and a `Z` or `±hh:mm` offset. A value with no
/// offset is taken as UTC (KML leaves it unspecified; every peer Waypost compares with does
/// the same). A reduced value stands for its first instant: `2010-05` is 2010-05-01T00:00:00Z.
public enum XSDDateTime {
    /// Seconds since 1970-01-01T00:00:00Z, or nil when `text` is not a valid value.
    public static func parse(_ text: String) -> Double? {
        var copy = text
        return copy.withUTF8 { parse($0) }
    }

    /// Parses UTF-8 bytes; surrounding whitespace is ignored.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        var end = bytes.count
        while i < end, isSpace(bytes[i]) { i += 1 }
        while end > i, isSpace(bytes[end - 1]) { end -= 1 }

        func digits(_ count: Int) -> Int? {
            guard end - i >= count else { return nil }
            var value = 0
            for _ in 0..<count {
                let d = Int(bytes[i]) - 48
                guard d >= 0 && d <= 9 else { return nil }
                value = value * 10 + d
                i += 1
            }
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard i < end, bytes[i] == byte else { return false }
            i += 1
            return true
        }

        var negativeYear = false
        if i < end, bytes[i] == UInt8(ascii: "-") {
            negativeYear = true
            i += 1
        }
        guard var year = digits(4) else { return nil }
        while i < end, bytes[i] >= 48, bytes[i] <= 57, year < 100_000_000 {  // years beyond 9999
            year = year * 10 + Int(bytes[i]) - 48
            i += 1
        }
        if negativeYear { year = -year }
        var month = 1
        var day = 1
        var hour = 0
        var minute = 0
        var second = 0.0
        var offsetSeconds = 0
        var leapSecond = false
        if expect(UInt8(ascii: "-")) {
            guard let m = digits(2), (1...12).contains(m) else { return nil }
            month = m
            if expect(UInt8(ascii: "-")) {
                guard let d = digits(2), d >= 1, d <= daysIn(month: month, year: year) else { return nil }
                day = d
                if expect(UInt8(ascii: "T")) {
                    guard let h = digits(2), expect(UInt8(ascii: ":")), let mi = digits(2), h <= 24, mi <= 59 else {
                        return nil
                    }
                    hour = h
                    minute = mi
                    if expect(UInt8(ascii: ":")) {
                        guard let s = digits(2), s <= 60 else { return nil }
                        second = Double(s)
                        leapSecond = s == 60
                        if expect(UInt8(ascii: ".")) {
                            // Digits beyond the 15th cannot change a Double of this size.
                            var fraction: Int64 = 0
                            var digitsRead = 0
                            while i < end, bytes[i] >= 48, bytes[i] <= 57 {
                                if digitsRead < 15 {
                                    fraction = fraction * 10 + Int64(bytes[i] - 48)
                                    digitsRead += 1
                                }
                                i += 1
                            }
                            guard digitsRead > 0 else { return nil }
                            second += Double(fraction) / ExactPowers.ofTen(digitsRead)
                        }
                    }
                    if hour == 24 && (minute != 0 || second != 0) { return nil }
                }
            }
        }
        if i < end {
            if expect(UInt8(ascii: "Z")) {
            } else if bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
                let sign = bytes[i] == UInt8(ascii: "+") ? 1 : -1
                i += 1
                guard let oh = digits(2), expect(UInt8(ascii: ":")), let om = digits(2), oh <= 14, om <= 59 else {
                    return nil
                }
                offsetSeconds = sign * (oh * 3600 + om * 60)
            }
        }
        guard i == end else { return nil }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        let instant = Double(days * 86_400 + hour * 3600 + minute * 60 - offsetSeconds) + second
        // A second 60 only where a leap second was inserted (XSD 1.0 Part 2, D.3.2; XSD 1.1 has
        // none): 23:59:60 UTC on one of IERS' days, read as the next minute's first second, as
        // POSIX time counts it. `00:00:60` was read as `00:01:00`.
        if leapSecond && !endsLeapSecondDay(instant - 1) { return nil }
        return instant
    }

    /// Whether `seconds` (UTC) falls in 23:59:59 of a day whose last minute had 61 seconds
    /// (``RFC3339/leapSecondDays``).
    static func endsLeapSecondDay(_ seconds: Double) -> Bool {
        let utc = format(seconds.rounded(.down), fractionDigits: 0)
        return utc.dropFirst(11).hasPrefix("23:59:59") && RFC3339.leapSecondDays.contains(String(utc.prefix(10)))
    }

    /// `2010-05-28T02:02:09.000Z`: UTC with milliseconds, the event stream's form.
    public static func formatMilliseconds(_ seconds: Double) -> String {
        format(seconds, fractionDigits: 3)
    }

    /// UTC, with `fractionDigits` digits of fractional seconds (0 omits the fraction).
    public static func format(_ seconds: Double, fractionDigits: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        append(seconds, fractionDigits: fractionDigits, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the UTC time as UTF-8 digits, without intermediate strings: event streams write
    /// one per line.
    public static func append(_ seconds: Double, fractionDigits: Int, to out: inout [UInt8]) {
        out.appendLine(capacity: 64) { write(seconds, fractionDigits: fractionDigits, to: &$0) }
    }

    /// Writes the UTC time: each field straight to its place in the line (``ByteCursor``).
    package static func write(_ seconds: Double, fractionDigits: Int, to line: inout ByteCursor) {
        // The widths in use with their scale a constant, so that the compiler divides by
        // multiplying, not by four hardware divisions a time written.
        switch fractionDigits {
        case 3: write(seconds, digits: 3, scale: 1_000, to: &line)
        case ...0: write(seconds, digits: 0, scale: 1, to: &line)
        default:
            let digits = min(fractionDigits, 6)
            var scale: Int64 = 1
            for _ in 0..<digits { scale *= 10 }
            write(seconds, digits: digits, scale: scale, to: &line)
        }
    }

    /// ``write(_:fractionDigits:to:)`` with `digits` fractional digits, `scale` 10^digits.
    @inline(__always)
    private static func write(_ seconds: Double, digits: Int, scale: Int64, to line: inout ByteCursor) {
        // Clamped to what an Int64 holds: no run makes such a time, but a server's absurd
        // Retry-After once reached `outbox list` and stopped it with a trap.
        let scaled = (seconds * Double(scale)).rounded()
        let ticks = Int64(scaled.isNaN ? 0 : min(max(scaled, -9.2e18), 9.2e18))
        let perDay = 86_400 * scale
        var days = ticks / perDay
        var rest = ticks % perDay
        if rest < 0 {
            rest += perDay
            days -= 1
        }
        let fraction = rest % scale
        let secondOfDay = Int(rest / scale)
        let (y, m, d) = CivilCalendar.date(days: Int(days))
        // Years outside 0...9999 (signed, or wider than four digits) go first, on their own.
        let fourDigits = (0...9999).contains(y)
        if !fourDigits {
            if y < 0 { line.put(UInt8(ascii: "-")) }
            writeDigits(abs(y), width: 4, to: &line)
        }
        guard let bytes = line.reserve((fourDigits ? 4 : 0) + 16 + (digits > 0 ? 1 + digits : 0)) else { return }
        let base = fourDigits ? 0 : -4  // without the year, every field sits four bytes earlier
        func pair(_ value: Int, at start: Int) {
            bytes[base + start] = UInt8(truncatingIfNeeded: 48 + value / 10)
            bytes[base + start + 1] = UInt8(truncatingIfNeeded: 48 + value % 10)
        }
        if fourDigits {
            pair(y / 100, at: 0)
            pair(y % 100, at: 2)
        }
        (bytes[base + 4], bytes[base + 7], bytes[base + 10]) = (45, 45, 84)  // - - T
        (bytes[base + 13], bytes[base + 16]) = (58, 58)  // : :
        pair(m, at: 5)
        pair(d, at: 8)
        pair(secondOfDay / 3600, at: 11)
        pair(secondOfDay / 60 % 60, at: 14)
        pair(secondOfDay % 60, at: 17)
        var end = 19
        if digits > 0 {
            bytes[base + 19] = UInt8(ascii: ".")
            end = 20 + digits
            var rest = fraction
            for i in stride(from: base + end - 1, through: base + 20, by: -1) {
                bytes[i] = UInt8(truncatingIfNeeded: 48 + rest % 10)
                rest /= 10
            }
        }
        bytes[base + end] = UInt8(ascii: "Z")
    }

    /// Writes a non-negative integer, zero-padded to at least `width` digits.
    static func writeDigits(_ value: Int, width: Int, to line: inout ByteCursor) {
        var length = 1
        var rest = max(value, 0)
        while rest >= 10 {
            rest /= 10
            length += 1
        }
        guard let room = line.reserve(max(length, width)) else { return }
        rest = max(value, 0)
        for index in room.indices.reversed() {
            room[index] = UInt8(truncatingIfNeeded: 48 + rest % 10)  // zeros once `rest` runs out
            rest /= 10
        }
    }

    /// UTC with only as many fractional digits as the value needs (none for whole seconds):
    /// the form the export writers use, matching togeojson and gpsbabel.
    public static func formatCompact(_ seconds: Double) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        appendCompact(seconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``formatCompact(_:)`` appended as UTF-8, for writers that emit one per point.
    public static func appendCompact(_ seconds: Double, to out: inout [UInt8]) {
        let millis = (seconds * 1000).rounded()
        // Whole seconds by integer remainder where the value fits (fmod was a tenth of writing a time).
        let whole =
            abs(millis) < 1e15 ? Int64(millis) % 1000 == 0 : millis.truncatingRemainder(dividingBy: 1000) == 0
        append(seconds, fractionDigits: whole ? 0 : 3, to: &out)
    }

    @inline(__always) private static func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
