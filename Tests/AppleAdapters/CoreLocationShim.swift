// A stand-in for Apple's Core Location, declaring exactly the API that
// Sources/LocationSimulation/Seam/CoreLocationAdapters.swift uses, with the signatures of Apple's
// documentation. It exists so that `scripts/typecheck-apple-adapters.sh` can type-check the adapters
// on Linux: a change to Waypost's own types then breaks `make test` here, not a user's macOS build.
//
// Never a target of Package.swift: a module named CoreLocation in the build folder would turn
// `canImport(CoreLocation)` on for every other target. It has no behaviour (every body traps).
//
// Sources, one page each under https://developer.apple.com/documentation/corelocation/ :
// cllocationmanager, cllocationmanagerdelegate, clauthorizationstatus, cllocation, clregion,
// clcircularregion, clregionstate, clvisit, clerror/code, cllocationaccuracy, cllocationdistance,
// clmonitor-2r51v (init(_:), add(_:identifier:assuming:), remove(_:), identifiers, record(for:),
// events-swift.property, record, event, event/state), clcondition-swift.protocol,
// clmonitor-2r51v/circulargeographiccondition, clmonitor-2r51v/beaconidentitycondition,
// cllocationupdate (liveUpdates(_:), liveconfiguration, updates, location, isstationary).
//
// Modelled as Apple's SDK presents them to Swift: Objective-C enums are not frozen (this file is
// compiled with library evolution, so a switch over one needs a default, as on a device), the
// delegate's methods are optional (defaults in an extension), Swift-only types are actors/structs.

@_exported import Foundation

public typealias CLLocationDegrees = Double
public typealias CLLocationDistance = Double
public typealias CLLocationAccuracy = Double
public typealias CLLocationSpeed = Double
public typealias CLLocationDirection = Double
public typealias CLBeaconMajorValue = UInt16
public typealias CLBeaconMinorValue = UInt16

private func unavailable() -> Never { fatalError("CoreLocation shim: type-checking only") }

public struct CLLocationCoordinate2D: Sendable {
    public var latitude: CLLocationDegrees
    public var longitude: CLLocationDegrees
    public init() { unavailable() }
    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) { unavailable() }
}

/// `enum CLAuthorizationStatus : Int32` (an Objective-C enum: `int`).
public enum CLAuthorizationStatus: Int32, Sendable {
    case notDetermined = 0, restricted = 1, denied = 2, authorizedAlways = 3, authorizedWhenInUse = 4
}

/// `enum CLRegionState : Int`.
public enum CLRegionState: Int, Sendable {
    case unknown = 0, inside = 1, outside = 2
}

/// `struct CLError`, whose `Code` is `enum Code : Int`.
public struct CLError: Error, Sendable {
    public enum Code: Int, Sendable {
        case locationUnknown = 0, denied = 1, network = 2, headingFailure = 3, regionMonitoringDenied = 4
        case regionMonitoringFailure = 5, regionMonitoringSetupDelayed = 6, regionMonitoringResponseDelayed = 7
        case geocodeFoundNoResult = 8, geocodeFoundPartialResult = 9, geocodeCanceled = 10
        case deferredFailed = 11, deferredNotUpdatingLocation = 12, deferredAccuracyTooLow = 13
        case deferredDistanceFiltered = 14, deferredCanceled = 15, rangingUnavailable = 16, rangingFailure = 17
        case promptDeclined = 18, historicalLocationError = 19
    }
    public var code: Code { unavailable() }
}

open class CLLocation: NSObject, @unchecked Sendable {
    open var coordinate: CLLocationCoordinate2D { unavailable() }
    open var altitude: CLLocationDistance { unavailable() }
    open var horizontalAccuracy: CLLocationAccuracy { unavailable() }
    open var verticalAccuracy: CLLocationAccuracy { unavailable() }
    open var speed: CLLocationSpeed { unavailable() }
    open var course: CLLocationDirection { unavailable() }
    open var timestamp: Date { unavailable() }
}

open class CLRegion: NSObject, @unchecked Sendable {
    open var identifier: String { unavailable() }
    open var notifyOnEntry: Bool {
        get { unavailable() }
        set { unavailable() }
    }
    open var notifyOnExit: Bool {
        get { unavailable() }
        set { unavailable() }
    }
}

open class CLCircularRegion: CLRegion, @unchecked Sendable {
    public init(center: CLLocationCoordinate2D, radius: CLLocationDistance, identifier: String) { unavailable() }
    open var center: CLLocationCoordinate2D { unavailable() }
    open var radius: CLLocationDistance { unavailable() }
}

open class CLVisit: NSObject, @unchecked Sendable {
    open var arrivalDate: Date { unavailable() }
    open var departureDate: Date { unavailable() }
    open var coordinate: CLLocationCoordinate2D { unavailable() }
    open var horizontalAccuracy: CLLocationAccuracy { unavailable() }
}

