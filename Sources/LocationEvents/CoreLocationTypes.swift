import Geo
import SimulatedTime

/// CoreLocation's authorization states, with Apple's raw values (`CLAuthorizationStatus`).
public enum AuthorizationStatus: Int32, Sendable, CaseIterable, CustomStringConvertible {
    case notDetermined = 0
    case restricted = 1
    case denied = 2
    case authorizedAlways = 3
    case authorizedWhenInUse = 4

    public var description: String {
        switch self {
        case .notDetermined: "notDetermined"
        case .restricted: "restricted"
        case .denied: "denied"
        case .authorizedAlways: "authorizedAlways"
        case .authorizedWhenInUse: "authorizedWhenInUse"
        }
    }

    /// Whether foreground location (standard and significant-change updates) is allowed.
    public var allowsLocation: Bool { self == .authorizedAlways || self == .authorizedWhenInUse }
}

/// Whether the app gets precise or approximate locations (`CLAccuracyAuthorization`, iOS 14+).
public enum AccuracyAuthorization: Int, Sendable, CaseIterable, CustomStringConvertible {
    case fullAccuracy = 0
    case reducedAccuracy = 1

    public var description: String { self == .fullAccuracy ? "fullAccuracy" : "reducedAccuracy" }

    /// The names `--accuracy-authorization` and scenario `accuracyAuthorization` accept.
    public enum Setting: String, Sendable, CaseIterable {
        case full, reduced

        public var authorization: AccuracyAuthorization { self == .full ? .fullAccuracy : .reducedAccuracy }
    }
}

/// The app's lifecycle state as UIKit has it, with terminated for an app not running.
public enum AppState: String, Sendable, CaseIterable, CustomStringConvertible {
    case foreground, background, suspended, terminated

    public var description: String { rawValue }

    /// Whether a script may move an app from this state to `next`. A suspended or terminated app
    /// reaches the background only when iOS wakes or relaunches it, never by a script; the user
    /// leaves the foreground into the background, never straight into suspension.
    public func canChange(to next: AppState) -> Bool {
        switch (self, next) {
        case (.foreground, .suspended), (.terminated, .background), (.terminated, .suspended): false
        default: self != next
        }
    }
}

/// Why iOS launched a terminated app into the background (`UIApplication.LaunchOptionsKey.location`):
/// a region or monitor event, a significant change, a visit, or the next update of the live
/// updates it was iterating.
public enum LaunchReason: String, Sendable, CaseIterable {
    case region, significantChange, visit, liveUpdate
}

/// CoreLocation's errors by number and name (`CLError.Code`).
public struct LocationError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Int, Sendable, CaseIterable {
        case locationUnknown = 0
        case denied = 1
        case network = 2
        case headingFailure = 3
        case regionMonitoringDenied = 4
        case regionMonitoringFailure = 5
        case regionMonitoringSetupDelayed = 6
        case regionMonitoringResponseDelayed = 7
        case geocodeFoundNoResult = 8
        case geocodeFoundPartialResult = 9
        case geocodeCanceled = 10
        case deferredFailed = 11
        case deferredNotUpdatingLocation = 12
        case deferredAccuracyTooLow = 13
        case deferredDistanceFiltered = 14
        case deferredCanceled = 15
        case rangingUnavailable = 16
        case rangingFailure = 17
        case promptDeclined = 18
        case historicalLocationError = 19
    }

    public var code: Code
    /// Why, for people (not part of CoreLocation's error).
    public var reason: String

    public init(_ code: Code, _ reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// The code's name as CoreLocation spells it, e.g. `regionMonitoringFailure`.
    public var name: String { "\(code)" }

    public var description: String {
        reason.isEmpty ? "\(name) (\(code.rawValue))" : "\(name) (\(code.rawValue)): \(reason)"
    }
}

/// A region's state as `didDetermineState` reports it (`CLRegionState`).
public enum RegionState: Int, Sendable, CustomStringConvertible {
    case unknown = 0
    case inside = 1
    case outside = 2

    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .inside: "inside"
        case .outside: "outside"
        }
    }
}

/// A location fix (`CLLocation`): where, how well, how fast, which way, when.
public struct Location: Sendable, Equatable {
    public var coordinate: Coordinate
    /// Metres; meaningful only when ``verticalAccuracy`` is not negative.
    public var altitude: Double
    /// Radius of uncertainty in metres; negative means the coordinate is invalid.
    public var horizontalAccuracy: Double
    /// Metres; negative means the altitude is invalid.
    public var verticalAccuracy: Double
    /// Metres per second; negative when unknown.
    public var speed: Double
    /// Degrees from true north; negative when unknown.
    public var course: Double
    /// When the fix was taken (virtual time); earlier than the delivery for a cached fix.
    public var timestamp: EpochInstant

    public init(
        coordinate: Coordinate, altitude: Double = 0, horizontalAccuracy: Double, verticalAccuracy: Double = -1,
        speed: Double = -1, course: Double = -1, timestamp: EpochInstant
    ) {
        self.coordinate = coordinate
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.timestamp = timestamp
    }
}

/// Which service delivered a fix.
public enum LocationService: String, Sendable {
    case standard, significantChange
}

/// A circular region to monitor (`CLCircularRegion`).
public struct CircularRegion: Sendable, Hashable {
    public var identifier: String
    public var center: Coordinate
    /// Metres.
    public var radius: Double
    public var notifyOnEntry: Bool
    public var notifyOnExit: Bool

    public init(
        identifier: String, center: Coordinate, radius: Double, notifyOnEntry: Bool = true, notifyOnExit: Bool = true
    ) {
        self.identifier = identifier
        self.center = center
        self.radius = radius
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
    }

    public var circle: Circle { Circle(center: center, radius: radius) }
}

/// A place the device stayed (`CLVisit`): where, and from when until when.
public struct Visit: Sendable, Equatable {
    /// The centre of the stay.
    public var coordinate: Coordinate
    /// The spread of the positions around the centre, metres.
    public var horizontalAccuracy: Double
    public var arrival: EpochInstant
    /// ``distantFuture`` while the visit is in progress (the arrival event).
    public var departure: EpochInstant

    public init(coordinate: Coordinate, horizontalAccuracy: Double, arrival: EpochInstant, departure: EpochInstant) {
        self.coordinate = coordinate
        self.horizontalAccuracy = horizontalAccuracy
        self.arrival = arrival
        self.departure = departure
    }

    /// `Date.distantFuture` (4001-01-01), as `CLVisit.departureDate` gives it for a visit in
    /// progress.
    public static let distantFuture = EpochInstant(secondsSince1970: 64_092_211_200)

    /// Whether this is the arrival event: the device has not left yet.
    public var isInProgress: Bool { departure >= Self.distantFuture }
}
