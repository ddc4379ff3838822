import Foundation
import WaypostSupport

/// A value of a provider's JSON answer, for ``AnswerDecoder``: only text that is JSON by
/// RFC 8259 — valid UTF-8 in strings, no lone surrogate escape, no repeated key in an object, no
/// number but finite ones JSON's grammar spells — is read here; for anything else ``parse(_:)``
/// returns nil and `JSONDecoder` reads the answer, so what it accepts and every error it words are
/// unchanged.
///
/// The answer is checked whole and kept as a tape — its bytes and one array of nodes in document
/// order, a node's descendants after it — and a string becomes a `String` only when a model reads
/// it. A tree of values built every string and member array of a tweet's answer, its 40-field
/// user included, for the handful a model reads (perf: reading answers was a tenth of a field
/// trial's CPU).
struct AnswerJSON {
    fileprivate let tape: Tape
    fileprivate let index: Int

    fileprivate enum Kind: UInt8 {
        case null, bool, number, string, array, object
    }

    /// Deeper than this, `JSONDecoder` reads the answer (it refuses what is too deep for it).
    static let maximumDepth = 256

    /// Up to this many keys, an object's keys are checked for a repeat by comparing each with
    /// those before it (an answer's objects have a handful); past it, by a set.
    static let keysComparedInPlace = 16

    /// The answer's value, or nil when `data` is not JSON this reader takes.
    static func parse(_ data: Data) -> AnswerJSON? {
        // Positions are kept in 32 bits; an answer past 2 GB is `JSONDecoder`'s.
        guard data.count < Int32.max else { return nil }
        let bytes = [UInt8](data)
        let nodes = bytes.withUnsafeBytes { raw -> [Node]? in
            var reader = Reader(scanner: JSONScanner(bytes: raw))
            reader.nodes.reserveCapacity(raw.count / 8)
            reader.scanner.skipWhitespace()
            guard reader.value(depth: 0) else { return nil }
            reader.scanner.skipWhitespace()
            return reader.scanner.index == raw.count ? reader.nodes : nil
        }
        return nodes.map { AnswerJSON(tape: Tape(bytes: bytes, nodes: $0), index: 0) }
    }

    /// `null` on its own: what `JSONDecoder` gives a missing key's super decoder.
    static var null: AnswerJSON {
        AnswerJSON(tape: Tape(bytes: Array("null".utf8), nodes: [Node(kind: .null, next: 1)]), index: 0)
    }

    private var node: Node { tape.nodes[index] }

    var isNull: Bool { node.kind == .null }

    /// A string's text.
    var text: String? {
        let node = node
        guard node.kind == .string else { return nil }
        return tape.bytes.withUnsafeBytes { node.text(in: $0) }
    }

    /// A number as written (JSON's grammar, checked), for a reading of its own.
    var numberText: String? {
        let node = node
        guard node.kind == .number else { return nil }
        return String(decoding: tape.bytes[node.range], as: UTF8.self)
    }

    /// `true` or `false`.
    var bool: Bool? {
        let node = node
        guard node.kind == .bool else { return nil }
        return tape.bytes[node.start] == UInt8(ascii: "t")
    }

    /// A number's value, correctly rounded (nil out of `Double`'s range).
    var double: Double? {
        let node = node
        guard node.kind == .number else { return nil }
        return tape.bytes.withUnsafeBufferPointer { DecimalParser.parse(.init(rebasing: $0[node.range])) }
    }

    /// The elements of an array, in order.
    func elements() throws -> Elements {
        let node = node
        guard node.kind == .array else { throw NotDecodedHere() }
        return Elements(tape: tape, first: index + 1, end: node.next)
    }

    /// The members of an object, in order.
    func members() throws -> Members {
        let node = node
        guard node.kind == .object else { throw NotDecodedHere() }
        return Members(tape: tape, first: index + 1, end: node.next)
    }

    struct Elements: Sequence, IteratorProtocol {
        fileprivate let tape: Tape
        fileprivate var first: Int
        fileprivate let end: Int

        mutating func next() -> AnswerJSON? {
            guard first < end else { return nil }
            defer { first = tape.nodes[first].next }
            return AnswerJSON(tape: tape, index: first)
        }

        /// The exact count, walked on the tape: `map` then makes its array once, where it grew it
        /// element by element — a bounding box's every position (perf: a tenth of a field
        /// trial's allocations were a `reverse_geocode` answer's boxes).
        var underestimatedCount: Int {
            var count = 0
            var element = first
            while element < end {
                count += 1
                element = tape.nodes[element].next
            }
            return count
        }
    }

