import Foundation
import SocialAPI
import WaypostSupport

// Twitter v1.1 objects in the shape Twitter sent them ("Tweet object", "User object", "Geo
// objects" in Twitter's v1.1 data dictionary), so that the model classes of real clients —
// tweepy's `Status`, python-twitter's `Status`/`User`/`Place` — parse them. Absent values are
// `null`, not missing keys: `coordinates`, `geo` and `place` are always present. Tweets and
// users are written with ``JSONWriter`` (they are most answers); places, cached once encoded,
// with `JSONEncoder`.

/// A posted tweet as the emulator keeps it; rendered as ``TweetObject`` when answered, so that
/// the embedded user is the user as they are now (Twitter's embedded users were current).
struct StoredTweet: Sendable {
    var id: Int64
    var text: String
    var createdAt: Double
    var userID: String
    /// `[latitude, longitude]` when the tweet shows exact coordinates.
    var point: (latitude: Double, longitude: Double)?
    var placeID: String?
    /// The posting application (the consumer key), for `source`.
    var application: String
    /// The Tweet replied to and its author (`reply.in_reply_to_tweet_id` in v2).
    var inReplyTo: (id: Int64, userID: String)? = nil
}

/// The `entities` of a text: hashtags, mentions and URLs with code-point `indices`, as
/// Twitter's extractor (twitter-text) found them; symbols are left empty.
struct TweetEntities {
    struct Token {
        var text: String
        var indices: (Int, Int)
        /// A link's own URL, where `text` is the t.co link wrapping it (``AnsweredTweetText``).
        var expanded: String? = nil
    }

    var hashtags: [Token] = []
    var userMentions: [Token] = []
    var urls: [Token] = []

    /// Scans `text` for `#tag`, `@name` (at a word start) and links (``TweetURLs``).
    init(text: String) {
        let scalars = Array(text.unicodeScalars)
        var links = TweetURLs.ranges(in: scalars)[...]
        var index = 0
        let isWord = Self.isWord
        func slice(_ range: Range<Int>) -> String { String(String.UnicodeScalarView(scalars[range])) }
        while index < scalars.count {
            let atWordStart = index == 0 || !isWord(scalars[index - 1])
            let s = scalars[index]
            if atWordStart, s == "#" || s == "@" || s == "＃" || s == "＠" {
                var end = index + 1
                while end < scalars.count, isWord(scalars[end]) { end += 1 }
                let body = slice((index + 1)..<end)
                if s == "#" || s == "＃", body.contains(where: { !$0.isNumber }) {
                    hashtags.append(Token(text: body, indices: (index, end)))
                } else if s == "@" || s == "＠", (1...15).contains(body.unicodeScalars.count),
                    body.unicodeScalars.allSatisfy({ $0.isASCII })
                {
                    userMentions.append(Token(text: body, indices: (index, end)))
                }
                index = max(end, index + 1)
                continue
            }
            while let link = links.first, link.lowerBound < index { links.removeFirst() }
            if let link = links.first, link.lowerBound == index {
                urls.append(Token(text: slice(link), indices: (link.lowerBound, link.upperBound)))
                links.removeFirst()
                index = link.upperBound
                continue
            }
            index += 1
        }
    }

    /// The indices moved to where `offsets` puts each code point (``TweetHTML/escapedOffsets(_:)``).
    mutating func shift(by offsets: [Int]) {
        func shift(_ tokens: inout [Token]) {
            for i in tokens.indices { tokens[i].indices = (offsets[tokens[i].indices.0], offsets[tokens[i].indices.1]) }
        }
        shift(&hashtags)
        shift(&userMentions)
        shift(&urls)
    }

    /// Whether `s` continues a word: alphabetic, numeric or `_`. ASCII is read off its classes —
    /// the same answers (no other ASCII character is alphabetic or has a numeric type), without
    /// the Unicode tables the scan looked up twice a character (perf: 0.7 % of a field trial).
    static func isWord(_ s: Unicode.Scalar) -> Bool {
        guard s.isASCII else { return s.properties.isAlphabetic || s.properties.numericType != nil }
        let byte = UInt8(truncatingIfNeeded: s.value)
        return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
    }

