import Foundation
import WaypostSupport

/// A provider's JSON answer read into values, for ``AnswerDecoder``: only text that is JSON by
/// RFC 8259 — valid UTF-8 in strings, no lone surrogate escape, no repeated key in an object, no
/// number but finite ones JSON's grammar spells — is read here; for anything else ``parse(_:)``
/// returns nil and `JSONDecoder` reads the answer, so what it accepts and every error it words are
/// unchanged.
enum AnswerJSON: Equatable {
    case null
    case bool(Bool)
    /// The number as written, checked against JSON's grammar; read as the model asks for it.
    case number(String)
    case string(String)
    case array([AnswerJSON])
    case object([Member])

    struct Member: Equatable {
        var key: String
        var value: AnswerJSON
    }

    /// Deeper than this, `JSONDecoder` reads the answer (it refuses what is too deep for it).
    static let maximumDepth = 256

    /// Up to this many keys, an object's keys are checked for a repeat by comparing each with
    /// those before it (an answer's objects have a handful); past it, by a set.
    static let keysComparedInPlace = 16

    /// The answer's value, or nil when `data` is not JSON this reader takes.
    static func parse(_ data: Data) -> AnswerJSON? {
        data.withUnsafeBytes { bytes -> AnswerJSON? in
            var reader = Reader(scanner: JSONScanner(bytes: bytes))
            reader.scanner.skipWhitespace()
            guard let value = reader.value(depth: 0) else { return nil }
            reader.scanner.skipWhitespace()
            return reader.scanner.index == bytes.count ? value : nil
        }
    }

    /// Builds values from ``JSONScanner``'s tokens.
    private struct Reader {
        var scanner: JSONScanner

        mutating func value(depth: Int) -> AnswerJSON? {
            guard depth < AnswerJSON.maximumDepth, let byte = scanner.current else { return nil }
            switch byte {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return scanner.string().map(AnswerJSON.string)
            case UInt8(ascii: "t"): return scanner.literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return scanner.literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return scanner.literal("null") ? .null : nil
            default:
                let start = scanner.index
                guard scanner.number() else { return nil }
                return .number(String(decoding: scanner.bytes[start..<scanner.index], as: UTF8.self))
            }
        }

        mutating func object(depth: Int) -> AnswerJSON? {
            scanner.index += 1
            var members: [Member] = []
            scanner.skipWhitespace()
            if scanner.take(UInt8(ascii: "}")) { return .object(members) }
            repeat {
                scanner.skipWhitespace()
                guard scanner.current == UInt8(ascii: "\""), let key = scanner.string() else { return nil }
                scanner.skipWhitespace()
                guard scanner.take(UInt8(ascii: ":")) else { return nil }
                scanner.skipWhitespace()
                guard let value = value(depth: depth + 1) else { return nil }
                if members.count < AnswerJSON.keysComparedInPlace, members.contains(where: { $0.key == key }) {
                    return nil
                }
                members.append(Member(key: key, value: value))
                scanner.skipWhitespace()
            } while scanner.take(UInt8(ascii: ","))
            guard scanner.take(UInt8(ascii: "}")) else { return nil }
            if members.count > AnswerJSON.keysComparedInPlace, Set(members.map(\.key)).count != members.count {
                return nil
            }
            return .object(members)
        }

        mutating func array(depth: Int) -> AnswerJSON? {
            scanner.index += 1
            var elements: [AnswerJSON] = []
            scanner.skipWhitespace()
            if scanner.take(UInt8(ascii: "]")) { return .array(elements) }
            repeat {
                scanner.skipWhitespace()
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                scanner.skipWhitespace()
            } while scanner.take(UInt8(ascii: ","))
            return scanner.take(UInt8(ascii: "]")) ? .array(elements) : nil
        }
    }
}
