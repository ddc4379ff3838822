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
/// get every event, in the log's order, and only as iOS would deliver them to an app in its
/// current state.
/// Behaviour and numbers: ``LocationManagerConfiguration``.
///
/// The manager is a thin façade over one value, `LocationManagerCore`, which holds its state and
/// its rules and is tested as a value. The façade turns each call into one of the core's steps
/// (the device at a sample, the user in Settings, iOS moving the app, the app's calls), then hands
/// what the step emitted to the app. The core is composed of state machines, each tested on its
/// own: ``AuthorizationStateMachine`` (authorization, the prompt, Allow Once, provisional Always,
/// accuracy), ``LocationServicesStateMachine`` (standard, significant change, visits,
/// `requestLocation()`, pauses, live updates), ``RegionMonitor`` and ``ConditionMonitor``; and one
/// rule, ``Availability``, says why an API cannot deliver now. App code never runs during a step:
/// a delegate's calls are taken after the step whose events it receives (as iOS's location daemon
/// does not wait for the app), except that iOS runs the app's launch code before the event it
/// launched the app for — the step stops there and goes on after it.
public final class SimulatedLocationManager {
    public weak var delegate: (any SimulatedLocationManagerDelegate)? {
        didSet { listens = listens || delegate != nil }
    }
    /// Receives every event with its time: the app's or a test's own hook, which Waypost never
    /// sets or replaces (a simulation reads the manager's log instead).
    public var observer: ((TimedEvent) -> Void)? {
        didSet { listens = listens || observer != nil }
    }
    /// The app's code for lifecycle moves, called after each with the state it left: its start-up
    /// when the user launches a terminated app; its launch code when iOS relaunches it into the
    /// background for a location event (before that event is delivered); its restart of updates
    /// when it comes back to the foreground.
    public var lifecycleHandler: ((SimulatedLocationManager, AppState) -> Void)?

    /// `desiredAccuracy`, metres or a ``LocationAccuracy`` constant: it chooses the positioning
    /// source, so both the error of fixes and how often they come
    /// (``LocationManagerConfiguration/positioning(for:)``); ``LocationAccuracy/reduced`` asks for
    /// approximate locations whatever the authorization (iOS 14).
    public var desiredAccuracy: Double {
        get { core.desiredAccuracy }
        set { core.desiredAccuracy = newValue }
    }
    /// `distanceFilter`: metres from the last delivered fix; ``LocationAccuracy/distanceFilterNone`` delivers all.
    public var distanceFilter: Double {
        get { core.distanceFilter }
        set { core.distanceFilter = newValue }
    }
    /// `allowsBackgroundLocationUpdates`: standard updates go on in the background (the app keeps
    /// running, and counts as in use).
    public var allowsBackgroundLocationUpdates: Bool {
        get { core.allowsBackgroundLocationUpdates }
        set { core.allowsBackgroundLocationUpdates = newValue }
    }
    /// `pausesLocationUpdatesAutomatically` (true by default, as on iOS).
    public var pausesLocationUpdatesAutomatically: Bool {
        get { core.pausesLocationUpdatesAutomatically }
        set { core.pausesLocationUpdatesAutomatically = newValue }
    }
    /// `activityType`: how long the device must be still before updates pause.
    public var activityType: ActivityType {
        get { core.activityType }
        set { core.activityType = newValue }
    }
    /// The most recently delivered fix.
    public var location: Location? { core.location }
    /// `CLLocationManager.locationServicesEnabled()`: Location Services on for the whole device.
    public var locationServicesEnabled: Bool { core.locationServicesEnabled }
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
    /// How many of the log's events the app has been handed (see ``hand(since:)``). Unchecked
    /// as ``core`` is (no access to it spans a call): read and written at every sample, its
    /// checks were 4.5 % of a text replay's time (farm-bench, 9 pairs; trials and a crowd
    /// unchanged). `listens` too made a crowd 1.6 % slower: left checked.
    @exclusivity(unchecked) private var handed = 0
    /// The ``events`` sequence's end, when one was asked for.
    private var continuation: AsyncStream<TimedEvent>.Continuation? {
        didSet { listens = listens || continuation != nil }
    }
    /// Whether anyone was ever given the events (a delegate, an observer, the sequence): a run
    /// without them skips handing events on, where reading the three at every sample was 2 % of
    /// a crowd's CPU (perf, 3,000 devices).
    private var listens = false
    /// Set while iOS 14+'s authorization callback runs for a status change: the status a delegate
    /// without that callback receives through the deprecated one.
    var statusForDeprecatedCallback: AuthorizationStatus?
    /// Apple's rules and numbers for this device.
    public let configuration: LocationManagerConfiguration

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
        self.core = LocationManagerCore(
            status: status, authorizationAnswer: authorizationAnswer, answerDelay: answerDelay,
            accuracyAuthorization: accuracyAuthorization, locationServicesEnabled: locationServicesEnabled,
            noise: noise, seed: seed, startTime: startTime, configuration: configuration)
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

