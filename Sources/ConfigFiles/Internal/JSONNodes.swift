import Yams

/// JSON composed straight into Yams' nodes — the tree, styles, tags and marks Yams composes from
/// the same text — without libyaml's event stream: a 100,000-region JSON file reads several times
/// faster. Only well-formed JSON whose mappings repeat no key is composed here; for anything
/// else ``compose(_:)`` returns nil and the caller composes the text as YAML, so every error a
/// user sees is still YAML's (JSON is YAML). `JSONNodesTests` holds the two trees equal.
enum JSONNodes {
    /// The document's root, or nil when `text` is not JSON this reader composes (then YAML does).
    static func compose(_ text: String) -> Node? {
        guard marksAreConstructible else { return nil }
        var text = text
        return text.withUTF8 { bytes in
            var reader = Reader(bytes: bytes)
            reader.skipWhitespace()
            guard let root = reader.value(depth: 0) else { return nil }
            reader.skipWhitespace()
            return reader.index == bytes.count ? root : nil
        }
    }

    /// Yams gives `Mark` no public initializer; it is two `Int`s, line and column, and is built
    /// from them here as long as that is its layout (else JSON goes through YAML, as before).
    static let marksAreConstructible =
        MemoryLayout<Mark>.size == 2 * MemoryLayout<Int>.size
        && mark(line: 3, column: 7).line == 3 && mark(line: 3, column: 7).column == 7

    static func mark(line: Int, column: Int) -> Mark {
        unsafeBitCast((line, column), to: Mark.self)
    }

    /// Deeper than this, the text goes to YAML (which refuses what is too deep for it).
    static let maximumDepth = 512

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var line = 1
        /// The column of `bytes[index]`, counted in Unicode scalars as libyaml counts.
        var column = 1

        /// Made once: Yams' `Constructor.default` and `Resolver.basic` build a new value each time
        /// they are read (a constructor's tables per node took a gigabyte for 100,000 regions).
        let resolver = Resolver.basic
        let constructor = Constructor.default

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        /// A tag as Yams' composer makes one, with the basic resolver ``ConfigNode`` composes
        /// with: a quoted scalar is a string, anything else not yet resolved.
        func tag(quoted: Bool = false) -> Tag { Tag(quoted ? .str : .implicit, resolver, constructor) }

        mutating func advance() {
            // A UTF-8 continuation byte does not start a column.
            if bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }

        mutating func skipWhitespace() {
            while let byte = current {
                switch byte {
                case 0x20, 0x09:
                    advance()
                case 0x0A:
                    (index, line, column) = (index + 1, line + 1, 1)
                case 0x0D:
                    // CR LF is one line break, a lone CR another (as libyaml counts them).
                    index += index + 1 < bytes.count && bytes[index + 1] == 0x0A ? 2 : 1
                    (line, column) = (line + 1, 1)
                default:
                    return
                }
            }
        }

        mutating func value(depth: Int) -> Node? {
            guard depth < JSONNodes.maximumDepth, let byte = current else { return nil }
            let mark = JSONNodes.mark(line: line, column: column)
            switch byte {
            case UInt8(ascii: "{"): return mapping(at: mark, depth: depth)
            case UInt8(ascii: "["): return sequence(at: mark, depth: depth)
            case UInt8(ascii: "\""): return string().map { .scalar(.init($0, tag(quoted: true), .doubleQuoted, mark)) }
            case UInt8(ascii: "t"): return literal("true", at: mark)
            case UInt8(ascii: "f"): return literal("false", at: mark)
            case UInt8(ascii: "n"): return literal("null", at: mark)
            default: return number(at: mark)
            }
        }

        mutating func mapping(at mark: Mark, depth: Int) -> Node? {
            advance()
            skipWhitespace()
            var pairs: [(Node, Node)] = []
            var keys: Set<String> = []
            if current == UInt8(ascii: "}") {
                advance()
                return .mapping(.init(pairs, tag(), .any, mark))
            }
            while true {
                guard current == UInt8(ascii: "\"") else { return nil }
                let keyMark = JSONNodes.mark(line: line, column: column)
                // A key given twice: YAML's error says so.
                guard let key = string(), keys.insert(key).inserted else { return nil }
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { return nil }
                advance()
                skipWhitespace()
                guard let value = value(depth: depth + 1) else { return nil }
                pairs.append((.scalar(.init(key, tag(quoted: true), .doubleQuoted, keyMark)), value))
                guard let more = separator(closing: UInt8(ascii: "}")) else { return nil }
                if !more { return .mapping(.init(pairs, tag(), .any, mark)) }
            }
        }

