import Foundation

/// Tweet length as twitter-text (v3) counts it: 280 weighted units, where most Latin, Cyrillic
/// and punctuation code points weigh 1 and everything else (CJK, emoji) 2; every link
/// (``TweetURLs``) counts 23.
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
        if let latin = latinScalars(text) { return count(latin: latin) }
        // twitter-text normalises to NFC first: "e" + U+0301 is one code point, "é", of weight 1.
        let scalars = Array(text.precomposedStringWithCanonicalMapping.unicodeScalars)
        func plain(_ range: Range<Int>) -> Int {
            count(plain: String(String.UnicodeScalarView(scalars[range])), legacy: legacy)
        }
        var total = 0
        var next = 0
        for link in TweetURLs.ranges(in: scalars) {
            total += plain(next..<link.lowerBound) + urlLength
            next = link.upperBound
        }
        return total + plain(next..<scalars.count)
    }

    public static func fits(_ text: String, legacy: Bool = false) -> Bool {
        count(text, legacy: legacy) <= (legacy ? legacyMaximum : maximum)
    }

    /// The code points of a text written below U+0300 (Basic Latin to the spacing modifier
    /// letters, "café" and "Zürich" among them); nil for any other. Such a text is its own NFC (no
    /// combining mark or composing pair lies there), and each of its code points is a character
    /// of weight 1 (none has Emoji_Presentation; only CR LF joins two): its count needs neither
    /// normalisation nor a walk by grapheme, which were most of counting a check-in's message.
    private static func latinScalars(_ text: String) -> [Unicode.Scalar]? {
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            guard scalar.value < 0x300 else { return nil }
            scalars.append(scalar)
        }
        return scalars
    }

    /// ``latinScalars(_:)``'s count, by either rule: every code point weighs 1, every link 23.
    private static func count(latin scalars: [Unicode.Scalar]) -> Int {
        let links = TweetURLs.ranges(in: scalars)
        return scalars.count - links.reduce(0) { $0 + $1.count } + links.count * urlLength
    }

    private static func count(plain text: String, legacy: Bool) -> Int {
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
}
