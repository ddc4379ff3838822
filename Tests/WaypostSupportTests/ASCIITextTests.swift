import Foundation
import Testing
import WaypostSupport

/// The bytewise search answers as Foundation's `contains` does on ASCII text: at the start, at
/// the end, overlapping near-misses, longer parts, repeats.
struct ASCIITextTests {
    @Test func containsAsFoundationDoesOnASCII() {
        var random = SplitMix64(seed: 7)
        var mismatches: [String] = []
        for _ in 0..<20_000 {
            // A two-letter alphabet makes near-misses and overlaps common.
            func word(_ most: Int) -> String {
                String((0..<Int(random.unit() * Double(most + 1))).map { _ in random.unit() < 0.5 ? "a" : "b" })
            }
            let (text, part) = (word(12), word(4) + "a")
            if ASCIIText.contains(text, part) != text.contains(part), mismatches.count < 5 {
                mismatches.append("\(text) \(part)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        #expect(ASCIIText.contains("https://api.twitter.com/", "://"))
        #expect(!ASCIIText.contains("api.twitter.com/1.1/", "://"))
    }
}