    struct Members: Sequence, IteratorProtocol {
        fileprivate let tape: Tape
        fileprivate var first: Int
        fileprivate let end: Int

        mutating func next() -> (key: AnswerJSON, value: AnswerJSON)? {
            guard first < end else { return nil }
            let value = first + 1
            defer { first = tape.nodes[value].next }
            return (AnswerJSON(tape: tape, index: first), AnswerJSON(tape: tape, index: value))
        }

        /// The value of the first member whose key is `name` as `String`s compare (a key that is
        /// plain ASCII, and a name that is ASCII, by their bytes: the same answer).
        func value(_ name: String) -> AnswerJSON? {
            var wanted = name
            let found = wanted.withUTF8 { wanted -> Int? in
                let ascii = wanted.allSatisfy { $0 < 0x80 }
                return tape.bytes.withUnsafeBufferPointer { bytes -> Int? in
                    var key = first
                    while key < end {
                        let node = tape.nodes[key]
                        if ascii && node.plain {
                            if RawKey(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[node.range])))
                                == RawKey(bytes: UnsafeRawBufferPointer(wanted))
                            {
                                return key + 1
                            }
                        } else if AnswerJSON(tape: tape, index: key).text == name {
                            return key + 1
                        }
                        key = tape.nodes[key + 1].next
                    }
                    return nil
                }
            }
            return found.map { AnswerJSON(tape: tape, index: $0) }
        }
    }

    /// The answer's bytes and nodes, shared by every value read off it.
    fileprivate final class Tape {
        let bytes: [UInt8]
        let nodes: [Node]

        init(bytes: [UInt8], nodes: [Node]) {
            self.bytes = bytes
            self.nodes = nodes
        }
    }

    /// 16 bytes: an answer is read whole, about a node per 8 of its bytes.
    fileprivate struct Node {
        var kind: Kind
        /// A string of ASCII without escapes: its text is its bytes ``range``. Otherwise a
        /// string's range holds its quotes, to be read again.
        var plain: Bool
        private var first: Int32
        private var past: Int32
        private var after: Int32

        init(kind: Kind, plain: Bool = false, start: Int = 0, end: Int = 0, next: Int = 0) {
            (self.kind, self.plain) = (kind, plain)
            (first, past, after) = (
                Int32(truncatingIfNeeded: start), Int32(truncatingIfNeeded: end), Int32(truncatingIfNeeded: next)
            )
        }

        /// A string node's text in the answer's `bytes`; its escapes are read again here (the
        /// reader checked them).
        func text(in bytes: UnsafeRawBufferPointer) -> String? {
            if plain { return String(decoding: bytes[range], as: UTF8.self) }
            var scanner = JSONScanner(bytes: bytes)
            scanner.index = start
            return scanner.string()
        }

        var start: Int { Int(first) }
        var end: Int { Int(past) }
        var range: Range<Int> { start..<end }
        /// The index past this node and its descendants.
        var next: Int {
            get { Int(after) }
            set { after = Int32(truncatingIfNeeded: newValue) }
        }
    }

    /// Checks the answer and appends its nodes.
    private struct Reader {
        var scanner: JSONScanner
        var nodes: [Node] = []

        mutating func value(depth: Int) -> Bool {
            guard depth < AnswerJSON.maximumDepth, let byte = scanner.current else { return false }
            let start = scanner.index
            switch byte {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): guard scanner.literal("true") else { return false }
            case UInt8(ascii: "f"): guard scanner.literal("false") else { return false }
            case UInt8(ascii: "n"):
                guard scanner.literal("null") else { return false }
                nodes.append(Node(kind: .null, next: nodes.count + 1))
                return true
            default:
                guard scanner.number() else { return false }
                nodes.append(Node(kind: .number, start: start, end: scanner.index, next: nodes.count + 1))
                return true
            }
            nodes.append(Node(kind: .bool, start: start, next: nodes.count + 1))
            return true
        }

        /// A string of ASCII without escapes is looked at once; any other is read as
        /// ``JSONScanner/string()`` reads it, to check it.
        mutating func string() -> Bool {
            let quote = scanner.index
            var index = quote + 1
            let bytes = scanner.bytes
            while index < bytes.count {
                let byte = bytes[index]
                guard byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20, byte < 0x80 else { break }
                index += 1
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                scanner.index = index + 1
                nodes.append(Node(kind: .string, plain: true, start: quote + 1, end: index, next: nodes.count + 1))
                return true
            }
            guard scanner.string() != nil else { return false }
            nodes.append(Node(kind: .string, start: quote, end: scanner.index, next: nodes.count + 1))
            return true
        }

        mutating func object(depth: Int) -> Bool {
            collection(.object, closedBy: UInt8(ascii: "}")) { reader in
                guard reader.scanner.current == UInt8(ascii: "\""), reader.string() else { return false }
                reader.scanner.skipWhitespace()
                guard reader.scanner.take(UInt8(ascii: ":")) else { return false }
                reader.scanner.skipWhitespace()
                return reader.value(depth: depth + 1)
            }
        }

        mutating func array(depth: Int) -> Bool {
            collection(.array, closedBy: UInt8(ascii: "]")) { $0.value(depth: depth + 1) }
        }

        /// An object or an array: the members or elements `item` reads, comma-separated, up to
        /// `close`; an object's keys each once.
        mutating func collection(_ kind: Kind, closedBy close: UInt8, _ item: (inout Reader) -> Bool) -> Bool {
            let open = nodes.count
            nodes.append(Node(kind: kind))
            scanner.index += 1
            scanner.skipWhitespace()
            if !scanner.take(close) {
                repeat {
                    scanner.skipWhitespace()
                    guard item(&self) else { return false }
                    scanner.skipWhitespace()
                } while scanner.take(UInt8(ascii: ","))
                guard scanner.take(close) else { return false }
            }
            nodes[open].next = nodes.count
            return kind == .array || !repeatsAKey(open)
        }

        /// Whether two keys of the object at `open` are equal as `String`s: plain keys by their
        /// bytes, any other by its text. A small object's keys are walked in place, each against
        /// those before it (collected into an array, every object of every answer allocated one:
        /// perf, 1.8 % of a field trial).
        func repeatsAKey(_ open: Int) -> Bool {
            let end = nodes[open].next
            var count = 0
            var key = open + 1
            while key < end {
                count += 1
                if count > AnswerJSON.keysComparedInPlace { return repeatsAKeyOfMany(open) }
                var earlier = open + 1
                while earlier < key {
                    if same(key, earlier) { return true }
                    earlier = nodes[earlier + 1].next
                }
                key = nodes[key + 1].next
            }
            return false
        }

        /// The same for an object of many keys (a tweet's user has forty): plain keys through a
        /// small open-addressed table on the stack, hashed by FNV-1a and compared by bytes (as a
        /// `Set` of them, it was the largest part of reading a tweet); any other by its text.
        private func repeatsAKeyOfMany(_ open: Int) -> Bool {
            let end = nodes[open].next
            var count = 0
            var allPlain = true
            var key = open + 1
            while key < end {
                count += 1
                allPlain = allPlain && nodes[key].plain
                key = nodes[key + 1].next
            }
            guard allPlain else {
                var texts: Set<String?> = []
                key = open + 1
                while key < end {
                    guard texts.insert(text(of: key)).inserted else { return true }
                    key = nodes[key + 1].next
                }
                return false
            }
            // At most half full: a probe ends at an empty slot within a few steps.
            var size = 1
            while size < 2 * count { size <<= 1 }
            return withUnsafeTemporaryAllocation(of: Int.self, capacity: size) { table in
                table.initialize(repeating: -1)
                var key = open + 1
                while key < end {
                    let bytes = bytes(of: key)
                    var slot = Int(truncatingIfNeeded: FNV1a.hash(bytes)) & (size - 1)
                    while table[slot] >= 0 {
                        if RawKey(bytes: self.bytes(of: table[slot])) == RawKey(bytes: bytes) { return true }
                        slot = (slot + 1) & (size - 1)
                    }
                    table[slot] = key
                    key = nodes[key + 1].next
                }
                return false
            }
        }

        func same(_ a: Int, _ b: Int) -> Bool {
            if nodes[a].plain && nodes[b].plain { return RawKey(bytes: bytes(of: a)) == RawKey(bytes: bytes(of: b)) }
            return text(of: a) == text(of: b)
        }

        func bytes(of key: Int) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: scanner.bytes[nodes[key].range])
        }

        func text(of key: Int) -> String? { nodes[key].text(in: scanner.bytes) }
    }

    /// A plain key's bytes, compared as bytes (valid while the answer is read).
    private struct RawKey: Equatable {
        let bytes: UnsafeRawBufferPointer

        /// Lengths first, then `memcmp`: most keys of an object differ in length.
        static func == (a: RawKey, b: RawKey) -> Bool {
            guard a.bytes.count == b.bytes.count else { return false }
            guard let p = a.bytes.baseAddress, let q = b.bytes.baseAddress else { return true }
            return memcmp(p, q, a.bytes.count) == 0
        }
    }
}
