import SocialAPI
import Testing

/// Links as twitter-text finds them, checked against an implementation nobody here wrote: the
/// PyPI `twitter-text-parser` 3.0.0 (a port of twitter-text), its `extract_urls_with_indices` and
/// `parse_tweet(…).weightedLength` on each text below (a black-box hunt found `https://…/menu)!`
/// taken whole: the tweet's text lost its `)!` to the t.co link, and its length was miscounted).
struct TweetURLsTests {
    @Test(
        arguments: [
            (
                "Lunch (menu: https://example.com/menu)! Then coffee, https://example.com/cafe, ok?",
                [13..<37, 53..<77], 80
            ),
            ("see https://en.wikipedia.org/wiki/Caf%C3%A9_(disambiguation). yes", [4..<60], 32),
            ("x http://a.b/c?d=e&f=g. end", [], 27),
            ("https://example.com/a(b(c)d)e) z", [0..<29], 26),
            ("http://localhost/x and http://example.com:8080/p.", [23..<48], 47),
            ("https://example.com/?q=a,b. ok", [0..<26], 27),
            ("go https://example.com/search?q=caf%C3%A9&x=1!", [3..<45], 27),
            ("HTTPS://EXAMPLE.COM/X y", [0..<21], 25),
            ("(https://example.com) z", [1..<20], 27),
            ("https://example.com/path/ z", [0..<25], 25),
            ("see https://example.com. z", [4..<23], 30),
            ("@https://example.com z", [], 22),
            ("$https://example.com z", [], 22),
            ("https://example.com/a_b-c+d=e#f z", [0..<31], 25),
            ("a https://www.example.co.uk:443/x?y", [2..<35], 25),
            ("https://xn--caf-dma.com/ z", [0..<24], 25),
            ("https://café.example.com/menu z", [0..<29], 25),
            ("http://t.co/abc.", [0..<15], 24),
        ] as [(String, [Range<Int>], Int)])
    func linksAndLengthAsTwitterTextHasThem(text: String, links: [Range<Int>], weighted: Int) {
        #expect(TweetURLs.ranges(in: Array(text.unicodeScalars)) == links)
        #expect(TweetLength.count(text) == weighted)
    }
}
