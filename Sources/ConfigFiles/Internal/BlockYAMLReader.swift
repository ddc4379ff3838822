/// YAML in the shape configuration files are written in — block mappings and sequences by
/// indentation, one-line flow collections, plain and quoted scalars on one line — read straight
/// into a ``ConfigTree`` with the values, styles, tags and positions Yams gives the same text:
/// Yams' node tree and its duplicate-key check were two thirds of loading 100,000 regions.
///
/// The subset is narrow on purpose. Whatever lies outside it — tabs, carriage returns, a scalar
/// over several lines, an escape, a block scalar, a tag, an empty value, a repeated key, a
/// document marker, anything libyaml might read another way — makes ``read(_:file:)`` return
/// nil, and Yams reads the file: every error a user sees is still libyaml's. `BlockYAMLReaderTests`
/// holds the two trees equal, node for node, on every YAML file shipped and on generated ones.
enum BlockYAMLReader {
    /// The document's tree, or nil when `text` is not YAML this reader takes (then Yams reads it).
    static func read(_ text: String, file: String) -> ConfigTree? {
        var text = text
        return text.withUTF8 { bytes -> ConfigTree? in
            guard bytes.allSatisfy(isTaken) else { return nil }
            var reader = Reader(bytes: bytes, builder: ConfigTree.Builder(capacity: bytes.count / 10))
            guard let indent = reader.nextContentLine(), reader.block(indent: indent, depth: 0),
                reader.nextContentLine() == nil, reader.index == bytes.count
            else { return nil }
            return reader.builder.tree(file: file)
        }
    }

    /// Collections nested deeper than this go to Yams.
    static let maximumDepth = 64

    /// A mapping with more keys than this goes to Yams (a region has four to six).
    static let keysComparedInPlace = 64

    /// A key longer than this goes to Yams (libyaml allows a simple key 1,024 characters).
    static let longestKey = 512

