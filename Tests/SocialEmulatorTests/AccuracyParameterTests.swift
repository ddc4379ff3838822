import Foundation
import Testing

@testable import SocialEmulator

/// `reverse_geocode`'s `accuracy` ("65", "65m", "200ft", trimmed, any case): ASCII text is read
/// bytewise, and must read as the Foundation path (trim `.whitespaces`, `lowercased()`) reads it.
struct AccuracyParameterTests {
    static let texts = [
        "", " ", "\t", "65", "65m", "65M", " 65m ", "\t10 ft\t", "10FT", "10Ft", "200ft", "1E2", "1e2M", "0x10",
        "0X1P3ft", "inf", "INF", "nan", "-1", "1e9", "100000000", "m", "ft", "f", "t", "mm", "65 m", "6 5",
        "65\n", "\n65", "+3", ".5m", "5.", "1_0", "65mft", "65ftm", "ſt", "\r\n",
    ]

    @Test func asciiReadsAsTheUnicodePathReadsIt() {
        for text in Self.texts {
            #expect(TwitterRoutes.accuracy(text) == TwitterRoutes.accuracy(unicode: text), "\(text.debugDescription)")
        }
        #expect(TwitterRoutes.accuracy(nil) == 0)
        #expect(TwitterRoutes.accuracy(" 65m ") == 65)
        #expect(TwitterRoutes.accuracy("10FT") == 10 * 0.3048)
        #expect(TwitterRoutes.accuracy("-1") == nil)
    }
}
