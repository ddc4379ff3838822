import Foundation
import SocialAPI

// Twitter v1.1 objects in the shape Twitter sent them ("Tweet object", "User object", "Geo
// objects" in Twitter's v1.1 data dictionary), so that the model classes of real clients —
// tweepy's `Status`, python-twitter's `Status`/`User`/`Place` — parse them. Absent values are
// `null`, not missing keys: `coordinates`, `geo` and `place` are always present.

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
}

/// The `entities` of a text: hashtags, mentions and URLs with code-point `indices`, as
/// Twitter's extractor (twitter-text) found them; symbols are left empty.
struct TweetEntities: Encodable {
    struct Hashtag: Encodable {
        var text: String
        var indices: [Int]
    }
    struct Mention: Encodable {
        var screenName: String
        var indices: [Int]
        enum CodingKeys: String, CodingKey {
            case indices
            case screenName = "screen_name"
        }
    }
    struct Link: Encodable {
        var url: String
        var indices: [Int]
        enum CodingKeys: String, CodingKey {
            case url, indices
            case expandedURL = "expanded_url"
            case displayURL = "display_url"
        }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(url, forKey: .url)
            try c.encode(url, forKey: .expandedURL)
            try c.encode(String(url.drop { $0 != "/" }.drop { $0 == "/" }), forKey: .displayURL)
            try c.encode(indices, forKey: .indices)
        }
    }

    var hashtags: [Hashtag] = []
    var symbols: [Hashtag] = []
    var userMentions: [Mention] = []
    var urls: [Link] = []

    enum CodingKeys: String, CodingKey {
        case hashtags, symbols, urls
        case userMentions = "user_mentions"
    }

    /// Scans `text` for `#tag`, `@name` and `http(s)://…` tokens (at a word start).
    init(text: String) {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func isWord(_ s: Unicode.Scalar) -> Bool {
            s.properties.isAlphabetic || s.properties.numericType != nil || s == "_"
        }
        while index < scalars.count {
            let atWordStart = index == 0 || !isWord(scalars[index - 1])
            let s = scalars[index]
            if atWordStart, s == "#" || s == "@" || s == "＃" || s == "＠" {
                var end = index + 1
                while end < scalars.count, isWord(scalars[end]) { end += 1 }
                let body = String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
                if s == "#" || s == "＃", body.contains(where: { !$0.isNumber }) {
                    hashtags.append(Hashtag(text: body, indices: [index, end]))
                } else if s == "@" || s == "＠", (1...15).contains(body.unicodeScalars.count),
                    body.unicodeScalars.allSatisfy({ $0.isASCII })
                {
                    userMentions.append(Mention(screenName: body, indices: [index, end]))
                }
                index = max(end, index + 1)
                continue
            }
            if atWordStart, s == "h" {
                let rest = String(String.UnicodeScalarView(scalars[index..<min(scalars.count, index + 8)]))
                if rest.hasPrefix("http://") || rest.hasPrefix("https://") {
                    var end = index
                    while end < scalars.count, !scalars[end].properties.isWhitespace { end += 1 }
                    urls.append(
                        Link(url: String(String.UnicodeScalarView(scalars[index..<end])), indices: [index, end]))
                    index = end
                    continue
                }
            }
            index += 1
        }
    }
}

/// A v1.1 user object.
struct UserObject: Encodable {
    var account: EmulatorConfiguration.TwitterAccount
    var geoEnabled: Bool
    var statusesCount: Int
    /// The user's latest tweet, embedded by `users/show` and `account/verify_credentials`
    /// (boxed: a tweet embeds its user in turn).
    var status: Box<TweetObject>?
    /// `trim_user`: only `id` and `id_str`.
    var trimmed = false

    enum CodingKeys: String, CodingKey {
        case id, name, location, description, url, entities, protected, verified, lang, following, notifications
        case status
        case idStr = "id_str", screenName = "screen_name", followersCount = "followers_count"
        case friendsCount = "friends_count", listedCount = "listed_count", createdAt = "created_at"
        case favouritesCount = "favourites_count", utcOffset = "utc_offset", timeZone = "time_zone"
        case geoEnabled = "geo_enabled", statusesCount = "statuses_count"
        case contributorsEnabled = "contributors_enabled", isTranslator = "is_translator"
        case profileImageURL = "profile_image_url", profileImageURLHTTPS = "profile_image_url_https"
        case profileBackgroundColor = "profile_background_color", profileLinkColor = "profile_link_color"
        case profileTextColor = "profile_text_color", defaultProfile = "default_profile"
        case defaultProfileImage = "default_profile_image", followRequestSent = "follow_request_sent"
        case translatorType = "translator_type"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Int64(account.userID) ?? 0, forKey: .id)
        try c.encode(account.userID, forKey: .idStr)
        guard !trimmed else { return }
        try c.encode(account.name, forKey: .name)
        try c.encode(account.screenName, forKey: .screenName)
        try c.encode("", forKey: .location)
        try c.encode("", forKey: .description)
        try c.encode(String?.none, forKey: .url)
        try c.encode(["description": ["urls": [String]()]], forKey: .entities)
        try c.encode(false, forKey: .protected)
        for key in [CodingKeys.followersCount, .friendsCount, .listedCount, .favouritesCount] {
            try c.encode(0, forKey: key)
        }
        try c.encode(TwitterDate.text(0), forKey: .createdAt)
        try c.encode(Int?.none, forKey: .utcOffset)
        try c.encode(String?.none, forKey: .timeZone)
        try c.encode(geoEnabled, forKey: .geoEnabled)
        try c.encode(false, forKey: .verified)
        try c.encode(statusesCount, forKey: .statusesCount)
        try c.encode(String?.none, forKey: .lang)
        try c.encode(false, forKey: .contributorsEnabled)
        try c.encode(false, forKey: .isTranslator)
        try c.encode(
            "http://abs.twimg.com/sticky/default_profile_images/default_profile_normal.png", forKey: .profileImageURL)
        try c.encode(
            "https://abs.twimg.com/sticky/default_profile_images/default_profile_normal.png",
            forKey: .profileImageURLHTTPS)
        try c.encode("F5F8FA", forKey: .profileBackgroundColor)
        try c.encode("1DA1F2", forKey: .profileLinkColor)
        try c.encode("333333", forKey: .profileTextColor)
        try c.encode(true, forKey: .defaultProfile)
        try c.encode(true, forKey: .defaultProfileImage)
        try c.encode(false, forKey: .following)
        try c.encode(false, forKey: .followRequestSent)
        try c.encode(false, forKey: .notifications)
        try c.encode("none", forKey: .translatorType)
        try c.encodeIfPresent(status, forKey: .status)
    }
}

