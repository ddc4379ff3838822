import Foundation

/// Offsets from a run's start, written as `+1:02:03` (hours only when needed).
public enum Offset {
    public static func text(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let sign = total < 0 ? "-" : "+"
        let s = abs(total)
        let (h, m, sec) = (s / 3_600, s / 60 % 60, s % 60)
        return h > 0
            ? String(format: "%@%d:%02d:%02d", sign, h, m, sec) : String(format: "%@%d:%02d", sign, m, sec)
    }
}
