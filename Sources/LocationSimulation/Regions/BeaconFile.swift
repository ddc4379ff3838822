import Foundation
import Geo
import Yams

/// A beacon placed in the world and the name a monitor's condition for it goes by.
public struct PlacedBeacon: Sendable, Hashable {
    public var identifier: String
    public var beacon: Beacon
}

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

    /// Bluetooth LE's reach for a beacon, metres: Apple quotes up to 70 m for iBeacons ("Getting
    /// Started with iBeacon"); 100 m leaves room for strong transmitters and refuses typos.
    public static let maximumRange = 100.0

    public static func read(contentsOf url: URL, displayName: String? = nil) throws(RegionFileError) -> [PlacedBeacon] {
        let name = displayName ?? url.path
        let text = try YAMLFileReader(name: name).text(of: url)
        return try parse(text, name: name)
    }

    public static func parse(_ text: String, name: String) throws(RegionFileError) -> [PlacedBeacon] {
        let reader = YAMLFileReader(name: name)
        let root = try reader.compose(text)
        try reader.allowOnly(["beacons"], in: root)
        guard let list = root.mapping?["beacons"] else { throw reader.failure(root, "missing 'beacons'") }
        try reader.plain(list)
        guard case .sequence(let items) = list else { throw reader.failure(list, "expected a list of beacons") }
        var out: [PlacedBeacon] = []
        var seen: Set<String> = []
        for item in items {
            let placed = try reader.beacon(item)
            guard seen.insert(placed.identifier).inserted else {
                throw reader.failure(item, "beacon '\(placed.identifier)' is defined twice")
            }
            out.append(placed)
        }
        return out
    }
}

extension YAMLFileReader {
    fileprivate func beacon(_ node: Node) throws(RegionFileError) -> PlacedBeacon {
        try allowOnly(BeaconFile.keys, in: node)
        let identifier = try string(node, "identifier")
        let uuidNode = try value(node, "uuid")
        guard let text = uuidNode.string, let uuid = UUID(uuidString: text) else {
            throw failure(uuidNode, "'uuid' must be a UUID like E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
        }
        let major = try field16(node, "major")
        let minor = try field16(node, "minor")
        let center = Coordinate(latitude: try number(node, "latitude"), longitude: try number(node, "longitude"))
        guard center.isValid else {
            throw failure(node, "latitude/longitude \(center.latitude), \(center.longitude) is out of range")
        }
        let rangeNode = try value(node, "range")
        let range = try number(node, "range")
        guard range > 0, range <= BeaconFile.maximumRange else {
            throw failure(rangeNode, "range \(range) m must be in (0, \(Int(BeaconFile.maximumRange))] m")
        }
        return PlacedBeacon(
            identifier: identifier,
            beacon: Beacon(uuid: uuid, major: major, minor: minor, coordinate: center, range: range))
    }

    private func field16(_ node: Node, _ key: String) throws(RegionFileError) -> UInt16 {
        let v = try value(node, key)
        guard let n = v.int, let value = UInt16(exactly: n) else {
            throw failure(v, "'\(key)' must be a whole number from 0 to 65535, not '\(v.string ?? "?")'")
        }
        return value
    }
}
