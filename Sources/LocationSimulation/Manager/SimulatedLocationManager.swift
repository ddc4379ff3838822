import Geo
import LocationEvents
import SimulatedTime
import WaypostSupport

/// Where the device really is at one instant of a run, and whether it has a signal there.
public struct DeviceSample: Sendable, Equatable {
    /// Virtual time.
    public var time: EpochInstant
    public var coordinate: Coordinate
    public var altitude: Double?
    public var speed: Double?
    public var course: Double?
    /// False inside a scripted signal gap (a tunnel): no fixes, no region evaluation.
    public var hasSignal: Bool

    public init(
        time: EpochInstant, coordinate: Coordinate, altitude: Double? = nil, speed: Double? = nil,
        course: Double? = nil,
        hasSignal: Bool = true
    ) {
        self.time = time
        self.coordinate = coordinate
        self.altitude = altitude
        self.speed = speed
        self.course = course
        self.hasSignal = hasSignal
    }
}

/// A location manager that behaves like CoreLocation's `CLLocationManager` for a simulated
/// device and app: standard and significant-change updates, circular region monitoring with
/// Apple's thresholds, visits, authorization as each iOS release grants it, accuracy
/// authorization, automatic pauses, and the app's lifecycle — on virtual time.
///
/// The app side is CoreLocation's API; the world side is ``move(to:)``, which a ``Simulation``
/// calls with the device's true position at each instant, ``changeAuthorization(to:at:)``, the
/// user changing Settings, and ``changeAppState(to:at:)``, the user or iOS moving the app
/// between foreground, background, suspension and termination.
///
/// ```swift
/// let manager = SimulatedLocationManager(authorizationAnswer: .allowAlways)
/// manager.delegate = app
/// manager.requestAlwaysAuthorization()
/// manager.startMonitoring(for: CircularRegion(identifier: "cafe", center: cafe, radius: 150))
/// manager.startUpdatingLocation()
/// ```
///
/// Every event goes out on one channel: the manager's log of what it emitted, which a
/// ``Simulation``'s stream takes (``drainEmitted(into:device:)``) — the launch's events too, so a
/// library user's stream is the CLI's from its first line. The ``delegate``, the ``observer``
/// closure (the app's or a test's own: Waypost never sets it) and the ``events`` sequence each
/// get every event as it is emitted, in virtual-time order, and only as iOS would deliver them
/// to an app in its current state.
/// Behaviour and numbers: ``LocationManagerConfiguration``.
///
/// The manager is a façade over one value, `LocationManagerCore` (its state, tested as a value),
/// composed of state machines, each tested on its own:
/// ``AuthorizationStateMachine`` (authorization, the prompt, Allow Once, provisional Always,
/// accuracy), ``LocationServicesStateMachine`` (standard, significant change, visits,
/// `requestLocation()`, pauses, live updates), ``RegionMonitor`` and ``ConditionMonitor``; and
/// one rule, ``Availability``, says why an API cannot deliver now. A machine's `mutating func`
/// settles its state and returns what must happen; only then does the façade call the app (its
/// delegate, its lifecycle handler), so app code never runs while a machine is being changed.
public final class SimulatedLocationManager {
    public weak var delegate: (any SimulatedLocationManagerDelegate)?
    /// Receives every event with its time: the app's or a test's own hook, which Waypost never
    /// sets or replaces (a simulation reads the manager's log instead).
    public var observer: ((TimedEvent) -> Void)?
    /// The app's code for lifecycle moves, called after each with the state it left: its start-up
    /// when the user launches a terminated app (not when iOS relaunches it into the background
    /// for a location event), its restart of updates when it comes back to the foreground.
    public var lifecycleHandler: ((SimulatedLocationManager, AppState) -> Void)?

    /// `desiredAccuracy`, metres or a ``LocationAccuracy`` constant: it chooses the positioning
    /// source, so both the error of fixes and how often they come
    /// (``LocationManagerConfiguration/positioning(for:)``); ``LocationAccuracy/reduced`` asks for
    /// approximate locations whatever the authorization (iOS 14).
    public var desiredAccuracy = LocationAccuracy.best {
        didSet { core.fixes.desiredAccuracyChanged(to: desiredAccuracy) }
    }
    /// `distanceFilter`: metres from the last delivered fix; ``LocationAccuracy/distanceFilterNone`` delivers all.
    public var distanceFilter = LocationAccuracy.distanceFilterNone
    /// `allowsBackgroundLocationUpdates`: standard updates go on in the background (the app keeps
    /// running, and counts as in use).
    public var allowsBackgroundLocationUpdates = false
    /// `pausesLocationUpdatesAutomatically` (true by default, as on iOS).
    public var pausesLocationUpdatesAutomatically = true
    /// `activityType`: how long the device must be still before updates pause.
    public var activityType = ActivityType.other {
        didSet { core.pauseDelay = configuration.pauseDelay(for: activityType) }
    }
    /// The most recently delivered fix.
    public var location: Location? { core.location }
    /// `CLLocationManager.locationServicesEnabled()`: Location Services on for the whole device.
    public let locationServicesEnabled: Bool
    public var appState: AppState { core.appState }
    public var maximumRegionMonitoringDistance: Double { configuration.maximumRegionMonitoringDistance }
    /// The regions being monitored.
    public var monitoredRegions: Set<CircularRegion> { Set(core.regions.regions) }
    /// The current virtual time: the last instant the manager was moved to — and, during a
    /// delegate callback, the instant the event stream reports for the event being delivered.
    public var now: EpochInstant { core.now }

