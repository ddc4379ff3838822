import SocialAPI
import Testing

@Suite("Tweet length as twitter-text v3 counts it")
struct TweetLengthTests {
    @Test(
        "Tweet length follows twitter-text v3 weights",
        arguments: [
            ("hello", 5, false), ("café", 4, false), ("日本語", 6, false), ("☕️", 2, false), ("👩‍👩‍👧", 2, false),
            ("see https://example.com/a/very/long/path/indeed ok", 4 + 23 + 3, false),
            ("日本語", 3, true), ("see http://x.co", 4 + 23, true),
            // NFC first (twitter-text's parseTweet): a decomposed "é" is one code point of weight 1.
            ("cafe\u{301}", 4, false), (String(repeating: "e\u{301}", count: 280), 280, false),
        ])
    func tweetLength(text: String, expected: Int, legacy: Bool) {
        #expect(TweetLength.count(text, legacy: legacy) == expected)
    }

    /// Text below U+0300 is counted code point by code point; the same text after a prefix
    /// beyond it ("語 ", weight 3, ending in a space so it joins no URL) goes through the full
    /// path (NFC, then character by character): the two must agree.
    @Test(
        "Latin text counts as the full Unicode path counts it",
        arguments: [
            "", "a", "#*0 digits and keycap bases", "http://", "https://x.co", "xhttp://a b", "http:/x http//y",
            "httphttps://a\tb", "see http://x.co\r\nnext", "two https://a.b/c?d=e#f and http://g.h",
            "url at end http://",
            "\u{0B}http://a\u{0C}b\u{1C}c", "HTTP://upper is not a url",
            "café at Zürich", "©®#", "http://x.co\u{A0}b", "http://x.co\u{85}b", "http://é.co/ß ok", "ʰʼˀ",
            "soft\u{AD}hyphen", "\r\n\r\n",
        ], [false, true])
    func latinPath(text: String, legacy: Bool) {
        #expect(
            TweetLength.count("語 " + text, legacy: legacy) == (legacy ? 2 : 3) + TweetLength.count(text, legacy: legacy)
        )
    }

    @Test("280 weighted fits; 281 does not; 141 CJK characters are over")
    func limits() {
        #expect(TweetLength.fits(String(repeating: "a", count: 280)))
        #expect(!TweetLength.fits(String(repeating: "a", count: 281)))
        #expect(!TweetLength.fits(String(repeating: "語", count: 141)))
        #expect(TweetLength.fits(String(repeating: "a", count: 140), legacy: true))
        #expect(!TweetLength.fits(String(repeating: "a", count: 141), legacy: true))
    }
}
