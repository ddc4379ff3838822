import Foundation
import LocationEvents
import SimulatedTime

/// Every number the simulated location manager uses, each a named default from Apple's
/// documentation (or, where Apple gives none, Waypost's documented choice) that a run can override.
public struct LocationManagerConfiguration: Sendable, Equatable {
    /// Significant-change service: minimum distance from the last delivered event, metres (Apple: 500 m).
    public var significantChangeDistance = 500.0
    /// Significant-change service: minimum time since the last delivered event, seconds (Apple: 5 min).
    public var significantChangeInterval = Seconds(300)
    /// Accuracy of significant-change fixes (cell/Wi-Fi class), metres.
    public var significantChangeAccuracy = 500.0

    /// Region monitoring: distance the device must move past a boundary before a transition is
    /// reported, metres (Apple: "about 200 m" for testing).
    public var regionHysteresis = 200.0
    /// Cap for small regions: an entry needs the device at most this fraction of the radius
    /// inside (the inward distance cannot exceed the region). With the defaults a 100 m region
    /// needs 50 m inside; a 1 km region the full 200 m.
    public var regionInwardCapFraction = 0.5
    /// Region monitoring: how long the device must stay past the threshold, seconds (Apple: 20 s).
    public var regionDwell = Seconds(20)
    /// Regions per app (Apple: 20); nil lifts the limit for load-style runs.
    public var regionLimit: Int? = 20
    /// `CLMonitor` beacon conditions: seconds without hearing a matching beacon before the
    /// condition is unsatisfied. Apple gives no figure; developers observe iOS's beacon-region
    /// exit about 30 s after the last beacon is heard (the AltBeacon library's author among them).
    /// Waypost's choice, to be checked against a device.
    public var beaconExitDelay = Seconds(30)
    /// Largest radius accepted by `startMonitoring(for:)`, metres. Apple's value is per device;
    /// this is Waypost's default.
    public var maximumRegionMonitoringDistance = 400_000.0

    /// Visits: the device must stay within this radius, metres…
    public var visitRadius = 100.0
    /// …for at least this long, seconds, to make a visit.
    public var visitMinimumDuration = Seconds(300)
    /// Smallest accuracy a visit reports (GPS class), metres: a stay on one exact point has no spread.
    public var visitMinimumAccuracy = 5.0

    /// Automatic pauses: the device counts as still while it stays within this radius, metres.
    public var pauseRadius = 25.0
    /// Automatic pauses: seconds of stillness before updates pause, by activity type. Apple gives
    /// no figure; developers observe 10–20 minutes (e.g. react-native-background-geolocation #56:
    /// "pausing after 10-20 minutes of inactivity"; cordova-plugin-background-geolocation #156:
    /// "about 15 minutes"). Waypost's choice: 15 minutes, 20 for vehicles, which keep their radios
    /// on through longer stops.
    public var pauseDelays: [ActivityType: Seconds] = [
        .other: Seconds(900), .fitness: Seconds(900), .otherNavigation: Seconds(900),
        .automotiveNavigation: Seconds(1_200), .airborne: Seconds(1_200),
    ]

    /// Reduced accuracy (iOS 14): approximate positions are the centre of a grid cell this many
    /// degrees wide (≈ 5.6 km north–south), which keeps the city and misses by 1–4 km (Apple,
    /// `kCLLocationAccuracyReduced`: "usually within 1–20 kilometers of the actual location")…
    public var reducedAccuracyCell = 0.05
    /// …delivered at most this often, seconds (Apple: "at most a few times per hour"; WWDC 2020
    /// "What's new in location": "around 4 times an hour").
    public var reducedAccuracyInterval = Seconds(900)

    /// `requestLocation()`: seconds without a fix before it fails with `kCLErrorLocationUnknown`.
    /// Apple: obtaining the fix "may take several seconds", and "if a location fix cannot be
    /// determined in a timely manner, the location manager calls the delegate's
    /// locationManager(_:didFailWithError:) method instead" (`requestLocation()`), with no figure.
    /// Developers measure about ten seconds for the whole request (pointfreeco/composable-core-location
    /// issue 7: "a regular CLLocationManager takes the same amount of time to request the location
    /// … around 10.00 s according to instruments"). Waypost's choice: 10 s.
    public var requestLocationTimeout = Seconds(10)

