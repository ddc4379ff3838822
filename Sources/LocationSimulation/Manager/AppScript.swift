import LocationEvents
import SimulatedTime

/// The simulated app and what happens to it during a run: what the app does when it launches
/// (ask for Always, set its accuracy, monitor its regions, start its services), how the user
/// answers, and the script of Settings changes and lifecycle moves. `waypost replay` and scenario
/// files both describe a device this way.
///
/// ```swift
/// var app = AppScript(regions: [cafe])
/// app.prompt = PromptScript("when-in-use@60")!
/// app.appStates = [(at: 600, state: .background), (at: 1_200, state: .terminated)]
/// try app.validate(iosVersion: 26)
/// let manager = app.makeManager(startTime: EpochInstant(secondsSince1970: t0))
/// app.launch(manager)
/// let device = SimulatedDevice(route: route, manager: manager, script: app.script(from: t0))
/// ```
public struct AppScript: Sendable {
    /// The location service the app starts.
    public enum Mode: String, Sendable, CaseIterable {
        case standard, significantChange = "significant-change", none
    }

    /// The Core Location API the app is written against (`--api`, scenario `api`).
    public enum API: String, Sendable, CaseIterable, Comparable {
        /// `CLLocationManager` and its delegate: `mode`'s service, regions, visits.
        case delegate
        /// `CLMonitor` (iOS 17): each region a `CircularGeographicCondition`, each beacon a
        /// `BeaconIdentityCondition`, in the monitor named ``AppScript/monitorName``.
        case monitor
        /// `CLLocationUpdate.liveUpdates` (iOS 17) with ``AppScript/liveConfiguration``.
        case liveUpdates = "live-updates"

        public static func < (a: Self, b: Self) -> Bool {
            (allCases.firstIndex(of: a) ?? 0) < (allCases.firstIndex(of: b) ?? 0)
        }
    }

    /// The APIs the app uses; one run can show several on the same route.
    public var apis: Set<API> = [.delegate]
    public var liveConfiguration = LiveConfiguration.default
    /// The beacons in the world (heard by every API; watched by the monitor).
    public var beacons: [PlacedBeacon] = []
    /// The name the app's `CLMonitor` is created with (its records persist under it).
    public var monitorName = "waypost"
    /// The `CLServiceSession` the app holds from launch (iOS 18), if any: it asks for this
    /// authorization instead of the app calling `requestAlwaysAuthorization()`.
    public var serviceSession: ServiceSessionRequirement?
    /// The session's full-accuracy purpose key (an Info.plist `NSLocationTemporaryUsageDescriptionDictionary` key).
    public var fullAccuracyPurposeKey: String?
    /// The app holds a `CLBackgroundActivitySession` from launch (iOS 17).
    public var backgroundActivitySession = false
    /// `NSLocationRequireExplicitServiceSession` in the app's Info.plist (iOS 18).
    public var requiresExplicitServiceSession = false

    public var mode = Mode.standard
    public var desiredAccuracy = LocationAccuracy.best
    public var distanceFilter = LocationAccuracy.distanceFilterNone
    public var visits = false
    public var regions: [CircularRegion] = []
    /// `allowsBackgroundLocationUpdates` (with the location background mode).
    public var backgroundUpdates = false
    public var pausesAutomatically = true
    public var activityType = ActivityType.other

    /// The user's answer to the prompt, and when.
    public var prompt = PromptScript(answer: .allowAlways)
    public var accuracyAuthorization = AccuracyAuthorization.fullAccuracy
    public var locationServicesEnabled = true
    /// Settings changes, at seconds from the run's start.
    public var authorizationChanges: [(at: Seconds, status: AuthorizationStatus)] = []
    /// Lifecycle moves, at seconds from the run's start; the app starts in the foreground.
    public var appStates: [(at: Seconds, state: AppState)] = []
    /// Seconds from the start at which the app asks for temporary full accuracy (granted).
    public var temporaryFullAccuracyAt: Seconds?
    /// Seconds from the start at which the app calls `requestLocation()` (one fix, or
    /// `locationUnknown` when none comes within ``LocationManagerConfiguration/requestLocationTimeout``).
    public var requestLocationAt: [Seconds] = []

    public init(regions: [CircularRegion] = []) {
        self.regions = regions
    }

