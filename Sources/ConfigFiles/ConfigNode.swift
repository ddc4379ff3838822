import Foundation
import SimulatedTime
import WaypostSupport
internal import Yams

/// A YAML (or JSON) node read strictly: unknown keys, wrong types and out-of-range values are
/// errors at their line and column; anchors and aliases are refused before Yams can expand them.
///
/// A node of the file's own tree (no YAML library's types): a scalar's text, style and position;
/// a mapping's entries in file order; a sequence's items. JSON is read into it by a JSON reader,
/// YAML in the shape most files have by a block reader, any other YAML by Yams, and all three
/// give the same tree for the same text.
public struct ConfigNode {
    let tree: ConfigTree
    let index: Int

    init(_ tree: ConfigTree, _ index: Int) {
        self.tree = tree
        self.index = index
    }

    /// The file's name as errors show it.
    public var file: String { tree.file }

    /// Reads and composes a file: it must be UTF-8 (a BOM is allowed), free of YAML anchors and
    /// aliases, and well-formed; each failure is one ``ConfigFileError`` with its position. A file
    /// named `.json` or `.geojson` is JSON only (``json(_:name:)``): what YAML would read besides
    /// — a trailing comma, an unquoted key — is an error there, as every JSON tool makes it.
    public static func load(contentsOf url: URL, displayName: String? = nil) throws(ConfigFileError) -> ConfigNode {
        let name = displayName ?? url.path
        let text = try ConfigText.read(url, name: name)
        let isJSON = ["json", "geojson"].contains(url.pathExtension.lowercased())
        return isJSON ? try json(text, name: name) : try parse(text, name: name)
    }

    /// Composes `text` (YAML, or JSON, which is YAML) under the name `name`. JSON is read by a
    /// JSON reader into the same tree YAML gives (``JSONReader``); what it does not take, YAML does.
    public static func parse(_ text: String, name: String) throws(ConfigFileError) -> ConfigNode {
        if let first = text.utf8.first(where: { !" \t\r\n".utf8.contains($0) }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "["), let tree = JSONReader.read(text, file: name)
        {
            return ConfigNode(try checked(tree), 0)
        }
        return try yaml(text, name: name)
    }

    /// `text` as JSON (RFC 8259) only, for a format that is JSON itself: what YAML would take
    /// besides (`{t: x}`, a trailing comma) is an error at its line and column, not read as YAML.
    package static func json(_ text: String, name: String) throws(ConfigFileError) -> ConfigNode {
        switch JSONReader.readStrictly(text, file: name) {
        case .success(let tree): return ConfigNode(try checked(tree), 0)
        case .failure(let error): throw error
        }
    }

    /// The text of a file in a JSON format another reader decodes (the emulator's places), read
    /// and checked as ``load(contentsOf:displayName:)`` reads a `.json` file: its size, UTF-8,
    /// RFC 8259 strictly (no trailing comma, no repeated key), no value past 1 MiB — each failure
    /// one ``ConfigFileError`` at its line and column, as every other file's — and its tree, whose
    /// positions locate what the decoder then refuses.
    package static func jsonText(contentsOf url: URL, displayName: String? = nil) throws(ConfigFileError)
        -> (text: String, root: ConfigNode)
    {
        let name = displayName ?? url.path
        let text = try ConfigText.read(url, name: name)
        return (text, try json(text, name: name))
    }

    /// `text` read as YAML, whatever it looks like.
    static func yaml(_ text: String, name: String) throws(ConfigFileError) -> ConfigNode {
        ConfigNode(try checked(YAMLTree.read(text, file: name)), 0)
    }

    /// The most bytes one value (or key) may hold: the track readers' limit on an XML text node.
    /// A name is echoed in every event that names it; a 30 MB one was 63 MB of output.
    package static let maximumValueBytes = 1 << 20

