/// JSON read straight into a ``ConfigTree`` — the values, styles, tags and positions YAML gives
/// the same text — without libyaml or Yams' nodes: a 100,000-region JSON file reads several times
/// faster. Only well-formed JSON whose mappings repeat no key is read here; for anything else
/// ``read(_:file:)`` returns nil and the caller reads the text as YAML, so every error a user sees
/// is still YAML's (JSON is YAML). `JSONReaderTests` holds the two readers' trees equal.
enum JSONReader {
    /// The document's tree, or nil when `text` is not JSON this reader takes (then YAML reads it).
    static func read(_ text: String, file: String) -> ConfigTree? {
        var text = text
        return text.withUTF8 { bytes -> ConfigTree? in
            // About one node per 12 bytes in a regions file: one allocation, not twenty doublings.
            var reader = Reader(bytes: bytes, builder: ConfigTree.Builder(capacity: bytes.count / 12))
            reader.skipWhitespace()
            guard reader.value(depth: 0) else { return nil }
            reader.skipWhitespace()
            return reader.index == bytes.count ? reader.builder.tree(file: file) : nil
        }
    }

    /// Deeper than this, the text goes to YAML (which refuses what is too deep for it).
    static let maximumDepth = 512

    /// Up to this many keys, a mapping's keys are checked for a repeat by comparing with each
    /// before (no set to allocate: a region has four to six); past it, by a set.
    static let keysComparedInPlace = 16

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var builder: ConfigTree.Builder
        var index = 0
        var line = 1
        /// The column of `bytes[index]`, counted in Unicode scalars as libyaml counts.
        var column = 1

        init(bytes: UnsafeBufferPointer<UInt8>, builder: ConfigTree.Builder) {
            self.bytes = bytes
            self.builder = builder
        }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

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

        /// Reads one value into the tree; false when the text is not JSON this reader takes.
        mutating func value(depth: Int) -> Bool {
            guard depth < JSONReader.maximumDepth, let byte = current else { return false }
            switch byte {
            case UInt8(ascii: "{"): return mapping(depth: depth)
            case UInt8(ascii: "["): return sequence(depth: depth)
            case UInt8(ascii: "\""): return quoted(line: line, column: column)
            case UInt8(ascii: "t"): return literal("true", line: line, column: column)
            case UInt8(ascii: "f"): return literal("false", line: line, column: column)
            case UInt8(ascii: "n"): return literal("null", line: line, column: column)
            default: return number(line: line, column: column)
            }
        }

        /// A string, as YAML gives a double-quoted scalar: tagged `!!str`.
        mutating func quoted(line: Int, column: Int) -> Bool {
            guard let text = string() else { return false }
            builder.scalar(text, line: line, column: column, style: .doubleQuoted, tag: .string)
            return true
        }

        mutating func mapping(depth: Int) -> Bool {
            let mapping = builder.open(.mapping, line: line, column: column)
            advance()
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                advance()
                builder.close(mapping)
                return true
            }
            var count = 0
            var keys: Set<String> = []
            while true {
                guard current == UInt8(ascii: "\""), quoted(line: line, column: column) else { return false }
                // A key given twice: YAML's error says so.
                let key = builder.records.count - 1
                count += 1
                if count <= JSONReader.keysComparedInPlace {
                    if repeats(key, in: mapping) { return false }
                } else {
                    if count == JSONReader.keysComparedInPlace + 1 { keys = Set(keyTexts(in: mapping, before: key)) }
                    guard keys.insert(builder.records[key].text).inserted else { return false }
                }
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { return false }
                advance()
                skipWhitespace()
                guard value(depth: depth + 1) else { return false }
                guard let more = separator(closing: UInt8(ascii: "}")) else { return false }
                if !more {
                    builder.close(mapping)
                    return true
                }
            }
        }

        /// Whether the key at `key` repeats one before it in the mapping at `mapping`.
        func repeats(_ key: Int, in mapping: Int) -> Bool {
            let records = builder.records
            var repeated = false
            ConfigTree.forEachPair(in: records, mapping: mapping, end: key) { other, _ in
                repeated = records[other].text == records[key].text
                return !repeated
            }
            return repeated
        }

        /// The texts of the mapping's keys before `key`.
        func keyTexts(in mapping: Int, before key: Int) -> [String] {
            let records = builder.records
            var texts: [String] = []
            ConfigTree.forEachPair(in: records, mapping: mapping, end: key) { other, _ in
                texts.append(records[other].text)
                return true
            }
            return texts
        }

        mutating func sequence(depth: Int) -> Bool {
            let sequence = builder.open(.sequence, line: line, column: column)
            advance()
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                advance()
                builder.close(sequence)
                return true
            }
            while true {
                guard value(depth: depth + 1) else { return false }
                guard let more = separator(closing: UInt8(ascii: "]")) else { return false }
                if !more {
                    builder.close(sequence)
                    return true
                }
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

        mutating func literal(_ word: StaticString, line: Int, column: Int) -> Bool {
            let start = index
            for expected in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
                guard current == expected else { return false }
                advance()
            }
            plainScalar(from: start, line: line, column: column)
            return true
        }

        /// A number as JSON writes one: `-`? (`0` | [1-9][0-9]*) (`.` [0-9]+)? ([eE] [+-]? [0-9]+)?
        mutating func number(line: Int, column: Int) -> Bool {
            let start = index
            if current == UInt8(ascii: "-") { advance() }
            guard let first = current, Self.isDigit(first) else { return false }
            advance()
            if first != UInt8(ascii: "0") { digits() }
            if current == UInt8(ascii: ".") {
                advance()
                guard digits() > 0 else { return false }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                advance()
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { advance() }
                guard digits() > 0 else { return false }
            }
            plainScalar(from: start, line: line, column: column)
            return true
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

        /// A literal or number, as YAML gives a plain scalar: no tag until it is read.
        mutating func plainScalar(from start: Int, line: Int, column: Int) {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            builder.scalar(text, line: line, column: column, style: .plain)
        }
    }
}