    /// A setting iOS cannot honour, or a lifecycle script iOS has no path for.
    public struct Problem: Error, Sendable, Equatable {
        public enum Setting: Sendable, Equatable {
            case prompt, accuracyAuthorization, api, serviceSession, backgroundActivitySession
            /// `requestLocation()` (iOS 9).
            case requestLocation
            /// `desiredAccuracy` (``LocationAccuracy/reduced`` exists from iOS 14).
            case desiredAccuracy
            /// `activityType` (`CLActivityType.airborne` exists from iOS 12).
            case activityType
            /// The app-state change at this index.
            case appState(Int)
        }
        public var setting: Setting
        public var message: String
    }

    /// The first problem with this script on iOS `iosVersion`, nil when it is sound.
    public func problem(iosVersion: Int) -> Problem? {
        if !requestLocationAt.isEmpty && iosVersion < 9 {
            return Problem(
                setting: .requestLocation,
                message: "requestLocation() exists from iOS 9; this device runs iOS \(iosVersion)")
        }
        if prompt.answer == .allowOnce && iosVersion < 13 {
            return Problem(
                setting: .prompt,
                message: "the 'once' answer (Allow Once) exists from iOS 13; this device runs iOS \(iosVersion)")
        }
        if accuracyAuthorization == .reducedAccuracy && iosVersion < 14 {
            return Problem(
                setting: .accuracyAuthorization,
                message: "reduced accuracy exists from iOS 14; this device runs iOS \(iosVersion)")
        }
        if desiredAccuracy == LocationAccuracy.reduced && iosVersion < 14 {
            return Problem(
                setting: .desiredAccuracy,
                message: "kCLLocationAccuracyReduced exists from iOS 14; this device runs iOS \(iosVersion)")
        }
        // Apple, `CLActivityType.airborne`: iOS 12.0+.
        if activityType == .airborne && iosVersion < 12 {
            return Problem(
                setting: .activityType,
                message: "CLActivityType.airborne exists from iOS 12; this device runs iOS \(iosVersion)")
        }
        if let api = apis.sorted().first(where: { $0 != .delegate }), iosVersion < 17 {
            return Problem(
                setting: .api,
                message: "\(api == .monitor ? "CLMonitor" : "CLLocationUpdate.liveUpdates") exists from iOS 17; "
                    + "this device runs iOS \(iosVersion)")
        }
        if iosVersion < 18 && (serviceSession != nil || requiresExplicitServiceSession) {
            return Problem(
                setting: .serviceSession,
                message: "CLServiceSession exists from iOS 18; this device runs iOS \(iosVersion)")
        }
        if fullAccuracyPurposeKey != nil && serviceSession == nil {
            return Problem(
                setting: .serviceSession, message: "a full-accuracy purpose key belongs to a service session")
        }
        if backgroundActivitySession && iosVersion < 17 {
            return Problem(
                setting: .backgroundActivitySession,
                message: "CLBackgroundActivitySession exists from iOS 17; this device runs iOS \(iosVersion)")
        }
        var state = AppState.foreground
        var last = Seconds(-.infinity)
        for (index, (at, next)) in appStates.enumerated() {
            if at < last {
                return Problem(setting: .appState(index), message: "app states must be in time order")
            }
            if !state.canChange(to: next) {
                return Problem(
                    setting: .appState(index),
                    message: "the app cannot go from \(state) to \(next)"
                        + (state == .terminated ? " (only iOS relaunches a terminated app into the background)" : ""))
            }
            (state, last) = (next, at)
        }
        return nil
    }

