import Foundation

/// A Facebook page returned by `search?type=place`, with the Graph API's field names.
public struct GraphPage: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var category: String?
    public var location: Location?

    public init(id: String, name: String, category: String? = nil, location: Location? = nil) {
        self.id = id
        self.name = name
        self.category = category
        self.location = location
    }

    /// Graph sends latitude and longitude as numbers or as strings, depending on the page.
    public struct Location: Codable, Sendable, Equatable {
        public var street: String?
        public var city: String?
        public var state: String?
        public var country: String?
        public var zip: String?
        public var latitude: Double?
        public var longitude: Double?

        public init(
            street: String? = nil, city: String? = nil, state: String? = nil, country: String? = nil,
            zip: String? = nil, latitude: Double? = nil, longitude: Double? = nil
        ) {
            self.street = street
            self.city = city
            self.state = state
            self.country = country
            self.zip = zip
            self.latitude = latitude
            self.longitude = longitude
        }

        enum CodingKeys: String, CodingKey {
            case street, city, state, country, zip, latitude, longitude
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            street = try c.decodeIfPresent(String.self, forKey: .street)
            city = try c.decodeIfPresent(String.self, forKey: .city)
            state = try c.decodeIfPresent(String.self, forKey: .state)
            country = try c.decodeIfPresent(String.self, forKey: .country)
            zip = try Self.flexibleString(c, .zip)
            latitude = try Self.flexibleNumber(c, .latitude)
            longitude = try Self.flexibleNumber(c, .longitude)
        }

        private static func flexibleNumber(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Double?
        {
            if let number = try? c.decodeIfPresent(Double.self, forKey: key) { return number }
            guard let text = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
            // Decimal only: `Double` also reads "0x25" (37), "nan" and "inf".
            guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) || "+-.eE".utf8.contains($0) }),
                let number = Double(text), number.isFinite
            else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: c, debugDescription: "'\(text)' is not a number")
            }
            return number
        }

        private static func flexibleString(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> String?
        {
            if let text = try? c.decodeIfPresent(String.self, forKey: key) { return text }
            return try c.decodeIfPresent(Int.self, forKey: key).map(String.init)
        }
    }
}

/// A Graph list: `{"data": […], "paging": {…}}`.
public struct GraphList<Item: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    public var data: [Item]
    public var paging: Paging?

    public init(data: [Item], paging: Paging? = nil) {
        self.data = data
        self.paging = paging
    }

    public struct Paging: Codable, Sendable, Equatable {
        public struct Cursors: Codable, Sendable, Equatable {
            public var before: String?
            public var after: String?

            public init(before: String? = nil, after: String? = nil) {
                self.before = before
                self.after = after
            }
        }

        public var cursors: Cursors?
        public var next: String?
        public var previous: String?

        public init(cursors: Cursors? = nil, next: String? = nil, previous: String? = nil) {
            self.cursors = cursors
            self.next = next
            self.previous = previous
        }
    }
}

/// A check-in as `me/checkins` lists it.
public struct GraphCheckin: Codable, Sendable, Equatable {
    public var id: String
    public var message: String?
    public var place: GraphPage?
    public var createdTime: String?
    /// The coordinates sent with the check-in, when any.
    public var coordinates: Coordinates?
    /// Who can see it, as Graph echoed it on the created object (nil where not reported).
    public var privacy: GraphPrivacy?

    public struct Coordinates: Codable, Sendable, Equatable {
        public var latitude: Double
        public var longitude: Double

        public init(latitude: Double, longitude: Double) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    public init(
        id: String, message: String? = nil, place: GraphPage? = nil, createdTime: String? = nil,
        coordinates: Coordinates? = nil, privacy: GraphPrivacy? = nil
    ) {
        self.id = id
        self.message = message
        self.place = place
        self.createdTime = createdTime
        self.coordinates = coordinates
        self.privacy = privacy
    }