    /// Allow Once ends this many seconds after the app leaves use (WWDC 2019 "What's New in Core
    /// Location": in use "for a few seconds after it has been put in the background").
    public var allowOnceGrace = Seconds(10)

    /// Whether `didDetermineState` follows `didStartMonitoringFor` with the region's state once a
    /// fix is known. Apple documents it only for transitions and `requestState(for:)`; devices
    /// send it (observed, e.g. phonegap-estimotebeacons #34: "an initial call to check if you are
    /// within a region when you call the startMonitoringForRegion"). Never an entry or exit.
    public var reportsInitialRegionState = true

    /// `exact` (the default): the rules above, deterministic to the millisecond, for assertions.
    /// `device`: region monitoring by ``regionMechanism`` in ``surroundings``, and, seeded, the
    /// rest of what devices show in the field (``DeviceRealism``).
    public var realism = Realism.exact
    public var deviceRealism = DeviceRealism()
    /// How region monitoring behaves under a non-exact realism (`field` or `device`'s parameters).
    public var regionMechanism = RegionMechanism.field
    /// Where the device is, for the OS's own positioning (`environment:`, `wifi:`).
    public var surroundings = Surroundings.standard

    /// How a fix is made for a `desiredAccuracy`: how often, and with what error.
    public struct Positioning: Sendable, Equatable {
        /// Seconds between fixes of the standard service.
        public var interval: Seconds
        /// The 68 % radius of the source's own error, metres; nil for GPS, whose error is the
        /// noise model's.
        public var error: Double?
    }

    /// GPS for ten metres or better (a fix per sample, at most ``updateInterval`` apart); Wi-Fi for up to a hundred
    /// metres (65 m, every 5 s); cells beyond (1414 m, every minute). Apple documents only that
    /// coarser accuracy uses cheaper sources ("if you need the current location only within a
    /// kilometer, specify kCLLocationAccuracyKilometer"); 65 m and 1414 m are the figures devices
    /// report for Wi-Fi and cell fixes (Stack Overflow 7402503: "1414 is the constant the
    /// CLLocationManager gives if it has determined your location based on cell tower
    /// triangulation"); the intervals are Waypost's choice.
    public func positioning(for desiredAccuracy: Double) -> Positioning {
        if desiredAccuracy <= LocationAccuracy.nearestTenMeters { return Positioning(interval: updateInterval) }
        if desiredAccuracy <= LocationAccuracy.hundredMeters {
            return Positioning(interval: max(updateInterval, Seconds(5)), error: 65)
        }
        return Positioning(interval: max(updateInterval, Seconds(60)), error: 1414)
    }

    /// Longest gap between fixes of the standard service, seconds (Apple: about 1 Hz); longer
    /// gaps between route points are filled by interpolation (none when it is not above zero).
    public var updateInterval = Seconds(1)
    /// Vertical accuracy reported when the route has altitude, metres.
    public var verticalAccuracy = 3.0

    /// The iOS release whose rules apply (`--ios-version`, scenario `iosVersion`). Up to iOS 12,
    /// region monitoring needs Always, and When In Use gets `regionMonitoringDenied` (4). From
    /// iOS 13, When In Use allows every location service, region monitoring included, with events
    /// delivered while the app is in use (Apple, "Choosing the Location Services Authorization to
    /// Request"; `CLAuthorizationStatus.authorizedWhenInUse`). Default: 26, the release current
    /// when this was written; the rules modelled here are the same from 13 on.
    public var iosVersion = 26