    /// `mentioned` finds the account a mention names: only accounts that exist are mentions, with
    /// their `name`, `id` and `id_str` (Twitter's user mention object; tweepy's recorded answers).
    func write(
        to w: inout JSONWriter, mentioned: (String) -> EmulatorConfiguration.TwitterAccount? = { _ in nil }
    ) {
        /// `key: [{…fields, "indices": [start, end]}, …]`, one object per token.
        func entities(
            _ key: String, _ tokens: [Token], _ w: inout JSONWriter, fields: (Token, inout JSONWriter) -> Void
        ) {
            w.key(key)
            w.array { w in
                for token in tokens {
                    w.object { w in
                        fields(token, &w)
                        w.key("indices")
                        w.array {
                            $0.number(token.indices.0)
                            $0.number(token.indices.1)
                        }
                    }
                }
            }
        }
        w.object { w in
            entities("hashtags", hashtags, &w) { tag, w in w.field("text", tag.text) }
            w.key("symbols")
            w.array { _ in }
            entities("user_mentions", userMentions.filter { mentioned($0.text) != nil }, &w) { mention, w in
                guard let account = mentioned(mention.text) else { return }
                w.field("screen_name", account.screenName)
                w.field("name", account.name)
                w.field("id", Int64(account.userID) ?? 0)
                w.field("id_str", account.userID)
            }
            entities("urls", urls, &w) { url, w in
                let expanded = url.expanded ?? url.text
                w.field("url", url.text)
                w.field("expanded_url", expanded)
                w.field("display_url", AnsweredTweetText.displayURL(expanded))
            }
        }
    }
}

/// A tweet's text as Twitter answered it, and its entities there: every link wrapped in a t.co
/// link ("t.co link wrapper": all links since October 2011; `https://t.co/` and ten characters,
/// the 23 that ``TweetLength`` counts a URL as), then `&`, `<` and `>` escaped (``TweetHTML``), the
/// indices counted in that text; each link entity's `expanded_url` the URL as posted, its
/// `display_url` that without scheme or `www.`, cut at 26 characters with "…" (Twitter's Field
/// Guide: `youtube.com/watch?v=oHg5SJ…` for `http://www.youtube.com/watch?v=oHg5SJYRHA0`).
struct AnsweredTweetText {
    var text: String
    var entities: TweetEntities
    /// Compatibility mode cut the text (`truncated`).
    var truncated = false

    /// `compatibility`: v1.1's default `tweet_mode`, where a text past 140 characters is cut to
    /// 115, followed by "… " and a t.co link to the tweet, with the entities of what is kept:
    /// "text field is truncated to 140, as needed; truncated field is true" (twitterdev's
    /// tweet-updates); recorded tweets show the form (tweepy's cassettes, `testhometimeline.json`).
    init(_ written: String, tweetID: Int64, compatibility: Bool = false) {
        entities = TweetEntities(text: written)
        var wrapped = written
        let links = entities.urls
        if !links.isEmpty {
            var scalars = Array(written.unicodeScalars)
            for (number, link) in links.enumerated().reversed() {
                let tco = Self.tco(tweetID: tweetID, link: number)
                scalars.replaceSubrange(link.indices.0..<link.indices.1, with: tco.unicodeScalars)
            }
            wrapped = String(String.UnicodeScalarView(scalars))
            // Found again where they now stand; each t.co link is a link, in the same order.
            entities = TweetEntities(text: wrapped)
            for (number, link) in links.enumerated() where number < entities.urls.count {
                entities.urls[number].expanded = link.text
            }
        }
        if compatibility, wrapped.unicodeScalars.count > 140 {
            var kept = Array(wrapped.unicodeScalars.prefix(115))
            // A link is kept whole or not at all; trailing spaces go.
            if let cut = entities.urls.first(where: { $0.indices.0 < kept.count && $0.indices.1 > kept.count }) {
                kept.removeSubrange(cut.indices.0...)
            }
            while let last = kept.last, last.properties.isWhitespace { kept.removeLast() }
            let keep = { (token: TweetEntities.Token) in token.indices.1 <= kept.count }
            entities.hashtags = entities.hashtags.filter(keep)
            entities.userMentions = entities.userMentions.filter(keep)
            entities.urls = entities.urls.filter(keep)
            let permalink = Self.tco(tweetID: tweetID, link: links.count)
            let start = kept.count + 2
            entities.urls.append(
                TweetEntities.Token(
                    text: permalink, indices: (start, start + permalink.unicodeScalars.count),
                    expanded: "https://twitter.com/i/web/status/\(tweetID)"))
            wrapped = String(String.UnicodeScalarView(kept)) + "… " + permalink
            truncated = true
        }
        // Escaped only where there is something to escape: the offsets say so.
        if let offsets = TweetHTML.escapedOffsets(wrapped) {
            entities.shift(by: offsets)
            text = TweetHTML.escaped(wrapped)
        } else {
            text = wrapped
        }
    }

