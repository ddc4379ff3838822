/// Where a tweet's links are, as twitter-text's extractor finds those written with `http://` or
/// `https://` — the links Twitter wraps in t.co and counts as 23 (``TweetLength``) — in
/// code-point offsets.
///
/// twitter-text's rules (its `validUrlPath`, `validUrlPathEndingChars`, `validUrlQueryChars`,
/// `validUrlQueryEndingChars`, `validUrlBalancedParens`): a link starts where no letter, digit,
/// `@`, `$`, `#` or `/` comes just before; its host is labels of letters, digits, `-` and `_`
/// joined by dots, the last one a top-level domain; then an optional port, path and query. A path
/// ends at a letter, digit, `+ - = _ # /` or a balanced `(…)` (two levels at most), a query at a
/// letter, digit, `- _ & = # /`: punctuation after a link — `https://example.com/menu)!` in a
/// sentence, `…/cafe,` — is the sentence's, not the link's.
///
/// Where this differs from twitter-text: a top-level domain is any final label of two or more
/// letters (or `xn--` punycode) rather than one of its list's; links without a scheme
/// (`example.com/path`) are not found. `make test` holds the rest to twitter-text's rules
/// through the PyPI `twitter-text-parser` (Tests/ClientConformance/test_twitter_text.py).
public enum TweetURLs {
    /// The links in `scalars`, in order.
    public static func ranges(in text: [Unicode.Scalar]) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var index = 0
        while index + 7 < text.count {
            guard text[index] == "h" || text[index] == "H", let end = link(in: text, at: index) else {
                index += 1
                continue
            }
            found.append(index..<end)
            index = end
        }
        return found
    }

    /// The end of a link starting at `start`, nil when none does.
    private static func link(in text: [Unicode.Scalar], at start: Int) -> Int? {
        if start > 0 {
            let before = text[start - 1]
            if isLetterOrDigit(before) || "@$#/".unicodeScalars.contains(before) { return nil }
        }
        var index = start
        for expected in "http".unicodeScalars {
            guard index < text.count, lowercased(text[index]) == expected else { return nil }
            index += 1
        }
        if index < text.count, lowercased(text[index]) == "s" { index += 1 }
        for expected in "://".unicodeScalars {
            guard index < text.count, text[index] == expected else { return nil }
            index += 1
        }
        // The host: labels joined by dots, the last one a top-level domain.
        let hostStart = index
        while index < text.count, isLetterOrDigit(text[index]) || "-_.".unicodeScalars.contains(text[index]) {
            index += 1
        }
        while index > hostStart, ".-_".unicodeScalars.contains(text[index - 1]) { index -= 1 }
        let labels = text[hostStart..<index].split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }), let top = labels.last,
            isTopLevelDomain(Array(top))
        else { return nil }
        var end = index
        // A port.
        if index + 1 < text.count, text[index] == ":", isDigit(text[index + 1]) {
            index += 1
            while index < text.count, isDigit(text[index]) { index += 1 }
            end = index
        }
        // A path.
        if index < text.count, text[index] == "/" {
            end = index + 1
            index += 1
            var depth = 0
            var parenthesisOpenedAt = 0
            while index < text.count {
                let s = text[index]
                if s == "(" {
                    guard depth < 2 else { break }
                    if depth == 0 { parenthesisOpenedAt = index }
                    depth += 1
                } else if s == ")" {
                    guard depth > 0 else { break }
                    depth -= 1
                    if depth == 0 && index > parenthesisOpenedAt + 1 { end = index + 1 }
                } else if isPathCharacter(s) {
                    if depth == 0 && isPathEnding(s) { end = index + 1 }
                } else {
                    break
                }
                index += 1
            }
            index = end
        }
        // A query.
        if index < text.count, text[index] == "?" {
            var scan = index + 1
            while scan < text.count, isQueryCharacter(text[scan]) {
                if isQueryEnding(text[scan]) { end = scan + 1 }
                scan += 1
            }
        }
        return end
    }

    private static func isTopLevelDomain(_ label: [Unicode.Scalar]) -> Bool {
        if label.count > 4, String(String.UnicodeScalarView(label.prefix(4))).lowercased() == "xn--" { return true }
        return label.count >= 2 && label.allSatisfy { $0.properties.isAlphabetic }
    }

    private static func lowercased(_ s: Unicode.Scalar) -> Unicode.Scalar {
        (0x41...0x5A).contains(s.value) ? Unicode.Scalar(s.value + 0x20) ?? s : s
    }

    private static func isDigit(_ s: Unicode.Scalar) -> Bool { (0x30...0x39).contains(s.value) }

    private static func isLetterOrDigit(_ s: Unicode.Scalar) -> Bool {
        s.isASCII
            ? isDigit(s) || (0x61...0x7A).contains(lowercased(s).value)
            : s.properties.isAlphabetic || s.properties.numericType != nil
                || s.properties.generalCategory
                    == .nonspacingMark
    }

    private static func isPathCharacter(_ s: Unicode.Scalar) -> Bool {
        isPathLetter(s) || "!*';:=+,.$/%#[]-_~&|@\u{2013}".unicodeScalars.contains(s)
    }

    private static func isPathEnding(_ s: Unicode.Scalar) -> Bool {
        isPathLetter(s) || "+-=_#/".unicodeScalars.contains(s)
    }

    /// A path's letters: ASCII, twitter-text's `latinAccentChars` and Cyrillic; a path ends
    /// before any other script's (CJK after a link is the sentence's).
    private static func isPathLetter(_ s: Unicode.Scalar) -> Bool {
        if s.isASCII { return isLetterOrDigit(s) }
        return pathLetters.contains { $0.contains(s.value) }
    }

    private static let pathLetters: [ClosedRange<UInt32>] = [
        0xC0...0xD6, 0xD8...0xF6, 0xF8...0x24F, 0x253...0x254, 0x256...0x257, 0x259...0x259, 0x25B...0x25B,
        0x263...0x263, 0x268...0x268, 0x26F...0x26F, 0x272...0x272, 0x289...0x289, 0x28B...0x28B, 0x2BB...0x2BB,
        0x300...0x36F, 0x400...0x4FF, 0x1E00...0x1EFF,
    ]

    private static func isQueryCharacter(_ s: Unicode.Scalar) -> Bool {
        (s.isASCII && isLetterOrDigit(s)) || "!?*'();:&=+$/%#[]-_.,~|@".unicodeScalars.contains(s)
    }

    private static func isQueryEnding(_ s: Unicode.Scalar) -> Bool {
        (s.isASCII && isLetterOrDigit(s)) || "-_&=#/".unicodeScalars.contains(s)
    }
}