    /// `tree`, or the error for its first value over ``maximumValueBytes``, or its first tag that
    /// is not one of YAML's own scalar types.
    private static func checked(_ tree: ConfigTree) throws(ConfigFileError) -> ConfigTree {
        if let huge = tree.records.first(where: { $0.text.utf8.count > maximumValueBytes }) {
            throw ConfigFileError(
                file: tree.file, line: huge.line, column: huge.column,
                message:
                    "a value of \(huge.text.utf8.count) bytes; the most one may hold is 1 MiB (\(maximumValueBytes))")
        }
        // `!!python/object:os.system ls` was read as `ls`, `!foo` and `%TAG` ignored: a tag this
        // reader does not know is refused, not dropped.
        if let (index, tag) = tree.tags.filter({ !coreTags.contains($0.value) }).min(by: { $0.key < $1.key }) {
            let record = tree.records[index]
            throw ConfigFileError(
                file: tree.file, line: record.line, column: record.column,
                message: "the tag \(shown(tag)) is not read here: a value is plain text, a number, true/false or null")
        }
        return tree
    }

    /// YAML's own scalar tags (`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`) and the
    /// non-specific `!` (plain text).
    private static let coreTags: Set<String> = ["str", "int", "float", "bool", "null"].reduce(into: ["!"]) {
        $0.insert("tag:yaml.org,2002:" + $1)
    }

    /// A tag as the file wrote it: `!!x` for YAML's own namespace.
    private static func shown(_ tag: String) -> String {
        tag.hasPrefix("tag:yaml.org,2002:") ? "!!" + tag.dropFirst("tag:yaml.org,2002:".count) : tag
    }

    private var record: ConfigTree.Record { tree.records[index] }

    /// 1-based line of the node's first character in the file.
    public var line: Int { record.line }

    /// 1-based column of the node's first character, counted in Unicode scalars (as libyaml does).
    public var column: Int { record.column }

    /// A single value (text, a number, a flag, null), not a mapping or a list.
    public var isScalar: Bool { record.kind == .scalar }

    /// A JSON string (a double-quoted scalar), not a number, `true`, `false` or `null` written
    /// bare: a format that is JSON tells `"5"` from `5`.
    package var isDoubleQuoted: Bool { record.kind == .scalar && record.style == .doubleQuoted }

    /// Keys and their values (a YAML mapping, a JSON object).
    public var isMapping: Bool { record.kind == .mapping }

    /// A list of values (a YAML sequence, a JSON array).
    public var isSequence: Bool { record.kind == .sequence }

    /// A scalar's text, quotes and escapes resolved (`"12"` is `12`); nil for a mapping or a list.
    public var scalarText: String? {
        let record = record
        return record.kind == .scalar ? record.text : nil
    }

    /// A value as an error quotes it: whole up to 60 characters, else its start and its size (a
    /// 900 KB value was a 900 KB error line).
    package static func excerpt(_ text: String) -> String {
        guard text.count > 60 else { return text }
        return "\(text.prefix(40))… (\(text.utf8.count) bytes)"
    }

    /// The scalar's text as an error quotes it (``excerpt(_:)``); `?` for a mapping or a list.
    package var shownText: String { scalarText.map(Self.excerpt) ?? "?" }

    /// An error at this node's line and column.
    public func failure(_ message: String) -> ConfigFileError {
        ConfigFileError(file: file, line: line, column: column, message: message)
    }

    /// Calls `body` with the indices of each key of this mapping and of its value, in file
    /// order; `body` answers whether to go on.
    private func forEachPair<E: Error>(_ body: (_ key: Int, _ value: Int) throws(E) -> Bool) throws(E) {
        try ConfigTree.forEachPair(in: tree.records, mapping: index, end: record.end, body)
    }

    /// A mapping's keys and values in file order; empty for a scalar or a list.
    public var entries: [(key: ConfigNode, value: ConfigNode)] {
        guard isMapping else { return [] }
        var out: [(key: ConfigNode, value: ConfigNode)] = []
        forEachPair { key, value in
            out.append((ConfigNode(tree, key), ConfigNode(tree, value)))
            return true
        }
        return out
    }

