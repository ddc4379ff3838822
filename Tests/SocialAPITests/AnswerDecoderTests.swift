import Foundation
import Testing
import WaypostSupport

@testable import SocialAPI

/// `AnswerDecoder` decodes an answer exactly as `JSONDecoder` does, or leaves it to it: whatever
/// it decodes, `JSONDecoder` decodes to an equal value — over the providers' answer shapes and
/// thousands of byte-level mutations of them — and it does decode the shapes the clients meet
/// (else the test would pass with the fast path never taken).
struct AnswerDecoderTests {
    static let place = #"""
        {"id":"e1a2b3c4d5e6f701","name":"Caf\u00e9 \"Nord\"\/Sud","full_name":"Café, Cupertino ☕️","place_type":"poi",
         "country":"United States","country_code":"US","attributes":{"street_address":"1 Infinite Loop"},
         "url":"http://127.0.0.1:8080/1.1/geo/id/e1a2b3c4d5e6f701.json","centroid":[-122.0315,37.3236],
         "bounding_box":{"type":"Polygon","coordinates":[[[-122.0321,37.323],[-122.0309,3.7323E1],
                         [-122.0309,37.3242],[-1.220321e+2,37.3242]]]},
         "contained_within":[{"id":"7d3b5e1f2a9c4c01","name":"Cupertino\ud83d\ude00","full_name":"Cupertino, CA",
                              "place_type":"city","country":"United States","country_code":"US","bounding_box":null}]}
        """#

    static let placeResult =
        #"{"query":{"type":"reverse_geocode","params":{"accuracy":0,"granularity":"poi"}},"#
        + #""result":{"places":[\#(place),\#(place.replacingOccurrences(of: "e1a2", with: "f1a2"))],"token":"8e1a"}}"#

    static let tweet = #"""
        {"created_at":"Wed Oct 10 20:19:24 +0000 2018","id":1050118621198921728,"id_str":"1050118621198921728",
         "text":"Espresso \n\t at the caf\u00e9 https:\/\/t.co\/x","truncated":false,"entities":{"hashtags":[]},
         "geo":{"type":"Point","coordinates":[37.3236,-122.0315]},
         "coordinates":{"type":"Point","coordinates":[-122.0315,37.3236]},"place":\#(place),
         "user":{"id":7,"id_str":"7","screen_name":"waypost","geo_enabled":true,"protected":null},
         "retweet_count":0,"favorited":false,"lang":"en"}
        """#

    static let pages = #"""
        {"data":[{"id":"1001","name":"Blue Bottle","category":"Coffee Shop",
                  "location":{"street":"1 Ferry Building","city":"San Francisco","zip":94111,
                              "latitude":"37.7955","longitude":-122.3937}},
                 {"id":"1002","name":"Philz","location":{"latitude":37.3318,"longitude":"-1.22E2","zip":"95014"}},
                 {"id":"1003","name":"No location","location":null}],
         "paging":{"cursors":{"before":"MAZDZD","after":"MjQZD"},"next":"http://h/search?after=MjQZD"}}
        """#

    static let checkin = #"""
        {"id":"10_20","message":"Coffee","created_time":"2018-10-10T20:19:24+0000",
         "place":{"id":"1001","name":"Blue Bottle"},"coordinates":{"latitude":37.7955,"longitude":-122},
         "privacy":{"value":"ALL_FRIENDS","description":"Your friends","allow":"","deny":"","friends":""}}
        """#

    /// Both decoders over `text`: equal when the fast one decodes; true when it did.
    @discardableResult
    static func agree<T: Decodable & Equatable>(_: T.Type, _ data: Data) -> Bool {
        guard let fast = AnswerDecoder.decode(T.self, from: data) else { return false }
        #expect(fast == (try? JSONDecoder().decode(T.self, from: data)), "\(String(decoding: data, as: UTF8.self))")
        return true
    }

    @Test func theClientsAnswersAreDecodedHereAndEqual() {
        #expect(Self.agree(TwitterPlaceResult.self, Data(Self.placeResult.utf8)))
        #expect(Self.agree(Tweet.self, Data(Self.tweet.utf8)))
        // With its links (the t.co link and the URL it wraps), and with a null `expanded_url`.
        let linked = Self.tweet.replacingOccurrences(
            of: #""entities":{"hashtags":[]}"#,
            with:
                #""entities":{"hashtags":[],"urls":[{"url":"https:\/\/t.co\/x","expanded_url":"https:\/\/e.com\/?a=1&b=2","#
                + #""display_url":"e.com\/?a=1&b=2","indices":[27,39]},{"url":"https:\/\/t.co\/y","expanded_url":null}]}"#
        )
        #expect(Self.agree(Tweet.self, Data(linked.utf8)))
        #expect(
            AnswerDecoder.decode(Tweet.self, from: Data(linked.utf8))?.entities?.urls.first?.expandedURL
                == "https://e.com/?a=1&b=2")
        #expect(Self.agree(GraphList<GraphPage>.self, Data(Self.pages.utf8)))
        #expect(Self.agree(GraphCheckin.self, Data(Self.checkin.utf8)))
        #expect(Self.agree(GraphCreated.self, Data(#"{"id":"10_20"}"#.utf8)))
        #expect(Self.agree(TwitterUser.self, Data(#"{"id_str":"7","screen_name":"w","protected":true}"#.utf8)))
        let decoded = AnswerDecoder.decode(Tweet.self, from: Data(Self.tweet.utf8))
        #expect(decoded?.text == "Espresso \n\t at the café https://t.co/x")
        #expect(decoded?.place?.name == "Café \"Nord\"/Sud")
        #expect(decoded?.place?.containedWithin?.first?.name == "Cupertino😀")
        #expect(decoded?.place?.boundingBox?.coordinates[0][1] == [-122.0309, 37.323])
        #expect(decoded?.user?.protected == nil)
    }

    /// What `JSONDecoder` must decide — its errors are the ones a user sees — is left to it.
    @Test func whatIsNotPlainJSONIsLeftToJSONDecoder() {
        let left = [
            #"{"id":"1","id":"2"}"#,  // a repeated key
            #"{"id":"\ud800"}"#,  // a lone surrogate
            #"{"id":"a\u0001"}"#.replacingOccurrences(of: "\\u0001", with: "\u{1}"),  // a control character
            #"{"id":"\x"}"#,  // an escape JSON does not define
            #"{"id":1}"#,  // a number for a string
            #"{}"#,  // a missing key
            #"{"id":"1",}"#,  // a trailing comma
            #"{"id":"1"} x"#,  // text after the value
            "\u{FEFF}{\"id\":\"1\"}",  // a byte-order mark
        ]
        for text in left {
            #expect(AnswerDecoder.decode(GraphCreated.self, from: Data(text.utf8)) == nil, "\(text)")
        }
        #expect(
            AnswerDecoder.decode(
                GraphCreated.self, from: Data([0x7B, 0x22, 0x69, 0x64, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D])) == nil)
        // Numbers another way than JSON's grammar, or not a plain integer where one is asked for.
        for number in ["01", "1.", ".5", "+1", "1e", "-", "1e400", "NaN"] {
            #expect(AnswerDecoder.decode([Double].self, from: Data("[\(number)]".utf8)) == nil, "\(number)")
        }
        for number in ["1.0", "1e2", "9223372036854775808"] {
            #expect(AnswerDecoder.decode([Int].self, from: Data("[\(number)]".utf8)) == nil, "\(number)")
        }
        #expect(AnswerDecoder.decode([Float].self, from: Data("[1.5]".utf8)) == nil)
        #expect(AnswerDecoder.decode([URL].self, from: Data(#"["http://h/"]"#.utf8)) == nil)
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        #expect(AnswerJSON.parse(Data(deep.utf8)) == nil)
    }

    /// A model whose keys are as many as a test asks for, read through `Decodable`'s containers.
    struct Keys: Decodable, Equatable {
        var values: [String: Int]

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue _: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            values = try Dictionary(
                uniqueKeysWithValues: container.allKeys.map {
                    ($0.stringValue, try container.decode(Int.self, forKey: $0))
                })
        }
    }

    /// Keys are compared as `JSONDecoder` compares them: an escaped key is its text, a key beyond
    /// ASCII is read as written, a repeat — plain or escaped — is found among a handful of keys
    /// and among many (the reader changes its way past `AnswerJSON.keysComparedInPlace`, and
    /// compares plain keys by their bytes), and a key asked for beyond
    /// ASCII is compared as `String`s are (the Kelvin sign is K, canonically).
    @Test func keysAreComparedAsJSONDecoderComparesThem() {
        #expect(Self.agree(GraphCreated.self, Data(#"{"\u0069d":"1"}"#.utf8)))
        #expect(Self.agree(GraphCreated.self, Data(#"{"é":"x","id":"1"}"#.utf8)))
        #expect(AnswerDecoder.decode(GraphCreated.self, from: Data(#"{"id":"1","\u0069d":"2"}"#.utf8)) == nil)
        for count in [3, 16, 17, 40, 300] {
            let members = (0..<count).map { #""k\#($0)":\#($0)"# }
            #expect(Self.agree(Keys.self, Data("{\(members.joined(separator: ","))}".utf8)), "\(count) keys")
            for repeated in [members.count - 1, members.count / 2] where repeated > 0 {
                let withRepeat = members + [#""k\#(repeated)":0"#]
                #expect(
                    AnswerDecoder.decode(Keys.self, from: Data("{\(withRepeat.joined(separator: ","))}".utf8)) == nil)
                // Spelt with an escape, the repeat is the same key.
                let escaped = members + [#""\u006b\#(repeated)":0"#]
                #expect(AnswerDecoder.decode(Keys.self, from: Data("{\(escaped.joined(separator: ","))}".utf8)) == nil)
            }
        }
        struct Kelvin: Decodable, Equatable {
            var value: Int
            enum CodingKeys: String, CodingKey { case value = "\u{212A}" }
        }
        #expect(Self.agree(Kelvin.self, Data(#"{"K":1}"#.utf8)))
        #expect(AnswerDecoder.decode(Kelvin.self, from: Data(#"{"k":1}"#.utf8)) == nil)
    }

    /// Numbers are read as `JSONDecoder` reads them, to the last bit.
    @Test func numbersAsJSONDecoderReadsThem() {
        var generator = SplitMix64(seed: 41)
        var texts = [
            "0", "-0", "1E+2", "1e-2", "0.1", "-122.0315", "4.9406564584124654e-324", "1.7976931348623157e308",
        ]
        for _ in 0..<2_000 {
            let value =
                Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF) * (Bool.random(using: &generator) ? 1 : -1)
            texts.append("\(value)")
            texts.append(String(format: "%.\(Int.random(in: 1...20, using: &generator))e", value))
            texts.append(
                String(Int.random(in: -10_000_000...10_000_000, using: &generator)) + "."
                    + String(Int.random(in: 0...999_999, using: &generator)))
        }
        for text in texts {
            #expect(Self.agree([Double].self, Data("[\(text)]".utf8)), "\(text)")
        }
        for value in [0, -1, Int.max, Int.min, 1_050_118_621_198_921_728] {
            #expect(Self.agree([Int].self, Data("[\(value)]".utf8)))
        }
    }

    /// Twitter's and Graph's hot answers are read by hand (`TwitterAnswerReaders`,
    /// `GraphAnswerReaders`), not through `Decodable`: every member and element of them, one at a
    /// time, removed, made `null` or given a value of each other JSON type (and a fraction, and a
    /// number in a string, for the location's loose reading) — the required and optional keys'
    /// cases byte mutations seldom make. What the readers decode, `JSONDecoder` decodes to an
    /// equal value; both outcomes occur.
    @Test func everyMemberOfHandReadAnswersRemovedNulledOrRetypedAsJSONDecoderHasIt() throws {
        var (decodedHere, left) = (0, 0)
        for (sample, check) in [
            (Self.placeResult, { Self.agree(TwitterPlaceResult.self, $0) }),
            (Self.tweet, { Self.agree(Tweet.self, $0) }),
            (Self.pages, { Self.agree(GraphList<GraphPage>.self, $0) }),
            (Self.checkin, { Self.agree(GraphCheckin.self, $0) }),
        ] as [(String, (Data) -> Bool)] {
            let root = try JSONSerialization.jsonObject(with: Data(sample.utf8))
            for path in Self.paths(in: root) {
                for replacement in [nil, NSNull(), 7, -7.5, "x", "-12.5", true, [Any](), [String: Any]()] as [Any?] {
                    let mutated = Self.replacing(path[...], in: root, with: replacement)
                    if check(try JSONSerialization.data(withJSONObject: mutated)) {
                        decodedHere += 1
                    } else {
                        left += 1
                    }
                }
            }
        }
        #expect(decodedHere > 200 && left > 200, "decoded here \(decodedHere), left \(left)")
    }

    /// A member's key or an element's index, from the root.
    enum Step { case key(String), index(Int) }

    static func paths(in value: Any, at path: [Step] = []) -> [[Step]] {
        switch value {
        case let object as [String: Any]:
            object.keys.sorted().flatMap { key in
                [path + [.key(key)]] + paths(in: object[key] ?? NSNull(), at: path + [.key(key)])
            }
        case let array as [Any]:
            array.indices.flatMap { index in
                [path + [.index(index)]] + paths(in: array[index], at: path + [.index(index)])
            }
        default: []
        }
    }

    /// `value` with what `path` leads to replaced (removed when `replacement` is nil).
    static func replacing(_ path: ArraySlice<Step>, in value: Any, with replacement: Any?) -> Any {
        guard let step = path.first else { return replacement ?? NSNull() }
        let rest = path.dropFirst()
        switch (step, value) {
        case (.key(let key), var object as [String: Any]):
            object[key] =
                rest.isEmpty ? replacement : object[key].map { replacing(rest, in: $0, with: replacement) }
            return object
        case (.index(let index), var array as [Any]):
            if rest.isEmpty, replacement == nil {
                array.remove(at: index)
            } else {
                array[index] = replacing(rest, in: array[index], with: replacement)
            }
            return array
        default: return value
        }
    }

    /// Byte-level mutations of every shape: whatever the fast path still decodes, `JSONDecoder`
    /// decodes to the same value.
    @Test func mutatedAnswersDecodeAsJSONDecoderDecodesThem() {
        var random = SplitMix64(seed: 41)
        let significant = Array(#"{}[]",:\-+.0123456789eEnultrfa u"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF]
        var decodedHere = 0
        for (sample, check) in [
            (Self.placeResult, { Self.agree(TwitterPlaceResult.self, $0) }),
            (Self.tweet, { Self.agree(Tweet.self, $0) }),
            (Self.pages, { Self.agree(GraphList<GraphPage>.self, $0) }),
            (Self.checkin, { Self.agree(GraphCheckin.self, $0) }),
        ] as [(String, (Data) -> Bool)] {
            let bytes = Array(sample.utf8)
            for _ in 0..<1_500 {
                var mutated = bytes
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let at = Int.random(in: 0..<mutated.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: mutated.remove(at: at)
                    case 1: mutated.insert(significant.randomElement(using: &random) ?? 0, at: at)
                    default: mutated[at] = significant.randomElement(using: &random) ?? 0
                    }
                }
                if check(Data(mutated)) { decodedHere += 1 }
            }
        }
        // Many mutations land in a string's text, a number's digits or whitespace and still decode.
        #expect(decodedHere > 500)
    }
}
