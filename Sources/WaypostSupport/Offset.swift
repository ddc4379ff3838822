/// Offsets from a run's start, written as `+1:02:03` (hours only when needed).
public enum Offset {
    /// `String(format: "%@%d:%02d:%02d", …)` without Foundation's formatter: a trial writes an
    /// offset for every event its expectations list, and the formatter was half of judging them
    /// (perf, 1,000 field trials).
    public static func text(_ seconds: Double) -> String {
        // Past what an `Int` holds (no run's; an edited results file's) the seconds as they are.
        guard let total = Int(exactly: seconds.rounded()) else { return (seconds < 0 ? "" : "+") + "\(seconds) s" }
        let s = total.magnitude
        let (h, m, sec) = (s / 3_600, s / 60 % 60, s % 60)
        func twoDigits(_ n: UInt) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let sign = total < 0 ? "-" : "+"
        return h > 0 ? "\(sign)\(h):\(twoDigits(m)):\(twoDigits(sec))" : "\(sign)\(m):\(twoDigits(sec))"
    }

    /// With `decimals` (1 to 3) decimals of a second, `+0:30.45`: for a figure told from a bound
    /// whose whole seconds it shares.
    package static func text(_ seconds: Double, decimals: Int) -> String {
        guard decimals > 0 else { return text(seconds) }
        let scale = Int(ExactPowers.ofTen(min(decimals, 3)))
        guard let units = Int(exactly: (seconds.magnitude * Double(scale)).rounded()) else { return text(seconds) }
        var fraction = String(units % scale)
        while fraction.count < min(decimals, 3) { fraction = "0" + fraction }
        let sign = seconds < 0 && units > 0 ? "-" : "+"
        return sign + text(Double(units / scale)).dropFirst() + "." + fraction
    }

    /// A bound as it was given: whole seconds, or with the decimals (up to 3) it has — `before:
    /// 47.8s` written as `+0:48` read as the event it failed at 47.85 s (`seen at +0:48`).
    package static func bound(_ seconds: Double) -> String {
        let decimals =
            (0...3).first { n in
                let scaled = seconds * ExactPowers.ofTen(n)
                return abs(scaled - scaled.rounded()) < 1e-6
            } ?? 3
        return text(seconds, decimals: decimals)
    }

    /// Decimals (1 to 3) enough to show `value` over `bound` when whole seconds show them equal;
    /// nil when they do not (or it is not over).
    package static func decimals(showing value: Double, over bound: Double) -> Int? {
        guard value > bound, text(value) == text(bound) else { return nil }
        return [1, 2, 3].first { (value * ExactPowers.ofTen($0)).rounded() > (bound * ExactPowers.ofTen($0)).rounded() }
            ?? 3
    }
}
