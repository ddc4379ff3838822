import Foundation

/// A Twitter place (v1.1 `geo/*` and `place` in tweets), with the provider's field names.
public struct TwitterPlace: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var fullName: String
    /// poi, neighborhood, city, admin or country.
    public var placeType: String
    public var country: String
    public var countryCode: String
    public var boundingBox: BoundingBox?
    public var containedWithin: [TwitterPlace]?
    public var url: String?

    public init(
        id: String, name: String, fullName: String, placeType: String, country: String, countryCode: String,
        boundingBox: BoundingBox? = nil, containedWithin: [TwitterPlace]? = nil, url: String? = nil
    ) {
        self.id = id
        self.name = name
        self.fullName = fullName
        self.placeType = placeType
        self.country = country
        self.countryCode = countryCode
        self.boundingBox = boundingBox
        self.containedWithin = containedWithin
        self.url = url
    }

    enum CodingKeys: String, CodingKey {
        case id, name, country, url
        case fullName = "full_name"
        case placeType = "place_type"
        case countryCode = "country_code"
        case boundingBox = "bounding_box"
        case containedWithin = "contained_within"
    }

    /// GeoJSON-style polygon, positions as [longitude, latitude].
    public struct BoundingBox: Codable, Sendable, Equatable {
        public var type: String
        public var coordinates: [[[Double]]]

        public init(type: String = "Polygon", coordinates: [[[Double]]]) {
            self.type = type
            self.coordinates = coordinates
        }

        private enum CodingKeys: String, CodingKey { case type, coordinates }

        /// Walks the rings by hand: the synthesized decoding of `[[[Double]]]` goes through the
        /// generic array path at every level, and was a third of the cost of decoding a
        /// `reverse_geocode` answer.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            type = try container.decode(String.self, forKey: .type)
            var rings = try container.nestedUnkeyedContainer(forKey: .coordinates)
            var coordinates: [[[Double]]] = []
            while !rings.isAtEnd {
                var ring = try rings.nestedUnkeyedContainer()
                var positions: [[Double]] = []
                while !ring.isAtEnd {
                    var position = try ring.nestedUnkeyedContainer()
                    var values: [Double] = []
                    while !position.isAtEnd { values.append(try position.decode(Double.self)) }
                    positions.append(values)
                }
                coordinates.append(positions)
            }
            self.coordinates = coordinates
        }
    }

    /// The granularities `reverse_geocode` accepts, finest first.
    public static let granularities = ["poi", "neighborhood", "city", "admin", "country"]
}

/// `geo/reverse_geocode`, `geo/search` and `geo/similar_places` answers: `{"result": {"places": […]}}`.
public struct TwitterPlaceResult: Codable, Sendable, Equatable {
    public struct Result: Codable, Sendable, Equatable {
        public var places: [TwitterPlace]
        /// `similar_places` also returns a token to create a place with.
        public var token: String?

        public init(places: [TwitterPlace], token: String? = nil) {
            self.places = places
            self.token = token
        }
    }

    public var result: Result

    public init(result: Result) {
        self.result = result
    }
}

/// A tweet, with the fields location auditing needs.
public struct Tweet: Codable, Sendable, Equatable {
    public var idStr: String
    /// The text, or in an extended answer its `full_text`.
    public var text: String
    public var createdAt: String?
    /// `[latitude, longitude]` (deprecated field, latitude first).
    public var geo: Point?
    /// GeoJSON `[longitude, latitude]`.
    public var coordinates: Point?
    public var place: TwitterPlace?
    public var user: TwitterUser?
    /// The links in ``text`` (`entities.urls`): each t.co link and the URL it wraps.
    public var entities: Entities?

    public init(
        idStr: String, text: String, createdAt: String? = nil, geo: Point? = nil, coordinates: Point? = nil,
        place: TwitterPlace? = nil, user: TwitterUser? = nil, entities: Entities? = nil
    ) {
        self.idStr = idStr
        self.text = text
        self.createdAt = createdAt
        self.geo = geo
        self.coordinates = coordinates
        self.place = place
        self.user = user
        self.entities = entities
    }

    enum CodingKeys: String, CodingKey {
        case text, geo, coordinates, place, user, entities
        case idStr = "id_str"
        case createdAt = "created_at"
    }