    /// Reports the authorization as CoreLocation does when a manager is made, and the accuracy
    /// authorization when it is reduced. A manager reports its own creation at its first step;
    /// call this where the app makes a manager again (a relaunch), or to place the creation's
    /// report yourself before that step (it is then not made twice).
    public func reportInitialAuthorization() {
        run(.reportInitialAuthorization)
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
        run(.requestAuthorization(always: false))
    }

    /// From iOS 13 the prompt offers While Using, not Always: "Allow While Using App" gives
    /// provisional Always, settled by a second prompt at the first use in the background (Apple,
    /// WWDC 2019 "What's New in Core Location"). An app already When In Use gets that second
    /// prompt at once, once only ("further calls have no effect"); under Allow Once, never.
    public func requestAlwaysAuthorization() {
        run(.requestAuthorization(always: true))
    }

    /// The user changes the app's location permission (Settings, or a prompt answer), now or at
    /// a later virtual `time`.
    public func changeAuthorization(to status: AuthorizationStatus, at time: EpochInstant? = nil) {
        run(.changeAuthorization(status, at: time))
    }

    /// Asks for precise locations while the app is in use (`requestTemporaryFullAccuracyAuthorization(withPurposeKey:)`,
    /// iOS 14), now or at a later virtual `time`; the answer is ``grantsTemporaryFullAccuracy``.
    /// The purpose key names the Info.plist explanation shown to the user.
    public func requestTemporaryFullAccuracyAuthorization(
        withPurposeKey purposeKey: String, at time: EpochInstant? = nil
    ) {
        run(.requestTemporaryFullAccuracy(at: time))
    }

    // MARK: - The app's lifecycle

    /// The app moves to `state` (the user switching apps, iOS suspending or terminating it), now
    /// or at a later virtual `time`. Standard updates end with the app; monitored regions, the
    /// significant-change service and visits survive it and relaunch an app authorized Always.
    public func changeAppState(to state: AppState, at time: EpochInstant? = nil) {
        run(.changeAppState(state, at: time))
    }

    /// Whether the app is in use as iOS counts it: in the foreground, or running in the background
    /// with background location updates on (the status-bar indicator).
    public var isInUse: Bool { core.isInUse }

    // MARK: - The world

    /// The device is at `sample` (its true position) at `sample.time`: deliver what a real
    /// device's location manager would.
    public func move(to sample: DeviceSample) {
        run(.move(sample))
    }

    /// Under a non-exact realism, whether no region event is on its way: a resting device may stop.
    var fieldIsSettled: Bool { core.fieldIsSettled }

    // MARK: - Delivery

    /// Appends the events emitted since the last call to `buffer`, each named for `device`, and
    /// empties the log: how a simulation (and a run's launch) takes the manager's events.
    public func drainEmitted(into buffer: inout [TimedEvent], device: String?) {
        core.drainEmitted(into: &buffer, device: device)
        handed = 0
    }

    /// Exchanges the manager's log with `log`, whose events all count as handed to the app: a
    /// crowd's window lends its events' array so that a device's events are appended where the
    /// window keeps them, not moved there one by one from the manager's log (perf: 7 % of a
    /// 10,000-device crowd's CPU), and takes it back, with them, by a second exchange. The events
    /// are not named for a device. Only between steps, when every event has been handed, and
    /// with one of the two logs empty: the manager's own is, between the window's turns.
    package func exchangeLog(_ log: inout [TimedEvent]) {
        assert(core.emitted.isEmpty || log.isEmpty, "a log exchanged while both hold events")
        swap(&core.emitted, &log)
        handed = core.emitted.count
    }

    /// How many events the manager's log holds.
    package var loggedCount: Int { core.emitted.count }

    /// Takes `input` as a step of the core and hands its events to the app; where iOS runs the
    /// app's lifecycle code, runs it and goes on with the step.
    func run(_ input: LocationManagerCore.Input) {
        var input = input
        while true {
            let start = core.emitted.count
            let action = core.step(input)
            hand(since: start)
            guard case .runLifecycleHandler(let previous) = action else { return }
            lifecycleHandler?(self, previous)
            input = .resume
        }
    }

    /// Hands the log's events from `start` on to the app, in order. A call the app makes from a
    /// callback is a step of its own, whose events are placed right after the one being handed,
    /// before the rest: the order the log would have, had the app's call come at that event.
    private func hand(since start: Int) {
        guard listens else {
            handed = core.emitted.count
            return
        }
        handToListeners(since: start)
    }

