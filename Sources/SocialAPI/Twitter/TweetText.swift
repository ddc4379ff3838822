/// A tweet's text as Twitter's answers carry it: `&`, `<` and `>` written as `&amp;`, `&lt;` and
/// `&gt;`, nothing else escaped (quotes stay). Twitter v1.1 did so "to prevent Cross-Site
/// Scripting attacks for web-embedded consumers of JSON API output" (its "Encoding" notes;
/// twittercommunity.com/t/68810 shows `&lt;script&gt;` in `text`), and X API v2 still does
/// (kbravh.dev/html-entities-twitter-api-v2). Clients differ: tweepy hands the text on as sent
/// (tweepy#1080), Twitter4J unescapes it. An entity's `indices` count code points of the escaped
/// text (Twitter4J#349, Penicillin#36). Links are wrapped in t.co links besides
/// (``Tweet/writtenText`` reads them back from the entities).
package enum TweetHTML {
    /// `text` as Twitter sent it back.
    package static func escaped(_ text: String) -> String {
        guard needsEscaping(text) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// The text as written, from Twitter's: the three entities read back in one pass, so that a
    /// `&lt;` the user typed (sent as `&amp;lt;`) stays `&lt;`; any other `&` is left as it is.
    package static func unescaped(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let replaced = scalars[index] == "&" ? entity(in: scalars, at: index) : nil
            out.append(replaced?.character ?? scalars[index])
            index += replaced?.length ?? 1
        }
        return String(out)
    }

    private static func entity(in scalars: [Unicode.Scalar], at index: Int) -> (character: Unicode.Scalar, length: Int)?
    {
        for (name, character) in [("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">")] as [(String, Unicode.Scalar)] {
            let name = Array(name.unicodeScalars)
            if scalars[index...].starts(with: name) { return (character, name.count) }
        }
        return nil
    }

    private static func needsEscaping(_ text: String) -> Bool {
        text.utf8.contains { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }
    }

    /// How many code points the escaped text has before each of `text`'s: where an index into
    /// the text as written lies in Twitter's. Nil when nothing is escaped (the same indices).
    package static func escapedOffsets(_ text: String) -> [Int]? {
        guard needsEscaping(text) else { return nil }
        var offsets: [Int] = []
        var position = 0
        for scalar in text.unicodeScalars {
            offsets.append(position)
            position += scalar == "&" ? 5 : scalar == "<" || scalar == ">" ? 4 : 1
        }
        offsets.append(position)
        return offsets
    }
}

extension Tweet {
    /// ``text`` as the user wrote it: Twitter sends `&`, `<` and `>` as HTML entities and every
    /// link wrapped in a t.co link (``text`` keeps both as sent, as tweepy does); the links come
    /// back from ``entities`` where it came with the tweet.
    public var writtenText: String {
        var written = TweetHTML.unescaped(text)
        for link in entities?.urls ?? [] {
            guard let expanded = link.expandedURL, let range = written.range(of: link.url) else { continue }
            written.replaceSubrange(range, with: expanded)
        }
        return written
    }
}

extension XTweet {
    /// ``text`` with `&`, `<` and `>` as written (X sends them as HTML entities); its links stay
    /// t.co links, which only the `entities` tweet field would expand.
    public var writtenText: String { TweetHTML.unescaped(text) }
}
