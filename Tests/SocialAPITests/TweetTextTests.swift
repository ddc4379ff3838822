import SocialAPI
import Testing

/// A tweet's text as Twitter answers it: `&`, `<` and `>` as HTML entities, nothing else
/// (twittercommunity.com/t/68810; Python's `html.escape(text, quote=False)` is the same rule,
/// and Tests/ClientConformance holds the emulator to it through tweepy and oauthlib).
@Suite("Tweet text as Twitter escapes it")
struct TweetTextTests {
    @Test(
        "Escaped as Twitter did, read back to the text as written",
        arguments: [
            ("plain", "plain"), ("a & b", "a &amp; b"),
            ("<script>\"x\"</script>", "&lt;script&gt;\"x\"&lt;/script&gt;"),
            // What the user typed that looks like an entity is escaped again, and read back as typed.
            ("&amp; &lt; &#38; &", "&amp;amp; &amp;lt; &amp;#38; &amp;"),
            ("&&<<>>", "&amp;&amp;&lt;&lt;&gt;&gt;"), ("e\u{301}&☕️👩‍👩‍👧", "e\u{301}&amp;☕️👩‍👩‍👧"), ("", ""),
        ])
    func roundTrip(written: String, answered: String) {
        #expect(TweetHTML.escaped(written) == answered)
        #expect(TweetHTML.unescaped(answered) == written)
        #expect(Tweet(idStr: "1", text: answered).writtenText == written)
    }

    @Test("An ampersand that starts no entity of the three stays as it is")
    func otherAmpersands() {
        #expect(TweetHTML.unescaped("&quot; &#60; & &am &amp") == "&quot; &#60; & &am &amp")
    }

    @Test("Offsets map a code point of the text as written to Twitter's escaped text")
    func offsets() throws {
        #expect(TweetHTML.escapedOffsets("no entities here") == nil)
        let written = "a<b & #c"
        let offsets = try #require(TweetHTML.escapedOffsets(written))
        let escaped = Array(TweetHTML.escaped(written).unicodeScalars)
        for (index, scalar) in written.unicodeScalars.enumerated() where !"&<>".unicodeScalars.contains(scalar) {
            #expect(escaped[offsets[index]] == scalar)
        }
        #expect(offsets.last == escaped.count)
    }

    /// Links come back from the entities: each t.co link in the text is the URL it wraps.
    @Test("Written text restores each link from the entities")
    func linksComeBackFromTheEntities() {
        let tweet = Tweet(
            idStr: "1", text: "Menu &amp; more: https://t.co/AAAAAAAAAA and https://t.co/BBBBBBBBBB",
            entities: Tweet.Entities(urls: [
                Tweet.URLEntity(url: "https://t.co/AAAAAAAAAA", expandedURL: "https://example.com/?a=1&b=2"),
                Tweet.URLEntity(url: "https://t.co/BBBBBBBBBB", expandedURL: "http://x.y/z"),
            ]))
        #expect(tweet.writtenText == "Menu & more: https://example.com/?a=1&b=2 and http://x.y/z")
        // Without entities (include_entities=false), the t.co links stay.
        #expect(Tweet(idStr: "1", text: "At https://t.co/AAAAAAAAAA").writtenText == "At https://t.co/AAAAAAAAAA")
    }
}