    enum CodingKeys: String, CodingKey {
        case id, message, place, coordinates, privacy
        case createdTime = "created_time"
    }
}

/// Graph's Privacy node, the `privacy` field of posts and check-ins ("Privacy" in the Graph API
/// reference): `value` is EVERYONE, ALL_FRIENDS, FRIENDS_OF_FRIENDS, SELF or CUSTOM.
public struct GraphPrivacy: Codable, Sendable, Equatable {
    public var value: String
    public var description: String?
    /// For CUSTOM: who may and may not see it (ids or friend lists, comma-separated).
    public var allow: String?
    public var deny: String?
    public var friends: String?

    public init(
        value: String, description: String? = nil, allow: String? = nil, deny: String? = nil,
        friends: String? = nil
    ) {
        self.value = value
        self.description = description
        self.allow = allow
        self.deny = deny
        self.friends = friends
    }

    /// The values Graph's `privacy` parameter takes, widest first.
    public static let values = ["EVERYONE", "FRIENDS_OF_FRIENDS", "ALL_FRIENDS", "SELF", "CUSTOM"]

    /// The parameter as Graph takes it: a JSON object in a string, `{"value":"ALL_FRIENDS"}`.
    public static func parameter(_ value: String) -> String { "{\"value\":\"\(value)\"}" }
}

/// One entry of `me/permissions`.
public struct GraphPermission: Codable, Sendable, Equatable {
    public var permission: String
    /// granted or declined.
    public var status: String

    public init(permission: String, status: String) {
        self.permission = permission
        self.status = status
    }
}

/// The id of what a POST created: `{"id": "…"}`.
public struct GraphCreated: Codable, Sendable, Equatable {
    public var id: String

    public init(id: String) {
        self.id = id
    }
}

/// Graph's error body: `{"error": {"message", "type", "code", "error_subcode", "fbtrace_id"}}`.
public struct GraphErrorBody: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
        public var message: String
        public var type: String
        public var code: Int
        public var errorSubcode: Int?
        public var fbtraceID: String?

        public init(message: String, type: String, code: Int, errorSubcode: Int? = nil, fbtraceID: String? = nil) {
            self.message = message
            self.type = type
            self.code = code
            self.errorSubcode = errorSubcode
            self.fbtraceID = fbtraceID
        }

        enum CodingKeys: String, CodingKey {
            case message, type, code
            case errorSubcode = "error_subcode"
            case fbtraceID = "fbtrace_id"
        }
    }

    public var error: Detail

    public init(error: Detail) {
        self.error = error
    }
}

/// Graph's error codes ("Handling errors" in the Graph API docs), the ones these endpoints answered with.
public enum GraphErrorCode: Int, Sendable, CaseIterable {
    case serviceUnavailable = 2
    /// Application request limit reached (throttled app-wide).
    case applicationRateLimit = 4
    /// The permission was not granted, or was removed.
    case permissionDenied = 10
    /// User request limit reached.
    case userRateLimit = 17
    /// Page request limit reached.
    case pageRateLimit = 32
    case invalidParameter = 100
    case accessTokenRequired = 104
    /// The access token is invalid or expired; ``GraphErrorSubcode`` says why.
    case invalidToken = 190
    /// `(#200) Requires extended permission: …`.
    case permissionMissing = 200
    /// The same message was posted just before.
    case duplicatePost = 506
    case unknownAlias = 803
    /// An unknown edge (`Unknown path components`) or `me` without an access token.
    case unknownPath = 2500
    /// A rate limit specific to the call.
    case customRateLimit = 613

    /// The codes Graph throttles with: retry after a while.
    public var isThrottling: Bool {
        [.applicationRateLimit, .userRateLimit, .pageRateLimit, .customRateLimit].contains(self)
    }
}

/// Why Graph refused an access token (the `error_subcode` of a 190).
public enum GraphErrorSubcode: Int, Sendable, CaseIterable {
    case applicationNotInstalled = 458
    case userCheckpointed = 459
    case passwordChanged = 460
    case expired = 463
    case unconfirmedUser = 464
    case invalidToken = 467
}

extension GraphErrorBody.Detail {
    /// The code as a known ``GraphErrorCode``, nil for others.
    public var known: GraphErrorCode? { GraphErrorCode(rawValue: code) }
    public var knownSubcode: GraphErrorSubcode? { errorSubcode.flatMap(GraphErrorSubcode.init(rawValue:)) }
}