    /// The `number`-th link of a tweet's t.co link: the same for the same tweet, every time.
    static func tco(tweetID: Int64, link number: Int) -> String {
        var hash = FNV1a.hash("\(tweetID)/\(number)".utf8)
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var id = ""
        for _ in 0..<10 {
            id.append(alphabet[Int(hash % 62)])
            hash /= 62
        }
        return "https://t.co/" + id
    }

    static func displayURL(_ url: String) -> String {
        var shown = Substring(url)
        for scheme in ["https://", "http://"] where shown.lowercased().hasPrefix(scheme) {
            shown = shown.dropFirst(scheme.count)
        }
        if shown.lowercased().hasPrefix("www.") { shown = shown.dropFirst(4) }
        return shown.count > 26 ? shown.prefix(26) + "…" : String(shown)
    }
}

/// A v1.1 user object.
struct UserObject {
    var account: EmulatorConfiguration.TwitterAccount
    var geoEnabled: Bool
    /// Whether only approved followers see the account's tweets.
    var protected = false
    var statusesCount: Int
    /// `trim_user`: only `id` and `id_str`.
    var trimmed = false

    /// Writes the user; `status` adds the user's latest tweet (`users/show`, `verify_credentials`).
    func write(to w: inout JSONWriter, status: ((inout JSONWriter) -> Void)? = nil) {
        w.object { w in
            w.field("id", Int64(account.userID) ?? 0)
            w.field("id_str", account.userID)
            guard !trimmed else { return }
            w.field("name", account.name)
            w.field("screen_name", account.screenName)
            w.field("location", "")
            w.field("description", "")
            w.field("url", nil)
            w.key("entities")
            w.object { w in
                w.key("description")
                w.object { w in
                    w.key("urls")
                    w.array { _ in }
                }
            }
            w.field("protected", protected)
            for key in ["followers_count", "friends_count", "listed_count", "favourites_count"] { w.field(key, 0) }
            w.field("created_at", TwitterDate.text(0))
            w.key("utc_offset")
            w.null()
            w.field("time_zone", nil)
            w.field("geo_enabled", geoEnabled)
            w.field("verified", false)
            w.field("statuses_count", statusesCount)
            w.field("lang", nil)
            w.field("contributors_enabled", false)
            w.field("is_translator", false)
            w.field(
                "profile_image_url", "http://abs.twimg.com/sticky/default_profile_images/default_profile_normal.png")
            w.field(
                "profile_image_url_https",
                "https://abs.twimg.com/sticky/default_profile_images/default_profile_normal.png")
            w.field("profile_background_color", "F5F8FA")
            w.field("profile_link_color", "1DA1F2")
            w.field("profile_text_color", "333333")
            w.field("default_profile", true)
            w.field("default_profile_image", true)
            w.field("following", false)
            w.field("follow_request_sent", false)
            w.field("notifications", false)
            w.field("translator_type", "none")
            if let status {
                w.key("status")
                status(&w)
            }
        }
    }
}

/// A v1.1 tweet object.
struct TweetObject {
    var tweet: StoredTweet
    /// nil inside a user's embedded `status` (Twitter left the user out there).
    var user: UserObject?
    /// The place, already encoded in Twitter's shape.
    var place: Data?
    var includeEntities = true
    /// `tweet_mode=extended`: the whole text as `full_text`; otherwise compatibility mode's.
    var extended = false
    /// The accounts a mention may name, and the tweet replied to.
    var accounts: [EmulatorConfiguration.TwitterAccount] = []

