import Foundation
import WaypostSupport

/// Decodes the clients' models from a provider's answer as `JSONDecoder` (default strategies)
/// decodes them, at less cost (it was a tenth of a field trial's CPU; this reader keeps an
/// object's members in order, without a dictionary or coding paths). It takes only what it reads
/// exactly as `JSONDecoder` does: ``AnswerJSON`` text, `Bool`, `String`, `Double` and the
/// integers; nil for anything else — another type, a missing key, a mismatch — and then
/// `JSONDecoder` decodes the answer, so every value it accepts and every error it words are its
/// own. Twitter's two hot answers skip `Decodable`'s containers too: they are read by hand
/// (``AnswerReadable``). `AnswerDecoderTests` holds the two equal over the providers' answer
/// shapes and thousands of mutations of them, and `make fuzz`'s fuzz-answers over whatever
/// libFuzzer makes of them (hence `package`: the fuzz target is another module).
package enum AnswerDecoder {
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data) -> T? {
        guard let value = AnswerJSON.parse(data) else { return nil }
        if let readable = T.self as? any AnswerReadable.Type { return (try? readable.init(answer: value)) as? T }
        return try? value.decode(type)
    }
}

/// Why a value was not decoded here; never shown (`JSONDecoder` decodes the answer again).
struct NotDecodedHere: Error {}

extension AnswerJSON {
    func decode(_: Bool.Type) throws -> Bool {
        guard let value = bool else { throw NotDecodedHere() }
        return value
    }

    func decode(_: String.Type) throws -> String {
        guard let value = text else { throw NotDecodedHere() }
        return value
    }

    /// Correctly rounded, as `JSONDecoder` reads a number (most through Clinger's exact fast path:
    /// `strtod` was a twentieth of a signed request, reading bounding boxes); one out of
    /// `Double`'s range is left to it.
    func decode(_: Double.Type) throws -> Double {
        guard let value = double else { throw NotDecodedHere() }
        return value
    }

    /// A number written as an integer that fits (`1.0` and `1e2` are left to `JSONDecoder`).
    func integer<Integer: FixedWidthInteger>(_: Integer.Type) throws -> Integer {
        guard let text = numberText, let value = Integer(text) else { throw NotDecodedHere() }
        return value
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // The common leaves without the generic path.
        if T.self == String.self, let value = try decode(String.self) as? T { return value }
        if T.self == Double.self, let value = try decode(Double.self) as? T { return value }
        if T.self == Int.self, let value = try integer(Int.self) as? T { return value }
        if T.self == Bool.self, let value = try decode(Bool.self) as? T { return value }
        // `JSONDecoder` reads these its own way (a URL from a string, a date as a number …), and
        // `Float` through `Double`: left to it.
        guard !(T.self is any FloatingPoint.Type), T.self != URL.self, T.self != Date.self, T.self != Data.self,
            T.self != Decimal.self
        else { throw NotDecodedHere() }
        return try T(from: ValueDecoder(value: self))
    }
}

/// One value as a `Decoder`. Coding paths are empty: an error here is never shown.
private struct ValueDecoder: Decoder {
    let value: AnswerJSON
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy _: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(KeyedContainer<Key>(members: try value.members()))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        UnkeyedContainer(elements: Array(try value.elements()))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValueContainer(value: value) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: AnswerJSON.Members
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { members.compactMap { $0.key.text.flatMap(Key.init(stringValue:)) } }

    func find(_ key: Key) -> AnswerJSON? { members.value(key.stringValue) }

    func value(_ key: Key) throws -> AnswerJSON {
        guard let value = find(key) else { throw NotDecodedHere() }
        return value
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }
    func decodeNil(forKey key: Key) throws -> Bool { try value(key).isNull }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try value(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value(key).decode(type) }
    func decode(_: Float.Type, forKey _: Key) throws -> Float { throw NotDecodedHere() }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try value(key).integer(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try value(key).integer(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try value(key).integer(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try value(key).integer(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value(key).integer(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try value(key).integer(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try value(key).integer(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try value(key).integer(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try value(key).integer(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try value(key).integer(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try value(key).decode(type) }

    /// Nil for a missing key or `null`, as `JSONDecoder` has it; one look-up, not three.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = find(key), !value.isNull else { return nil }
        return try value.decode(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try ValueDecoder(value: value(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: value(key)).unkeyedContainer()
    }

    // `JSONDecoder` gives a missing key's super decoder `null`.
    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: members.value("super") ?? .null)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { ValueDecoder(value: find(key) ?? .null) }
}

/// Moves on past an element only once it is decoded, as `JSONDecoder` does.
private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [AnswerJSON]
    var currentIndex = 0
    var codingPath: [any CodingKey] { [] }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    init(elements: [AnswerJSON]) { self.elements = elements }

    func peek() throws -> AnswerJSON {
        guard !isAtEnd else { throw NotDecodedHere() }
        return elements[currentIndex]
    }

    mutating func taking<T>(_ read: (AnswerJSON) throws -> T) throws -> T {
        let value = try read(peek())
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard try peek().isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try taking { try $0.decode(type) } }
    mutating func decode(_ type: String.Type) throws -> String { try taking { try $0.decode(type) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try taking { try $0.decode(type) } }
    mutating func decode(_: Float.Type) throws -> Float { throw NotDecodedHere() }
    mutating func decode(_ type: Int.Type) throws -> Int { try taking { try $0.integer(type) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try taking { try $0.integer(type) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try taking { try $0.integer(type) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try taking { try $0.integer(type) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try taking { try $0.integer(type) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try taking { try $0.integer(type) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try taking { try $0.integer(type) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try taking { try $0.integer(type) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try taking { try $0.integer(type) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try taking { try $0.integer(type) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try taking { try $0.decode(type) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try taking { try ValueDecoder(value: $0).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try taking { try ValueDecoder(value: $0).unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder { try taking { ValueDecoder(value: $0) } }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    let value: AnswerJSON
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try value.decode(type) }
    func decode(_ type: String.Type) throws -> String { try value.decode(type) }
    func decode(_ type: Double.Type) throws -> Double { try value.decode(type) }
    func decode(_: Float.Type) throws -> Float { throw NotDecodedHere() }
    func decode(_ type: Int.Type) throws -> Int { try value.integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try value.integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try value.integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try value.integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try value.integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try value.integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try value.integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try value.integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try value.integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try value.integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try value.decode(type) }
}