    /// Whether the reader takes a file with `byte` in it: no tab, carriage return or other control
    /// character, and none of the UTF-8 lead bytes of the characters YAML treats specially (NEL,
    /// the C1 controls, the line and paragraph separators, BOM and non-characters come from
    /// lead bytes C2, E2 and EF, which other characters share: those files go to Yams too).
    private static func isTaken(_ byte: UInt8) -> Bool {
        byte >= 0x20 ? byte != 0x7F && byte != 0xC2 && byte != 0xE2 && byte != 0xEF : byte == 0x0A
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var builder: ConfigTree.Builder
        var index = 0
        /// The current line's number and the index of its first byte.
        var line = 1
        var lineStart = 0

        init(bytes: UnsafeBufferPointer<UInt8>, builder: ConfigTree.Builder) {
            self.bytes = bytes
            self.builder = builder
        }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        func byte(at position: Int) -> UInt8? { position < bytes.count ? bytes[position] : nil }

        /// The last position whose column was counted, and that column: a line's columns are
        /// counted on from there, once each, however long the line (a whole file on one line).
        var counted = (position: 0, column: 1)

        /// The 1-based column of `position` on the current line, in Unicode scalars as libyaml
        /// counts (a UTF-8 continuation byte does not start one).
        mutating func column(_ position: Int) -> Int {
            if counted.position < lineStart || counted.position > position { counted = (lineStart, 1) }
            var column = counted.column
            for offset in counted.position..<position { column &+= bytes[offset] & 0xC0 == 0x80 ? 0 : 1 }
            counted = (position, column)
            return column
        }

        /// Whether `position` ends a token: a space, the end of the line or of the text.
        func isBlankOrEnd(_ position: Int) -> Bool {
            guard let byte = byte(at: position) else { return true }
            return byte == 0x20 || byte == 0x0A
        }

        mutating func skipSpaces() { while current == 0x20 { index += 1 } }

        /// Past the rest of a line that holds nothing more (spaces, a comment after a space); false
        /// when something else is there.
        mutating func endOfLine() -> Bool {
            skipSpaces()
            if current == UInt8(ascii: "#"), index > 0, bytes[index - 1] == 0x20 {
                while let byte = current, byte != 0x0A { index += 1 }
            }
            return current == nil || current == 0x0A
        }

        /// From the end of a line, moves to the first character of the next line with content
        /// (blank lines and comments skipped) and returns its indentation; nil at the end of the
        /// text, or on a document marker or directive (`---`, `...`, `%`), which go to Yams (the
        /// caller sees nil and a position short of the end).
        mutating func nextContentLine() -> Int? {
            while index < bytes.count {
                if bytes[index] == 0x0A {
                    index += 1
                    (line, lineStart) = (line + 1, index)
                    continue
                }
                if index == lineStart, isMarker(at: index) { return nil }
                skipSpaces()
                guard let byte = current else { return nil }
                if byte == 0x0A { continue }
                if byte == UInt8(ascii: "#") {
                    while let byte = current, byte != 0x0A { index += 1 }
                    continue
                }
                return index - lineStart
            }
            return nil
        }

        func isMarker(at position: Int) -> Bool {
            if bytes[position] == UInt8(ascii: "%") { return true }
            for marker in [UInt8(ascii: "-"), UInt8(ascii: ".")] {
                if byte(at: position) == marker, byte(at: position + 1) == marker, byte(at: position + 2) == marker {
                    return true
                }
            }
            return false
        }

        /// Whether a block sequence's entry starts here: `-` then a space or the line's end.
        func isEntry(at position: Int) -> Bool { bytes[position] == UInt8(ascii: "-") && isBlankOrEnd(position + 1) }

        /// A block mapping or sequence whose entries begin at column `indent` (0-based), the first
        /// at `index`. Returns at the first line indented less, at the end of the text, or at a
        /// line of the same indentation that does not continue it (the caller decides).
        mutating func block(indent: Int, depth: Int) -> Bool {
            guard depth < BlockYAMLReader.maximumDepth else { return false }
            return isEntry(at: index) ? sequence(indent: indent, depth: depth) : mapping(indent: indent, depth: depth)
        }

        mutating func sequence(indent: Int, depth: Int) -> Bool {
            let column = self.column(index)
            let sequence = builder.open(.sequence, line: line, column: column)
            while true {
                index += 1  // past `-`
                guard entryValue(after: indent, depth: depth) else { return false }
                guard let next = nextContentLine() else { break }
                if next < indent || (next == indent && !isEntry(at: index)) { break }
                guard next == indent else { return false }
            }
            builder.close(sequence)
            return true
        }

        mutating func mapping(indent: Int, depth: Int) -> Bool {
            let column = self.column(index)
            let mapping = builder.open(.mapping, line: line, column: column)
            while true {
                guard key(in: mapping) else { return false }
                index += 1  // past `:`
                guard entryValue(after: indent, depth: depth, inMapping: true) else { return false }
                guard let next = nextContentLine() else { break }
                if next < indent { break }
                guard next == indent, !isEntry(at: index) else { return false }
            }
            builder.close(mapping)
            return true
        }

        /// A block mapping's key — plain, or quoted — up to its `:`, which must follow at once and
        /// be followed by a space or the line's end; false for a key given twice (Yams says so).
        mutating func key(in mapping: Int) -> Bool {
            let start = index
            switch current {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                guard quoted() else { return false }
            default:
                guard let end = plainEnd(flow: false), end.colon else { return false }
                plain(from: start, to: end.end, isKey: true)
            }
            guard index - start <= BlockYAMLReader.longestKey, current == UInt8(ascii: ":"),
                isBlankOrEnd(index + 1), !repeats(builder.records.count - 1, in: mapping)
            else { return false }
            return true
        }

        /// An entry's value after `-` or a key's `:`: on the same line (a scalar, a flow collection,
        /// or — after `-` — a mapping or sequence begun there), or, when the line ends, a block on
        /// the lines after: indented more, or a sequence at the key's own indentation. No value
        /// at all (null) goes to Yams.
        mutating func entryValue(after indent: Int, depth: Int, inMapping: Bool = false) -> Bool {
            guard endOfLine() else { return inlineValue(depth: depth, compact: !inMapping) }
            guard let next = nextContentLine() else { return false }
            if next > indent || (inMapping && next == indent && isEntry(at: index)) {
                return block(indent: next, depth: depth + 1)
            }
            return false
        }

        /// A value that starts at `index` on its entry's line. After `-` (`compact`), a mapping
        /// (`- key: value`) or sequence (`- - item`) may begin there, its entries at this column.
        mutating func inlineValue(depth: Int, compact: Bool) -> Bool {
            guard let byte = current else { return false }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard flow(depth: depth + 1) else { return false }
                return endOfLine()
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                let start = index
                guard quoted() else { return false }
                if current == UInt8(ascii: ":") {
                    // A quoted key: a compact mapping after `-`; after a key, an error.
                    guard compact, isBlankOrEnd(index + 1) else { return false }
                    builder.records.removeLast()
                    index = start
                    return block(indent: index - lineStart, depth: depth + 1)
                }
                return endOfLine()
            default:
                if compact, isEntry(at: index) { return block(indent: index - lineStart, depth: depth + 1) }
                let start = index
                guard let end = plainEnd(flow: false) else { return false }
                if end.colon {
                    guard compact else { return false }
                    index = start
                    return block(indent: index - lineStart, depth: depth + 1)
                }
                plain(from: start, to: end.end)
                return endOfLine()
            }
        }