    /// The mapping's values by key; any key outside `allowed` is an error.
    public func mapping(allowing allowed: Set<String>) throws(ConfigFileError) -> [String: ConfigNode] {
        var out: [String: ConfigNode] = [:]
        try forEachEntry(expecting: allowed) { key, value in
            guard allowed.contains(key) else { return false }
            out[key] = value
            return true
        }
        return out
    }

    /// Refuses a value that is not a mapping, or has a key outside `allowed`, without building
    /// the mapping's dictionary (a regions file checks 100,000 of them).
    public func checkKeys(allowing allowed: Set<String>) throws(ConfigFileError) {
        try forEachEntry(expecting: allowed) { key, _ in allowed.contains(key) }
    }

    /// This key is not one of `expected`.
    private func unknownKey(expected: Set<String>) -> ConfigFileError {
        failure("unknown key '\(shownText)' (expected \(expected.sorted().joined(separator: ", ")))")
    }

    /// Calls `body` with each key of a mapping and its value, in file order; `body` answers
    /// whether it knows the key, and the first it does not is the error, naming `expected`. A
    /// record's fields in one pass, where a lookup per field scans the mapping again for each
    /// (a regions file holds 100,000 records).
    public func forEachEntry(
        expecting expected: Set<String>, _ body: (String, ConfigNode) -> Bool
    ) throws(ConfigFileError) {
        guard isMapping else { throw failure("expected a mapping") }
        let records = tree.records
        try forEachPair { (key, value) throws(ConfigFileError) in
            guard records[key].kind == .scalar, body(records[key].text, ConfigNode(tree, value)) else {
                throw ConfigNode(tree, key).unknownKey(expected: expected)
            }
            return true
        }
    }

    /// The value under `key` of a mapping, or an error naming the missing key.
    public func required(_ key: String) throws(ConfigFileError) -> ConfigNode { try required(key, self[key]) }

    /// `value`, already found for this mapping's `key` (by ``forEachEntry(expecting:_:)``), or
    /// the error that the key is missing.
    public func required(_ key: String, _ value: ConfigNode?) throws(ConfigFileError) -> ConfigNode {
        guard let value else { throw failure("missing '\(key)'") }
        return value
    }

    /// The value under `key` if this is a mapping that has it (the last one, as Yams reads a
    /// mapping, though both readers refuse duplicate keys). Keys are compared as text.
    public subscript(key: String) -> ConfigNode? {
        guard isMapping else { return nil }
        let records = tree.records
        var found: ConfigNode?
        forEachPair { member, value in
            if records[member].kind == .scalar && records[member].text == key { found = ConfigNode(tree, value) }
            return true
        }
        return found
    }

    /// The value at `path` (a decoder's coding path: keys of mappings, indices of lists) below
    /// this node, or the deepest node on the way that has it not — where the error is.
    package func node(at path: [any CodingKey]) -> ConfigNode {
        var node = self
        for key in path {
            var next: ConfigNode?
            if node.isSequence, let index = key.intValue {
                let items = node.items
                next = items.indices.contains(index) ? items[index] : nil
            } else {
                next = node[key.stringValue]
            }
            guard let next else { break }
            node = next
        }
        return node
    }

    /// Where in this tree — text already read strictly — and why a decoder refused it: at the
    /// value its coding path names; refused whole, at no path (JSONDecoder's "not valid JSON",
    /// said of well-formed text), at the first number past a double, or nowhere for a number its
    /// field cannot hold, which JSONDecoder does not name.
    package func locate(_ error: DecodingError) -> (node: ConfigNode?, reason: String) {
        let path = DecodingErrorText.codingPath(of: error) ?? []
        guard path.isEmpty else { return (node(at: path), DecodingErrorText.explain(error)) }
        if let huge = firstHugeNumber { return (huge, "a number past what a double holds (±1.8e308)") }
        return (nil, "a number its field cannot hold (past its range, or not a whole number where one is expected)")
    }