    /// A manager for this app, created at `startTime` with the user's answers.
    public func makeManager(
        configuration: LocationManagerConfiguration = LocationManagerConfiguration(),
        noise: NoiseModel = NoiseModel(.none), seed: UInt64 = 0, startTime: EpochInstant
    ) -> SimulatedLocationManager {
        var configuration = configuration
        configuration.requiresExplicitServiceSession = requiresExplicitServiceSession
        let manager = SimulatedLocationManager(
            status: .notDetermined, authorizationAnswer: prompt.answer, answerDelay: prompt.delay,
            accuracyAuthorization: accuracyAuthorization, locationServicesEnabled: locationServicesEnabled,
            noise: noise, seed: seed, startTime: startTime, configuration: configuration)
        // The app's launch reports the creation (``launch(_:)``), whenever the script launches it.
        manager.core.creationReportOwed = false
        manager.allowsBackgroundLocationUpdates = backgroundUpdates
        manager.pausesLocationUpdatesAutomatically = pausesAutomatically
        manager.activityType = activityType
        manager.beacons = beacons.map(\.beacon)
        manager.lifecycleHandler = { manager, previous in
            if previous == .terminated && manager.appState == .background {
                // Relaunched for an event: the manager the app creates reports the status, as at
                // any creation ("The system calls this method when the app creates the related
                // object's CLLocationManager instance", locationManagerDidChangeAuthorization(_:));
                // the app recreates its sessions at once, as Apple asks, and starts its live
                // updates again (Apple's sample "Adopting live updates in Core Location": "If
                // location updates were previously active, restart them after the background
                // launch").
                manager.reportInitialAuthorization()
                beginSessions(manager)
                if apis.contains(.liveUpdates) { manager.startLiveUpdates(liveConfiguration) }
                return
            }
            guard manager.appState == .foreground else { return }
            if previous == .terminated {
                launch(manager)
            } else if mode == .standard && apis.contains(.delegate) {
                // Back in use: restart updates an automatic pause stopped (iOS never resumes them).
                manager.startUpdatingLocation()
            }
        }
        return manager
    }

    /// The app's start-up: report the authorization, ask for Always, then monitor its regions and
    /// start its services (iOS keeps what is asked before the answer and starts it when allowed).
    public func launch(_ manager: SimulatedLocationManager) {
        manager.reportInitialAuthorization()
        if serviceSession == nil { manager.requestAlwaysAuthorization() }
        beginSessions(manager)
        if apis.contains(.delegate) {
            manager.desiredAccuracy = desiredAccuracy
            manager.distanceFilter = distanceFilter
            manager.reserveRegionCapacity(regions.count)
            for region in regions { manager.startMonitoring(for: region) }
            switch mode {
            case .standard: manager.startUpdatingLocation()
            case .significantChange: manager.startMonitoringSignificantLocationChanges()
            case .none: break
            }
            if visits { manager.startMonitoringVisits() }
        }
        if apis.contains(.monitor) {
            // A relaunched app opens its monitor by name and finds its conditions there: only
            // missing ones are added (iOS keeps a monitor's records across launches).
            let known = Set(manager.identifiers(of: monitorName))
            let conditions =
                regions.map {
                    ($0.identifier, MonitoringCondition.circularGeographic(.init(center: $0.center, radius: $0.radius)))
                }
                + beacons.map {
                    (
                        $0.identifier,
                        MonitoringCondition.beaconIdentity(
                            .init(uuid: $0.beacon.uuid, major: $0.beacon.major, minor: $0.beacon.minor))
                    )
                }
            manager.reserveConditionCapacity(
                max(0, conditions.count - known.count),
                beacons: beacons.lazy.filter { !known.contains($0.identifier) }.count)
            for (identifier, condition) in conditions where !known.contains(identifier) {
                manager.add(condition, identifier: identifier, to: monitorName)
            }
        }
        if apis.contains(.liveUpdates) { manager.startLiveUpdates(liveConfiguration) }
    }

    /// The sessions the app holds from launch.
    private func beginSessions(_ manager: SimulatedLocationManager) {
        if let serviceSession {
            manager.beginServiceSession(serviceSession, fullAccuracyPurposeKey: fullAccuracyPurposeKey)
        }
        if backgroundActivitySession { manager.beginBackgroundActivitySession() }
    }

    /// The scripted changes as absolute virtual times, for ``SimulatedDevice/script``.
    public func script(from origin: EpochInstant) -> [(time: EpochInstant, change: ScriptedChange)] {
        authorizationChanges.map { (origin.advanced(by: $0.at), .authorization($0.status)) }
            + appStates.map { (origin.advanced(by: $0.at), .appState($0.state)) }
            + (temporaryFullAccuracyAt.map {
                [(origin.advanced(by: $0), .temporaryFullAccuracy(purposeKey: "Waypost"))]
            }
                ?? [])
            + requestLocationAt.map { (origin.advanced(by: $0), .requestLocation) }
    }
}
