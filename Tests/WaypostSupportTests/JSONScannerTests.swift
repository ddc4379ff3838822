import Foundation
import Testing
import WaypostSupport

/// `JSONScanner` reads a token as RFC 8259 defines it — held to Foundation's `JSONSerialization`
/// on each string and number, one token at a time — and stops right after it. (Its readers'
/// tests hold whole documents: AnswerDecoderTests to `JSONDecoder`, JSONReaderTests to YAML.)
struct JSONScannerTests {
    /// The token at the start of `text`, scanned by `scan`; and where the scanner stopped.
    static func scanned<T>(_ text: String, _ scan: (inout JSONScanner) -> T) -> (T, end: Int) {
        Array(text.utf8).withUnsafeBytes { bytes in
            var scanner = JSONScanner(bytes: bytes)
            let result = scan(&scanner)
            return (result, scanner.index)
        }
    }

    /// `text` read by Foundation as the only element of an array: nil when it is not JSON.
    static func foundation(_ text: String) -> Any? {
        (try? JSONSerialization.jsonObject(with: Data("[\(text)]".utf8)) as? [Any])?.first
    }

    @Test func stringsAsFoundationReadsThem() {
        let strings = [
            #""""#, #""plain""#, #""caf\u00e9 \"Nord\"\/Sud""#, #""\b\f\n\r\t\\""#, #""\ud83d\ude00 ☕️""#,
            #""caf\u00E9""#, #""\u0000""#, "\"café\"",
            // Not JSON: a lone or reversed surrogate, an undefined escape, a control character,
            // a short \u escape, no closing quote.
            #""\ud800""#, #""\udc00""#, #""\ude00\ud83d""#, #""\ud83d\u0041""#, #""\x""#, "\"a\u{1}b\"", #""\u12""#,
            #""open"#, #""\"#,
        ]
        for text in strings {
            let (value, end) = Self.scanned(text + " ,") { $0.string() }
            let expected = Self.foundation(text) as? String
            #expect(value == expected, "\(text)")
            if value != nil { #expect(end == text.utf8.count, "\(text)") }
        }
        // Bytes that are not UTF-8 inside the quotes are refused.
        let invalid: [UInt8] = [0x22, 0x61, 0xFF, 0x22]
        #expect(
            invalid.withUnsafeBytes { bytes in
                var scanner = JSONScanner(bytes: bytes)
                return scanner.string()
            } == nil)
    }

    @Test func numbersAsJSONSpellsThem() {
        let numbers = [
            "0", "-0", "7", "-12", "3.25", "1e5", "1E+5", "2.5e-3", "-0.0", "120",
            "01", "1.", ".5", "+1", "1e", "1e+", "-", "--1", "0x1F", "Infinity", "NaN",
        ]
        for text in numbers {
            // A number that stops early (`0` of `01`) leaves the rest to the reader, which refuses it.
            let (isNumber, end) = Self.scanned(text + "]") { $0.number() }
            #expect((isNumber && end == text.utf8.count) == (Self.foundation(text) is NSNumber), "\(text)")
        }
    }

    @Test func literalsAndStructure() {
        #expect(Self.scanned("true,") { $0.literal("true") } == (true, 4))
        #expect(Self.scanned("tru") { $0.literal("true") } == (false, 0))
        #expect(Self.scanned("nul ") { $0.literal("null") } == (false, 0))
        #expect(
            Self.scanned(" \t\r\n:") { scanner in
                scanner.skipWhitespace()
                return scanner.take(UInt8(ascii: ":"))
            } == (true, 5))
    }
}
