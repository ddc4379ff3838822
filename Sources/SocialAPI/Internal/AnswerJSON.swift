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
            var reader = Reader(bytes: bytes)
            reader.skipWhitespace()
            guard let value = reader.value(depth: 0) else { return nil }
            reader.skipWhitespace()
            return reader.index == bytes.count ? value : nil
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            index += 1
            return true
        }

        mutating func value(depth: Int) -> AnswerJSON? {
            guard depth < AnswerJSON.maximumDepth, let byte = current else { return nil }
            switch byte {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map(AnswerJSON.string)
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            default: return number()
            }
        }

        mutating func object(depth: Int) -> AnswerJSON? {
            index += 1
            var members: [Member] = []
            skipWhitespace()
            if take(UInt8(ascii: "}")) { return .object(members) }
            repeat {
                skipWhitespace()
                guard current == UInt8(ascii: "\""), let key = string() else { return nil }
                skipWhitespace()
                guard take(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                guard let value = value(depth: depth + 1) else { return nil }
                if members.count < AnswerJSON.keysComparedInPlace, members.contains(where: { $0.key == key }) {
                    return nil
                }
                members.append(Member(key: key, value: value))
                skipWhitespace()
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")) else { return nil }
            if members.count > AnswerJSON.keysComparedInPlace, Set(members.map(\.key)).count != members.count {
                return nil
            }
            return .object(members)
        }

        mutating func array(depth: Int) -> AnswerJSON? {
            index += 1
            var elements: [AnswerJSON] = []
            skipWhitespace()
            if take(UInt8(ascii: "]")) { return .array(elements) }
            repeat {
                skipWhitespace()
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipWhitespace()
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]")) ? .array(elements) : nil
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let length = word.utf8CodeUnitCount
            guard bytes.count - index >= length,
                word.withUTF8Buffer({ $0.elementsEqual(bytes[index..<index + length]) })
            else { return false }
            index += length
            return true
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, kept as written.
        mutating func number() -> AnswerJSON? {
            let start = index
            _ = take(UInt8(ascii: "-"))
            guard let first = current, isDigit(first) else { return nil }
            index += 1
            if first != UInt8(ascii: "0") { skipDigits() }
            if take(UInt8(ascii: ".")) {
                guard digits() else { return nil }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard digits() else { return nil }
            }
            return .number(String(decoding: bytes[start..<index], as: UTF8.self))
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        mutating func skipDigits() {
            while let byte = current, isDigit(byte) { index += 1 }
        }

        /// One digit or more.
        mutating func digits() -> Bool {
            let start = index
            skipDigits()
            return index > start
        }

        /// A string from its opening quote; nil when it is not closed, holds a control character,
        /// an escape JSON does not define or a lone surrogate, or is not UTF-8.
        mutating func string() -> String? {
            index += 1
            let start = index
            var ascii = true
            while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                guard byte >= 0x20 else { return nil }
                ascii = ascii && byte < 0x80
                index += 1
            }
            guard let stop = current else { return nil }
            if stop == UInt8(ascii: "\"") {
                index += 1
                // ASCII needs no validation: most of an answer's strings, keys included.
                let text = bytes[start..<index - 1]
                return ascii ? String(decoding: text, as: UTF8.self) : UTF8Validation.string(text)
            }
            var unescaped = Array(bytes[start..<index])
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return UTF8Validation.string(unescaped)
                case UInt8(ascii: "\\"):
                    guard unescape(into: &unescaped) else { return nil }
                case 0..<0x20:
                    return nil
                default:
                    unescaped.append(byte)
                }
            }
            return nil
        }

        /// The escape after a backslash, appended as UTF-8.
        mutating func unescape(into out: inout [UInt8]) -> Bool {
            guard let byte = current else { return false }
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(byte)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard let unit = hex4() else { return false }
                var scalar = UInt32(unit)
                if (0xD800..<0xDC00).contains(unit) {
                    guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(),
                        (0xDC00..<0xE000).contains(low)
                    else { return false }
                    scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                } else if (0xDC00..<0xE000).contains(unit) {
                    return false
                }
                guard let character = Unicode.Scalar(scalar) else { return false }
                out.append(contentsOf: String(character).utf8)
            default:
                return false
            }
            return true
        }

        mutating func hex4() -> UInt16? {
            guard bytes.count - index >= 4 else { return nil }
            var unit: UInt16 = 0
            for _ in 0..<4 {
                guard let byte = current, let digit = Self.hexDigit(byte) else { return nil }
                unit = unit << 4 | UInt16(digit)
                index += 1
            }
            return unit
        }

        static func hexDigit(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
    }
}
