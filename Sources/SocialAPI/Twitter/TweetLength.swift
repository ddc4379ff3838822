import Foundation
import WaypostSupport

/// Tweet length as twitter-text (v3) counts it: 280 weighted units, where most Latin, Cyrillic
/// and punctuation code points weigh 1 and everything else (CJK, emoji) 2; every URL counts 23.
/// `legacy` is the old rule: 140 code points, URLs 23.
///
/// twitter-text's `config/v3.json`: `maxWeightedTweetLength` 280, `scale` 100, `defaultWeight`
/// 200, `ranges` 0–4351, 8192–8205, 8208–8223, 8242–8247 at weight 100, `transformedURLLength`
/// 23, `emojiParsingEnabled` true; `parseTweet` counts the text after NFC normalisation.
/// One rule for the whole project: the engine checks a message with it before sending, and the
/// emulator refuses longer statuses with it (403/186), as Twitter did.
public enum TweetLength {
    public static let maximum = 280
    public static let legacyMaximum = 140
    public static let urlLength = 23

    /// The ranges of code points that weigh 1 (twitter-text's `defaultWeight` 200 elsewhere).
    private static let lightRanges: [ClosedRange<UInt32>] = [0...4351, 8192...8205, 8208...8223, 8242...8247]

    /// The length Twitter would count.
    public static func count(_ text: String, legacy: Bool = false) -> Int {
        if ASCIIText.isASCII(text) { return count(ascii: Array(text.utf8)) }
        var total = 0
        // twitter-text normalises to NFC first: "e" + U+0301 is one code point, "é", of weight 1.
        var rest = Substring(text.precomposedStringWithCanonicalMapping)
        while let url = firstURL(in: rest) {
            total += count(plain: rest[..<url.lowerBound], legacy: legacy) + urlLength
            rest = rest[url.upperBound...]
        }
        return total + count(plain: rest, legacy: legacy)
    }

    public static func fits(_ text: String, legacy: Bool = false) -> Bool {
        count(text, legacy: legacy) <= (legacy ? legacyMaximum : maximum)
    }

    /// An ASCII text's count, by either rule: NFC leaves it as it is, every code point weighs 1
    /// (none is an emoji by itself), and a URL ends at an ASCII white space (U+0009–U+000D, U+0020).
    private static func count(ascii bytes: [UInt8]) -> Int {
        var total = 0
        var index = 0
        while index < bytes.count {
            let rest = bytes[index...]
            if rest.starts(with: "http://".utf8) || rest.starts(with: "https://".utf8) {
                total += urlLength
                index = rest.firstIndex { (9...13).contains($0) || $0 == 32 } ?? bytes.count
            } else {
                total += 1
                index += 1
            }
        }
        return total
    }

    private static func count(plain text: Substring, legacy: Bool) -> Int {
        if legacy { return text.unicodeScalars.count }
        var total = 0
        for character in text {
            total += isEmoji(character) ? 2 : character.unicodeScalars.reduce(0) { $0 + weight($1) }
        }
        return total
    }

    /// An emoji, with any modifiers and joiners, counts as one character of weight 2.
    private static func isEmoji(_ character: Character) -> Bool {
        let scalars = character.unicodeScalars
        guard let first = scalars.first, first.properties.isEmoji else { return false }
        return first.properties.isEmojiPresentation || scalars.count > 1
    }

    private static func weight(_ scalar: Unicode.Scalar) -> Int {
        lightRanges.contains { $0.contains(scalar.value) } ? 1 : 2
    }

    /// `http://` or `https://` up to the next whitespace.
    private static func firstURL(in text: Substring) -> Range<Substring.Index>? {
        var search = text.startIndex
        while let start = text[search...].range(of: "http")?.lowerBound {
            let tail = text[start...]
            if tail.hasPrefix("http://") || tail.hasPrefix("https://") {
                let end = tail.firstIndex { $0.isWhitespace } ?? text.endIndex
                return start..<end
            }
            search = text.index(after: start)
        }
        return nil
    }
}