    /// The manager's state, one value. The manager is driven from one thread at a time (like
    /// CLLocationManager), and no access to it spans app code: the core's steps return before the
    /// façade calls the app, so the runtime's exclusivity checks are left out
    /// (``LocationManagerCore`` has the measurement).
    @exclusivity(unchecked) package internal(set) var core: LocationManagerCore
    /// The ``events`` sequence's end, when one was asked for: read at every event emitted, on the
    /// core's thread, so unchecked for the core's reason.
    @exclusivity(unchecked) var continuation: AsyncStream<TimedEvent>.Continuation?
    /// Apple's rules and numbers for this device (stored after the state every sample touches).
    public let configuration: LocationManagerConfiguration
    /// Distances are compared to the micrometre, so a route exactly at a threshold meets it.
    static let tolerance = 1e-6

    /// - Parameters:
    ///   - status: the authorization at creation (default: not determined, as on first launch).
    ///   - authorizationAnswer: how the user answers the prompt when the app asks…
    ///   - answerDelay: …and how long after the request.
    ///   - accuracyAuthorization: precise or approximate locations (iOS 14+).
    ///   - locationServicesEnabled: false: Location Services are off for the whole device, and
    ///     every app is denied.
    ///   - noise: the error model of fixes (default: none — fixes lie on the route).
    ///   - seed: seeds the noise; the same seed gives the same fixes.
    ///   - startTime: virtual time of creation.
    public init(
        status: AuthorizationStatus = .notDetermined, authorizationAnswer: AuthorizationAnswer? = nil,
        answerDelay: Seconds = .zero, accuracyAuthorization: AccuracyAuthorization = .fullAccuracy,
        locationServicesEnabled: Bool = true, noise: NoiseModel = NoiseModel(.none), seed: UInt64 = 0,
        startTime: EpochInstant = EpochInstant(secondsSince1970: 0),
        configuration: LocationManagerConfiguration = LocationManagerConfiguration()
    ) {
        self.configuration = configuration
        // With Location Services off every app reads as denied (`CLAuthorizationStatus.denied`).
        self.core = LocationManagerCore(
            status: locationServicesEnabled ? status : .denied, authorizationAnswer: authorizationAnswer,
            answerDelay: answerDelay, accuracyAuthorization: accuracyAuthorization, noise: noise, seed: seed,
            startTime: startTime, configuration: configuration)
        self.locationServicesEnabled = locationServicesEnabled
    }

    /// Every event from now on as an async sequence.
    /// Events are buffered until read; ask for the sequence only if you read it.
    public var events: AsyncStream<TimedEvent> {
        let (stream, continuation) = AsyncStream<TimedEvent>.makeStream()
        self.continuation = continuation
        return stream
    }

    /// Ends the ``events`` sequence.
    public func finish() {
        continuation?.finish()
    }

    /// Reports the authorization at creation, as CoreLocation does when a manager is made, and
    /// the accuracy authorization when it is reduced.
    public func reportInitialAuthorization() {
        emit(.authorizationChanged(authorizationStatus))
        if accuracyAuthorization == .reducedAccuracy { emit(.accuracyAuthorizationChanged(.reducedAccuracy)) }
    }

    // MARK: - Authorization

    public var authorizationStatus: AuthorizationStatus { core.authorization.status }
    /// `accuracyAuthorization` (iOS 14+).
    public var accuracyAuthorization: AccuracyAuthorization { core.authorization.accuracyAuthorization }
    /// Whether the Always status is provisional (iOS 13+): granted by "Allow While Using App" to an
    /// Always request, until the upgrade prompt at the first use in the background.
    public var isProvisionalAlways: Bool { core.authorization.isProvisionalAlways }
    /// Whether the When In Use status came from "Allow Once" and ends when the app leaves use.
    public var isOneTimeAuthorization: Bool { core.authorization.isOneTime }
    /// How and when the user answers the prompt when the app first asks (answer nil: nobody does).
    public var prompt: PromptScript {
        get { core.authorization.script }
        set { core.authorization.script = newValue }
    }
    /// The user's answer when the app asks for temporary full accuracy.
    public var grantsTemporaryFullAccuracy: Bool {
        get { core.authorization.grantsTemporaryFullAccuracy }
        set { core.authorization.grantsTemporaryFullAccuracy = newValue }
    }

