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

    /// `text` as JSON (RFC 8259) and nothing else — no YAML after it — or the first place it is
    /// not, with what and why: for a reader whose format is JSON itself (`waypost compare`'s log
    /// lines), where YAML would take `{t: x}`, a trailing comma, or read `5` as the text "5".
    /// Strings holding NEL, LS, PS or a byte order mark are taken as JSON reads them, and a key
    /// given twice in an object is refused (RFC 8259 §4: names SHOULD be unique).
    static func readStrictly(_ text: String, file: String) -> Result<ConfigTree, ConfigFileError> {
        var text = text
        return text.withUTF8 { bytes -> Result<ConfigTree, ConfigFileError> in
            var reader = Reader(
                scanner: JSONScanner(bytes: UnsafeRawBufferPointer(bytes)),
                builder: ConfigTree.Builder(capacity: bytes.count / 12))
            reader.strict = true
            reader.skipWhitespace()
            var read = reader.value(depth: 0)
            if read {
                reader.skipWhitespace()
                read = reader.scanner.index == bytes.count || reader.fail("text after the JSON value")
            }
            guard read else {
                let problem = reader.problem ?? (reader.line, reader.column, "not JSON")
                return .failure(
                    ConfigFileError(
                        file: file, line: problem.line, column: problem.column,
                        message: "not JSON (RFC 8259): \(problem.message)"))
            }
            return .success(reader.builder.tree(file: file))
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
        /// JSON only (``readStrictly(_:file:)``): no text is left to YAML, and the first place the
        /// text is not JSON is kept in ``problem``.
        var strict = false
        var problem: (line: Int, column: Int, message: String)?

        /// False, keeping where (here, or at `record`) and why when reading strictly.
        mutating func fail(_ message: String, at record: Int? = nil) -> Bool {
            if strict && problem == nil {
                let at = record.map { (builder.records[$0].line, builder.records[$0].column) } ?? (line, column)
                problem = (at.0, at.1, message)
            }
            return false
        }

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
            return strict || leads == 0 || !Self.holdsWhatYAMLReadsOtherwise(token)
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
            guard depth < JSONReader.maximumDepth else {
                return fail("nested deeper than \(JSONReader.maximumDepth) arrays and objects")
            }
            guard let byte = current else { return fail("the text ends where a value should be") }
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
            guard let text = scanner.string() else {
                guard strict, problem == nil else { return false }
                let (offset, message) = Self.stringFault(in: scanner.bytes, from: start)
                // A string holds no line break (one is a control character): the fault is on this
                // line, a column a Unicode scalar (a UTF-8 continuation byte starts none).
                let scalars = scanner.bytes[start..<offset].count { $0 & 0xC0 != 0x80 }
                problem = (line, column + scalars, message)
                return false
            }
            guard counted(from: start) else { return false }
            builder.scalar(text, line: line, column: column, style: .doubleQuoted, tag: .string)
            return true
        }

        /// Where (a byte offset) and why the string whose opening quote is at `start` is not
        /// JSON's: the scanner, kept fast for the emulator's answers, says only that it is not.
        static func stringFault(in bytes: UnsafeRawBufferPointer, from start: Int) -> (Int, String) {
            func hex(_ at: Int) -> UInt16? {
                guard at + 4 <= bytes.count else { return nil }
                return UInt16(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16)
            }
            var index = start + 1
            while index < bytes.count {
                let byte = bytes[index]
                if byte < 0x20 {
                    let digits = String(byte, radix: 16, uppercase: true)
                    let code = "U+" + String(repeating: "0", count: 4 - digits.count) + digits
                    return (
                        index,
                        "a control character (\(code)) in a string: JSON writes it as an escape (\\t, \\n, \\u00XX)"
                    )
                }
                if byte == UInt8(ascii: "\"") { return (start, "a string that is not UTF-8 text") }
                guard byte == UInt8(ascii: "\\") else {
                    index += 1
                    continue
                }
                guard index + 1 < bytes.count else { break }
                let escape = bytes[index + 1]
                if "\"\\/bfnrt".utf8.contains(escape) {
                    index += 2
                    continue
                }
                guard escape == UInt8(ascii: "u") else {
                    let shown =
                        escape < 0x80
                        ? "\\" + String(UnicodeScalar(escape)) : "a backslash before a non-ASCII character"
                    return (index, "an escape JSON does not define (\(shown)); a backslash itself is \\\\")
                }
                guard let unit = hex(index + 2) else { return (index, "\\u not followed by four hexadecimal digits") }
                if (0xDC00..<0xE000).contains(unit) {
                    return (
                        index,
                        "a lone surrogate (\\u\(String(unit, radix: 16, uppercase: true))): a low half without a high one"
                    )
                }
                if (0xD800..<0xDC00).contains(unit) {
                    let low = index + 6
                    guard low + 1 < bytes.count, bytes[low] == UInt8(ascii: "\\"), bytes[low + 1] == UInt8(ascii: "u"),
                        let second = hex(low + 2), (0xDC00..<0xE000).contains(second)
                    else {
                        return (
                            index,
                            "a lone surrogate (\\u\(String(unit, radix: 16, uppercase: true))): a high half without a low one after it"
                        )
                    }
                    index += 12
                } else {
                    index += 6
                }
            }
            return (start, "a string not closed by a double quote before the end of the text")
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
                guard current == UInt8(ascii: "\"") else {
                    return fail(
                        current == UInt8(ascii: "}") && count > 0
                            ? "a comma before '}': JSON allows none after an object's last member"
                            : "expected a key in double quotes")
                }
                guard quoted(line: line, column: column) else { return false }
                // A key given twice: YAML's error says so.
                let key = builder.records.count - 1
                count += 1
                if count <= JSONReader.keysComparedInPlace {
                    if repeats(key, in: mapping) {
                        let message = repeated(key)
                        return fail(message, at: key)
                    }
                } else {
                    if count == JSONReader.keysComparedInPlace + 1 { keys = Set(keyTexts(in: mapping, before: key)) }
                    guard keys.insert(builder.records[key].text).inserted else {
                        let message = repeated(key)
                        return fail(message, at: key)
                    }
                }
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { return fail("expected ':' after the key") }
                advance()
                skipWhitespace()
                guard value(depth: depth + 1) else { return false }
                guard let more = separator(closing: UInt8(ascii: "}")) else {
                    return fail("expected ',' or '}' after the value")
                }
                if !more {
                    builder.close(mapping)
                    return true
                }
            }
        }

        /// The problem of a key given twice.
        func repeated(_ key: Int) -> String {
            "the key '\(builder.records[key].text)' is given twice in the object"
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
            var count = 0
            while true {
                if current == UInt8(ascii: "]") && count > 0 {
                    return fail("a comma before ']': JSON allows none after an array's last value")
                }
                guard value(depth: depth + 1) else { return false }
                count += 1
                guard let more = separator(closing: UInt8(ascii: "]")) else {
                    return fail("expected ',' or ']' after the value")
                }
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
            guard scanner.literal(word) else { return fail(Self.noValue) }
            plainScalar(from: start, line: line, column: column)
            return true
        }

        mutating func number(line: Int, column: Int) -> Bool {
            let start = scanner.index
            guard scanner.number() else { return fail(Self.noValue) }
            plainScalar(from: start, line: line, column: column)
            return true
        }

        static let noValue =
            "expected a value: a string in double quotes, a number, true, false, null, an object or an array"

        /// A literal or number, as YAML gives a plain scalar: no tag until it is read.
        mutating func plainScalar(from start: Int, line: Int, column: Int) {
            self.column += scanner.index - start  // ASCII
            let text = String(decoding: scanner.bytes[start..<scanner.index], as: UTF8.self)
            builder.scalar(text, line: line, column: column, style: .plain)
        }
    }
}
