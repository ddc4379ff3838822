import ConfigFiles
import Foundation
import Geo
import LocationEvents
import WaypostSupport

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
        /// `latitude`, `longitude` or `radius`.
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
                field: center.outOfRangeComponent,
                message: "latitude/longitude \(latitude), \(longitude) is out of range")
        }
        guard radius > 0, radius.isFinite else {
            throw InvalidRegion(field: "radius", message: "radius \(radius) must be a positive number of metres")
        }
        return CircularRegion(
            identifier: identifier, center: center, radius: radius, notifyOnEntry: notifyOnEntry,
            notifyOnExit: notifyOnExit)
    }

    public static func read(contentsOf url: URL, displayName: String? = nil) throws(ConfigFileError) -> [CircularRegion]
    {
        try regions(in: ConfigNode.load(contentsOf: url, displayName: displayName))
    }

    public static func parse(_ text: String, name: String) throws(ConfigFileError) -> [CircularRegion] {
        try regions(in: ConfigNode.parse(text, name: name))
    }

    static func regions(in root: ConfigNode) throws(ConfigFileError) -> [CircularRegion] {
        var regions = Collected()
        if root.isMapping, root["type"]?.scalarText == "FeatureCollection" {
            try geoJSON(root, into: &regions)
        } else if root.isMapping, root["type"]?.scalarText == "Feature" {
            // A GeoJSON text may be one Feature (RFC 7946 §2): one region.
            try feature(root, into: &regions)
        } else if root.isMapping {
            try root.checkKeys(allowing: ["regions"])
            try list(try root.required("regions"), into: &regions)
        } else {
            try list(root, into: &regions)
        }
        return regions.list
    }
}

extension RegionFile {
    /// The regions read so far; an identifier read twice is an error where it is read again.
    fileprivate struct Collected {
        var list: [CircularRegion] = []
        var identifiers: Set<String> = []

        /// Room for `count` more, read from a list whose length is known: 100,000 identifiers
        /// were rehashed each time the set doubled (perf: 4 % of reading and registering them).
        mutating func reserveCapacity(forAdditional count: Int) {
            list.reserveCapacity(list.count + count)
            identifiers.reserveCapacity(identifiers.count + count)
        }

        mutating func add(_ region: CircularRegion, from node: ConfigNode) throws(ConfigFileError) {
            guard identifiers.insert(region.identifier).inserted else {
                throw node.failure("region '\(region.identifier)' is defined twice")
            }
            list.append(region)
        }
    }

    fileprivate static func list(_ node: ConfigNode, into regions: inout Collected) throws(ConfigFileError) {
        guard node.isSequence else { throw node.failure("expected a list of regions") }
        let items = try node.list()
        regions.reserveCapacity(forAdditional: items.count)
        for item in items {
            try regions.add(try region(item), from: item)
        }
    }

    fileprivate static func region(_ node: ConfigNode) throws(ConfigFileError) -> CircularRegion {
        var identifier, latitude, longitude, radius, notifyOnEntry, notifyOnExit: ConfigNode?
        try node.forEachEntry(expecting: keys) { key, value in
            switch key {
            case "identifier": identifier = value
            case "latitude": latitude = value
            case "longitude": longitude = value
            case "radius": radius = value
            case "notifyOnEntry": notifyOnEntry = value
            case "notifyOnExit": notifyOnExit = value
            default: return false
            }
            return true
        }
        return try build(
            node, identifier: try node.field("identifier", identifier),
            latitude: try node.number("latitude", latitude), longitude: try node.number("longitude", longitude),
            properties: node, radius: radius, notifyOnEntry: notifyOnEntry, notifyOnExit: notifyOnExit)
    }

    fileprivate static func geoJSON(_ root: ConfigNode, into regions: inout Collected) throws(ConfigFileError) {
        guard root.isMapping, let features = root["features"], features.isSequence
        else { throw root.failure("a FeatureCollection needs a 'features' list") }
        let items = try features.list()
        regions.reserveCapacity(forAdditional: items.count)
        for feature in items { try Self.feature(feature, into: &regions) }
    }

    /// The properties a region's feature reads. Others are kept out of the way — the tools that
    /// draw GeoJSON add their own (geojson.io's `marker-color`, a `description`) — but one spelt
    /// like these (`notifyOnExt`, `raduis`) is an error: read as foreign, the flag was lost.
    static let featureKeys: Set<String> = ["identifier", "name", "radius", "notifyOnEntry", "notifyOnExit"]

