/// A configuration file's nodes, flat and in document order: a collection's descendants follow
/// it, and its `end` is the index past them. One array of small values, where a tree of Yams'
/// `Node`s is a class instance (a `Tag`) and several references per node: 100,000 regions are
/// about a million nodes, and building and freeing Yams' took most of reading a JSON file.
final class ConfigTree: Sendable {
    let file: String
    let records: [Record]
    /// The tags written on scalars other than `!!str` (`!!null`, `!custom`), by record: rare.
    let tags: [Int: String]

    init(file: String, records: [Record], tags: [Int: String] = [:]) {
        self.file = file
        self.records = records
        self.tags = tags
    }

    enum Kind: UInt8, Sendable {
        case scalar, mapping, sequence
    }

    /// A scalar's style as written: it decides what a scalar may be read as (a quoted `12` is a
    /// string, never a number), as in Yams.
    enum Style: UInt8, Sendable {
        case any, plain, singleQuoted, doubleQuoted, literal, folded
    }

    /// A scalar's tag before resolution, as Yams' composer gives it: none for a plain scalar,
    /// `!!str` for a quoted or block one, else whatever the file wrote (kept in ``tags``).
    enum TagKind: UInt8, Sendable {
        case implicit, string, written
    }

    struct Record: Sendable, Equatable {
        /// A scalar's text; empty for a collection.
        var text: String
        var line: Int
        var column: Int
        /// The index past this node and its descendants.
        var end: Int
        var kind: Kind
        var style: Style
        var tag: TagKind
    }

    /// Calls `body` with the indices of each key of the mapping at `mapping` and of its value, in
    /// document order, up to `end` — the mapping's own, or the key a reader has got to; `body`
    /// answers whether to go on.
    static func forEachPair<E: Error>(
        in records: [Record], mapping: Int, end: Int, _ body: (_ key: Int, _ value: Int) throws(E) -> Bool
    ) throws(E) {
        var key = mapping + 1
        while key < end {
            let value = records[key].end
            guard value < end, try body(key, value) else { return }
            key = records[value].end
        }
    }

    /// Appends records in document order: a scalar at once, a collection opened, then its
    /// members, then closed (which sets its `end`).
    struct Builder {
        var records: [Record] = []
        var tags: [Int: String] = [:]

        init(capacity: Int = 0) { records.reserveCapacity(capacity) }

        mutating func scalar(_ text: String, line: Int, column: Int, style: Style, tag: TagKind = .implicit) {
            records.append(
                Record(
                    text: text, line: line, column: column, end: records.count + 1, kind: .scalar, style: style,
                    tag: tag))
        }

        /// Opens a collection; its index, for ``close(_:)``.
        mutating func open(_ kind: Kind, line: Int, column: Int) -> Int {
            records.append(
                Record(text: "", line: line, column: column, end: 0, kind: kind, style: .any, tag: .implicit))
            return records.count - 1
        }

        mutating func close(_ index: Int) { records[index].end = records.count }

        func tree(file: String) -> ConfigTree { ConfigTree(file: file, records: records, tags: tags) }
    }
}