    /// ``hand(since:)`` for a manager someone listens to. Apart: the stream's continuation, a
    /// type whose size is known only at run time, had its metadata looked up at every sample of
    /// every manager, listened to or not (perf: 0.6 % of a 10,000-device crowd).
    @inline(never) private func handToListeners(since start: Int) {
        let count = core.emitted.count - start
        if handed < start {
            let new = core.emitted[start...]
            core.emitted.removeSubrange(start...)
            core.emitted.insert(contentsOf: new, at: handed)
        }
        for _ in 0..<count {
            let timed = core.emitted[handed]
            handed += 1
            observer?(timed)
            continuation?.yield(timed)
            if let delegate { call(delegate, with: timed, after: handed > 1 ? core.emitted[handed - 2] : nil) }
        }
    }

    /// Calls the delegate's method for `timed`. One time for one event: during the callback the
    /// manager's clock reads the instant the stream reports (a crossing's, between two samples),
    /// as a device's does at delivery; what the delegate starts then starts at that instant. The
    /// clock never goes back after.
    private func call(
        _ delegate: any SimulatedLocationManagerDelegate, with timed: TimedEvent, after previous: TimedEvent?
    ) {
        let resume = now
        core.now = timed.time
        defer { core.now = max(resume, now) }
        switch timed.event {
        case .authorizationChanged(let status):
            // iOS 14 deprecated the status callback for `locationManagerDidChangeAuthorization(_:)`
            // (WWDC20 "What's new in location"); a delegate without it gets the deprecated one
            // through that method's default (SimulatedLocationManagerDelegate.swift).
            guard configuration.iosVersion >= 14 else {
                return delegate.locationManager(self, didChangeAuthorization: status)
            }
            statusForDeprecatedCallback = status
            delegate.locationManagerDidChangeAuthorization(self)
            statusForDeprecatedCallback = nil
        case .accuracyAuthorizationChanged:
            // Accuracy authorization is iOS 14's; no earlier callback carries it. Reported with the
            // status (a manager created with reduced accuracy), it is the same authorization: one
            // call, as at any creation ("The system calls this method when the app creates the
            // related object's CLLocationManager instance"); it was called twice.
            guard configuration.iosVersion >= 14 else { return }
            if let previous, case .authorizationChanged = previous.event, previous.time == timed.time { return }
            delegate.locationManagerDidChangeAuthorization(self)
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

    // MARK: - Standard and significant-change services

    /// Starts the standard service; after an automatic pause this is what resumes it, as iOS
    /// never resumes updates by itself.
    public func startUpdatingLocation() {
        run(.startUpdatingLocation)
    }

    public func stopUpdatingLocation() {
        core.services.stopUpdating()
    }

    public func startMonitoringSignificantLocationChanges() {
        run(.startSignificantChanges)
    }

    public func stopMonitoringSignificantLocationChanges() {
        core.services.stopSignificantChanges()
    }

    public func startMonitoringVisits() {
        core.services.setVisits(true)
    }

    public func stopMonitoringVisits() {
        core.services.setVisits(false)
    }

    /// `requestLocation()` (iOS 9), now or at a later virtual `time`: "Only one location fix is
    /// reported to the delegate, after which location services are stopped" — the fix comes at the
    /// next instant the device has one (at the desired accuracy, approximate under reduced
    /// accuracy); if none comes within ``LocationManagerConfiguration/requestLocationTimeout``,
    /// `didFailWithError` with `kCLErrorLocationUnknown` ("If a location fix cannot be determined in
    /// a timely manner, the location manager calls the delegate's locationManager(_:didFailWithError:)
    /// method instead", Apple, `requestLocation()`). An app refused location gets
    /// `kCLErrorDenied` at once.
    public func requestLocation(at time: EpochInstant? = nil) {
        run(.requestLocation(at: time))
    }

    // MARK: - Region monitoring

    /// Registers `region`. Before the user has answered the prompt the region is kept, and
    /// monitored once authorization allows it, as iOS does; refused authorization fails it.
    /// Monitoring begins with `didStartMonitoringFor` and, once a fix is known, the region's
    /// state through `didDetermineState` — never an entry or exit for where the device already is.
    public func startMonitoring(for region: CircularRegion) {
        run(.startMonitoring(region))
    }

    /// Makes room for `count` more monitored regions, for a caller about to start monitoring a
    /// whole list (no call of the API this stands in for; it changes no event).
    func reserveRegionCapacity(_ count: Int) {
        core.regions.reserveCapacity(forAdditional: count)
    }

    /// The same for `count` more `CLMonitor` conditions, `beacons` of them beacon ones.
    func reserveConditionCapacity(_ count: Int, beacons: Int) {
        core.conditions.reserveCapacity(forAdditional: count, beacons: beacons)
    }

    public func stopMonitoring(for region: CircularRegion) {
        core.stopMonitoring(region.identifier)
    }

    /// Asks for a region's state; the answer comes through `didDetermineState` at the next
    /// instant, not during this call.
    public func requestState(for region: CircularRegion) {
        core.stateRequests.append((region, now))
    }
}
