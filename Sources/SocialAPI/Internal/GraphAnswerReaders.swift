/// Graph's hot answers — a place search's list of pages and a check-in — read straight off
/// ``AnswerJSON`` as their `init(from:)` reads them with `JSONDecoder` (`Decodable`'s containers
/// were a twentieth of a field trial's client time, perf). The rules are
/// ``AnswerReadable``'s; a page's location reads its numbers and zip code as loosely as its
/// own `init(from:)` does, and leaves what only `JSONDecoder` can word (a zip code written as a
/// number that is not a plain integer) to it. `AnswerDecoderTests` holds them equal to
/// `JSONDecoder` over every member removed, nulled or retyped.
extension GraphList: AnswerReadable where Item: AnswerReadable {
    init(answer: AnswerJSON) throws {
        let list = try AnswerObject(answer)
        self.init(
            data: try list.required("data").elements().map(Item.init(answer:)),
            paging: try list.optional("paging").map(Paging.init(answer:)))
    }
}

extension GraphList.Paging: AnswerReadable {
    init(answer: AnswerJSON) throws {
        let paging = try AnswerObject(answer)
        self.init(
            cursors: try paging.optional("cursors").map(Cursors.init(answer:)),
            next: try paging.optional("next")?.string(), previous: try paging.optional("previous")?.string())
    }
}

extension GraphList.Paging.Cursors: AnswerReadable {
    init(answer: AnswerJSON) throws {
        let cursors = try AnswerObject(answer)
        self.init(before: try cursors.optional("before")?.string(), after: try cursors.optional("after")?.string())
    }
}

extension GraphPage: AnswerReadable {
    init(answer: AnswerJSON) throws {
        let page = try AnswerObject(answer)
        self.init(
            id: try page.required("id").string(), name: try page.required("name").string(),
            category: try page.optional("category")?.string(),
            location: try page.optional("location").map(Location.init(answer:)))
    }
}

extension GraphPage.Location: AnswerReadable {
    init(answer: AnswerJSON) throws {
        let location = try AnswerObject(answer)
        self.init(
            street: try location.optional("street")?.string(), city: try location.optional("city")?.string(),
            state: try location.optional("state")?.string(), country: try location.optional("country")?.string(),
            zip: try location.optional("zip").map(Self.flexibleString),
            latitude: try location.optional("latitude").map(Self.flexibleNumber),
            longitude: try location.optional("longitude").map(Self.flexibleNumber))
    }

    /// A number, or a string that reads as one (`Double(text)`, as `init(from:)` reads it).
    private static func flexibleNumber(_ value: AnswerJSON) throws -> Double {
        if let text = value.text {
            guard let number = Double(text) else { throw NotDecodedHere() }
            return number
        }
        return try value.decode(Double.self)
    }

    /// A string, or a plain integer written as a number (`init(from:)` decodes an `Int`).
    private static func flexibleString(_ value: AnswerJSON) throws -> String {
        if let text = value.text { return text }
        guard let text = value.numberText else { throw NotDecodedHere() }
        let digits = text.utf8.drop { $0 == UInt8(ascii: "-") }
        guard text.utf8.first != UInt8(ascii: "+"), digits.allSatisfy({ (0x30...0x39).contains($0) }),
            let number = Int(text)
        else { throw NotDecodedHere() }
        return String(number)
    }
}

extension GraphCheckin: AnswerReadable {
    init(answer: AnswerJSON) throws {
        let checkin = try AnswerObject(answer)
        self.init(
            id: try checkin.required("id").string(), message: try checkin.optional("message")?.string(),
            place: try checkin.optional("place").map(GraphPage.init(answer:)),
            createdTime: try checkin.optional("created_time")?.string(),
            coordinates: try checkin.optional("coordinates").map(Coordinates.init(answer:)),
            privacy: try checkin.optional("privacy").map(GraphPrivacy.init(answer:)))
    }
}

extension GraphCheckin.Coordinates: AnswerReadable {
    init(answer: AnswerJSON) throws {
        let coordinates = try AnswerObject(answer)
        self.init(
            latitude: try coordinates.required("latitude").decode(Double.self),
            longitude: try coordinates.required("longitude").decode(Double.self))
    }
}

extension GraphPrivacy: AnswerReadable {
    init(answer: AnswerJSON) throws {
        let privacy = try AnswerObject(answer)
        self.init(
            value: try privacy.required("value").string(), description: try privacy.optional("description")?.string(),
            allow: try privacy.optional("allow")?.string(), deny: try privacy.optional("deny")?.string(),
            friends: try privacy.optional("friends")?.string())
    }
}