        mutating func sequence(at mark: Mark, depth: Int) -> Node? {
            advance()
            skipWhitespace()
            var items: [Node] = []
            if current == UInt8(ascii: "]") {
                advance()
                return .sequence(.init(items, tag(), .any, mark))
            }
            while true {
                guard let item = value(depth: depth + 1) else { return nil }
                items.append(item)
                guard let more = separator(closing: UInt8(ascii: "]")) else { return nil }
                if !more { return .sequence(.init(items, tag(), .any, mark)) }
            }
        }

        /// After a collection's member: true past a comma (another member follows), false past
        /// `closing` (the collection ends), nil for anything else.
        mutating func separator(closing: UInt8) -> Bool? {
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                advance()
                skipWhitespace()
                return true
            case closing:
                advance()
                return false
            default:
                return nil
            }
        }

        /// A string from its opening quote; nil for a control character, a bad escape or no end.
        mutating func string() -> String? {
            advance()
            let start = index
            var plain = true
            var decoded: [UInt8] = []
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\""):
                    let text =
                        plain
                        ? String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                        : String(decoding: decoded, as: UTF8.self)
                    advance()
                    return text
                case UInt8(ascii: "\\"):
                    if plain {
                        decoded = Array(bytes[start..<index])
                        plain = false
                    }
                    advance()
                    guard let escaped = escape() else { return nil }
                    decoded += escaped
                case 0x00..<0x20:
                    return nil
                default:
                    if !plain { decoded.append(byte) }
                    advance()
                }
            }
            return nil
        }

        /// The bytes an escape stands for, from the byte after its backslash.
        mutating func escape() -> [UInt8]? {
            guard let byte = current else { return nil }
            advance()
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return [byte]
            case UInt8(ascii: "b"): return [0x08]
            case UInt8(ascii: "f"): return [0x0C]
            case UInt8(ascii: "n"): return [0x0A]
            case UInt8(ascii: "r"): return [0x0D]
            case UInt8(ascii: "t"): return [0x09]
            case UInt8(ascii: "u"):
                guard var scalar = hex4() else { return nil }
                if (0xD800..<0xDC00).contains(scalar) {
                    // A high surrogate must be followed by an escaped low one.
                    guard current == UInt8(ascii: "\\") else { return nil }
                    advance()
                    guard current == UInt8(ascii: "u") else { return nil }
                    advance()
                    guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let unicode = Unicode.Scalar(scalar) else { return nil }
                return Array(String(Character(unicode)).utf8)
            default:
                return nil
            }
        }

        mutating func hex4() -> UInt32? {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let byte = current, let digit = Self.hexDigit(byte) else { return nil }
                value = value << 4 | digit
                advance()
            }
            return value
        }

        static func hexDigit(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
            default: nil
            }
        }

        mutating func literal(_ word: StaticString, at mark: Mark) -> Node? {
            let start = index
            for expected in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
                guard current == expected else { return nil }
                advance()
            }
            return plainScalar(from: start, at: mark)
        }

        /// A number as JSON writes one: `-`? (`0` | [1-9][0-9]*) (`.` [0-9]+)? ([eE] [+-]? [0-9]+)?
        mutating func number(at mark: Mark) -> Node? {
            let start = index
            if current == UInt8(ascii: "-") { advance() }
            guard let first = current, Self.isDigit(first) else { return nil }
            advance()
            if first != UInt8(ascii: "0") { digits() }
            if current == UInt8(ascii: ".") {
                advance()
                guard digits() > 0 else { return nil }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                advance()
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { advance() }
                guard digits() > 0 else { return nil }
            }
            return plainScalar(from: start, at: mark)
        }

        @discardableResult
        mutating func digits() -> Int {
            var count = 0
            while let byte = current, Self.isDigit(byte) {
                advance()
                count += 1
            }
            return count
        }

        static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

        func plainScalar(from start: Int, at mark: Mark) -> Node {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            return .scalar(.init(text, tag(), .plain, mark))
        }
    }
}
