import WaypostSupport

/// HTTP's preferred date form, IMF-fixdate (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Seconds since 1970 of an IMF-fixdate; nil for any other text (the obsolete RFC 850 and
    /// asctime forms included: no provider sends them).
    static func seconds(_ text: String) -> Double? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
            parts[1].count == 2, let day = Int(parts[1]), let month = months.firstIndex(of: String(parts[2])),
            parts[3].count == 4, let year = Int(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }), let hour = Int(clock[0]),
            let minute = Int(clock[1]), let second = Int(clock[2]), (1...31).contains(day), hour < 24, minute < 60,
            second < 61
        else { return nil }
        let days = CivilCalendar.days(year: year, month: month + 1, day: day)
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second)
    }
}