        /// Where the plain scalar at `index` ends (its last character's next index, trailing
        /// spaces left out), and whether a key's `:` follows it; nil for what this reader leaves
        /// to Yams: a scalar starting with an indicator, a bracket or brace in block context, a
        /// colon not followed by a space in a flow collection. Moves `index` past it (to the `:`,
        /// the comment's `#` or the flow indicator that ends it).
        mutating func plainEnd(flow: Bool) -> (end: Int, colon: Bool)? {
            guard let first = current else { return nil }
            switch first {
            case UInt8(ascii: "-"), UInt8(ascii: "?"), UInt8(ascii: ":"):
                // A number's sign, not an indicator, when a character follows.
                guard first == UInt8(ascii: "-"), !isBlankOrEnd(index + 1) else { return nil }
            case UInt8(ascii: ","), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"),
                UInt8(ascii: "#"), UInt8(ascii: "&"), UInt8(ascii: "*"), UInt8(ascii: "!"), UInt8(ascii: "|"),
                UInt8(ascii: ">"), UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "%"), UInt8(ascii: "@"),
                UInt8(ascii: "`"):
                return nil
            default:
                break
            }
            var end = index
            while let byte = current, byte != 0x0A {
                switch byte {
                case UInt8(ascii: ":"):
                    if isBlankOrEnd(index + 1) { return (end, true) }
                    if flow { return nil }
                case UInt8(ascii: "#"):
                    if bytes[index - 1] == 0x20 { return (end, false) }
                case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"):
                    if flow { return (end, false) }
                    if byte != UInt8(ascii: ",") { return nil }
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    return nil
                case 0x20:
                    index += 1
                    continue
                default:
                    break
                }
                index += 1
                end = index
            }
            return (end, false)
        }

        /// A plain scalar from `start` to `end`: a value untagged until read, a key `!!str` (as
        /// Yams composes a mapping's keys).
        mutating func plain(from start: Int, to end: Int, isKey: Bool = false) {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            let column = self.column(start)
            builder.scalar(text, line: line, column: column, style: .plain, tag: isKey ? .string : .implicit)
        }

        /// A single- or double-quoted scalar that closes on its line (`''` is a quote in single
        /// quotes); a backslash in double quotes (an escape) goes to Yams. Tagged `!!str`.
        mutating func quoted() -> Bool {
            let start = index
            let quote = bytes[index]
            let single = quote == UInt8(ascii: "'")
            index += 1
            var text: [UInt8] = []
            var from = index
            while true {
                guard let byte = current, byte != 0x0A, single || byte != UInt8(ascii: "\\") else { return false }
                index += 1
                guard byte == quote else { continue }
                text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from..<index - 1]))
                guard single, current == quote else { break }
                // `''`: the second quote is text, the start of the next run.
                from = index
                index += 1
            }
            let column = self.column(start)
            builder.scalar(
                String(decoding: text, as: UTF8.self), line: line, column: column,
                style: single ? .singleQuoted : .doubleQuoted, tag: .string)
            return true
        }

        /// A flow mapping or sequence closed on its line: `{key: value, …}`, `[item, …]`, whose
        /// members are plain or quoted scalars and flow collections; no empty entry, no trailing
        /// comma, no comment inside.
        mutating func flow(depth: Int) -> Bool {
            guard depth < BlockYAMLReader.maximumDepth else { return false }
            let isMapping = bytes[index] == UInt8(ascii: "{")
            let closing = isMapping ? UInt8(ascii: "}") : UInt8(ascii: "]")
            let column = self.column(index)
            let collection = builder.open(isMapping ? .mapping : .sequence, line: line, column: column)
            index += 1
            skipSpaces()
            if current == closing {
                index += 1
                builder.close(collection)
                return true
            }
            while true {
                if isMapping {
                    guard flowScalar(isKey: true), current == UInt8(ascii: ":"), isBlankOrEnd(index + 1),
                        !repeats(builder.records.count - 1, in: collection)
                    else { return false }
                    index += 1
                    skipSpaces()
                }
                guard let byte = current else { return false }
                if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    guard flow(depth: depth + 1) else { return false }
                } else {
                    guard flowScalar(), current != UInt8(ascii: ":") else { return false }
                }
                skipSpaces()
                if current == UInt8(ascii: ",") {
                    index += 1
                    skipSpaces()
                    guard let next = current, next != closing, next != UInt8(ascii: ",") else { return false }
                    continue
                }
                guard current == closing else { return false }
                index += 1
                builder.close(collection)
                return true
            }
        }

        /// A scalar inside a flow collection, spaces after it skipped.
        mutating func flowScalar(isKey: Bool = false) -> Bool {
            guard let byte = current else { return false }
            if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                guard quoted() else { return false }
            } else {
                let start = index
                guard let end = plainEnd(flow: true), end.end > start, current != UInt8(ascii: "#") else {
                    return false
                }
                plain(from: start, to: end.end, isKey: isKey)
            }
            skipSpaces()
            return true
        }

        /// Whether the key at `key` repeats one before it in the mapping at `mapping` (Yams
        /// refuses that), or follows more than ``keysComparedInPlace`` others (Yams reads such a
        /// mapping: keys are compared with each before, which would grow as their square).
        func repeats(_ key: Int, in mapping: Int) -> Bool {
            let records = builder.records
            var (repeated, count) = (false, 0)
            ConfigTree.forEachPair(in: records, mapping: mapping, end: key) { other, _ in
                count += 1
                repeated = count > BlockYAMLReader.keysComparedInPlace || records[other].text == records[key].text
                return !repeated
            }
            return repeated
        }
    }
}
