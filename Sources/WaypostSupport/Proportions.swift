/// The statistics trials and sweeps report: how often something happened, and when.
public enum Proportions {
    /// The Wilson score interval at 95 % (z = 1.96) for `successes` of `trials` (Wilson, JASA 1927).
    public static func wilson(_ successes: Int, of trials: Int) -> ClosedRange<Double> {
        guard trials > 0 else { return 0...1 }
        let (n, z) = (Double(trials), 1.959_963_984_540_054)
        let p = Double(successes) / n
        let centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        let half = z / (1 + z * z / n) * (p * (1 - p) / n + z * z / (4 * n * n)).squareRoot()
        // At 0 or n successes a bound is exactly 0 or 1 (centre ∓ half is, in exact arithmetic);
        // computed, 1 came out 0.9999999999999999, and a rate of "< 1" held in 30 of 30 trials.
        let low = successes == 0 ? 0 : Swift.max(0, centre - half)
        let high = successes == trials ? 1 : Swift.min(1, centre + half)
        return low...high
    }

    /// The nearest-rank percentile of sorted values (p from 0 to 1).
    public static func percentile<Value>(_ sorted: [Value], _ p: Double) -> Value {
        sorted[Swift.max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
    }
}