    /// The first number below this node that reads as infinite (`1e400`).
    private var firstHugeNumber: ConfigNode? {
        if isMapping { return entries.lazy.compactMap { $0.value.firstHugeNumber }.first }
        if isSequence { return items.lazy.compactMap(\.firstHugeNumber).first }
        return !isDoubleQuoted && numericValue?.isInfinite == true ? self : nil
    }

    public func list() throws(ConfigFileError) -> [ConfigNode] {
        guard isSequence else { throw failure("expected a list") }
        return items
    }

    /// A sequence's items in file order.
    private var items: [ConfigNode] {
        let records = tree.records
        var out: [ConfigNode] = []
        var item = index + 1
        while item < records[index].end {
            out.append(ConfigNode(tree, item))
            item = records[item].end
        }
        return out
    }

    /// A list, or a single value read as a one-element list.
    public func listOrOne() -> [ConfigNode] {
        isSequence ? items : [self]
    }

    public func string() throws(ConfigFileError) -> String {
        // YAML's nulls written plain (`token: ~` was sent as the text "~").
        let isPlainNull = record.style == .plain && ["~", "null", "Null", "NULL"].contains(scalarText ?? "")
        guard let text = scalarText, !text.isEmpty, !isPlainNull else {
            // Said what it is instead: `privacy:` left empty, `message: [a, b]`.
            let what = isMapping ? "a mapping" : isSequence ? "a list" : isPlainNull ? "null" : "empty"
            throw failure("expected a non-empty string, not \(what)")
        }
        return text
    }

    public func number() throws(ConfigFileError) -> Double {
        guard let value = numericValue, value.isFinite else {
            throw failure("expected a number, not '\(shownText)'")
        }
        return value
    }

    /// The scalar as YAML reads a number (Yams' float, else its int), or nil. Plain decimal text —
    /// nearly every number in a config file — goes straight to `Double(_:)`, which is what Yams'
    /// own float reading ends in for such text; only `_`, `:`, `.inf` and the like take Yams'
    /// path (whose removal of `_` goes through Foundation for every number).
    public var numericValue: Double? {
        floatValue ?? integerValue.map(Double.init)
    }

    /// The scalar as Yams reads a float (`1.5`, `1_000.5`, `.inf`, `1:30`), or nil; quoted text
    /// is never a number. Plain decimal text goes straight to `Double(_:)`, where Yams' reading
    /// of such text ends too.
    package var floatValue: Double? {
        let record = record
        // Quoted or tagged `!!str`, text is text (`!!str 100` was read as a number).
        guard record.kind == .scalar, record.style == .plain || record.style == .any, record.tag != .string else {
            return nil
        }
        if record.text.utf8.allSatisfy({ (0x30...0x39).contains($0) || "+-.eE".utf8.contains($0) }),
            let value = Double(record.text)
        {
            return value
        }
        return Double.construct(from: tree.yamsScalar(at: index))
    }