    public func requestWhenInUseAuthorization() {
        perform(
            core.authorization.request(wantsAlways: false, locationServicesEnabled: locationServicesEnabled, now: now))
    }

    /// From iOS 13 the prompt offers While Using, not Always: "Allow While Using App" gives
    /// provisional Always, settled by a second prompt at the first use in the background (Apple,
    /// WWDC 2019 "What's New in Core Location"). An app already When In Use gets that second
    /// prompt at once, once only ("further calls have no effect"); under Allow Once, never.
    public func requestAlwaysAuthorization() {
        perform(
            core.authorization.request(wantsAlways: true, locationServicesEnabled: locationServicesEnabled, now: now))
    }

    /// The user changes the app's location permission (Settings, or a prompt answer), now or at
    /// a later virtual `time`.
    public func changeAuthorization(to status: AuthorizationStatus, at time: EpochInstant? = nil) {
        if let time { core.now = max(now, time) }
        perform(core.authorization.change(to: status))
    }

    /// Asks for precise locations while the app is in use (`requestTemporaryFullAccuracyAuthorization(withPurposeKey:)`,
    /// iOS 14), now or at a later virtual `time`; the answer is ``grantsTemporaryFullAccuracy``.
    /// The purpose key names the Info.plist explanation shown to the user.
    public func requestTemporaryFullAccuracyAuthorization(
        withPurposeKey purposeKey: String, at time: EpochInstant? = nil
    ) {
        if let time { core.now = max(now, time) }
        perform(core.authorization.requestTemporaryFullAccuracy(isInUse: isInUse))
    }

    /// Whether the app has asked for Always once already (iOS shows that prompt once).
    var hasAskedForAlways: Bool { core.authorization.upgradeAsked }

    /// Carries out what the authorization machine decided, its state already settled.
    func perform(_ actions: [AuthorizationStateMachine.Action]) {
        for action in actions {
            switch action {
            case .authorizationChanged(let status): authorizationChanged(to: status)
            case .accuracyChanged(let accuracy):
                emit(.accuracyAuthorizationChanged(accuracy))
                refreshMonitoringBlockers()
            case .promptShown: refreshMonitoringBlockers()
            }
        }
    }

    /// What a new status starts and stops: `didChangeAuthorization`; a refusal fails the running
    /// services (`kCLErrorDenied`); regions kept before the answer start, or fail when the status
    /// does not allow them.
    private func authorizationChanged(to status: AuthorizationStatus) {
        emit(.authorizationChanged(status))
        if delegateAvailability(hasSignal: true).isRefusal && core.services.deliversFixes {
            emit(.failed(LocationError(.denied, "location access is \(status)")))
        }
        refreshMonitoringBlockers()
        if status == .notDetermined { return }
        if regionMonitoringAllowed {
            var starting: [CircularRegion] = []
            for identifier in core.awaitingOrder {
                if let region = core.awaitingStart.removeValue(forKey: identifier) { starting.append(region) }
            }
            (core.awaitingStart, core.awaitingOrder) = ([:], [])
            for region in starting { begin(region) }
        } else {
            for region in core.regions.regions { emit(.monitoringFailed(region, monitoringDenied)) }
        }
    }

    // MARK: - The app's lifecycle

    /// The app moves to `state` (the user switching apps, iOS suspending or terminating it), now
    /// or at a later virtual `time`. Standard updates end with the app; monitored regions, the
    /// significant-change service and visits survive it and relaunch an app authorized Always.
    public func changeAppState(to state: AppState, at time: EpochInstant? = nil) {
        if let time { core.now = max(now, time) }
        guard state != appState else { return }
        let previous = appState
        core.appState = state
        if state == .terminated {
            core.services.appTerminated()
            iterationChanged(iterating: core.conditions.isMonitoring)
        }
        emit(.appStateChanged(state))
        if previous == .terminated { sessionsRelaunched(at: now) }
        if isInUse {
            core.authorization.enteredUse()
        } else {
            perform(core.authorization.leftUse(terminated: appState == .terminated, now: now))
        }
        refreshMonitoringBlockers()
        lifecycleHandler?(self, previous)
    }

    /// Whether the app is in use as iOS counts it: in the foreground, or running in the background
    /// with background location updates on (the status-bar indicator).
    public var isInUse: Bool {
        switch appState {
        case .foreground: true
        case .background, .suspended:
            core.services.isUpdating && allowsBackgroundLocationUpdates && authorizationStatus.allowsLocation
        case .terminated: false
        }
    }

