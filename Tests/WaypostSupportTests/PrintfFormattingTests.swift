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
}