    /// `NSLocationRequireExplicitServiceSession` in the app's Info.plist (iOS 18): no implicit
    /// session; live updates and monitor events need an explicit `CLServiceSession` requiring
    /// authorization, else they report `serviceSessionRequired`.
    public var requiresExplicitServiceSession = false
    /// Seconds after a launch within which the app must recreate the sessions it held before
    /// termination, or they end (an Apple engineer, developer forums thread 797319: "the system
    /// expects you to immediately recreate a new CLServiceSession within a few seconds of launch").
    public var serviceSessionResumeWindow = Seconds(5)

    /// The releases the profiles cover: iOS 8 introduced the Always / When In Use split.
    public static let iosVersions = 8...26

    public init() {}

    /// Whether `status` lets the app monitor regions under this release's rules.
    public func allowsRegionMonitoring(_ status: AuthorizationStatus) -> Bool {
        status == .authorizedAlways || (iosVersion >= 13 && status == .authorizedWhenInUse)
    }

    /// Seconds of stillness before updates pause for `activity`.
    public func pauseDelay(for activity: ActivityType) -> Seconds {
        pauseDelays[activity] ?? pauseDelays[.other] ?? Seconds(900)
    }

    /// The inward distance an entry needs for a region of `radius` metres.
    public func inwardThreshold(radius: Double) -> Double {
        Self.inwardThreshold(radius: radius, hysteresis: regionHysteresis, capFraction: regionInwardCapFraction)
    }

    /// The same from the two numbers, for what keeps them rather than the configuration.
    package static func inwardThreshold(radius: Double, hysteresis: Double, capFraction: Double) -> Double {
        min(hysteresis, radius * capFraction)
    }
}

/// `--realism` (scenario `realism`).
public enum Realism: String, Sendable, CaseIterable {
    case exact, device
}

/// What a non-exact realism adds beside region monitoring (``RegionMechanism``), each with its
/// source. Every draw comes from the manager's seed, so the same seed gives the same events.
public struct DeviceRealism: Sendable, Equatable {
    /// Significant-change wake-ups without movement: exponential gaps with this mean, seconds
    /// (Apple, Energy Efficiency Guide: "Significant-change location updates wake the system and
    /// your app once every 15 minutes, at minimum, even if no location changes have occurred";
    /// Apple DTS, forums thread 71792: "be tolerant of being resumed even if there was no location
    /// change").
    public var significantChangeHeartbeat = Seconds(900)
    /// The first fix after `startUpdatingLocation` is a cached one, up to this many seconds old, with
    /// Wi-Fi accuracy (Apple, `CLLocationManager.location`: "It is a good idea to check the
    /// timestamp of the location"; the visits service: "a recently cached value may be reported
    /// to your delegate immediately").
    public var cachedFixMaximumAge = Seconds(120)

    public init() {}
}

/// What `--realism` and a scenario's `realism` name: Apple's rules to the millisecond, or region
/// monitoring by the positioning mechanism (``RegionMechanism``) under one of its two fitted
/// parameter sets.
public enum RealismProfile: String, Sendable, CaseIterable {
    /// Apple's rules to the millisecond.
    case exact
    /// The mechanism fitted to what phones were measured doing (docs/field-calibration.md).
    case field
    /// The mechanism fitted to what Apple documents: a minimum distance "approximately 200 meters"
    /// past the boundary, notifications "within 3 to 5 minutes on average".
    case device
    /// The names of the earlier field profiles, each one published figure typed in as a
    /// parameter. Their figures are now among `field`'s calibration targets, so they run the
    /// `field` mechanism; `radar-2014` (an iOS 7 Simulator bug report, Open Radar 17064346) was
    /// no phone's behaviour to fit, and is retired.
    case radius2015 = "radius-2015"
    case reips2024 = "reips-2024"

    /// The mechanism's parameters; nil for `exact`.
    public var mechanism: RegionMechanism? {
        switch self {
        case .exact: nil
        case .field, .radius2015, .reips2024: .field
        case .device: .device
        }
    }

    /// Sets the configuration's realism and, for a non-exact profile, its mechanism.
    public func apply(to configuration: inout LocationManagerConfiguration) {
        configuration.realism = self == .exact ? .exact : .device
        if let mechanism { configuration.regionMechanism = mechanism }
    }
}
