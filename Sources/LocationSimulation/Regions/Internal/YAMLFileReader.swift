import Foundation
import Yams

/// The checks every YAML/JSON file of places shares (regions, beacons): anchors and aliases
/// refused before Yams expands them, unknown keys, typed fields, each failure with its line and
/// column.
struct YAMLFileReader {
    let name: String

    /// The file's text as UTF-8; an unreadable file is an error without a position.
    func text(of url: URL) throws(RegionFileError) -> String {
        do {
            return try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw RegionFileError(file: name, line: 0, column: 0, message: "cannot read: \(error.localizedDescription)")
        }
    }

    /// The document's root node; an empty file, a syntax error or an anchor is one error.
    func compose(_ text: String) throws(RegionFileError) -> Node {
        if let (line, column) = RegionFile.firstAnchorOrAlias(in: text) {
            throw RegionFileError(
                file: name, line: line, column: column,
                message: "YAML anchors and aliases (&name, *name) are not accepted")
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw RegionFileError(file: name, line: 0, column: 0, message: "not YAML or JSON: \(error)")
        } catch {
            throw RegionFileError(file: name, line: 0, column: 0, message: "not YAML or JSON: \(error)")
        }
        guard let root else { throw RegionFileError(file: name, line: 0, column: 0, message: "the file is empty") }
        return root
    }

    func failure(_ node: Node, _ message: String) -> RegionFileError {
        RegionFileError(file: name, line: node.mark?.line ?? 0, column: node.mark?.column ?? 0, message: message)
    }

    /// Anchors and aliases (`&a`, `*a`) are refused: they can make a small file expand.
    func plain(_ node: Node) throws(RegionFileError) {
        if node.anchor != nil { throw failure(node, "YAML anchors and aliases are not accepted") }
    }

    func allowOnly(_ allowed: Set<String>, in node: Node) throws(RegionFileError) {
        try plain(node)
        guard case .mapping(let mapping) = node else { throw failure(node, "expected a mapping") }
        for (key, _) in mapping {
            guard let k = key.string, allowed.contains(k) else {
                throw failure(
                    key, "unknown key '\(key.string ?? "?")' (expected \(allowed.sorted().joined(separator: ", ")))"
                )
            }
        }
    }

    func value(_ node: Node, _ key: String) throws(RegionFileError) -> Node {
        guard let value = node.mapping?[key] else { throw failure(node, "missing '\(key)'") }
        try plain(value)
        return value
    }

    func string(_ node: Node, _ key: String) throws(RegionFileError) -> String {
        let v = try value(node, key)
        guard case .scalar(let scalar) = v, !scalar.string.isEmpty else {
            throw failure(v, "'\(key)' must be a non-empty string")
        }
        return scalar.string
    }

    func number(_ node: Node, _ key: String) throws(RegionFileError) -> Double {
        let v = try value(node, key)
        guard let number = v.float ?? v.int.map(Double.init), number.isFinite else {
            throw failure(v, "'\(key)' must be a number, not '\(v.string ?? "?")'")
        }
        return number
    }

    func flag(_ node: Node, _ key: String) throws(RegionFileError) -> Bool {
        guard let v = node.mapping?[key] else { return true }
        try plain(v)
        guard let bool = v.bool else { throw failure(v, "'\(key)' must be true or false") }
        return bool
    }

}
