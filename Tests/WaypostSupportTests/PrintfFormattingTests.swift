import Foundation
import Testing
import WaypostSupport

/// The text stream writes numbers as C's `%.Nf` did before it stopped calling `String(format:)`:
/// byte for byte, on the values a replay prints and on the ties where rounding is decided.
struct PrintfFormattingTests {
    static func ours(_ value: Double, _ digits: Int) -> String { FixedPoint.printf(value, digits: digits) }

    @Test(arguments: [0, 1, 2, 6])
    func sameAsPrintfOnRandomValues(digits: Int) {
        var random = SplitMix64(seed: UInt64(digits) &+ 41)
        var mismatches: [String] = []
        for i in 0..<200_000 {
            // Coordinates, accuracies, speeds and courses, and some of every magnitude.
            let value: Double =
                switch i % 4 {
                case 0: (random.unit() - 0.5) * 360
                case 1: random.unit() * 100
                case 2: Double(Int(random.unit() * 1e6)) / ExactPowers.ofTen(digits + 1)  // halves and near-halves
                default: (random.unit() - 0.5) * pow(10, Double(Int(random.unit() * 16) - 4))
                }
            let expected = String(format: "%.\(digits)f", value)
            if Self.ours(value, digits) != expected, mismatches.count < 5 { mismatches.append("\(value): \(expected)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test(arguments: [
        (0.5, 0), (1.5, 0), (2.5, 0), (-0.5, 0), (-0.0, 0), (-0.0, 6), (-0.0000001, 6), (0.125, 2), (0.375, 2),
        (1.0005, 3), (999_999.9999995, 6), (37.3318165, 6), (1e300, 2), (-.infinity, 1), (.nan, 1), (0.95, 1),
        (123_456_789.123, 2),
    ])
    func sameAsPrintfOnTiesAndEdges(value: Double, digits: Int) {
        #expect(Self.ours(value, digits) == String(format: "%.\(digits)f", value))
    }

    /// `FixedPoint.append` against the decimal spelled from the units' own digits: every number of
    /// places, units at each power of ten's edges (where the count of digits changes).
    @Test func unitsAtPowersOfTenWithEveryNumberOfPlaces() {
        func spelled(_ units: UInt64, places: Int, negative: Bool) -> String {
            var digits = String(units)
            if digits.count <= places { digits = String(repeating: "0", count: places + 1 - digits.count) + digits }
            if places > 0 { digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -places)) }
            return (negative ? "-" : "") + digits
        }
        var units: [UInt64] = [0, 1, 9, .max]
        for exponent in 1...19 {
            let power = (0..<exponent).reduce(UInt64(1)) { product, _ in product * 10 }
            units += [power - 1, power, power + 1]
        }
        var mismatches: [String] = []
        for unit in units {
            for places in 0...24 {
                for negative in [false, true] {
                    var out: [UInt8] = []
                    FixedPoint.append(unit, places: places, negative: negative, to: &out)
                    let expected = spelled(unit, places: places, negative: negative)
                    if String(decoding: out, as: UTF8.self) != expected { mismatches.append(expected) }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    /// Offsets as `String(format:)` wrote them: signs, the hour appearing, rounding at a half.
    @Test func offsetsAsTheFormatterWroteThem() {
        var mismatches: [String] = []
        let edges: [Double] = [0, -0.0, 0.4, 0.5, -0.5, 1.5, 59.4, 59.5, 3_599.4, 3_599.5, -3_600, 86_400 * 3 + 7]
        for seconds in edges + (-4_000...8_000).map({ Double($0) * 1.7 }) {
            let total = Int(seconds.rounded())
            let (sign, s) = (total < 0 ? "-" : "+", abs(total))
            let (h, m, sec) = (s / 3_600, s / 60 % 60, s % 60)
            let expected =
                h > 0
                ? String(format: "%@%d:%02d:%02d", sign, h, m, sec) : String(format: "%@%d:%02d", sign, m, sec)
            if Offset.text(seconds) != expected, mismatches.count < 5 { mismatches.append("\(seconds): \(expected)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }
}
