/// Offsets from a run's start, written as `+1:02:03` (hours only when needed).
public enum Offset {
    /// `String(format: "%@%d:%02d:%02d", …)` without Foundation's formatter: a trial writes an
    /// offset for every event its expectations list, and the formatter was half of judging them
    /// (perf, 1,000 field trials).
    public static func text(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let s = total.magnitude
        let (h, m, sec) = (s / 3_600, s / 60 % 60, s % 60)
        func twoDigits(_ n: UInt) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let sign = total < 0 ? "-" : "+"
        return h > 0 ? "\(sign)\(h):\(twoDigits(m)):\(twoDigits(sec))" : "\(sign)\(m):\(twoDigits(sec))"
    }
}