    /// `tweet_mode=extended`: "full_text replaces text" (twitterdev's tweet-updates), the whole
    /// text where the default compatibility mode cuts one past 140 characters.
    private enum ExtendedKeys: String, CodingKey {
        case fullText = "full_text"
    }

    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        idStr = try fields.decode(String.self, forKey: .idStr)
        text =
            try decoder.container(keyedBy: ExtendedKeys.self).decodeIfPresent(String.self, forKey: .fullText)
            ?? fields.decode(String.self, forKey: .text)
        createdAt = try fields.decodeIfPresent(String.self, forKey: .createdAt)
        geo = try fields.decodeIfPresent(Point.self, forKey: .geo)
        coordinates = try fields.decodeIfPresent(Point.self, forKey: .coordinates)
        place = try fields.decodeIfPresent(TwitterPlace.self, forKey: .place)
        user = try fields.decodeIfPresent(TwitterUser.self, forKey: .user)
        entities = try fields.decodeIfPresent(Entities.self, forKey: .entities)
    }

    /// A tweet's entities, as far as reading its text back needs them: its links (none when the
    /// answer lists none).
    public struct Entities: Codable, Sendable, Equatable {
        public var urls: [URLEntity]

        public init(urls: [URLEntity]) {
            self.urls = urls
        }

        public init(from decoder: any Decoder) throws {
            urls =
                try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent([URLEntity].self, forKey: .urls) ?? []
        }

        enum CodingKeys: String, CodingKey {
            case urls
        }
    }

    /// A link in a tweet: `url` the t.co link in the text, `expandedURL` the URL it wraps.
    public struct URLEntity: Codable, Sendable, Equatable {
        public var url: String
        public var expandedURL: String?

        public init(url: String, expandedURL: String? = nil) {
            self.url = url
            self.expandedURL = expandedURL
        }

        enum CodingKeys: String, CodingKey {
            case url
            case expandedURL = "expanded_url"
        }
    }

    public struct Point: Codable, Sendable, Equatable {
        public var type: String
        public var coordinates: [Double]

        public init(type: String = "Point", coordinates: [Double]) {
            self.type = type
            self.coordinates = coordinates
        }
    }
}

/// The authenticated user (`account/verify_credentials`).
public struct TwitterUser: Codable, Sendable, Equatable {
    public var idStr: String
    public var screenName: String
    /// When false, Twitter drops lat/long/place from statuses silently.
    public var geoEnabled: Bool?
    /// When true, the account's tweets are seen by its approved followers only.
    public var protected: Bool?

    public init(idStr: String, screenName: String, geoEnabled: Bool? = nil, protected: Bool? = nil) {
        self.idStr = idStr
        self.screenName = screenName
        self.geoEnabled = geoEnabled
        self.protected = protected
    }

    enum CodingKeys: String, CodingKey {
        case protected
        case idStr = "id_str"
        case screenName = "screen_name"
        case geoEnabled = "geo_enabled"
    }
}

/// Twitter's error body: `{"errors": [{"code": 32, "message": "Could not authenticate you."}]}`.
public struct TwitterErrorBody: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var code: Int
        public var message: String

        public init(code: Int, message: String) {
            self.code = code
            self.message = message
        }
    }

    public var errors: [Entry]

    public init(errors: [Entry]) {
        self.errors = errors
    }
}

/// Twitter's error codes (v1.1 "Response codes"), the ones these endpoints answered with.
public enum TwitterErrorCode: Int, Sendable, CaseIterable {
    /// Invalid coordinates, granularity or other geo parameter.
    case invalidParameter = 3
    /// `geo/search` with nothing to locate by but an IP address Twitter cannot place.
    case noLocationForIP = 13
    case couldNotAuthenticate = 32
    case pageDoesNotExist = 34
    /// `<named parameter> parameter is missing` (HTTP 403).
    case parameterMissing = 38
    /// `users/show` of a user that does not exist (HTTP 404).
    case userNotFound = 50
    /// An endpoint asked with a method it does not take (HTTP 403): "This method requires a POST."
    case methodNotAllowed = 86
    case rateLimitExceeded = 88
    case invalidOrExpiredToken = 89
    case overCapacity = 130
    case timestampOutOfBounds = 135
    /// `statuses/show` or `statuses/destroy` of a tweet that does not exist (HTTP 404).
    case noStatusFound = 144
    case missingParameter = 170
    /// `statuses/destroy` of another user's tweet (HTTP 403).
    case cannotDeleteOthersStatus = 183
    case statusUpdateLimit = 185
    case statusTooLong = 186
    case duplicateStatus = 187
    case badAuthenticationData = 215
    /// The application has read-only access.
    case applicationCannotWrite = 261
    /// `in_reply_to_status_id` names a tweet that is deleted or not visible (HTTP 403).
    case replyToUnavailableTweet = 385
}

extension TwitterErrorBody.Entry {
    /// The code as a known ``TwitterErrorCode``, nil for others.
    public var known: TwitterErrorCode? { TwitterErrorCode(rawValue: code) }
}
