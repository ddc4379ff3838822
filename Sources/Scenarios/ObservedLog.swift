import ConfigFiles
import Foundation
import LocationEvents
import SimulatedTime
import WaypostSupport

/// What a real device logged: the event stream's JSONL (`t`, `type`, `region`, …), one object a
/// line, as `waypost replay --format jsonl` writes it and an app can write from its delegate
/// callbacks (docs/compare.md).
///
/// Every line must be a JSON object with `t` (RFC 3339, e.g. `2025-06-03T15:10:00.000Z`) and
/// `type` (an event stream type); `regionEnter`, `regionExit` and `regionState` need `region`.
/// Other fields are the app's own and are not read. Blank lines are skipped; lines may come in
/// any time order. A line must be JSON (RFC 8259), read by a JSON reader, and `t`, `type` and
/// `region` JSON strings. A bad line is one ``ConfigFileError`` at its line and column.
package struct ObservedLog: Sendable, Equatable {
    /// One line of the log.
    package struct Event: Sendable, Equatable {
        /// 1-based line in the file.
        package var line: Int
        /// `t`, as written.
        package var text: String
        /// `t`, seconds since 1970.
        package var time: Double
        package var type: String
        package var region: String?
        /// The column of `region`'s value, for an error about it.
        package var regionColumn: Int

        package init(line: Int, text: String, time: Double, type: String, region: String?, regionColumn: Int = 1) {
            (self.line, self.text, self.time, self.type, self.region) = (line, text, time, type, region)
            self.regionColumn = regionColumn
        }
    }

    package var file: String
    /// Every line, in file order.
    package var events: [Event]

    package init(file: String, events: [Event]) { (self.file, self.events) = (file, events) }

    /// 0001-01-01T00:00:00Z up to 10000-01-01T00:00:00Z, in seconds since 1970.
    static let years = -62_135_596_800.0..<253_402_300_800.0

    /// The types a line may have: the event stream's (``LocationEvent/Kind``) and `post`.
    package static let types = Set(LocationEvent.Kind.allCases.map(\.rawValue) + ["post"])

    /// Reads a log file, or a pipe (`<(…)`, `/dev/stdin`: a log `tee`'d from a device, read as
    /// configuration files are — it said "no such file" of them, exit 66); a missing file is an
    /// `.unreadable` error, a bad line `.invalid`.
    package static func read(contentsOf url: URL, displayName: String) throws(ConfigFileError) -> ObservedLog {
        try parse(ConfigText.bytes(url, name: displayName), name: displayName)
    }

    /// Reads the log's bytes, named `name` in errors.
    package static func parse(_ data: Data, name: String) throws(ConfigFileError) -> ObservedLog {
        var events: [Event] = []
        var number = 0
        for bytes in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            var line = Array(bytes)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if number == 1 && line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
            guard let text = UTF8Validation.string(line) else {
                let valid = (0...line.count).last { UTF8Validation.string(line.prefix($0)) != nil } ?? 0
                throw ConfigFileError(
                    file: name, line: number, column: valid + 1, message: "the line is not UTF-8 text")
            }
            guard let start = text.firstIndex(where: { !$0.isWhitespace }) else { continue }
            let column = text.distance(from: text.startIndex, to: start) + 1
            guard text[start] == "{" else {
                throw ConfigFileError(
                    file: name, line: number, column: column,
                    message: "expected a JSON object: the event stream has one object per line")
            }
            events.append(try event(text, line: number, column: column, file: name))
        }
        guard !events.isEmpty else {
            throw ConfigFileError(file: name, message: "the log has no events: nothing to align or compare")
        }
        return ObservedLog(file: name, events: events)
    }

    /// One line's event; errors carry the line's number.
    private static func event(_ text: String, line: Int, column: Int, file: String) throws(ConfigFileError)
        -> Event
    {
        func here(_ error: ConfigFileError) -> ConfigFileError {
            // JSON counts a bare CR as a line break (whitespace); the log's line is one line, so
            // the column counts from its start: the characters of the CR-ended parts before.
            var column = max(error.column, 1)
            if error.line > 1 {
                let parts = text.split(separator: "\r", maxSplits: error.line - 1, omittingEmptySubsequences: false)
                column += parts.dropLast().reduce(0) { $0 + $1.count + 1 }
            }
            return ConfigFileError(file: file, line: line, column: column, message: error.message)
        }
        let node: ConfigNode
        do {
            // JSON itself, not YAML: YAML takes `{t: x}` and a trailing comma, and reads `5` as "5".
            node = try ConfigNode.json(text, name: file)
        } catch {
            throw here(error)
        }
        do throws(ConfigFileError) {
            guard node.isMapping else { throw node.failure("expected a JSON object") }
            let t = try node.required("t")
            let stamp = try jsonString(t, "t", "the instant, such as \"2025-06-03T15:10:00.000Z\"")
            let time: Double
            do throws(RFC3339.Problem) {
                time = try RFC3339.parse(stamp)
            } catch {
                throw t.failure("t '\(stamp)' \(error.description)")
            }
            // Times are written back with four-digit years (compare's JSON: its schema's pattern);
            // 9999-12-31T23:59:00-10:00 came back as "10000-01-01T09:59:00.000Z".
            guard Self.years.contains(time) else {
                throw t.failure("t '\(stamp)' is out of range: in UTC it must fall in the years 0001 to 9999")
            }
            let typeNode = try node.required("type")
            let type = try jsonString(typeNode, "type", "an event stream type such as \"regionEnter\"")
            guard types.contains(type) else {
                throw typeNode.failure(
                    "unknown type '\(type)' (expected an event stream type: \(types.sorted().joined(separator: ", ")))")
            }
            var region: String?
            // A bare null is no region, as no `region` is; anything else must be a string.
            if let value = node["region"], value.isDoubleQuoted || !value.isNull {
                region = try jsonString(value, "region", "the region's identifier, such as \"cafe\"")
            }
            if Self.regionTypes.contains(type) && region == nil {
                throw (node["region"] ?? typeNode).failure("a \(type) needs 'region', the region's identifier")
            }
            return Event(
                line: line, text: stamp, time: time, type: type, region: region,
                regionColumn: node["region"]?.column ?? 1)
        } catch {
            throw here(error)
        }
    }

    /// The types whose `region` must be one of the scenario's.
    package static let regionTypes: Set<String> = ["regionEnter", "regionExit", "regionState"]

    /// Refuses the first region event naming a region the scenario does not have: a typo, or a
    /// log of other regions than the scenario's. Its events would match nothing predicted and
    /// read as the device's anomaly ("unpredicted"), so the log and scenario do not fit: a data
    /// error at the line, listing the scenario's regions and the near spelling if there is one.
    package func checkRegions(_ regions: [String], scenario: String) throws(ConfigFileError) {
        let known = Set(regions)
        for event in events where Self.regionTypes.contains(event.type) {
            guard let region = event.region, !known.contains(region) else { continue }
            let near = NearSpelling.nearest(to: region, among: regions).map { "; did you mean '\($0)'?" } ?? ""
            // A regions file may hold thousands: the first few, and how many.
            let shown = regions.prefix(8).joined(separator: ", ") + (regions.count > 8 ? ", … (\(regions.count))" : "")
            let list = regions.isEmpty ? "it has none" : "its regions: \(shown)"
            throw ConfigFileError(
                file: file, line: event.line, column: event.regionColumn,
                message: "region '\(region)' is no region of scenario \(scenario) (\(list))\(near)")
        }
    }

    /// A field's value, which must be a JSON string: `"region": 5` names no region "5".
    private static func jsonString(_ node: ConfigNode, _ key: String, _ what: String) throws(ConfigFileError)
        -> String
    {
        guard node.isDoubleQuoted, let text = node.scalarText else {
            let shown = node.isMapping ? "an object" : node.isSequence ? "an array" : node.scalarText ?? "not one"
            throw node.failure("\(key) must be a JSON string, \(what); it is \(shown)")
        }
        return text
    }
}
