import Testing
import WaypostSupport

/// `DecimalParser` reads a decimal as the standard library's `Double(_:)` does — correctly
/// rounded, through Clinger's exact fast path or `strtod` — and refuses what is not a decimal.
struct DecimalParserTests {
    static func parse(_ text: String) -> Double? {
        var copy = text
        return copy.withUTF8 { DecimalParser.parse($0) }
    }

    @Test func isExactAndStrict() {
        for text in [
            "-122.207881", "37.371915", "0.1", "1E-02", "+3.5", "156.000000", "1e300", "4.9e-324",
            "123456789012345678901234", "0.30000000000000004", "-0", "9007199254740993", "1e22", "1e23",
        ] {
            let expected = Double(text.replacingOccurrences(of: "+", with: ""))
            #expect(Self.parse(text) == expected && Self.parse(text)?.sign == expected?.sign, "\(text)")
        }
        for bad in ["", "-", ".", "1e", "nan", "inf", "0x1p3", "1.2.3", "1,2", " 1", "1e-", "1e400"] {
            #expect(Self.parse(bad) == nil, "\(bad)")
        }
    }

    /// Seeded decimals of every length and exponent the fast path takes and many it does not.
    @Test func agreesWithTheStandardLibraryOnRandomDecimals() {
        var random = SplitMix64(seed: 17)
        for _ in 0..<20_000 {
            let digits = Int.random(in: 1...22, using: &random)
            let whole = String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
            let point = Int.random(in: 0...digits, using: &random)
            var text = String(whole.prefix(point)) + "." + String(whole.dropFirst(point))
            if text.hasPrefix(".") { text = "0" + text }
            if text.hasSuffix(".") { text += "0" }
            if Bool.random(using: &random) { text += "e\(Int.random(in: -40...40, using: &random))" }
            if Bool.random(using: &random) { text = "-" + text }
            #expect(Self.parse(text) == Double(text), "\(text)")
        }
    }
}