/// A reference wrapper that encodes as its value, to nest a type within itself.
final class Box<Value: Encodable>: Encodable {
    let value: Value
    init(_ value: Value) { self.value = value }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}

/// A v1.1 tweet object.
struct TweetObject: Encodable {
    var tweet: StoredTweet
    /// nil inside a user's embedded `status` (Twitter left the user out there).
    var user: UserObject?
    var place: PlaceObject?
    var includeEntities = true

    enum CodingKeys: String, CodingKey {
        case id, text, truncated, entities, source, user, geo, coordinates, place, contributors, favorited
        case retweeted, lang
        case idStr = "id_str", createdAt = "created_at"
        case inReplyToStatusID = "in_reply_to_status_id", inReplyToStatusIDStr = "in_reply_to_status_id_str"
        case inReplyToUserID = "in_reply_to_user_id", inReplyToUserIDStr = "in_reply_to_user_id_str"
        case inReplyToScreenName = "in_reply_to_screen_name", isQuoteStatus = "is_quote_status"
        case retweetCount = "retweet_count", favoriteCount = "favorite_count"
    }

    /// GeoJSON-style point: `coordinates` is `[longitude, latitude]`, the deprecated `geo`
    /// `[latitude, longitude]`.
    private struct Point: Encodable {
        var type = "Point"
        var coordinates: [Double]
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(TwitterDate.text(tweet.createdAt), forKey: .createdAt)
        try c.encode(tweet.id, forKey: .id)
        try c.encode(String(tweet.id), forKey: .idStr)
        try c.encode(tweet.text, forKey: .text)
        try c.encode(false, forKey: .truncated)
        if includeEntities { try c.encode(TweetEntities(text: tweet.text), forKey: .entities) }
        try c.encode(
            "<a href=\"https://developer.twitter.com\" rel=\"nofollow\">\(tweet.application)</a>", forKey: .source)
        try c.encode(Int64?.none, forKey: .inReplyToStatusID)
        try c.encode(String?.none, forKey: .inReplyToStatusIDStr)
        try c.encode(Int64?.none, forKey: .inReplyToUserID)
        try c.encode(String?.none, forKey: .inReplyToUserIDStr)
        try c.encode(String?.none, forKey: .inReplyToScreenName)
        try c.encodeIfPresent(user, forKey: .user)
        try c.encode(tweet.point.map { Point(coordinates: [$0.latitude, $0.longitude]) }, forKey: .geo)
        try c.encode(tweet.point.map { Point(coordinates: [$0.longitude, $0.latitude]) }, forKey: .coordinates)
        try c.encode(place, forKey: .place)
        try c.encode(String?.none, forKey: .contributors)
        try c.encode(false, forKey: .isQuoteStatus)
        try c.encode(0, forKey: .retweetCount)
        try c.encode(0, forKey: .favoriteCount)
        try c.encode(false, forKey: .favorited)
        try c.encode(false, forKey: .retweeted)
        try c.encode("und", forKey: .lang)
    }
}

/// A Twitter place object: the fixture's fields, an absolute `url`, `attributes`, the box as
/// Twitter drew it (a closed ring of the four corners, `[longitude, latitude]`) and
/// `contained_within` holding the direct parent only.
struct PlaceObject: Encodable {
    var place: TwitterPlace
    var parent: TwitterPlace?
    /// `http://host/1.1/`: where `geo/id/:id.json` answers.
    var apiRoot: String
    /// `geo/id` answers carry `centroid`, `geometry` and `polylines` too.
    var detailed = false
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
            let parents = parent.map { [PlaceObject(place: $0, apiRoot: apiRoot, nested: true)] } ?? []
            try c.encode(parents, forKey: .containedWithin)
        }
        try c.encode(place.boundingBox, forKey: .boundingBox)
        try c.encode([String: String](), forKey: .attributes)
        if detailed {
            let ring = place.boundingBox?.coordinates.first ?? []
            let lons = ring.compactMap(\.first)
            let lats = ring.compactMap { $0.count > 1 ? $0[1] : nil }
            if let west = lons.min(), let east = lons.max(), let south = lats.min(), let north = lats.max() {
                try c.encode([(west + east) / 2, (south + north) / 2], forKey: .centroid)
            }
            try c.encode(String?.none, forKey: .geometry)
            try c.encode([String](), forKey: .polylines)
        }
    }
}
