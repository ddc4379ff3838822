import Foundation
import SimulatedTime
import Yams

/// A YAML (or JSON) node read strictly: unknown keys, wrong types and out-of-range values are
/// errors at their line and column; anchors and aliases are refused before Yams can expand them.
public struct ConfigNode {
    public let node: Node
    public let file: String

    /// Reads and composes a file: it must be UTF-8 (a BOM is allowed), free of YAML anchors and
    /// aliases, and well-formed; each failure is one ``ConfigFileError`` with its position.
    public static func load(contentsOf url: URL, displayName: String? = nil) throws(ConfigFileError) -> ConfigNode {
        let name = displayName ?? url.path
        return try parse(try ConfigText.read(url, name: name), name: name)
    }

    /// Composes `text` (YAML, or JSON, which is YAML) under the name `name`. JSON is composed by
    /// a JSON reader into the same nodes (``JSONNodes``); what it does not take, YAML does.
    public static func parse(_ text: String, name: String) throws(ConfigFileError) -> ConfigNode {
        if let first = text.utf8.first(where: { !" \t\r\n".utf8.contains($0) }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "["), let root = JSONNodes.compose(text)
        {
            return ConfigNode(node: root, file: name)
        }
        if let (line, column) = ConfigText.firstAnchorOrAlias(in: text) {
            throw ConfigFileError(
                file: name, line: line, column: column,
                message: "YAML anchors and aliases (&name, *name) are not accepted")
        }
        let root: Node?
        do {
            // No implicit tag resolution: a config value's type is decided by the accessor that
            // reads it (number(), bool(), string()), which never consult resolved tags. Yams'
            // default resolver runs regular expressions on every key each time keys are hashed or
            // compared (duplicate checks, lookups): 81 % of reading 100,000 regions.
            root = try Yams.compose(yaml: text, .basic)
        } catch {
            throw ConfigText.syntaxError(error, file: name)
        }
        guard let root else { throw ConfigFileError(file: name, line: 1, column: 1, message: "the file is empty") }
        return ConfigNode(node: root, file: name)
    }

    /// Wraps a node of this file.
    public init(node: Node, file: String) {
        self.node = node
        self.file = file
    }

    public func failure(_ message: String) -> ConfigFileError {
        ConfigFileError(file: file, line: node.mark?.line ?? 0, column: node.mark?.column ?? 0, message: message)
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
        failure("unknown key '\(node.string ?? "?")' (expected \(expected.sorted().joined(separator: ", ")))")
    }

    /// Calls `body` with each key of a mapping and its value, in file order; `body` answers
    /// whether it knows the key, and the first it does not is the error, naming `expected`. A
    /// record's fields in one pass, where a lookup per field scans the mapping again for each
    /// (a regions file holds 100,000 records).
    public func forEachEntry(
        expecting expected: Set<String>, _ body: (String, ConfigNode) -> Bool
    ) throws(ConfigFileError) {
        guard case .mapping(let mapping) = node else { throw failure("expected a mapping") }
        for (key, value) in mapping {
            guard let name = key.scalar?.string, body(name, ConfigNode(node: value, file: file)) else {
                throw ConfigNode(node: key, file: file).unknownKey(expected: expected)
            }
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
    /// mapping, though the parser refuses duplicate keys). Keys are compared as text: cheaper
    /// than Yams' `Node` equality, which builds and compares tags for every key it passes.
    public subscript(key: String) -> ConfigNode? {
        guard case .mapping(let mapping) = node else { return nil }
        var index = mapping.endIndex
        while index > mapping.startIndex {
            index -= 1
            if mapping[index].key.scalar?.string == key { return ConfigNode(node: mapping[index].value, file: file) }
        }
        return nil
    }

    public func list() throws(ConfigFileError) -> [ConfigNode] {
        guard case .sequence(let sequence) = node else { throw failure("expected a list") }
        return sequence.map { ConfigNode(node: $0, file: file) }
    }

    /// A list, or a single value read as a one-element list.
    public func listOrOne() -> [ConfigNode] {
        if case .sequence(let sequence) = node { return sequence.map { ConfigNode(node: $0, file: file) } }
        return [self]
    }

    public func string() throws(ConfigFileError) -> String {
        guard case .scalar(let scalar) = node, !scalar.string.isEmpty else {
            throw failure("expected a non-empty string")
        }
        return scalar.string
    }

    public func number() throws(ConfigFileError) -> Double {
        guard let value = numericValue, value.isFinite else {
            throw failure("expected a number, not '\(node.string ?? "?")'")
        }
        return value
    }

    /// The scalar as YAML reads a number (Yams' float, else its int), or nil. Plain decimal text —
    /// nearly every number in a config file — goes straight to `Double(_:)`, which is what Yams'
    /// own float reading ends in for such text; only `_`, `:`, `.inf` and the like take Yams'
    /// path (whose removal of `_` goes through Foundation for every number).
    public var numericValue: Double? {
        guard case .scalar(let scalar) = node else { return nil }
        if scalar.style == .plain || scalar.style == .any,
            scalar.string.utf8.allSatisfy({ (0x30...0x39).contains($0) || "+-.eE".utf8.contains($0) }),
            let value = Double(scalar.string)
        {
            return value
        }
        return node.float ?? node.int.map(Double.init)
    }

    public func bool() throws(ConfigFileError) -> Bool {
        guard case .scalar = node, let value = node.bool else { throw failure("expected true or false") }
        return value
    }

    /// A value of a string enumeration, with the accepted names in the error.
    public func choice<T: RawRepresentable & CaseIterable>(_ type: T.Type) throws(ConfigFileError) -> T
    where T.RawValue == String {
        let text = try string()
        guard let value = T(rawValue: text) else {
            throw failure("'\(text)' is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    /// A duration: seconds as a number, or `90s`, `15m`, `2h`, `7d`.
    public func duration() throws(ConfigFileError) -> Seconds {
        if let seconds = numericValue {
            guard seconds >= 0 else { throw failure("a duration cannot be negative") }
            guard Seconds(seconds) <= Self.longestDuration else { throw failure(Self.tooLong) }
            return Seconds(seconds)
        }
        let text = try string()
        guard let duration = Self.duration(text) else {
            throw failure("'\(text)' is not a duration such as 90s, 15m, 2h or 7d")
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

    /// Parses `90s`, `15m`, `2h`, `7d`, compounds such as `1h30m` or `10m1s`, or plain
    /// seconds; nil when malformed or negative.
    public static func duration(_ text: String) -> Seconds? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed) { return seconds >= 0 && seconds.isFinite ? Seconds(seconds) : nil }
        var total = 0.0
        var number = ""
        for character in trimmed {
            if let unit = units[character] {
                guard let value = Double(number), value >= 0, value.isFinite else { return nil }
                total += value * unit
                number = ""
            } else {
                number.append(character)
            }
        }
        return number.isEmpty && !trimmed.isEmpty ? Seconds(total) : nil
    }
}
