import Testing

@testable import SocialEmulator

/// The scan behind a tweet's `entities`: a `#tag`, an `@name` or a URL starts where a word does.
struct TweetEntitiesTests {
    /// ASCII is read off its classes, not Unicode's tables: it must answer as the tables do for
    /// each of the 128 (a letter, a digit or `_` continues a word; nothing else in ASCII does).
    @Test func asciiContinuesAWordAsUnicodePropertiesSay() throws {
        for value in UInt32(0)..<0x80 {
            let scalar = try #require(Unicode.Scalar(value))
            let byTables = scalar.properties.isAlphabetic || scalar.properties.numericType != nil || scalar == "_"
            #expect(TweetEntities.isWord(scalar) == byTables, "U+\(String(value, radix: 16))")
        }
        #expect(TweetEntities.isWord("é") && TweetEntities.isWord("٣") && TweetEntities.isWord("中"))
        #expect(!TweetEntities.isWord("\u{3000}") && !TweetEntities.isWord("＃"))
    }

    @Test func tokensStartAtWordStarts() {
        let entities = TweetEntities(text: "a#no #café_1 x@no @zoë @ok_2 ＃全角 http://x.co/z")
        #expect(entities.hashtags.map(\.text) == ["café_1", "全角"])
        #expect(entities.userMentions.map(\.text) == ["ok_2"])  // a screen name is ASCII
        #expect(entities.urls.map(\.text) == ["http://x.co/z"])
        #expect(entities.hashtags.first.map { [$0.indices.0, $0.indices.1] } == [5, 12])
    }
}
