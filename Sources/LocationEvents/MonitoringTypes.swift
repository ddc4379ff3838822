import Foundation
import Geo
import SimulatedTime

/// `CLMonitor.CircularGeographicCondition` (iOS 17): satisfied while the device is inside the
/// circle, by the same rule as region monitoring (``RegionMonitor``).
public struct CircularGeographicCondition: Sendable, Hashable, Codable {
    public var center: Coordinate
    /// Metres.
    public var radius: Double

    public init(center: Coordinate, radius: Double) {
        self.center = center
        self.radius = radius
    }
}

/// `CLMonitor.BeaconIdentityCondition` (iOS 17): satisfied while a beacon with this UUID (and
/// major, and minor, when given) is in range.
public struct BeaconIdentityCondition: Sendable, Hashable, Codable {
    public var uuid: UUID
    public var major: UInt16?
    public var minor: UInt16?

    /// A minor needs a major, as Apple's three initialisers (`uuid:`, `uuid:major:`,
    /// `uuid:major:minor:`) allow.
    public init(uuid: UUID, major: UInt16? = nil, minor: UInt16? = nil) {
        self.uuid = uuid
        self.major = major
        self.minor = major == nil ? nil : minor
    }
}

/// What a `CLMonitor` watches: `CLCondition`'s two concrete kinds.
public enum MonitoringCondition: Sendable, Hashable, Codable {
    case circularGeographic(CircularGeographicCondition)
    case beaconIdentity(BeaconIdentityCondition)
}

/// `CLMonitor.Event.State`.
public enum MonitoringState: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case unknown, satisfied, unsatisfied
    /// The condition is not monitored (the limit was exceeded, or it cannot be).
    case unmonitored

    public var description: String { rawValue }
}

/// The flags a `CLMonitor.Event` carries beside its state (iOS 17 and 18), as an option set: why
/// the state is what it is, when that is not the device's position.
public struct MonitoringDiagnostics: OptionSet, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `accuracyLimited`: approximate locations only (reduced accuracy), so geographic
    /// conditions cannot be evaluated.
    public static let accuracyLimited = Self(rawValue: 1 << 0)
    /// `conditionLimitExceeded`: the app already monitors the most conditions iOS allows.
    public static let conditionLimitExceeded = Self(rawValue: 1 << 1)
    /// `conditionUnsupported`: the condition cannot be monitored on this device.
    public static let conditionUnsupported = Self(rawValue: 1 << 2)
    /// `authorizationDenied`: the user refused the app location access.
    public static let authorizationDenied = Self(rawValue: 1 << 3)
    /// `authorizationRestricted`: parental controls or a profile forbid location access.
    public static let authorizationRestricted = Self(rawValue: 1 << 7)
    /// `authorizationDeniedGlobally`: Location Services are off for the whole device.
    public static let authorizationDeniedGlobally = Self(rawValue: 1 << 4)
    /// `authorizationRequestInProgress`: the prompt is on screen.
    public static let authorizationRequestInProgress = Self(rawValue: 1 << 5)
    /// `insufficientlyInUse`: the app is not in use, and holds nothing that lets events reach it
    /// (When In Use without a background activity session; from iOS 18, Always without a session).
    public static let insufficientlyInUse = Self(rawValue: 1 << 6)
    /// `serviceSessionRequired` (iOS 18): the app requires explicit service sessions and holds
    /// none requiring authorization.
    public static let serviceSessionRequired = Self(rawValue: 1 << 8)

    static let names: [(Self, String)] = [
        (.accuracyLimited, "accuracyLimited"), (.conditionLimitExceeded, "conditionLimitExceeded"),
        (.conditionUnsupported, "conditionUnsupported"), (.authorizationDenied, "authorizationDenied"),
        (.authorizationDeniedGlobally, "authorizationDeniedGlobally"),
        (.authorizationRestricted, "authorizationRestricted"),
        (.authorizationRequestInProgress, "authorizationRequestInProgress"),
        (.insufficientlyInUse, "insufficientlyInUse"), (.serviceSessionRequired, "serviceSessionRequired"),
    ]

    /// The flags set, by Apple's property names, in a fixed order.
    public var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }
    public var description: String { names.joined(separator: ",") }
}

/// `CLMonitor.Event`: a condition's state changed (or could not be determined).
public struct MonitoringEvent: Sendable, Equatable, Codable {
    /// The name the monitor was created with.
    public var monitor: String
    public var identifier: String
    public var state: MonitoringState
    /// Virtual time.
    public var date: EpochInstant
    /// The condition (nil only in events about a condition no longer monitored).
    public var condition: MonitoringCondition?
    public var diagnostics: MonitoringDiagnostics

    public init(
        monitor: String, identifier: String, state: MonitoringState, date: EpochInstant,
        condition: MonitoringCondition?,
        diagnostics: MonitoringDiagnostics = []
    ) {
        self.monitor = monitor
        self.identifier = identifier
        self.state = state
        self.date = date
        self.condition = condition
        self.diagnostics = diagnostics
    }
}

/// `CLMonitor.Record`: a condition and the last event about it. Codable, so a monitor's records
/// can be kept between runs as iOS keeps them between launches.
public struct MonitoringRecord: Sendable, Equatable, Codable {
    public var condition: MonitoringCondition
    public var lastEvent: MonitoringEvent

    public init(condition: MonitoringCondition, lastEvent: MonitoringEvent) {
        self.condition = condition
        self.lastEvent = lastEvent
    }
}
