import Foundation

/// Which Twitter API posts a tweet: v1.1 `statuses/update` (form body, `lat`/`long` and
/// `place_id`), or X API v2 `POST /2/tweets` (JSON body, `geo.place_id` the only location it
/// takes: precise geotagging was removed in June 2019).
public enum TwitterAPIVersion: String, Sendable, Codable, CaseIterable {
    case v1_1 = "v1.1"
    case v2
}

/// `POST /2/tweets` answers `{"data": {"id", "text", "edit_history_tweet_ids"}}` (X API v2
/// reference, "POST /2/tweets").
public struct XCreatedTweet: Codable, Sendable, Equatable {
    public var id: String
    public var text: String
    public var editHistoryTweetIDs: [String]?

    public init(id: String, text: String, editHistoryTweetIDs: [String]? = nil) {
        self.id = id
        self.text = text
        self.editHistoryTweetIDs = editHistoryTweetIDs
    }

    enum CodingKeys: String, CodingKey {
        case id, text
        case editHistoryTweetIDs = "edit_history_tweet_ids"
    }
}

/// A v2 Tweet object with the fields location and audience auditing read.
public struct XTweet: Codable, Sendable, Equatable {
    public struct Geo: Codable, Sendable, Equatable {
        public var placeID: String?

        public init(placeID: String? = nil) {
            self.placeID = placeID
        }

        enum CodingKeys: String, CodingKey {
            case placeID = "place_id"
        }
    }

    public var id: String
    public var text: String
    public var authorID: String?
    public var createdAt: String?
    public var geo: Geo?

    public init(id: String, text: String, authorID: String? = nil, createdAt: String? = nil, geo: Geo? = nil) {
        self.id = id
        self.text = text
        self.authorID = authorID
        self.createdAt = createdAt
        self.geo = geo
    }

    enum CodingKeys: String, CodingKey {
        case id, text, geo
        case authorID = "author_id"
        case createdAt = "created_at"
    }
}

/// A v2 Place object (`includes.places[]`): `id` and `full_name` by default, the rest on
/// request through `place.fields`.
public struct XPlace: Codable, Sendable, Equatable {
    public var id: String
    public var fullName: String
    public var name: String?
    public var placeType: String?
    public var country: String?
    public var countryCode: String?

    public init(
        id: String, fullName: String, name: String? = nil, placeType: String? = nil, country: String? = nil,
        countryCode: String? = nil
    ) {
        self.id = id
        self.fullName = fullName
        self.name = name
        self.placeType = placeType
        self.country = country
        self.countryCode = countryCode
    }

    enum CodingKeys: String, CodingKey {
        case id, name, country
        case fullName = "full_name"
        case placeType = "place_type"
        case countryCode = "country_code"
    }
}

/// A v2 User object (`includes.users[]`, `GET /2/users/me`).
public struct XUser: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var username: String
    /// Whether the account's Tweets are visible to its approved followers only.
    public var protected: Bool?

    public init(id: String, name: String, username: String, protected: Bool? = nil) {
        self.id = id
        self.name = name
        self.username = username
        self.protected = protected
    }
}

/// `GET /2/tweets/:id`: the Tweet, and what the expansions brought.
public struct XTweetLookup: Codable, Sendable, Equatable {
    public struct Includes: Codable, Sendable, Equatable {
        public var places: [XPlace]?
        public var users: [XUser]?

        public init(places: [XPlace]? = nil, users: [XUser]? = nil) {
            self.places = places
            self.users = users
        }
    }

    public var data: XTweet
    public var includes: Includes?

    public init(data: XTweet, includes: Includes? = nil) {
        self.data = data
        self.includes = includes
    }
}

/// `{"data": …}`, the envelope of every v2 success.
struct XData<Value: Codable & Sendable>: Codable, Sendable {
    var data: Value
}

/// A v2 error: a problem object (RFC 7807 shaped: `type`, `title`, `detail`, `status`), or
/// for a request that fails validation, an `errors` array of `{parameters, message}` beside
/// `title`, `detail` and `type` (X API v2 "Error troubleshooting").
public struct XProblem: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var message: String?
        public var parameters: [String: [String]]?
        public var detail: String?
        public var title: String?
        public var type: String?

        public init(
            message: String? = nil, parameters: [String: [String]]? = nil, detail: String? = nil,
            title: String? = nil, type: String? = nil
        ) {
            self.message = message
            self.parameters = parameters
            self.detail = detail
            self.title = title
            self.type = type
        }
    }

    public var type: String?
    public var title: String?
    public var detail: String?
    public var status: Int?
    public var errors: [Entry]?

    public init(
        type: String? = nil, title: String? = nil, detail: String? = nil, status: Int? = nil,
        errors: [Entry]? = nil
    ) {
        self.type = type
        self.title = title
        self.detail = detail
        self.status = status
        self.errors = errors
    }

    /// X's problem type URIs, the ones these endpoints answer with.
    public static let invalidRequest = "https://api.twitter.com/2/problems/invalid-request"
    public static let resourceNotFound = "https://api.twitter.com/2/problems/resource-not-found"
    public static let usageCapped = "https://api.twitter.com/2/problems/usage-capped"

    /// Whether X refused the Tweet as a duplicate (403, "duplicate content").
    public var isDuplicate: Bool { detail?.contains("duplicate content") == true }

    /// One line: title, detail, and each validation message.
    public var summary: String {
        let messages = (errors ?? []).compactMap { $0.message ?? $0.detail }
        return ([title, detail].compactMap { $0 } + messages).joined(separator: ": ")
    }
}
