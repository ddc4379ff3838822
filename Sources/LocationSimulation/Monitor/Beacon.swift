import Foundation
import Geo
import LocationEvents

/// A Bluetooth beacon placed in the simulated world (an iBeacon: UUID, major, minor), heard by
/// the device within `range` metres.
public struct Beacon: Sendable, Hashable {
    public var uuid: UUID
    public var major: UInt16
    public var minor: UInt16
    public var coordinate: Coordinate
    /// Metres; iBeacons reach up to about 70 m (Apple, "Getting Started with iBeacon").
    public var range: Double

    public init(uuid: UUID, major: UInt16, minor: UInt16, coordinate: Coordinate, range: Double) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.coordinate = coordinate
        self.range = range
    }
}

/// A beacon placed in the world and the name a monitor's condition for it goes by.
public struct PlacedBeacon: Sendable, Hashable {
    public var identifier: String
    public var beacon: Beacon

    public init(identifier: String, beacon: Beacon) {
        self.identifier = identifier
        self.beacon = beacon
    }
}

extension BeaconIdentityCondition {
    /// Whether `beacon` is one this condition names: the UUID, and the major and minor when given.
    public func matches(_ beacon: Beacon) -> Bool {
        beacon.uuid == uuid && (major.map { $0 == beacon.major } ?? true) && (minor.map { $0 == beacon.minor } ?? true)
    }
}