    func write(to w: inout JSONWriter) {
        w.object { w in
            w.field("created_at", TwitterDate.text(tweet.createdAt))
            w.field("id", tweet.id)
            w.field("id_str", String(tweet.id))
            let answered = AnsweredTweetText(tweet.text, tweetID: tweet.id, compatibility: !extended)
            // "In extended mode … full_text replaces text, truncated is false, display_text_range
            // delineates the displayable text" (twitterdev's tweet-updates).
            w.field(extended ? "full_text" : "text", answered.text)
            w.field("truncated", answered.truncated)
            if extended {
                w.key("display_text_range")
                w.array { w in
                    w.number(0)
                    w.number(answered.text.unicodeScalars.count)
                }
            }
            if includeEntities {
                w.key("entities")
                answered.entities.write(to: &w) { accounts.account(screenName: $0) }
            }
            // HTML, as Twitter sent it: the application's name is text inside it, escaped (a
            // consumer registered as `<script>…` must not become markup in a client's page).
            w.field(
                "source",
                "<a href=\"https://developer.twitter.com\" rel=\"nofollow\">\(XMLEscaping.escape(tweet.application))</a>"
            )
            if let reply = tweet.inReplyTo {
                w.field("in_reply_to_status_id", reply.id)
                w.field("in_reply_to_status_id_str", String(reply.id))
                w.key("in_reply_to_user_id")
                if let id = Int64(reply.userID) { w.number(id) } else { w.null() }
                w.field("in_reply_to_user_id_str", reply.userID)
                w.field("in_reply_to_screen_name", accounts.account(id: reply.userID)?.screenName)
            } else {
                for key in [
                    "in_reply_to_status_id", "in_reply_to_status_id_str", "in_reply_to_user_id",
                    "in_reply_to_user_id_str", "in_reply_to_screen_name",
                ] {
                    w.key(key)
                    w.null()
                }
            }
            if let user {
                w.key("user")
                user.write(to: &w)
            }
            // GeoJSON order in `coordinates` ([longitude, latitude]); the deprecated `geo` has
            // latitude first.
            for (key, latitudeFirst) in [("geo", true), ("coordinates", false)] {
                w.key(key)
                if let point = tweet.point {
                    w.object { w in
                        w.field("type", "Point")
                        w.key("coordinates")
                        w.array { w in
                            w.number(latitudeFirst ? point.latitude : point.longitude)
                            w.number(latitudeFirst ? point.longitude : point.latitude)
                        }
                    }
                } else {
                    w.null()
                }
            }
            w.key("place")
            if let place { w.raw(place) } else { w.null() }
            w.key("contributors")
            w.null()
            w.field("is_quote_status", false)
            w.field("retweet_count", 0)
            w.field("favorite_count", 0)
            w.field("favorited", false)
            w.field("retweeted", false)
            w.field("lang", "und")
        }
    }
}

/// A Twitter place object: the fixture's fields, an absolute `url`, `attributes` and the box as
/// Twitter drew it (a closed ring of the four corners, `[longitude, latitude]`). What else it
/// carries depends on where it appears (``Form``), as recorded answers show.
struct PlaceObject: Encodable {
    enum Form {
        /// A tweet's `place`: `contained_within` empty, no centroid (tweets of 2019–2021).
        case inTweet
        /// A place `geo/search`, `geo/reverse_geocode` or `geo/similar_places` lists, and each of
        /// its `contained_within`: with `centroid` (tweepy's recorded `testgeoapis.json`).
        case listed
        /// `geo/id`: `centroid`, `geometry` and `polylines` too.
        case detailed
    }

    var place: TwitterPlace
    var parent: TwitterPlace?
    /// `http://host/1.1/`: where `geo/id/:id.json` answers.
    var apiRoot: String
    var form = Form.listed
    var nested = false

    enum CodingKeys: String, CodingKey {
        case id, url, name, country, attributes, centroid, geometry, polylines
        case placeType = "place_type", fullName = "full_name", countryCode = "country_code"
        case containedWithin = "contained_within", boundingBox = "bounding_box"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(place.id, forKey: .id)
        try c.encode("\(apiRoot)geo/id/\(place.id).json", forKey: .url)
        try c.encode(place.placeType, forKey: .placeType)
        try c.encode(place.name, forKey: .name)
        try c.encode(place.fullName, forKey: .fullName)
        try c.encode(place.countryCode, forKey: .countryCode)
        try c.encode(place.country, forKey: .country)
        if !nested {
            let parents =
                form == .inTweet ? [] : parent.map { [PlaceObject(place: $0, apiRoot: apiRoot, nested: true)] } ?? []
            try c.encode(parents, forKey: .containedWithin)
        }
        try c.encode(place.boundingBox, forKey: .boundingBox)
        try c.encode([String: String](), forKey: .attributes)
        if form != .inTweet {
            let ring = place.boundingBox?.coordinates.first ?? []
            let lons = ring.compactMap(\.first)
            let lats = ring.compactMap { $0.count > 1 ? $0[1] : nil }
            if let west = lons.min(), let east = lons.max(), let south = lats.min(), let north = lats.max() {
                try c.encode([(west + east) / 2, (south + north) / 2], forKey: .centroid)
            }
        }
        if form == .detailed {
            try c.encode(String?.none, forKey: .geometry)
            try c.encode([String](), forKey: .polylines)
        }
    }
}
