import WaypostSupport

/// Twitter's `created_at`: `Wed Aug 27 13:08:45 +0000 2008`, in UTC.
enum TwitterDate {
    static func text(_ seconds: Double) -> String {
        let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let (dayNumber, secondOfDay) = CivilTime.split(seconds)
        let (y, m, d) = CivilCalendar.date(days: dayNumber)
        return
            "\(days[((dayNumber % 7) + 7) % 7]) \(months[m - 1]) \(CivilTime.two(d)) \(CivilTime.clock(secondOfDay)) +0000 \(y)"
    }
}

/// Graph's `created_time`: `2014-04-12T14:26:16+0000`.
enum GraphDate {
    static func text(_ seconds: Double) -> String {
        let (dayNumber, secondOfDay) = CivilTime.split(seconds)
        let (y, m, d) = CivilCalendar.date(days: dayNumber)
        return "\(y)-\(CivilTime.two(m))-\(CivilTime.two(d))T\(CivilTime.clock(secondOfDay))+0000"
    }
}

/// Calendar arithmetic for both formats, in UTC.
enum CivilTime {
    /// Days since 1970 and the second of that day; clamped to ±10⁶ years so no clock offset traps.
    static func split(_ seconds: Double) -> (day: Int, second: Int) {
        let bounded = min(max(seconds.isFinite ? seconds : 0, -3.1e13), 3.1e13)
        let whole = Int(bounded.rounded(.down))
        let day = Int((Double(whole) / 86_400).rounded(.down))
        return (day, whole - day * 86_400)
    }

    static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    static func clock(_ second: Int) -> String {
        "\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))"
    }
}
