import Foundation
import Geo
import Yams

/// Why a regions file could not be read: file, line, column and what was wrong.
public struct RegionFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String

    public var description: String { line > 0 ? "\(file):\(line):\(column): \(message)" : "\(file): \(message)" }
}

/// Reads the regions a run monitors, from YAML, JSON or GeoJSON.
///
/// YAML (JSON is the same structure; `notifyOnEntry`/`notifyOnExit` default to true):
///
/// ```yaml
/// regions:
///   - identifier: stevens-creek-coffee
///     latitude: 37.3236
///     longitude: -122.0315
///     radius: 150
///     notifyOnExit: false
/// ```
///
/// GeoJSON: a FeatureCollection of Point features whose properties carry `identifier` (or
/// `name`), `radius` in metres and optionally the notify flags.
///
/// Unknown keys, wrong types, missing fields, out-of-range values and duplicate identifiers are
/// errors with their line and column; YAML anchors and aliases are refused (alias bombs).
public enum RegionFile {
    /// The fields of a region, in a regions file or written inline (scenario files).
    public static let keys: Set<String> = [
        "identifier", "latitude", "longitude", "radius", "notifyOnEntry", "notifyOnExit",
    ]

    /// What is wrong with a region's values, and which field to point at.
    public struct InvalidRegion: Error, Sendable {
        /// `latitude` or `radius`.
        public var field: String
        public var message: String
    }

    /// A region from its fields, checked as every reader checks them: the centre on the
    /// ellipsoid, the radius a positive number of metres.
    public static func region(
        identifier: String, latitude: Double, longitude: Double, radius: Double, notifyOnEntry: Bool = true,
        notifyOnExit: Bool = true
    ) throws(InvalidRegion) -> CircularRegion {
        let center = Coordinate(latitude: latitude, longitude: longitude)
        guard center.isValid else {
            throw InvalidRegion(
                field: "latitude", message: "latitude/longitude \(latitude), \(longitude) is out of range")
        }
        guard radius > 0, radius.isFinite else {
            throw InvalidRegion(field: "radius", message: "radius \(radius) must be a positive number of metres")
        }
        return CircularRegion(
            identifier: identifier, center: center, radius: radius, notifyOnEntry: notifyOnEntry,
            notifyOnExit: notifyOnExit)
    }

    public static func read(contentsOf url: URL, displayName: String? = nil) throws(RegionFileError) -> [CircularRegion]
    {
        let name = displayName ?? url.path
        let text = try YAMLFileReader(name: name).text(of: url)
        return try parse(text, name: name)
    }

    public static func parse(_ text: String, name: String) throws(RegionFileError) -> [CircularRegion] {
        let root = try YAMLFileReader(name: name).compose(text)
        let reader = YAMLFileReader(name: name)
        let regions: [CircularRegion]
        if case .mapping(let mapping) = root, mapping["type"]?.string == "FeatureCollection" {
            regions = try reader.geoJSON(root)
        } else if case .mapping(let mapping) = root {
            try reader.allowOnly(["regions"], in: root)
            guard let list = mapping["regions"] else { throw reader.failure(root, "missing 'regions'") }
            regions = try reader.list(list)
        } else {
            regions = try reader.list(root)
        }
        var seen: Set<String> = []
        for region in regions where !seen.insert(region.identifier).inserted {
            throw RegionFileError(
                file: name, line: 0, column: 0, message: "region '\(region.identifier)' is defined twice")
        }
        return regions
    }

    /// Where the first YAML anchor or alias is, outside quoted strings and comments. Yams
    /// resolves aliases while composing, so they are refused before: an alias bomb never expands.
    public static func firstAnchorOrAlias(in text: String) -> (Int, Int)? {
        var line = 1
        var column = 0
        var quote: Character?
        var comment = false
        var previous: Character = "\n"
        for c in text {
            column += 1
            defer { previous = c }
            if c == "\n" {
                line += 1
                column = 0
                comment = false
                continue
            }
            if comment { continue }
            if let q = quote {
                if c == q && previous != "\\" { quote = nil }
                continue
            }
            switch c {
            case "\"", "'": quote = c
            case "#" where previous == " " || previous == "\n" || previous == "\t": comment = true
            case "&" where " \t\n[{,:-?".contains(previous), "*" where " \t\n[{,:-?".contains(previous):
                // Only where a node starts: `a & b` inside a plain value is refused too; quote it.
                return (line, column)
            default: break
            }
        }
        return nil
    }
}

extension YAMLFileReader {
    func list(_ node: Node) throws(RegionFileError) -> [CircularRegion] {
        try plain(node)
        guard case .sequence(let sequence) = node else { throw failure(node, "expected a list of regions") }
        var out: [CircularRegion] = []
        for item in sequence { out.append(try region(item)) }
        return out
    }

    func region(_ node: Node) throws(RegionFileError) -> CircularRegion {
        try allowOnly(RegionFile.keys, in: node)
        return try build(
            node, identifier: try string(node, "identifier"), latitude: try number(node, "latitude"),
            longitude: try number(node, "longitude"), properties: node)
    }

    func geoJSON(_ root: Node) throws(RegionFileError) -> [CircularRegion] {
        guard case .mapping(let mapping) = root, let features = mapping["features"],
            case .sequence(let list) = features
        else { throw failure(root, "a FeatureCollection needs a 'features' list") }
        var out: [CircularRegion] = []
        for feature in list {
            guard case .mapping(let f) = feature, let geometry = f["geometry"], case .mapping(let g) = geometry,
                g["type"]?.string == "Point", let coordinates = g["coordinates"],
                case .sequence(let position) = coordinates, position.count >= 2,
                let lon = position[0].float, let lat = position[1].float
            else { throw failure(feature, "each feature needs a Point geometry with [longitude, latitude]") }
            guard let properties = f["properties"] else { throw failure(feature, "missing 'properties'") }
            let identifier: String
            if let id = properties.mapping?["identifier"]?.string ?? properties.mapping?["name"]?.string {
                identifier = id
            } else {
                throw failure(properties, "missing 'identifier' (or 'name')")
            }
            out.append(
                try build(feature, identifier: identifier, latitude: lat, longitude: lon, properties: properties))
        }
        return out
    }

    private func build(_ node: Node, identifier: String, latitude: Double, longitude: Double, properties: Node)
        throws(RegionFileError) -> CircularRegion
    {
        let radius = try number(properties, "radius")
        let onEntry = try flag(properties, "notifyOnEntry")
        let onExit = try flag(properties, "notifyOnExit")
        do {
            return try RegionFile.region(
                identifier: identifier, latitude: latitude, longitude: longitude, radius: radius,
                notifyOnEntry: onEntry, notifyOnExit: onExit)
        } catch {
            throw failure(error.field == "radius" ? properties : node, error.message)
        }
    }
}