    /// The scalar as Yams reads an integer (`12`, `0x1A`, `0o17`, `1_000`), or nil. Plain decimal
    /// text without a leading zero goes straight to `Int(_:)`, where Yams' reading of it ends (its
    /// removal of `_` went through Foundation for each: a third of reading 100,000 beacons).
    package var integerValue: Int? {
        let record = record
        guard record.kind == .scalar, record.tag != .string else { return nil }
        if record.style == .plain || record.style == .any {
            if record.text == "0" { return 0 }
            let digits = record.text.utf8.drop { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }
            if record.text.utf8.count - digits.count <= 1, let first = digits.first,
                (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(first),
                digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            {
                return Int(record.text)
            }
        }
        return Int.construct(from: tree.yamsScalar(at: index))
    }

    /// The scalar as Yams reads a flag: `true`/`yes`/`on` and `false`/`no`/`off` in any case,
    /// unless quoted (a quoted `"true"` is a string); nil otherwise.
    package var boolValue: Bool? {
        guard isScalar else { return nil }
        return Bool.construct(from: tree.yamsScalar(at: index))
    }

    /// A scalar tagged `!!null`, or whose text is `null`, quoted or not (as the readers that ask
    /// have always taken it); false for anything else.
    package var isNull: Bool {
        let record = record
        guard record.kind == .scalar else { return false }
        return record.text == "null" || (record.tag == .written && tree.tags[index] == "tag:yaml.org,2002:null")
    }

    public func bool() throws(ConfigFileError) -> Bool {
        guard let value = boolValue else { throw failure("expected true or false") }
        return value
    }

    /// A value of a string enumeration, with the accepted names in the error.
    public func choice<T: RawRepresentable & CaseIterable>(_ type: T.Type) throws(ConfigFileError) -> T
    where T.RawValue == String {
        let text = try string()
        guard let value = T(rawValue: text) else {
            throw failure("'\(Self.excerpt(text))' is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    /// A duration: seconds as a number, or `90s`, `15m`, `2h`, `7d`.
    public func duration() throws(ConfigFileError) -> Seconds {
        if let seconds = numericValue {
            guard !seconds.isNaN else {
                throw failure("a duration is a number of seconds or 90s, 15m, 2h, 7d, not NaN")
            }
            guard seconds >= 0 else { throw failure("a duration cannot be negative") }
            guard Seconds(seconds) <= Self.longestDuration else { throw failure(Self.tooLong) }
            return Seconds(seconds)
        }
        let text = try string()
        guard let duration = Self.duration(text) else {
            throw failure("'\(Self.excerpt(text))' is not a duration such as 90s, 15m, 2h or 7d")
        }
        guard duration <= Self.longestDuration else { throw failure(Self.tooLong) }
        return duration
    }

    /// A century: no run, retention or cool-down is longer, and every time computed from one
    /// stays far inside what a date or an integer can hold.
    public static let longestDuration = Seconds(100 * 366 * 86_400)
    private static let tooLong = "a duration cannot be longer than a century"

    /// `7d`, `12h`, `30m` or `45s`: the largest whole unit; `0.5s` for a fraction. Any value is
    /// described, none trapped on: a number past what an `Int` holds is shown as it is.
    public static func describe(_ duration: Seconds) -> String {
        let seconds = duration.seconds
        guard seconds.isFinite, abs(seconds) < 1e15 else { return "\(seconds)s" }
        for (unit, size) in [("d", 86_400.0), ("h", 3_600), ("m", 60)]
        where seconds >= size && seconds.truncatingRemainder(dividingBy: size) == 0 {
            return "\(Int(seconds / size))\(unit)"
        }
        return seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s"
    }

    /// Parses `90s`, `15m`, `2h`, `7d`, compounds such as `1h30m` or `10m1s` (each unit once,
    /// largest first: `3m4m` or `5s7m` is a typo, not 7 minutes), or plain seconds; nil when
    /// malformed or negative. Numbers are decimal (`1.5h`): `Double` also reads hexadecimal and
    /// exponents, and `0x10d` was 269 s (its `d` a hex digit), `1e-300s` zero.
    public static func duration(_ text: String) -> Seconds? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        func decimal(_ number: String) -> Double? {
            let parts = number.split(separator: ".", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count),
                parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } })
            else { return nil }
            return Double(number)
        }
        if let seconds = decimal(trimmed) { return seconds.isFinite ? Seconds(seconds) : nil }
        var total = 0.0
        var number = ""
        var previous = Double.infinity
        for character in trimmed {
            if let unit = units[character] {
                guard unit < previous, let value = decimal(number), value.isFinite else { return nil }
                previous = unit
                total += value * unit
                number = ""
            } else {
                number.append(character)
            }
        }
        return number.isEmpty && !trimmed.isEmpty ? Seconds(total) : nil
    }
}
