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

    /// How many decimals, from `minimum` on, `value` needs so that a value strictly between 0 and
    /// `whole` (1 for a fraction, 100 for a percentage) does not read as 0 or `whole`: 1,999
    /// trials of 2,000 are 99.95 %, not 100 %, which says "every one".
    package static func decimals(for value: Double, whole: Double, minimum: Int) -> Int {
        guard value > 0 && value < whole else { return minimum }
        var decimals = minimum
        while decimals < 9 {
            let scale = ExactPowers.ofTen(decimals)
            let rounded = (value * scale).rounded()
            if rounded > 0 && rounded < whole * scale { break }
            decimals += 1
        }
        return decimals
    }

    /// A fraction as a percentage, `82.5 %`: one decimal at most, or as many as keep a rate that
    /// is neither none nor all from reading 0 % or 100 % (``decimals(for:whole:minimum:)``).
    package static func percent(_ fraction: Double) -> String { percentage(fraction) + " %" }

    /// ``percent(_:)``'s number alone, `82.5`.
    package static func percentage(_ fraction: Double) -> String {
        let value = fraction * 100
        return FixedPoint.trimmed(value, digits: decimals(for: value, whole: 100, minimum: 1))
    }

    /// The nearest-rank percentile of sorted values (p from 0 to 1): the value at rank ⌈p·n⌉,
    /// always one the trials had — so the median of an even count is the lower middle one
    /// (NumPy's `inverted_cdf`), not the mean of the two.
    public static func percentile<Value>(_ sorted: [Value], _ p: Double) -> Value {
        sorted[Swift.max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
    }
}