    /// One Point feature as one region (RFC 7946 §3.2: `type` is `Feature`).
    private static func feature(_ feature: ConfigNode, into regions: inout Collected) throws(ConfigFileError) {
        guard feature.isMapping, feature["type"]?.scalarText == "Feature" else {
            throw (feature["type"] ?? feature).failure("each feature is a GeoJSON Feature (\"type\": \"Feature\")")
        }
        guard let geometry = feature["geometry"], geometry.isMapping,
            geometry["type"]?.scalarText == "Point", let coordinates = geometry["coordinates"],
            coordinates.isSequence, case let position = try coordinates.list(), position.count >= 2,
            let lon = position[0].floatValue, let lat = position[1].floatValue
        else { throw feature.failure("each feature needs a Point geometry with [longitude, latitude]") }
        let properties = try feature.required("properties")
        for (key, _) in properties.entries {
            guard let name = key.scalarText, !featureKeys.contains(name),
                let near = NearSpelling.nearest(to: name, among: Array(featureKeys))
            else { continue }
            throw key.failure("unknown property '\(name)'; did you mean '\(near)'?")
        }
        guard
            let identifier = properties["identifier"]?.scalarText ?? properties["name"]?.scalarText
        else { throw properties.failure("missing 'identifier' (or 'name')") }
        try regions.add(
            try build(
                feature, identifier: identifier, latitude: lat, longitude: lon, properties: properties,
                radius: properties["radius"], notifyOnEntry: properties["notifyOnEntry"],
                notifyOnExit: properties["notifyOnExit"], position: coordinates),
            from: feature)
    }

    /// The region, its optional fields read from the values `properties` has for them.
    private static func build(
        _ node: ConfigNode, identifier: String, latitude: Double, longitude: Double, properties: ConfigNode,
        radius: ConfigNode?, notifyOnEntry: ConfigNode?, notifyOnExit: ConfigNode?, position: ConfigNode? = nil
    ) throws(ConfigFileError) -> CircularRegion {
        let radius = try properties.number("radius", radius)
        let onEntry = try flag("notifyOnEntry", notifyOnEntry)
        let onExit = try flag("notifyOnExit", notifyOnExit)
        do {
            return try RegionFile.region(
                identifier: identifier, latitude: latitude, longitude: longitude, radius: radius,
                notifyOnEntry: onEntry, notifyOnExit: onExit)
        } catch {
            // At the value itself where the file names it (a GeoJSON feature's position is its
            // geometry's coordinates).
            if error.field != "radius", let position { throw position.failure(error.message) }
            let holder = error.field == "radius" ? properties : node
            throw (holder[error.field] ?? holder).failure(error.message)
        }
    }
}

extension ConfigNode {
    /// The non-empty string under `key`, with the field named in the error.
    func field(_ key: String) throws(ConfigFileError) -> String { try field(key, self[key]) }

    /// The number under `key`, with the field named in the error.
    func number(_ key: String) throws(ConfigFileError) -> Double { try number(key, self[key]) }

    /// The non-empty string `value` of this mapping's `key`, with the field named in the error.
    func field(_ key: String, _ value: ConfigNode?) throws(ConfigFileError) -> String {
        let value = try required(key, value)
        guard let text = value.scalarText, !text.isEmpty else {
            throw value.failure("'\(key)' must be a non-empty string")
        }
        return text
    }

    /// The number `value` of this mapping's `key`, with the field named in the error.
    func number(_ key: String, _ value: ConfigNode?) throws(ConfigFileError) -> Double {
        let value = try required(key, value)
        guard let number = value.numericValue, number.isFinite else {
            throw value.failure("'\(key)' must be a number, not '\(value.shownText)'")
        }
        return number
    }
}

extension RegionFile {
    /// The flag `value` of `key`, true when absent.
    fileprivate static func flag(_ key: String, _ value: ConfigNode?) throws(ConfigFileError) -> Bool {
        guard let value else { return true }
        guard let bool = value.boolValue else { throw value.failure("'\(key)' must be true or false") }
        return bool
    }
}

extension Coordinate {
    /// The component an invalid coordinate is wrong in, to locate its error at: the latitude,
    /// unless that is in range.
    var outOfRangeComponent: String { (-90...90).contains(latitude) ? "longitude" : "latitude" }
}
