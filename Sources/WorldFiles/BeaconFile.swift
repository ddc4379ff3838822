import ConfigFiles
import Foundation
import Geo
import LocationEvents
import LocationSimulation

/// Reads the iBeacons of a run (`--beacons`, scenario `beacons`), from YAML or JSON. Each beacon is
/// heard within its `range` and, with `--api monitor`, watched by a `BeaconIdentityCondition`
/// under its identifier.
///
/// ```yaml
/// beacons:
///   - identifier: lobby
///     uuid: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
///     major: 1
///     minor: 7
///     latitude: 37.3318
///     longitude: -122.0312
///     range: 30          # metres; iBeacons reach up to about 70 m
/// ```
///
/// A UUID that is not one, a major or minor outside 0…65535, a range outside (0, 100] m and
/// duplicate identifiers are errors with their line and column.
public enum BeaconFile {
    public static let keys: Set<String> = ["identifier", "uuid", "major", "minor", "latitude", "longitude", "range"]

    /// Why `beacons` cannot be monitored beside `regions`, or nil: a beacon named as a region is.
    /// An app's regions and a monitor's conditions are named by identifier, and monitoring one
    /// under a name in use replaces the other (Apple, `startMonitoring(for:)`: "the old region is
    /// replaced by the new one") — the region silently stopped, and rules naming it fired on the
    /// beacon (a black-box hunt).
    package static func clash(_ beacons: [PlacedBeacon], with regions: [CircularRegion]) -> String? {
        let named = Set(regions.map(\.identifier))
        guard let beacon = beacons.first(where: { named.contains($0.identifier) }) else { return nil }
        return "beacon '\(beacon.identifier)' has a region's identifier: monitoring one replaces the other "
            + "(identifiers name regions and beacons alike); rename one"
    }

    /// Bluetooth LE's reach for a beacon, metres: Apple quotes up to 70 m for iBeacons ("Getting
    /// Started with iBeacon"); 100 m leaves room for strong transmitters and refuses typos.
    public static let maximumRange = 100.0

    public static func read(contentsOf url: URL, displayName: String? = nil) throws(ConfigFileError) -> [PlacedBeacon] {
        try beacons(in: ConfigNode.load(contentsOf: url, displayName: displayName))
    }

    public static func parse(_ text: String, name: String) throws(ConfigFileError) -> [PlacedBeacon] {
        try beacons(in: ConfigNode.parse(text, name: name))
    }

    private static func beacons(in root: ConfigNode) throws(ConfigFileError) -> [PlacedBeacon] {
        try root.checkKeys(allowing: ["beacons"])
        let list = try root.required("beacons")
        guard list.isSequence else { throw list.failure("expected a list of beacons") }
        var out: [PlacedBeacon] = []
        var seen: Set<String> = []
        for item in try list.list() {
            let placed = try beacon(item)
            guard seen.insert(placed.identifier).inserted else {
                throw item.failure("beacon '\(placed.identifier)' is defined twice")
            }
            out.append(placed)
        }
        return out
    }

    private static func beacon(_ node: ConfigNode) throws(ConfigFileError) -> PlacedBeacon {
        try node.checkKeys(allowing: keys)
        let identifier = try node.field("identifier")
        let uuidNode = try node.required("uuid")
        guard let text = uuidNode.scalarText, let uuid = UUID(uuidString: text) else {
            throw uuidNode.failure("'uuid' must be a UUID like E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
        }
        let major = try field16(node, "major")
        let minor = try field16(node, "minor")
        let center = Coordinate(latitude: try node.number("latitude"), longitude: try node.number("longitude"))
        guard center.isValid else {
            throw (node[center.outOfRangeComponent] ?? node).failure(
                "latitude/longitude \(center.latitude), \(center.longitude) is out of range")
        }
        let range = try node.number("range")
        guard range > 0, range <= maximumRange else {
            throw try node.required("range").failure("range \(range) m must be in (0, \(Int(maximumRange))] m")
        }
        return PlacedBeacon(
            identifier: identifier,
            beacon: Beacon(uuid: uuid, major: major, minor: minor, coordinate: center, range: range))
    }

    private static func field16(_ node: ConfigNode, _ key: String) throws(ConfigFileError) -> UInt16 {
        let value = try node.required(key)
        guard let n = value.integerValue, let number = UInt16(exactly: n) else {
            throw value.failure("'\(key)' must be a whole number from 0 to 65535, not '\(value.shownText)'")
        }
        return number
    }
}
