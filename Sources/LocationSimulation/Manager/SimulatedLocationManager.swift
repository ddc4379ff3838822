import Geo
import WaypostSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the device really is at one instant of a run, and whether it has a signal there.
public struct DeviceSample: Sendable, Equatable {
    /// Seconds since 1970, virtual time.
    public var time: Double
    public var coordinate: Coordinate
    public var altitude: Double?
    public var speed: Double?
    public var course: Double?
    /// False inside a scripted signal gap (a tunnel): no fixes, no region evaluation.
    public var hasSignal: Bool

    public init(
        time: Double, coordinate: Coordinate, altitude: Double? = nil, speed: Double? = nil, course: Double? = nil,
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
/// Events reach the ``delegate``, the ``observer`` closure and the ``events`` sequence, in
/// virtual-time order, and only as iOS would deliver them to an app in its current state.
/// Behaviour and numbers: ``LocationManagerConfiguration``.
public final class SimulatedLocationManager {
    public weak var delegate: (any SimulatedLocationManagerDelegate)?
    /// Receives every event with its time (the simulation runner's hook).
    @exclusivity(unchecked) public var observer: ((TimedEvent) -> Void)?
    /// The app's code for lifecycle moves, called after each with the state it left: its start-up
    /// when the user launches a terminated app (not when iOS relaunches it into the background
    /// for a location event), its restart of updates when it comes back to the foreground.
    @exclusivity(unchecked) public var lifecycleHandler: ((SimulatedLocationManager, AppState) -> Void)?

    public let configuration: LocationManagerConfiguration
    /// `desiredAccuracy`, metres or a ``LocationAccuracy`` constant: it chooses the positioning
    /// source, so both the error of fixes and how often they come
    /// (``LocationManagerConfiguration/positioning(for:)``).
    @exclusivity(unchecked) public var desiredAccuracy = LocationAccuracy.best {
        didSet { coarseNoise = Self.coarseNoise(configuration.positioning(for: desiredAccuracy), seed: seed) }
    }
    /// `distanceFilter`: metres from the last delivered fix; ``LocationAccuracy/distanceFilterNone`` delivers all.
    @exclusivity(unchecked) public var distanceFilter = LocationAccuracy.distanceFilterNone
    /// `allowsBackgroundLocationUpdates`: standard updates go on in the background (the app keeps
    /// running, and counts as in use).
    @exclusivity(unchecked) public var allowsBackgroundLocationUpdates = false
    /// `pausesLocationUpdatesAutomatically` (true by default, as on iOS).
    @exclusivity(unchecked) public var pausesLocationUpdatesAutomatically = true
    /// `activityType`: how long the device must be still before updates pause.
    @exclusivity(unchecked) public var activityType = ActivityType.other {
        didSet { pauseDelay = configuration.pauseDelay(for: activityType) }
    }
    /// `configuration.pauseDelay(for: activityType)`, kept as the type changes: a dictionary
    /// lookup for every fix was 4 % of a text replay.
    @exclusivity(unchecked) private var pauseDelay: Double
    /// The most recently delivered fix.
    @exclusivity(unchecked) public private(set) var location: Location?
    @exclusivity(unchecked) public private(set) var authorizationStatus: AuthorizationStatus
    /// `accuracyAuthorization` (iOS 14+).
    @exclusivity(unchecked) public private(set) var accuracyAuthorization: AccuracyAuthorization
    /// `CLLocationManager.locationServicesEnabled()`: Location Services on for the whole device.
    public let locationServicesEnabled: Bool
    /// Whether the Always status is provisional (iOS 13+): granted by "Allow While Using App" to an
    /// Always request, until the upgrade prompt at the first use in the background.
    @exclusivity(unchecked) public private(set) var isProvisionalAlways = false
    /// Whether the When In Use status came from "Allow Once" and ends when the app leaves use.
    @exclusivity(unchecked) public private(set) var isOneTimeAuthorization = false
    @exclusivity(unchecked) public private(set) var appState = AppState.foreground
    public var maximumRegionMonitoringDistance: Double { configuration.maximumRegionMonitoringDistance }
    /// The regions being monitored.
    public var monitoredRegions: Set<CircularRegion> { Set(regions.regions) }
    /// The current virtual time: the last instant the manager was moved to.
    @exclusivity(unchecked) public private(set) var now: Double

    /// How and when the user answers the prompt when the app first asks (answer nil: nobody does).
    @exclusivity(unchecked) public var prompt: PromptScript
    /// The user's answer when the app asks for temporary full accuracy.
    @exclusivity(unchecked) public var grantsTemporaryFullAccuracy = true

    // The manager is driven from one thread at a time (like CLLocationManager); its state skips
    // runtime exclusivity checks, which cost a third of a replay's time.
    @exclusivity(unchecked) private var noise: NoiseProcess
    /// The error of Wi-Fi or cell positioning, when `desiredAccuracy` asks for no better.
    @exclusivity(unchecked) private var coarseNoise: NoiseProcess
    /// The app's `CLMonitor` conditions, every monitor's.
    @exclusivity(unchecked) private var conditions: ConditionMonitor
    /// Why the monitors cannot evaluate now, as last reported.
    @exclusivity(unchecked) private var monitoringBlockers: MonitoringDiagnostics = []
    /// The last fix's position as the device believed it (noise included).
    @exclusivity(unchecked) private var believedPosition: Coordinate?
    /// `liveUpdates` being iterated, and its state; nil when none is.
    @exclusivity(unchecked) private var live: LiveUpdateState?
    /// The cell-class error of significant-change fixes.
    @exclusivity(unchecked) private var significantChangeNoise: NoiseProcess
    private let seed: UInt64
    @exclusivity(unchecked) private var device: DeviceSample?
    @exclusivity(unchecked) private var updating = false
    @exclusivity(unchecked) private var significantChanges = false
    /// The last significant-change event: the device's true position then, and when.
    @exclusivity(unchecked) private var lastSignificant: (position: Coordinate, time: Double)?
    @exclusivity(unchecked) private var visitsOn = false
    @exclusivity(unchecked) private var visits: VisitDetector
    @exclusivity(unchecked) private var regions: RegionMonitor
    /// Regions registered before authorization allowed them: started when it does.
    @exclusivity(unchecked) private var awaitingStart: [String: CircularRegion] = [:]
    /// The order regions awaiting the prompt were first registered in (identifiers may repeat or
    /// be stale; ``awaitingStart`` decides).
    @exclusivity(unchecked) private var awaitingOrder: [String] = []
    /// `requestState(for:)` calls, answered at the next instant (asynchronously, as on iOS).
    @exclusivity(unchecked) private var stateRequests: [(region: CircularRegion, time: Double)] = []
    @exclusivity(unchecked) private var inSignalGap = false
    /// Whether the When In Use → Always prompt has been shown (iOS shows it once).
    @exclusivity(unchecked) private var upgradeAsked = false
    /// The prompt on screen, answered at `due`.
    @exclusivity(unchecked) private var pendingAnswer: (due: Double, wantsAlways: Bool)?
    /// When Allow Once ends, the app having left use (after iOS's grace period).
    @exclusivity(unchecked) private var oneTimeExpiry: Double?
    /// Temporary full accuracy granted: reduced again when the app leaves use.
    @exclusivity(unchecked) private var temporaryFullAccuracy = false
    /// Where the device has been still since when, for automatic pauses.
    @exclusivity(unchecked) private var stillness: (coordinate: Coordinate, since: Double)?
    @exclusivity(unchecked) private var paused = false
    @exclusivity(unchecked) private var lastStandardFix: Double?
    /// Device realism: its draws, region events waiting out their latency, the next
    /// significant-change wake-up without movement, and a cached fix owed at the next start.
    @exclusivity(unchecked) private var realism: SplitMix64
    @exclusivity(unchecked) private var delayed: [(due: Double, change: RegionMonitor.Change)] = []
    @exclusivity(unchecked) private var nextHeartbeat: Double?
    @exclusivity(unchecked) private var cachedFixOwed = false
    @exclusivity(unchecked) private var speed = 0.0
    @exclusivity(unchecked) private var continuation: AsyncStream<TimedEvent>.Continuation?
    // Sessions (Sessions/SimulatedLocationManager+Sessions.swift).
    @exclusivity(unchecked) var sessions: [SessionID: HeldSession] = [:]
    @exclusivity(unchecked) var sessionOrder: [SessionID] = []
    @exclusivity(unchecked) var nextSession = 0
    /// Launches after termination so far, and the time of the last one.
    @exclusivity(unchecked) var launches = 0
    @exclusivity(unchecked) var lastLaunch: Double?
    /// The implicit session of iterating today's APIs: nil when none is held, else whether it is
    /// in effect (begun while the app was in use).
    @exclusivity(unchecked) var implicitSessionActive: Bool?
    /// A session asked for temporary full accuracy (the user's answer then decides `fullAccuracyDenied`).
    @exclusivity(unchecked) var fullAccuracyRequested = false
    /// Distances are compared to the micrometre, so a route exactly at a threshold meets it.
    private static let tolerance = 1e-6

    /// - Parameters:
    ///   - status: the authorization at creation (default: not determined, as on first launch).
    ///   - authorizationAnswer: how the user answers the prompt when the app asks…
    ///   - answerDelay: …and how many seconds after the request.
    ///   - accuracyAuthorization: precise or approximate locations (iOS 14+).
    ///   - locationServicesEnabled: false: Location Services are off for the whole device, and
    ///     every app is denied.
    ///   - noise: the error model of fixes (default: none — fixes lie on the route).
    ///   - seed: seeds the noise; the same seed gives the same fixes.
    ///   - startTime: virtual time of creation, seconds since 1970.
    public init(
        status: AuthorizationStatus = .notDetermined, authorizationAnswer: AuthorizationAnswer? = nil,
        answerDelay: Double = 0, accuracyAuthorization: AccuracyAuthorization = .fullAccuracy,
        locationServicesEnabled: Bool = true, noise: NoiseModel = NoiseModel(.none), seed: UInt64 = 0,
        startTime: Double = 0, configuration: LocationManagerConfiguration = LocationManagerConfiguration()
    ) {
        self.configuration = configuration
        self.pauseDelay = configuration.pauseDelay(for: .other)  // activityType's default
        // With Location Services off every app reads as denied (`CLAuthorizationStatus.denied`).
        self.authorizationStatus = locationServicesEnabled ? status : .denied
        self.locationServicesEnabled = locationServicesEnabled
        self.accuracyAuthorization = configuration.iosVersion >= 14 ? accuracyAuthorization : .fullAccuracy
        self.prompt = PromptScript(answer: authorizationAnswer, delay: answerDelay)
        self.noise = NoiseProcess(model: noise, seed: seed)
        self.seed = seed
        self.realism = SplitMix64(seed: seed ^ 0xD1B5_4A32_D192_ED03)
        self.coarseNoise = Self.coarseNoise(configuration.positioning(for: LocationAccuracy.best), seed: seed)
        self.significantChangeNoise = Self.coarseNoise(
            .init(interval: configuration.significantChangeInterval, error: configuration.significantChangeAccuracy),
            seed: seed ^ 0x94D0_49BB_1331_11EB)
        self.now = startTime
        self.regions = RegionMonitor(configuration: configuration)
        self.conditions = ConditionMonitor(configuration: configuration)
        self.visits = VisitDetector(configuration: configuration)
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

    public func requestWhenInUseAuthorization() {
        requestAuthorization(wantsAlways: false)
    }

    /// From iOS 13 the prompt offers While Using, not Always: "Allow While Using App" gives
    /// provisional Always, settled by a second prompt at the first use in the background (Apple,
    /// WWDC 2019 "What's New in Core Location"). An app already When In Use gets that second
    /// prompt at once, once only ("further calls have no effect"); under Allow Once, never.
    public func requestAlwaysAuthorization() {
        if authorizationStatus == .authorizedWhenInUse {
            guard !isOneTimeAuthorization, !upgradeAsked, let answer = prompt.answer else { return }
            upgradeAsked = true
            if answer == .allowAlways { changeAuthorization(to: .authorizedAlways) }
            return
        }
        requestAuthorization(wantsAlways: true)
    }

    private func requestAuthorization(wantsAlways: Bool) {
        // With Location Services off iOS offers to open Settings; the app stays denied.
        guard locationServicesEnabled, authorizationStatus == .notDetermined, prompt.answer != nil,
            pendingAnswer == nil
        else { return }
        if prompt.delay > 0 {
            pendingAnswer = (now + prompt.delay, wantsAlways)
            refreshMonitoringBlockers()
        } else {
            answerPrompt(wantsAlways: wantsAlways)
        }
    }

    private func answerPrompt(wantsAlways: Bool) {
        pendingAnswer = nil
        guard authorizationStatus == .notDetermined, let answer = prompt.answer else { return }
        switch answer {
        case .deny:
            changeAuthorization(to: .denied)
        case .allowOnce:
            changeAuthorization(to: .authorizedWhenInUse)
            isOneTimeAuthorization = true
        case .allowAlways, .allowWhenInUse:
            if !wantsAlways {
                changeAuthorization(to: .authorizedWhenInUse)
            } else if configuration.iosVersion >= 13 {
                changeAuthorization(to: .authorizedAlways)
                isProvisionalAlways = true
            } else {
                changeAuthorization(to: answer == .allowAlways ? .authorizedAlways : .authorizedWhenInUse)
            }
        }
    }

    /// The user changes the app's location permission (Settings, or a prompt answer), now or at
    /// a later virtual `time`.
    public func changeAuthorization(to status: AuthorizationStatus, at time: Double? = nil) {
        if let time { now = max(now, time) }
        isProvisionalAlways = false
        isOneTimeAuthorization = false
        guard status != authorizationStatus else { return }
        authorizationStatus = status
        emit(.authorizationChanged(status))
        if !status.allowsLocation && status != .notDetermined && (updating || significantChanges) {
            emit(.failed(LocationError(.denied, "location access is \(status)")))
        }
        refreshMonitoringBlockers()
        if status == .notDetermined { return }
        if regionMonitoringAllowed {
            var starting: [CircularRegion] = []
            for identifier in awaitingOrder {
                if let region = awaitingStart.removeValue(forKey: identifier) { starting.append(region) }
            }
            (awaitingStart, awaitingOrder) = ([:], [])
            for region in starting { begin(region) }
        } else {
            for region in regions.regions { emit(.monitoringFailed(region, monitoringDenied)) }
        }
    }

    /// Asks for precise locations while the app is in use (`requestTemporaryFullAccuracyAuthorization(withPurposeKey:)`,
    /// iOS 14), now or at a later virtual `time`; the answer is ``grantsTemporaryFullAccuracy``.
    /// The purpose key names the Info.plist explanation shown to the user.
    public func requestTemporaryFullAccuracyAuthorization(withPurposeKey purposeKey: String, at time: Double? = nil) {
        if let time { now = max(now, time) }
        guard accuracyAuthorization == .reducedAccuracy, authorizationStatus.allowsLocation, isInUse,
            grantsTemporaryFullAccuracy
        else { return }
        temporaryFullAccuracy = true
        accuracyAuthorization = .fullAccuracy
        emit(.accuracyAuthorizationChanged(.fullAccuracy))
        refreshMonitoringBlockers()
    }

    /// Whether the authorization prompt is on screen, waiting for the user's answer.
    var isPromptOnScreen: Bool { pendingAnswer != nil }
    /// Whether the app has asked for Always once already (iOS shows that prompt once).
    var hasAskedForAlways: Bool { upgradeAsked }

    // MARK: - The app's lifecycle

    /// The app moves to `state` (the user switching apps, iOS suspending or terminating it), now
    /// or at a later virtual `time`. Standard updates end with the app; monitored regions, the
    /// significant-change service and visits survive it and relaunch an app authorized Always.
    public func changeAppState(to state: AppState, at time: Double? = nil) {
        if let time { now = max(now, time) }
        guard state != appState else { return }
        let previous = appState
        appState = state
        emit(.appStateChanged(state))
        if state == .terminated {
            live = nil
            iterationChanged(iterating: conditions.isMonitoring)
            updating = false
            paused = false
            stillness = nil
        }
        if previous == .terminated { sessionsRelaunched(at: now) }
        if isInUse {
            oneTimeExpiry = nil
        } else {
            leftUse()
        }
        refreshMonitoringBlockers()
        lifecycleHandler?(self, previous)
    }

    /// Whether the app is in use as iOS counts it: in the foreground, or running in the background
    /// with background location updates on (the status-bar indicator).
    public var isInUse: Bool {
        switch appState {
        case .foreground: true
        case .background, .suspended: updating && allowsBackgroundLocationUpdates && authorizationStatus.allowsLocation
        case .terminated: false
        }
    }

    /// What ends when the app leaves use: Allow Once (after a grace period, or at once when the
    /// app is terminated), and temporary full accuracy.
    private func leftUse() {
        if isOneTimeAuthorization {
            if appState == .terminated {
                changeAuthorization(to: .notDetermined)
            } else if oneTimeExpiry == nil {
                oneTimeExpiry = now + configuration.allowOnceGrace
            }
        }
        if temporaryFullAccuracy {
            temporaryFullAccuracy = false
            accuracyAuthorization = .reducedAccuracy
            emit(.accuracyAuthorizationChanged(.reducedAccuracy))
        }
    }

    /// Whether an event of a background-capable service (regions, significant changes, visits)
    /// reaches the app now: always while in use; otherwise only with Always, waking a suspended
    /// app or relaunching a terminated one (an ``LocationEvent/appLaunched(_:)`` first). Provisional
    /// Always is settled here, by the upgrade prompt iOS shows at the first such use.
    private func deliversInBackground(_ reason: LaunchReason, relaunch: Bool = true, at time: Double? = nil) -> Bool {
        // iOS 8–12: When In Use "cannot use any services that automatically relaunch the app, such
        // as region monitoring or the significant location change service" (Apple,
        // `requestWhenInUseAuthorization()`, iOS 8 reference); visits are such a service too.
        if configuration.iosVersion < 13 && authorizationStatus != .authorizedAlways { return false }
        if isInUse { return true }
        guard authorizationStatus == .authorizedAlways, relaunch || appState != .terminated,
            settleProvisionalAlways()
        else { return false }
        if appState == .terminated {
            appState = .background
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
        guard isProvisionalAlways else { return true }
        guard prompt.answer == .allowAlways else {
            upgradeAsked = true
            changeAuthorization(to: .authorizedWhenInUse)
            return false
        }
        isProvisionalAlways = false
        return true
    }

    // MARK: - Standard and significant-change services

    /// Starts the standard service; after an automatic pause this is what resumes it, as iOS
    /// never resumes updates by itself.
    public func startUpdatingLocation() {
        if !updating && configuration.realism == .device { cachedFixOwed = true }
        updating = true
        stillness = nil
        if paused {
            paused = false
            emit(.locationUpdatesResumed)
        }
        if !authorizationStatus.allowsLocation && authorizationStatus != .notDetermined {
            emit(.failed(LocationError(.denied, "location access is \(authorizationStatus)")))
        }
    }

    public func stopUpdatingLocation() {
        updating = false
        paused = false
        stillness = nil
    }

    public func startMonitoringSignificantLocationChanges() {
        significantChanges = true
        lastSignificant = nil  // a new initial event on every start
    }

    public func stopMonitoringSignificantLocationChanges() {
        significantChanges = false
    }

    public func startMonitoringVisits() {
        visitsOn = true
    }

    public func stopMonitoringVisits() {
        visitsOn = false
    }

    // MARK: - Region monitoring

    /// Up to iOS 12 regions need Always; from iOS 13 When In Use too. Approximate locations
    /// (reduced accuracy, iOS 14) monitor no regions.
    private var regionMonitoringAllowed: Bool {
        configuration.allowsRegionMonitoring(authorizationStatus) && accuracyAuthorization == .fullAccuracy
    }

    private var monitoringDenied: LocationError {
        if configuration.allowsRegionMonitoring(authorizationStatus) {
            return LocationError(.regionMonitoringDenied, "region monitoring needs full accuracy")
        }
        return LocationError(
            .regionMonitoringDenied,
            configuration.iosVersion >= 13
                ? "region monitoring needs authorizedWhenInUse or authorizedAlways"
                : "region monitoring needs authorizedAlways (iOS \(configuration.iosVersion))")
    }

    /// Registers `region`. Before the user has answered the prompt the region is kept, and
    /// monitored once authorization allows it, as iOS does; refused authorization fails it.
    /// Monitoring begins with `didStartMonitoringFor` and, once a fix is known, the region's
    /// state through `didDetermineState` — never an entry or exit for where the device already is.
    public func startMonitoring(for region: CircularRegion) {
        if authorizationStatus != .notDetermined && !regionMonitoringAllowed {
            return emit(.monitoringFailed(region, monitoringDenied))
        }
        guard region.radius > 0, region.radius <= maximumRegionMonitoringDistance, region.center.isValid else {
            return emit(
                .monitoringFailed(
                    region,
                    LocationError(
                        .regionMonitoringFailure,
                        "radius \(region.radius) m is outside (0, \(maximumRegionMonitoringDistance)] m")))
        }
        if let limit = configuration.regionLimit, regions.count >= limit, !regions.contains(region.identifier) {
            return emit(
                .monitoringFailed(
                    region, LocationError(.regionMonitoringFailure, "an app can monitor at most \(limit) regions")))
        }
        if authorizationStatus == .notDetermined {
            // Kept, unstarted, until the prompt is answered.
            regions.register(region, deviceAt: nil, time: now)
            if awaitingStart.updateValue(region, forKey: region.identifier) == nil {
                awaitingOrder.append(region.identifier)
            }
            return
        }
        begin(region)
    }

    private func begin(_ region: CircularRegion) {
        let position = device.flatMap { $0.hasSignal ? $0.coordinate : nil }
        let state = regions.register(region, deviceAt: position, time: device?.time ?? now)
        emit(.startedMonitoring(region))
        if state != .unknown && configuration.reportsInitialRegionState
            && deliversInBackground(.region, relaunch: false)
        {
            emit(.determinedState(state, for: region))
        }
    }

    public func stopMonitoring(for region: CircularRegion) {
        regions.remove(region.identifier)
        awaitingStart.removeValue(forKey: region.identifier)
    }

    /// Asks for a region's state; the answer comes through `didDetermineState` at the next
    /// instant, not during this call.
    public func requestState(for region: CircularRegion) {
        stateRequests.append((region, now))
    }

    // MARK: - CLMonitor (iOS 17)

    /// The beacons the device can hear, for `CLMonitor` beacon conditions.
    public var beacons: [Beacon] {
        get { conditions.beacons }
        set { conditions.beacons = newValue }
    }

    /// `CLMonitor.add(_:identifier:assuming:)` on the monitor named `monitor`. Conditions share
    /// the app's limit (``LocationManagerConfiguration/regionLimit``); one beyond it, or one that
    /// cannot be monitored, gets an `unmonitored` event saying why. Apple, `add(_:identifier:)`:
    /// "The initial state is CLRegionState.unknown"; `add(_:identifier:assuming:)` "adds the
    /// monitoring condition with the identifier and initial state you specify". An event comes
    /// when the monitor determines another state — Waypost's reading: Apple does not say whether
    /// a determination equal to the assumed state is reported.
    public func add(
        _ condition: MonitoringCondition, identifier: String, to monitor: String, assuming: MonitoringState = .unknown
    ) {
        iterationChanged(iterating: true)
        refreshMonitoringBlockers()
        let position = device.flatMap { $0.hasSignal ? $0 : nil }
        let evaluates = monitoringBlockers.isEmpty && position != nil
        let events = conditions.add(
            condition, identifier: identifier, monitor: monitor, assuming: assuming,
            believed: evaluates ? believedPosition : nil, actual: evaluates ? position?.coordinate : nil, time: now)
        for event in events { deliver(event) }
        if !monitoringBlockers.isEmpty {
            for event in conditions.suspend(monitoringBlockers, time: now) { emit(.monitorEvent(event, at: nil)) }
        }
    }

    /// `CLMonitor.remove(_:)`.
    public func remove(_ identifier: String, from monitor: String) {
        conditions.remove(identifier, from: monitor)
        iterationChanged(iterating: conditions.isMonitoring || live != nil)
    }

    /// `CLMonitor.identifiers`.
    public func identifiers(of monitor: String) -> [String] { conditions.identifiers(of: monitor) }

    /// `CLMonitor.record(for:)`: kept across the app's termination and relaunch, as iOS keeps a
    /// monitor's records by name.
    public func record(for identifier: String, in monitor: String) -> MonitoringRecord? {
        conditions.record(for: identifier, in: monitor)
    }

    /// Every record of the monitor named `monitor`, in the order its conditions were added: what
    /// iOS keeps in the monitor's file between launches.
    public func records(of monitor: String) -> [(identifier: String, record: MonitoringRecord)] {
        conditions.identifiers(of: monitor).compactMap { identifier in
            conditions.record(for: identifier, in: monitor).map { (identifier, $0) }
        }
    }

    /// Reopens the monitor named `monitor` with records kept from an earlier launch (an earlier
    /// run): the app finds its conditions there, and an event comes only where the device's state
    /// differs from a record's last event.
    public func restore(_ records: [(identifier: String, record: MonitoringRecord)], in monitor: String) {
        for (identifier, record) in records { conditions.restore(record, identifier: identifier, monitor: monitor) }
        if !records.isEmpty { iterationChanged(iterating: true) }
    }

    /// Why monitors cannot evaluate conditions now (iOS 18's `CLMonitor.Event` diagnostics):
    /// empty when they can.
    public var monitoringDiagnostics: MonitoringDiagnostics {
        var blockers: MonitoringDiagnostics = []
        if !locationServicesEnabled {
            blockers.insert(.authorizationDeniedGlobally)
        } else if needsServiceSession && authorizationStatus != .denied && authorizationStatus != .restricted {
            blockers.insert(.serviceSessionRequired)
        } else {
            switch authorizationStatus {
            case .denied: blockers.insert(.authorizationDenied)
            case .restricted: blockers.insert(.authorizationRestricted)
            case .notDetermined: blockers.insert(.authorizationRequestInProgress)
            case .authorizedWhenInUse where !(isInUse || isInUseForTodaysAPIs): blockers.insert(.insufficientlyInUse)
            case .authorizedAlways where !(isInUse || isInUseForTodaysAPIs) && !holdsSessionForBackground:
                blockers.insert(.insufficientlyInUse)
            default: break
            }
        }
        if accuracyAuthorization == .reducedAccuracy { blockers.insert(.accuracyLimited) }
        return blockers
    }

    /// Reports, once, each condition's loss of evaluation when the diagnostics change to a
    /// non-empty set; when they clear, conditions are determined afresh at the next fix.
    /// Also reports sessions whose diagnostics changed: both follow authorization and use.
    func refreshMonitoringBlockers() {
        refreshSessions()
        let blockers = monitoringDiagnostics
        guard blockers != monitoringBlockers else { return }
        monitoringBlockers = blockers
        guard !blockers.isEmpty else { return }
        for event in conditions.suspend(blockers, time: now) { emit(.monitorEvent(event, at: nil)) }
    }

    private func deliver(_ event: MonitoringEvent) {
        guard event.state == .unmonitored || deliversInBackground(.region, at: event.date) else { return }
        emit(.monitorEvent(event, at: believedPosition), at: event.date)
    }

    // MARK: - Live updates (iOS 17)

    private struct LiveUpdateState {
        var configuration: LiveConfiguration
        /// The pause delay of the configuration's activity type, looked up once, not at every fix.
        var pauseDelay: Double
        var lastUpdate: Double?
        /// Where and since when the device has stayed within ``LocationManagerConfiguration/pauseRadius``.
        var stillness: (coordinate: Coordinate, since: Double)?
        var isStationary = false
        /// The diagnostics of the last update without a location (none after a location).
        var reported: LiveUpdateDiagnostics = []
    }

    /// Starts iterating `CLLocationUpdate.liveUpdates(configuration)`: updates come as
    /// ``LocationEvent/liveUpdate(_:)`` events, once a second while the device moves; when it stops,
    /// one saying `isStationary`, then none until it moves again (Apple, WWDC 2023 "Discover
    /// streamlined location updates": updates pause automatically when the device is stationary and
    /// resume when it moves). Apple gives no delay: the world's one stillness rule applies, the
    /// delegate's automatic pause for the configuration's activity type
    /// (``LocationManagerConfiguration/pauseDelay(for:)``). From iOS 18, an update without a
    /// location reports each change of what prevents them (its diagnostics); iOS 17 sends nothing.
    /// From iOS 18 iterating holds an implicit service session, which asks for When In Use
    /// authorization when none was given (WWDC 2024 "What's new in location authorization", as
    /// Waypost reads it; to be checked against the session).
    public func startLiveUpdates(_ configuration: LiveConfiguration = .default) {
        live = LiveUpdateState(
            configuration: configuration, pauseDelay: self.configuration.pauseDelay(for: configuration.activityType))
        iterationChanged(iterating: true)
        if self.configuration.iosVersion >= 18 && !self.configuration.requiresExplicitServiceSession {
            requestWhenInUseAuthorization()
        }
    }

    /// The configuration of the live updates being iterated, nil when none are.
    public var liveUpdatesConfiguration: LiveConfiguration? { live?.configuration }

    /// The app stopped iterating (it left the `for await` loop).
    public func stopLiveUpdates() {
        live = nil
        iterationChanged(iterating: conditions.isMonitoring)
    }

    /// What keeps live updates from carrying a precise location now: authorization, use, signal,
    /// accuracy. `accuracyLimited` still delivers (approximate) locations; the others deliver none.
    public func liveUpdateDiagnostics(hasSignal: Bool) -> LiveUpdateDiagnostics {
        var blockers: LiveUpdateDiagnostics = []
        if !locationServicesEnabled {
            return .authorizationDeniedGlobally
        }
        switch authorizationStatus {
        case .denied: return .authorizationDenied
        case .restricted: return .authorizationRestricted
        case _ where needsServiceSession: return .serviceSessionRequired
        case .notDetermined: return .authorizationRequestInProgress
        case .authorizedWhenInUse where !isInUseForTodaysAPIs: return .insufficientlyInUse
        // Not in use, an Always app gets updates only while it holds a session (iOS 18); on iOS 17
        // an app not kept running gets none.
        case .authorizedAlways
        where !isInUseForTodaysAPIs && !(configuration.iosVersion >= 18 && holdsSessionForBackground):
            return .insufficientlyInUse
        default: break
        }
        if !hasSignal { blockers.insert(.locationUnavailable) }
        if accuracyAuthorization == .reducedAccuracy { blockers.insert(.accuracyLimited) }
        return blockers
    }

    private func updateLive(_ sample: DeviceSample, believed: Coordinate?, noiseRadius: Double) {
        guard live != nil else { return }
        // An update to an app not in use is a use of Always: provisional Always is settled first.
        if authorizationStatus == .authorizedAlways && !isInUseForTodaysAPIs && configuration.iosVersion >= 18
            && holdsSessionForBackground
        {
            _ = settleProvisionalAlways()
        }
        guard var state = live else { return }
        defer { live = state }
        let diagnostics = liveUpdateDiagnostics(hasSignal: sample.hasSignal)
        if !diagnostics.subtracting(.accuracyLimited).isEmpty {
            // iOS 17 has no diagnostics: nothing comes at all.
            if diagnostics != state.reported && configuration.iosVersion >= 18 {
                state.reported = diagnostics
                emit(.liveUpdate(LocationUpdate(location: nil, diagnostics: diagnostics)))
            }
            state.stillness = nil
            return
        }
        guard let believed else { return }
        state.reported = []
        // Stationary: no updates while the device stays put; the first move resumes them.
        if let still = state.stillness,
            ShortDistance.distance(still.coordinate, sample.coordinate) <= configuration.pauseRadius
        {
            if state.isStationary { return }
            if sample.time - still.since >= state.pauseDelay - 1e-9 {
                state.isStationary = true
                let fix = liveFix(sample, believed: believed, noiseRadius: noiseRadius)
                state.lastUpdate = sample.time
                emit(.liveUpdate(LocationUpdate(location: fix, isStationary: true, diagnostics: diagnostics)))
                return
            }
        } else {
            state.stillness = (sample.coordinate, sample.time)
            state.isStationary = false
        }
        let interval =
            accuracyAuthorization == .reducedAccuracy
            ? configuration.reducedAccuracyInterval : configuration.updateInterval
        if let last = state.lastUpdate, sample.time - last < interval - 1e-9 { return }
        state.lastUpdate = sample.time
        emit(
            .liveUpdate(
                LocationUpdate(
                    location: liveFix(sample, believed: believed, noiseRadius: noiseRadius), diagnostics: diagnostics)))
    }

    /// A live update's location: GPS-class (the configurations all ask for the best), or
    /// approximate under reduced accuracy.
    private func liveFix(_ sample: DeviceSample, believed: Coordinate, noiseRadius: Double) -> Location {
        accuracyAuthorization == .reducedAccuracy
            ? makeFix(sample, at: approximate(believed), accuracy: reducedAccuracyRadius(at: believed))
            : makeFix(sample, at: believed, accuracy: noiseRadius)
    }

    // MARK: - The world moves

    /// The device is at `sample` (its true position) at `sample.time`: deliver what a real
    /// device's location manager would.
    public func move(to sample: DeviceSample) {
        if let pending = pendingAnswer, pending.due <= sample.time {
            now = max(now, pending.due)
            answerPrompt(wantsAlways: pending.wantsAlways)
        }
        if let expiry = oneTimeExpiry, expiry <= sample.time {
            oneTimeExpiry = nil
            now = max(now, expiry)
            if isOneTimeAuthorization && !isInUse { changeAuthorization(to: .notDetermined) }
        }
        if !delayed.isEmpty { deliverDelayed(through: sample.time) }
        if lastLaunch != nil { expireStaleSessions(at: sample.time) }
        for request in stateRequests {
            emit(.determinedState(regions.state(of: request.region.identifier), for: request.region), at: request.time)
        }
        stateRequests.removeAll()
        if let previous = device, sample.time > previous.time {
            speed =
                sample.speed ?? ShortDistance.distance(previous.coordinate, sample.coordinate)
                / (sample.time - previous.time)
        }
        now = sample.time
        device = sample
        guard sample.hasSignal else {
            if !inSignalGap && authorizationStatus.allowsLocation && (updating || significantChanges) && isInUse {
                emit(.failed(LocationError(.locationUnknown, "no signal")))
            }
            inSignalGap = true
            updateLive(sample, believed: nil, noiseRadius: 0)
            return
        }
        if inSignalGap {
            regions.signalResumed(at: sample.time)
            conditions.signalResumed(at: sample.time)
        }
        inSignalGap = false
        let offset = noise.step(at: sample.time)
        let believed = shifted(sample.coordinate, by: offset)
        believedPosition = believed
        if regionMonitoringAllowed && !regions.isEmpty {
            for change in regions.evaluate(at: believed, time: sample.time) { handle(change) }
        }
        refreshMonitoringBlockers()
        if monitoringBlockers.isEmpty && conditions.isMonitoring {
            for event in conditions.evaluate(believed: believed, actual: sample.coordinate, time: sample.time) {
                deliver(event)
            }
        }
        updateLive(sample, believed: believed, noiseRadius: offset.radius)
        guard authorizationStatus.allowsLocation else { return }
        if updating { updateStandard(sample, believed: believed, noiseRadius: offset.radius) }
        if significantChanges {
            var due =
                lastSignificant.map {
                    ShortDistance.distance($0.position, sample.coordinate) + Self.tolerance
                        >= configuration.significantChangeDistance
                        && sample.time - $0.time + 1e-9 >= configuration.significantChangeInterval
                } ?? true
            if configuration.realism == .device, let last = lastSignificant {
                let heartbeat =
                    nextHeartbeat ?? last.time
                    + exponential(configuration.deviceRealism.significantChangeHeartbeat)
                nextHeartbeat = heartbeat
                due = due || sample.time >= heartbeat
            }
            if due {
                nextHeartbeat = nil
                let fix = significantChangeFix(sample)
                lastSignificant = (sample.coordinate, sample.time)
                if deliversInBackground(.significantChange) {
                    if !updating { location = fix }
                    emit(.locationUpdated(fix, service: .significantChange))
                }
            }
        }
        if visitsOn, let visit = visits.observe(believed, at: sample.time), deliversInBackground(.visit) {
            var visit = visit
            visit.coordinate = approximate(visit.coordinate)
            emit(.visited(visit))
        }
    }

    private func updateStandard(_ sample: DeviceSample, believed: Coordinate, noiseRadius: Double) {
        if pausesLocationUpdatesAutomatically && detectPause(at: sample) { return }
        guard isInUse else { return }
        let reduced = accuracyAuthorization == .reducedAccuracy
        let source = configuration.positioning(for: desiredAccuracy)
        // GPS gives a fix per sample; Wi-Fi, cells and approximate locations come less often.
        let interval = reduced ? configuration.reducedAccuracyInterval : source.error == nil ? 0 : source.interval
        if let last = lastStandardFix, sample.time - last < interval - 1e-9 { return }
        var position = believed
        // GPS: the 68 % radius of the receiver noise applied (0 for the ideal receiver, `none`).
        var accuracy = noiseRadius
        if reduced {
            (position, accuracy) = (approximate(believed), reducedAccuracyRadius(at: believed))
        } else if let error = source.error {
            // Wi-Fi or cell positioning: its own error, whose 68 % radius is what the fix reports.
            let offset = coarseNoise.step(at: sample.time)
            position = shifted(believed, by: offset)
            accuracy = (error * error + noiseRadius * noiseRadius).squareRoot()
        }
        if cachedFixOwed {
            cachedFixOwed = false
            emitCachedFix(sample, near: believed)
        }
        let fix = makeFix(sample, at: position, accuracy: accuracy)
        lastStandardFix = sample.time
        if distanceFilter <= 0
            || location.map({ ShortDistance.distance($0.coordinate, fix.coordinate) + Self.tolerance >= distanceFilter }
            )
                ?? true
        {
            location = fix
            emit(.locationUpdated(fix, service: .standard))
        }
    }

    /// Automatic pauses (`pausesLocationUpdatesAutomatically`): after the device has stayed
    /// within ``LocationManagerConfiguration/pauseRadius`` for the activity type's delay, updates
    /// pause. Core Location never resumes them by itself (Apple,
    /// `locationManagerDidResumeLocationUpdates(_:)`): the app restarts them. True while paused.
    private func detectPause(at sample: DeviceSample) -> Bool {
        if paused { return true }
        guard let still = stillness,
            ShortDistance.distance(still.coordinate, sample.coordinate) <= configuration.pauseRadius
        else {
            stillness = (sample.coordinate, sample.time)
            return false
        }
        if sample.time - still.since >= pauseDelay - 1e-9 {
            paused = true
            emit(.locationUpdatesPaused)
        }
        return paused
    }

    private static func coarseNoise(_ source: LocationManagerConfiguration.Positioning, seed: UInt64) -> NoiseProcess {
        NoiseProcess(
            model: NoiseModel(sigma: (source.error ?? 0) / NoiseModel.radius68, correlationTime: source.interval * 3),
            seed: seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    private func shifted(_ coordinate: Coordinate, by offset: (north: Double, east: Double, radius: Double))
        -> Coordinate
    {
        guard offset.north != 0 || offset.east != 0 else { return coordinate }
        return Coordinate(
            latitude: coordinate.latitude + offset.north / 111_132.954,
            longitude: coordinate.longitude + offset.east / (111_319.49 * cos(coordinate.latitude * .pi / 180)))
    }

    /// Approximate locations (reduced accuracy): the centre of the grid cell the position lies in,
    /// so the app learns the neighbourhood, never the street.
    private func approximate(_ coordinate: Coordinate) -> Coordinate {
        guard accuracyAuthorization == .reducedAccuracy else { return coordinate }
        let cell = configuration.reducedAccuracyCell
        return Coordinate(
            latitude: ((coordinate.latitude / cell).rounded(.down) + 0.5) * cell,
            longitude: ((coordinate.longitude / cell).rounded(.down) + 0.5) * cell)
    }

    /// The 68 % radius of the error ``approximate(_:)`` makes at `coordinate`: a point uniformly
    /// placed in a cell of sides a × b lies within 0.465 √(ab) of its centre 68 % of the time.
    private func reducedAccuracyRadius(at coordinate: Coordinate) -> Double {
        let metric = LocalMetric(latitude: coordinate.latitude)
        let cell = configuration.reducedAccuracyCell
        return 0.465 * (cell * metric.metresPerDegreeLatitude * cell * metric.metresPerDegreeLongitude).squareRoot()
    }

    /// A significant-change fix: cell-class positioning, whose error (68 % radius
    /// ``LocationManagerConfiguration/significantChangeAccuracy``) is applied and reported; under
    /// reduced accuracy, the approximate location instead.
    private func significantChangeFix(_ sample: DeviceSample) -> Location {
        if accuracyAuthorization == .reducedAccuracy {
            return makeFix(
                sample, at: approximate(sample.coordinate), accuracy: reducedAccuracyRadius(at: sample.coordinate))
        }
        let offset = significantChangeNoise.step(at: sample.time)
        return makeFix(
            sample, at: shifted(sample.coordinate, by: offset), accuracy: configuration.significantChangeAccuracy)
    }

    private func makeFix(_ sample: DeviceSample, at coordinate: Coordinate, accuracy: Double) -> Location {
        Location(
            coordinate: coordinate, altitude: sample.altitude ?? 0, horizontalAccuracy: accuracy,
            verticalAccuracy: sample.altitude == nil ? -1 : configuration.verticalAccuracy,
            speed: sample.speed ?? -1, course: sample.course ?? -1, timestamp: sample.time)
    }

    // MARK: Device realism

    /// A region change as the realism delivers it: at once (`exact`), or late, and for small
    /// regions at speed sometimes never (`device`).
    private func handle(_ change: RegionMonitor.Change) {
        guard configuration.realism == .device, case .crossed(let region, let state, let time, let position) = change
        else { return deliver(change) }
        let model = configuration.deviceRealism
        if region.radius < model.smallRegionRadius {
            let miss = (1 - region.radius / model.smallRegionRadius) * min(1, speed / model.smallRegionMissSpeed)
            if realism.unit() < miss { return }
        }
        // Drawn only when some crossings go unreported, so the default model's draws are unchanged.
        if model.notifiedFraction < 1, realism.unit() >= model.notifiedFraction { return }
        let (median, sigma) =
            state == .outside
            ? model.exitLatency ?? (model.regionLatencyMedian, model.regionLatencySigma)
            : (model.regionLatencyMedian, model.regionLatencySigma)
        // A region's events keep their order: an exit never overtakes its entry.
        let earliest = delayed.last { $0.change.region == region }?.due ?? time
        let due = max(earliest, time + median * exp(sigma * realism.gaussian()))
        delayed.append((due, .crossed(region, into: state, time: due, position: position)))
    }

    private func deliverDelayed(through time: Double) {
        let ready = delayed.filter { $0.due <= time }.sorted { $0.due < $1.due }
        guard !ready.isEmpty else { return }
        delayed.removeAll { $0.due <= time }
        for (_, change) in ready { deliver(change) }
    }

    /// The first fix after a start, from the cache: up to ``DeviceRealism/cachedFixMaximumAge``
    /// old, where the device was believed to be then, with Wi-Fi accuracy.
    private func emitCachedFix(_ sample: DeviceSample, near position: Coordinate) {
        let age = realism.unit() * configuration.deviceRealism.cachedFixMaximumAge
        let sigma = 65 / NoiseModel.radius68
        let offset = (north: sigma * realism.gaussian(), east: sigma * realism.gaussian(), radius: 65.0)
        var fix = makeFix(sample, at: shifted(position, by: offset), accuracy: 65)
        fix.timestamp = sample.time - age
        fix.speed = -1
        fix.course = -1
        emit(.locationUpdated(fix, service: .standard))
    }

    private func exponential(_ mean: Double) -> Double {
        -mean * log(1 - realism.unit())
    }

    private func deliver(_ change: RegionMonitor.Change) {
        switch change {
        case .determined(let region, let state, let time):
            if deliversInBackground(.region, relaunch: false) { emit(.determinedState(state, for: region), at: time) }
        case .crossed(let region, let state, let time, let position):
            let notifies = state == .inside ? region.notifyOnEntry : region.notifyOnExit
            guard deliversInBackground(.region, relaunch: notifies, at: time) else { return }
            if notifies {
                emit(
                    state == .inside ? .enteredRegion(region, at: position) : .exitedRegion(region, at: position),
                    at: time)
            }
            emit(.determinedState(state, for: region), at: time)
        }
    }

    // MARK: Delivery

    func emit(_ event: LocationEvent, at time: Double? = nil) {
        let timed = TimedEvent(time: time ?? now, event: event)
        observer?(timed)
        continuation?.yield(timed)
        guard let delegate else { return }
        switch event {
        case .authorizationChanged(let status): delegate.locationManager(self, didChangeAuthorization: status)
        case .accuracyAuthorizationChanged: delegate.locationManagerDidChangeAuthorization(self)
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
