/// Twitter's two hot answers — places (`geo/*`) and tweets, whose decoding was 5 % of a field
/// trial's CPU, two thirds of it in `Decodable`'s containers (perf) — read straight off
/// ``AnswerJSON`` by the rules the synthesized `init(from:)` follows with
/// `JSONDecoder`: a required key missing, `null` or of another type, or an optional key of another
/// type, throws (and `JSONDecoder` decodes the answer again, for its error); an optional key
/// missing or `null` is nil; other keys are ignored. `AnswerDecoderTests` and `make fuzz`'s
/// fuzz-answers hold these equal to `JSONDecoder` through ``AnswerDecoder``.
protocol AnswerReadable {
    init(answer: AnswerJSON) throws
}

/// An object's members by key, for the readers (Twitter's here, Graph's in GraphAnswerReaders).
struct AnswerObject {
    let members: AnswerJSON.Members

    init(_ value: AnswerJSON) throws { members = try value.members() }

    func required(_ key: String) throws -> AnswerJSON {
        guard let value = members.value(key) else { throw NotDecodedHere() }
        return value
    }

    /// `decodeIfPresent`'s reading: nil when the key is missing or `null`.
    func optional(_ key: String) -> AnswerJSON? {
        guard let value = members.value(key), !value.isNull else { return nil }
        return value
    }
}

extension AnswerJSON {
    func string() throws -> String { try decode(String.self) }
}

extension TwitterPlaceResult: AnswerReadable {
    init(answer: AnswerJSON) throws {
        let result = try AnswerObject(AnswerObject(answer).required("result"))
        self.init(
            result: Result(
                places: try result.required("places").elements().map(TwitterPlace.init(answer:)),
                token: try result.optional("token")?.string()))
    }
}

extension TwitterPlace: AnswerReadable {
    init(answer: AnswerJSON) throws {
        let place = try AnswerObject(answer)
        self.init(
            id: try place.required("id").string(), name: try place.required("name").string(),
            fullName: try place.required("full_name").string(), placeType: try place.required("place_type").string(),
            country: try place.required("country").string(), countryCode: try place.required("country_code").string(),
            boundingBox: try place.optional("bounding_box").map(BoundingBox.init(answer:)),
            containedWithin: try place.optional("contained_within")?.elements().map(TwitterPlace.init(answer:)),
            url: try place.optional("url")?.string())
    }
}

extension TwitterPlace.BoundingBox: AnswerReadable {
    init(answer: AnswerJSON) throws {
        let box = try AnswerObject(answer)
        self.init(
            type: try box.required("type").string(),
            coordinates: try box.required("coordinates").elements().map { ring in
                try ring.elements().map { position in try position.elements().map { try $0.decode(Double.self) } }
            })
    }
}

extension Tweet: AnswerReadable {
    init(answer: AnswerJSON) throws {
        let tweet = try AnswerObject(answer)
        self.init(
            idStr: try tweet.required("id_str").string(),
            text: try tweet.optional("full_text")?.string() ?? tweet.required("text").string(),
            createdAt: try tweet.optional("created_at")?.string(),
            geo: try tweet.optional("geo").map(Point.init(answer:)),
            coordinates: try tweet.optional("coordinates").map(Point.init(answer:)),
            place: try tweet.optional("place").map(TwitterPlace.init(answer:)),
            user: try tweet.optional("user").map(TwitterUser.init(answer:)),
            entities: try tweet.optional("entities").map(Entities.init(answer:)))
    }
}

extension Tweet.Entities: AnswerReadable {
    init(answer: AnswerJSON) throws {
        let entities = try AnswerObject(answer)
        self.init(urls: try entities.optional("urls")?.elements().map(Tweet.URLEntity.init(answer:)) ?? [])
    }
}

extension Tweet.URLEntity: AnswerReadable {
    init(answer: AnswerJSON) throws {
        let link = try AnswerObject(answer)
        self.init(url: try link.required("url").string(), expandedURL: try link.optional("expanded_url")?.string())
    }
}

extension Tweet.Point: AnswerReadable {
    init(answer: AnswerJSON) throws {
        let point = try AnswerObject(answer)
        self.init(
            type: try point.required("type").string(),
            coordinates: try point.required("coordinates").elements().map { try $0.decode(Double.self) })
    }
}

extension TwitterUser: AnswerReadable {
    init(answer: AnswerJSON) throws {
        let user = try AnswerObject(answer)
        self.init(
            idStr: try user.required("id_str").string(), screenName: try user.required("screen_name").string(),
            geoEnabled: try user.optional("geo_enabled")?.decode(Bool.self),
            protected: try user.optional("protected")?.decode(Bool.self))
    }
}