    /// Whether an event of a background-capable service (regions, significant changes, visits)
    /// reaches the app now: always while in use; otherwise only with Always, waking a suspended
    /// app or relaunching a terminated one (an ``LocationEvent/appLaunched(_:)`` first). Provisional
    /// Always is settled here, by the upgrade prompt iOS shows at the first such use.
    func deliversInBackground(_ reason: LaunchReason, relaunch: Bool = true, at time: EpochInstant? = nil) -> Bool {
        // iOS 8–12: When In Use "cannot use any services that automatically relaunch the app, such
        // as region monitoring or the significant location change service" (Apple,
        // `requestWhenInUseAuthorization()`, iOS 8 reference); visits are such a service too.
        if configuration.iosVersion < 13 && authorizationStatus != .authorizedAlways { return false }
        if isInUse { return true }
        guard authorizationStatus == .authorizedAlways, relaunch || appState != .terminated,
            settleProvisionalAlways()
        else { return false }
        if appState == .terminated {
            core.appState = .background
            emit(.appLaunched(reason), at: time)
            sessionsRelaunched(at: time ?? now)
            // The app's launch code: it recreates its sessions at once, as Apple requires.
            lifecycleHandler?(self, .terminated)
        }
        return true
    }

    /// The first use of Always while the app is not in use: provisional Always is settled by the
    /// upgrade prompt. True when Always holds.
    func settleProvisionalAlways() -> Bool {
        let (holds, actions) = core.authorization.settleProvisionalAlways()
        perform(actions)
        return holds
    }

    // MARK: - Availability

    /// ``Availability`` for the delegate API: what the status and Location Services allow, with
    /// the signal (use decides delivery separately, by service).
    func delegateAvailability(hasSignal: Bool) -> Availability {
        Availability(
            .init(
                locationServicesEnabled: locationServicesEnabled, authorizationStatus: authorizationStatus,
                accuracyAuthorization: accuracyAuthorization, hasSignal: hasSignal))
    }

    // MARK: Delivery

    /// Appends the events emitted since the last call to `buffer`, each named for `device`, and
    /// empties the log: how a simulation (and a run's launch) takes the manager's events.
    public func drainEmitted(into buffer: inout [TimedEvent], device: String?) {
        core.drainEmitted(into: &buffer, device: device)
    }

    func emit(_ event: LocationEvent, at time: EpochInstant? = nil) {
        let timed = TimedEvent(time: time ?? now, event: event)
        core.emitted.append(timed)
        observer?(timed)
        continuation?.yield(timed)
        guard let delegate else { return }
        // One time for one event: during the callback the manager's clock reads the instant the
        // stream reports (a crossing's, between two samples), as a device's does at delivery;
        // what the delegate starts then starts at that instant. The clock never goes back after.
        let resume = now
        core.now = timed.time
        defer { core.now = max(resume, now) }
        switch event {
        case .authorizationChanged(let status):
            // iOS 14 deprecated the status callback for `locationManagerDidChangeAuthorization(_:)`
            // (WWDC20 "What's new in location"); a delegate without it gets the deprecated one
            // through that method's default (SimulatedLocationManagerDelegate.swift).
            guard configuration.iosVersion >= 14 else {
                return delegate.locationManager(self, didChangeAuthorization: status)
            }
            core.statusForDeprecatedCallback = status
            delegate.locationManagerDidChangeAuthorization(self)
            core.statusForDeprecatedCallback = nil
        case .accuracyAuthorizationChanged:
            // Accuracy authorization is iOS 14's; no earlier callback carries it.
            if configuration.iosVersion >= 14 { delegate.locationManagerDidChangeAuthorization(self) }
        case .locationUpdated(let fix, _): delegate.locationManager(self, didUpdateLocations: [fix])
        case .failed(let error): delegate.locationManager(self, didFailWithError: error)
        case .enteredRegion(let region, _): delegate.locationManager(self, didEnterRegion: region)
        case .exitedRegion(let region, _): delegate.locationManager(self, didExitRegion: region)
        case .determinedState(let state, let region):
            delegate.locationManager(self, didDetermineState: state, for: region)
        case .startedMonitoring(let region): delegate.locationManager(self, didStartMonitoringFor: region)
        case .monitoringFailed(let region, let error):
            delegate.locationManager(self, monitoringDidFailFor: region, withError: error)
        case .visited(let visit): delegate.locationManager(self, didVisit: visit)
        case .locationUpdatesPaused: delegate.locationManagerDidPauseLocationUpdates(self)
        case .locationUpdatesResumed: delegate.locationManagerDidResumeLocationUpdates(self)
        case .appStateChanged, .appLaunched, .monitorEvent, .liveUpdate, .sessionDiagnostic: break
        }
    }
}