open class CLLocationManager: NSObject {
    public override init() { unavailable() }
    open weak var delegate: (any CLLocationManagerDelegate)? {
        get { unavailable() }
        set { unavailable() }
    }
    /// iOS 14, macOS 11.
    open var authorizationStatus: CLAuthorizationStatus { unavailable() }
    open var desiredAccuracy: CLLocationAccuracy {
        get { unavailable() }
        set { unavailable() }
    }
    open var distanceFilter: CLLocationDistance {
        get { unavailable() }
        set { unavailable() }
    }
    open var location: CLLocation? { unavailable() }
    open func requestWhenInUseAuthorization() { unavailable() }
    open func requestAlwaysAuthorization() { unavailable() }
    open func startUpdatingLocation() { unavailable() }
    open func stopUpdatingLocation() { unavailable() }
    open func startMonitoringSignificantLocationChanges() { unavailable() }
    open func stopMonitoringSignificantLocationChanges() { unavailable() }
    open func startMonitoring(for region: CLRegion) { unavailable() }
    open func stopMonitoring(for region: CLRegion) { unavailable() }
    open func requestState(for region: CLRegion) { unavailable() }
    // startMonitoringVisits()/stopMonitoringVisits() are iOS-only, as the adapters' `#if os(iOS)` is.
}

/// `protocol CLLocationManagerDelegate : NSObjectProtocol`; every method is `optional`.
public protocol CLLocationManagerDelegate: NSObjectProtocol {
    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager)
    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation])
    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error)
    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion)
    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion)
    func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion)
    func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion)
    func locationManager(
        _ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error)
}

extension CLLocationManagerDelegate {
    public func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {}
    public func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {}
    public func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {}
    public func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {}
    public func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {}
    public func locationManager(
        _ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion
    ) {}
    public func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion) {}
    public func locationManager(
        _ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error
    ) {}
}

// MARK: - iOS 17: CLMonitor

/// `protocol CLCondition : Sendable` (Swift); the monitor's two concrete kinds conform.
public protocol CLCondition: Sendable {}

/// `actor CLMonitor` (iOS 17, macOS 14).
public actor CLMonitor {
    public init(_ name: String) async { unavailable() }
    public func add(_ condition: any CLCondition, identifier: String, assuming state: CLMonitor.Event.State) {
        unavailable()
    }
    public func remove(_ identifier: String) { unavailable() }
    public var identifiers: [String] { unavailable() }
    public func record(for identifier: String) -> CLMonitor.Record? { unavailable() }
    public final let events: CLMonitor.Events

    public struct Record: Sendable {
        public let condition: any CLCondition
        public let lastEvent: CLMonitor.Event
    }

    public struct Event: Sendable {
        /// `CLMonitoringState`, an Objective-C enum (not frozen).
        public enum State: UInt, Sendable {
            case unknown = 0, satisfied = 1, unsatisfied = 2, unmonitored = 3
        }
        public let identifier: String
        public let state: CLMonitor.Event.State
        public let date: Date
    }

    public struct Events: AsyncSequence, Sendable {
        public typealias Element = CLMonitor.Event
        public struct Iterator: AsyncIteratorProtocol {
            public mutating func next() async throws -> CLMonitor.Event? { unavailable() }
        }
        public func makeAsyncIterator() -> Iterator { unavailable() }
    }

    public struct CircularGeographicCondition: CLCondition {
        public init(center: CLLocationCoordinate2D, radius: CLLocationDistance) { unavailable() }
        public let center: CLLocationCoordinate2D
        public let radius: CLLocationDistance
    }

    public struct BeaconIdentityCondition: CLCondition {
        public init(uuid: UUID) { unavailable() }
        public init(uuid: UUID, major: CLBeaconMajorValue) { unavailable() }
        public init(uuid: UUID, major: CLBeaconMajorValue, minor: CLBeaconMinorValue) { unavailable() }
        public let uuid: UUID
        public let major: CLBeaconMajorValue?
        public let minor: CLBeaconMinorValue?
    }
}

// MARK: - iOS 17: CLLocationUpdate

/// `struct CLLocationUpdate` (iOS 17, macOS 14).
public struct CLLocationUpdate: Sendable {
    public var location: CLLocation? { unavailable() }
    public var isStationary: Bool { unavailable() }

    public static func liveUpdates(_ configuration: CLLocationUpdate.LiveConfiguration = .default)
        -> CLLocationUpdate.Updates
    { unavailable() }

    /// `CLLiveUpdateConfiguration`, an Objective-C enum (not frozen).
    public enum LiveConfiguration: Int, Sendable {
        case `default` = 0, automotiveNavigation = 1, otherNavigation = 2, fitness = 3, airborne = 4
    }

    public struct Updates: AsyncSequence, Sendable {
        public typealias Element = CLLocationUpdate
        public struct Iterator: AsyncIteratorProtocol {
            public mutating func next() async throws -> CLLocationUpdate? { unavailable() }
        }
        public func makeAsyncIterator() -> Iterator { unavailable() }
    }
}
