import WaypostSupport

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
            var reader = Reader(
                scanner: JSONScanner(bytes: UnsafeRawBufferPointer(bytes)),
                builder: ConfigTree.Builder(capacity: bytes.count / 12))
            reader.skipWhitespace()
            guard reader.value(depth: 0) else { return nil }
            reader.skipWhitespace()
            return reader.scanner.index == bytes.count ? reader.builder.tree(file: file) : nil
        }
    }

    /// Deeper than this, the text goes to YAML (which refuses what is too deep for it).
    static let maximumDepth = 512

    /// Up to this many keys, a mapping's keys are checked for a repeat by comparing with each
    /// before (no set to allocate: a region has four to six); past it, by a set.
    static let keysComparedInPlace = 16

    /// Builds the tree from ``JSONScanner``'s tokens, counting lines and columns as it goes.
    private struct Reader {
        var scanner: JSONScanner
        var builder: ConfigTree.Builder
        var line = 1
        /// The column of the next byte, counted in Unicode scalars as libyaml counts.
        var column = 1

        var current: UInt8? { scanner.current }

        /// Moves past one byte of JSON's structure (ASCII: one column).
        mutating func advance() {
            scanner.index += 1
            column += 1
        }

        /// Counts the columns of the string read since `start` (one a Unicode scalar: a UTF-8
        /// continuation byte does not start one); false when it holds a character libyaml reads
        /// otherwise than JSON, written as it is (an escape such as `\u2028` reads alike): NEL,
        /// LS and PS are YAML 1.1's line breaks — folded into a space in a double-quoted scalar,
        /// and a line counted — and a byte order mark is dropped. Such text is left to YAML
        /// (fuzz-yaml found a NEL and a BOM in strings read otherwise).
        mutating func counted(from start: Int) -> Bool {
            let token = scanner.bytes[start..<scanner.index]
            var continuations = 0
            // NEL is C2 85; LS and PS E2 80 A8 and E2 80 A9; the BOM EF BB BF: only a string with
            // one of those lead bytes is looked at again.
            var leads: UInt8 = 0
            for byte in token {
                continuations &+= byte & 0xC0 == 0x80 ? 1 : 0
                leads |= byte == 0xC2 || byte == 0xE2 || byte == 0xEF ? 1 : 0
            }
            column += token.count - continuations
            return leads == 0 || !Self.holdsWhatYAMLReadsOtherwise(token)
        }

        /// NEL, LS, PS and the byte order mark in UTF-8 (see ``counted(from:)``).
        private static let readOtherwise: [[UInt8]] = [
            [0xC2, 0x85], [0xE2, 0x80, 0xA8], [0xE2, 0x80, 0xA9], [0xEF, 0xBB, 0xBF],
        ]

        private static func holdsWhatYAMLReadsOtherwise(_ token: Slice<UnsafeRawBufferPointer>) -> Bool {
            let bytes = UnsafeRawBufferPointer(rebasing: token).assumingMemoryBound(to: UInt8.self)
            return readOtherwise.contains { character in
                character.withUnsafeBufferPointer { ASCIIText.contains(bytes, $0) }
            }
        }

        mutating func skipWhitespace() {
            while let byte = current {
                switch byte {
                case 0x20, 0x09:
                    advance()
                case 0x0A:
                    (scanner.index, line, column) = (scanner.index + 1, line + 1, 1)
                case 0x0D:
                    // CR LF is one line break, a lone CR another (as libyaml counts them).
                    let bytes = scanner.bytes
                    scanner.index += scanner.index + 1 < bytes.count && bytes[scanner.index + 1] == 0x0A ? 2 : 1
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
            let start = scanner.index
            guard let text = scanner.string(), counted(from: start) else { return false }
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

        mutating func literal(_ word: StaticString, line: Int, column: Int) -> Bool {
            let start = scanner.index
            guard scanner.literal(word) else { return false }
            plainScalar(from: start, line: line, column: column)
            return true
        }

        mutating func number(line: Int, column: Int) -> Bool {
            let start = scanner.index
            guard scanner.number() else { return false }
            plainScalar(from: start, line: line, column: column)
            return true
        }

        /// A literal or number, as YAML gives a plain scalar: no tag until it is read.
        mutating func plainScalar(from start: Int, line: Int, column: Int) {
            self.column += scanner.index - start  // ASCII
            let text = String(decoding: scanner.bytes[start..<scanner.index], as: UTF8.self)
            builder.scalar(text, line: line, column: column, style: .plain)
        }
    }
}
