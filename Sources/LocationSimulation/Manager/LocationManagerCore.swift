import Geo
import LocationEvents
import SimulatedTime
import WaypostSupport

/// Everything a ``SimulatedLocationManager`` knows and does, as one value: its state machines,
/// what the device last was, the OS's own estimates under a non-exact realism, the app's settings
/// and sessions, and the log of what was emitted — and the rules that move them. The manager is a
/// façade that owns one core, feeds it inputs with ``step(_:)`` and hands what it emitted to the
/// app; the core calls nobody, so it is tested as a value (`LocationManagerCoreTests`) and a copy
/// of a core is a snapshot of a device.
///
/// A step runs whole, with one exception iOS makes: an event for a terminated app launches it
/// into the background, and the app's launch code runs before the event is delivered. The step
/// then stops (``Action/runLifecycleHandler(previous:)``) and goes on with ``Input/resume`` once
/// the app has run, so what the launch code started counts for the rest of the step (a region it
/// monitors is evaluated at the same sample). The app's other reactions — its delegate's calls —
/// are inputs taken after the step, as a device's location daemon does not wait for the app.
///
/// One value for the manager's state also makes one exclusivity escape enough: the manager is
/// driven from one thread at a time, and the runtime's dynamic checks on the state every fix
/// touches were 3.2 % of a trials run's CPU (perf, 200 trials of field-cafe-checkin), most of
/// them in `move(to:)`, `updateStandard` and `emit`.
package struct LocationManagerCore {
    // Stored hot first, the configuration last: with thousands of managers in one run (a crowd)
    // what every sample reads shares cache lines (perf, a 3,000-device crowd).

    // The device's side.
    /// The current virtual time.
    package var now: EpochInstant
    package var device: DeviceSample?
    /// The last fix's position as the device believed it (noise included).
    package var believedPosition: Coordinate?
    var inSignalGap = false
    /// Why the monitors cannot evaluate now, as last reported.
    var monitoringBlockers: MonitoringDiagnostics = []
    /// Device realism: region events waiting out their dispatch, and its draws.
    package var delayed: [(due: EpochInstant, change: RegionMonitor.Change)] = []
    var realism: SplitMix64
    /// `requestState(for:)` calls, answered at the next instant (asynchronously, as on iOS).
    package var stateRequests: [(region: CircularRegion, time: EpochInstant)] = []
    /// The events emitted and not yet taken, oldest first: the manager's one output channel.
    /// Every one is kept until taken (an app's launch with 100,000 regions emits 200,000 before
    /// the run starts).
    package var emitted: [TimedEvent] = []

    // The app's side.
    package var appState = AppState.foreground
    /// `desiredAccuracy` (see ``SimulatedLocationManager/desiredAccuracy``).
    package var desiredAccuracy = LocationAccuracy.best {
        didSet { fixes.desiredAccuracyChanged(to: desiredAccuracy) }
    }
    package var distanceFilter = LocationAccuracy.distanceFilterNone
    package var allowsBackgroundLocationUpdates = false
    package var pausesLocationUpdatesAutomatically = true
    package var activityType = ActivityType.other {
        didSet { pauseDelay = configuration.pauseDelay(for: activityType) }
    }
    /// The most recently delivered fix.
    package var location: Location?
    /// `configuration.pauseDelay(for: activityType)`, kept as the type changes: a dictionary
    /// lookup for every fix was 4 % of a text replay.
    var pauseDelay: Seconds
    /// Launches after termination so far, and the time of the last one.
    var launches = 0
    var lastLaunch: EpochInstant?
    /// Whether the report of the authorization at creation is still owed. iOS calls the
    /// authorization callback "when the app creates the related object's CLLocationManager
    /// instance" (`locationManagerDidChangeAuthorization(_:)`): made at the first step unless the
    /// app's code reported it (``Input/reportInitialAuthorization``, as ``AppScript``'s launch
    /// does), and never for an app that is terminated (its code has made no manager). A library
    /// user's delegate heard of it only by calling that itself (a library hunt).
    package var creationReportOwed = true

    // The machines.
    package var authorization: AuthorizationStateMachine
    package var services: LocationServicesStateMachine
    package var regions: RegionMonitor
    /// The app's `CLMonitor` conditions, every monitor's.
    package var conditions: ConditionMonitor
    var fixes: FixMaker
    /// Under a non-exact realism: the OS's own estimates and the region rule judged on them.
    var field: FieldPositioning?

    /// Regions registered before authorization allowed them: started when it does.
    var awaitingStart: [String: CircularRegion] = [:]
    /// The order regions awaiting the prompt were first registered in (identifiers may repeat or
    /// be stale; ``awaitingStart`` decides).
    var awaitingOrder: [String] = []

    // Sessions (Sessions/SimulatedLocationManager+Sessions.swift).
    var sessions: [SessionID: HeldSession] = [:]
    var sessionOrder: [SessionID] = []
    var nextSession = 0

    /// What is left of a step that stopped for the app's launch code (``Input/resume`` takes it
    /// on), the latest last; empty between steps.
    var agenda: [Work] = []
    /// The delivery whose event follows the app's launch code, the agenda depth its step began
    /// at, and the clock to go back to after it (the launch code runs at the launch).
    var launching: (delivery: Delivery, base: Int, resumeAt: EpochInstant)?

    /// `CLLocationManager.locationServicesEnabled()`: false denies every app.
    package let locationServicesEnabled: Bool
    package let configuration: LocationManagerConfiguration
    /// Distances are compared to the micrometre, so a route exactly at a threshold meets it.
    static let tolerance = 1e-6

    // The core's reads (`isInUse`, `monitoringDiagnostics`, `availability`…) are
    // `@inline(__always)`: a non-mutating call on this 3.9 KB value from one of its steps passed a
    // copy of all of it (perf: `refreshMonitoringBlockers` copied the core at every sample).

    /// With Location Services off every app reads as denied (`CLAuthorizationStatus.denied`),
    /// whatever `status` says.
    package init(
        status: AuthorizationStatus, authorizationAnswer: AuthorizationAnswer?, answerDelay: Seconds,
        accuracyAuthorization: AccuracyAuthorization, locationServicesEnabled: Bool = true, noise: NoiseModel,
        seed: UInt64, startTime: EpochInstant, configuration: LocationManagerConfiguration
    ) {
        self.configuration = configuration
        self.locationServicesEnabled = locationServicesEnabled
        let status = locationServicesEnabled ? status : .denied
        self.pauseDelay = configuration.pauseDelay(for: .other)  // activityType's default
        self.authorization = AuthorizationStateMachine(
            status: status, accuracy: accuracyAuthorization,
            script: PromptScript(answer: authorizationAnswer, delay: answerDelay),
            iosVersion: configuration.iosVersion,
            allowOnceGrace: configuration.allowOnceGrace)
        self.fixes = FixMaker(configuration: configuration, noise: noise, seed: seed)
        self.realism = SplitMix64(seed: seed ^ 0xD1B5_4A32_D192_ED03)
        if configuration.realism == .device {
            let mechanism = configuration.regionMechanism
            self.field = FieldPositioning(
                estimator: OSEstimator(
                    surroundings: configuration.surroundings, mechanism: mechanism, seed: seed ^ 0x2545_F491_4F6C_DD1D),
                rule: FieldRegionRule(mechanism: mechanism)
            )
        }
        self.now = startTime
        self.regions = RegionMonitor(configuration: configuration)
        self.conditions = ConditionMonitor(configuration: configuration)
        self.services = LocationServicesStateMachine(configuration: configuration)
    }

    // MARK: - Inputs and steps

    /// What moves a core: the world (the device at a sample, the user in Settings, iOS moving the
    /// app) and the app's calls that iOS answers with events. Calls that only change what the app
    /// asks for (`stopUpdatingLocation()`, `requestState(for:)`…) are plain `mutating func`s.
    package enum Input {
        /// The device is at this sample (its true position).
        case move(DeviceSample)
        /// The user changes the app's permission, now or at a later time.
        case changeAuthorization(AuthorizationStatus, at: EpochInstant?)
        /// The app moves between foreground, background, suspension and termination.
        case changeAppState(AppState, at: EpochInstant?)
        case reportInitialAuthorization
        case requestAuthorization(always: Bool)
        case requestTemporaryFullAccuracy(at: EpochInstant?)
        case requestLocation(at: EpochInstant?)
        case startUpdatingLocation
        case startSignificantChanges
        case startMonitoring(CircularRegion)
        case add(MonitoringCondition, identifier: String, monitor: String, assuming: MonitoringState)
        case startLiveUpdates(LiveConfiguration)
        case beginServiceSession(ServiceSessionRequirement, fullAccuracyPurposeKey: String?)
        case beginBackgroundActivitySession
        case invalidateSession(SessionID)
        /// The app's lifecycle code has run: the step it stopped goes on.
        case resume
    }

    /// What the façade does once a step returns; the step's events are at the end of the log.
    package enum Action: Equatable {
        case done
        /// iOS runs the app's lifecycle code now, with the state the app left — its launch code
        /// after a launch into the background (`.terminated`) — then ``Input/resume``.
        case runLifecycleHandler(previous: AppState)
    }

    /// A delivery of a background-capable service, which iOS may launch a terminated app for.
    enum Delivery {
        case region(RegionMonitor.Change)
        case monitor(MonitoringEvent)
        case significantChange(Location)
        case visit(Visit)
        /// The next update of the live updates a terminated app was iterating: iOS relaunches
        /// the app, whose launch code starts them again; the update comes from that iteration.
        case liveUpdate

        /// When its event happened, where the delivery says (a crossing, a monitor's event).
        var time: EpochInstant? {
            switch self {
            case .region(.determined(_, _, let time)), .region(.crossed(_, _, let time, _)): time
            case .monitor(let event): event.date
            case .significantChange, .visit, .liveUpdate: nil
            }
        }
    }

    /// A piece of a stopped step.
    enum Work {
        case sample(SampleProgress)
        case deliveries([Delivery], next: Int)
        /// `add(_:…)`'s last act: conditions that cannot be evaluated report it.
        case reportSuspendedConditions
    }

    /// A sample at no place on the Earth (a coordinate not finite, or past ±90° or ±180°) as one
    /// without a fix where the device last was: positioning never reports such a place
    /// (`CLLocationCoordinate2DIsValid`), and the region index cannot file it (a library hunt: a
    /// NaN sample trapped while a region was monitored).
    private func fixless(_ sample: DeviceSample) -> DeviceSample {
        var sample = sample
        sample.coordinate = device?.coordinate ?? Coordinate(latitude: 0, longitude: 0)
        sample.hasSignal = false
        return sample
    }

    /// Takes `input`, emitting into the log what iOS would, in its order.
    package mutating func step(_ input: Input) -> Action {
        let base = agenda.count
        if creationReportOwed {
            creationReportOwed = false
            if case .reportInitialAuthorization = input {
            } else if appState != .terminated {
                reportAuthorization()
            }
        }
        switch input {
        case .move(let sample):
            return proceed(SampleProgress(sample: sample.coordinate.isValid ? sample : fixless(sample)), base: base)
        case .resume:
            guard let launched = launching.take() else { return .done }
            finish(launched.delivery)
            now = max(now, launched.resumeAt)
            return proceed(base: launched.base)
        case .changeAuthorization(let status, let time):
            advanceClock(to: time)
            perform(authorization.change(to: status))
        case .changeAppState(let state, let time):
            return changeAppState(to: state, at: time)
        case .reportInitialAuthorization: reportAuthorization()
        case .requestAuthorization(let always): requestAuthorization(always: always)
        case .requestTemporaryFullAccuracy(let time):
            advanceClock(to: time)
            perform(authorization.requestTemporaryFullAccuracy(inForeground: appState == .foreground))
        case .requestLocation(let time): requestLocation(at: time)
        case .startUpdatingLocation: startUpdatingLocation()
        case .startSignificantChanges: startSignificantChanges()
        case .startMonitoring(let region): startMonitoring(region)
        case .add(let condition, let identifier, let monitor, let assuming):
            agenda.append(.reportSuspendedConditions)
            let events = add(condition, identifier: identifier, monitor: monitor, assuming: assuming)
            return proceed(with: .deliveries(events.map(Delivery.monitor), next: 0), base: base)
        case .startLiveUpdates(let configuration): startLiveUpdates(configuration)
        case .beginServiceSession(let requirement, let key):
            beginServiceSession(requirement, fullAccuracyPurposeKey: key)
        case .beginBackgroundActivitySession:
            openSession(kind: .backgroundActivity, requirement: nil, fullAccuracyPurposeKey: nil)
            refreshMonitoringBlockers()
        case .invalidateSession(let id):
            guard sessions.removeValue(forKey: id) != nil else { break }
            sessionOrder.removeAll { $0 == id }
            refreshMonitoringBlockers()
        }
        return .done
    }

    /// Runs a sample's phases from where `progress` stands, then what is left on the agenda
    /// above `base`, until done or iOS launches the app for a delivery.
    private mutating func proceed(_ progress: SampleProgress, base: Int) -> Action {
        var progress = progress
        while progress.phase != .done {
            let deliveries = advance(&progress)
            guard !deliveries.isEmpty else { continue }
            if progress.phase != .done { agenda.append(.sample(progress)) }
            return proceed(with: .deliveries(deliveries, next: 0), base: base)
        }
        return proceed(base: base)
    }

    /// Does `work`, then what is left on the agenda above `base`, until done or iOS launches the
    /// app for a delivery.
    private mutating func proceed(with work: Work? = nil, base: Int) -> Action {
        var next = work ?? (agenda.count > base ? agenda.popLast() : nil)
        while let work = next {
            switch work {
            case .sample(let progress):
                return proceed(progress, base: base)
            case .deliveries(let deliveries, let start):
                for index in start..<deliveries.count where deliver(deliveries[index]) {
                    if index + 1 < deliveries.count { agenda.append(.deliveries(deliveries, next: index + 1)) }
                    launching = (deliveries[index], base, now)
                    // The app's launch code runs when iOS launched it — at a crossing found
                    // between two fixes, before the fix that found it — so what it reports comes
                    // in time order, before the event that woke it.
                    if let time = deliveries[index].time, time < now { now = time }
                    return .runLifecycleHandler(previous: .terminated)
                }
            case .reportSuspendedConditions:
                if !monitoringBlockers.isEmpty { reportSuspended(monitoringBlockers) }
            }
            next = agenda.count > base ? agenda.popLast() : nil
        }
        return .done
    }

    /// Moves the clock to `time` when given (never back).
    mutating func advanceClock(to time: EpochInstant?) {
        if let time { now = max(now, time) }
    }

    /// Appends `event` to the log, stamped `time` or now. Consuming: a borrowed event was copied
    /// into the log and the caller's temporary destroyed, for every fix of a replay.
    mutating func emit(_ event: consuming LocationEvent, at time: EpochInstant? = nil) {
        // A terminated app has no process: nothing reaches it until iOS relaunches it (into the
        // background, before the event that woke it) or the user launches it, and the manager it
        // then creates learns the status anew. Apple, `startUpdatingLocation()`: "If your app is
        // terminated, the delivery of new location events stops altogether."
        if appState == .terminated {
            switch event {
            case .appStateChanged, .appLaunched: break
            default: return
            }
        }
        emitted.append(TimedEvent(time: time ?? now, event: event))
    }

    // MARK: - Steps that call nobody

    /// Up to iOS 12 regions need Always; from iOS 13 When In Use too. Approximate locations
    /// (reduced accuracy, iOS 14) monitor no regions.
    ///
    /// The core's own reads are `mutating get`, so the manager reads them in place: a plain
    /// getter called on the manager's stored core copied the whole core first (perf: 15 % more
    /// CPU for 1,000 trials of field-cafe-checkin).
    package var regionMonitoringAllowed: Bool {
        mutating get {
            configuration.allowsRegionMonitoring(authorization.status)
                && authorization.accuracyAuthorization == .fullAccuracy
        }
    }

    /// The device has a signal at `sample`: the noise moves on, and the position the device
    /// believes is the true one shifted by it. Returns that position and the noise's radius.
    package mutating func locate(_ sample: DeviceSample) -> (believed: Coordinate, noiseRadius: Double) {
        if inSignalGap {
            regions.signalResumed(at: sample.time)
            conditions.signalResumed(at: sample.time)
        }
        inSignalGap = false
        let offset = fixes.noise.step(at: sample.time)
        let believed = FixMaker.shifted(sample.coordinate, by: offset)
        believedPosition = believed
        return (believed, offset.radius)
    }

    /// The `requestState(for:)` calls waiting for an answer, oldest first; none wait after.
    package mutating func takeStateRequests() -> [(region: CircularRegion, time: EpochInstant)] {
        defer { stateRequests.removeAll() }
        return stateRequests
    }

    /// The OS's own positioning at this sample: timers that held confirm their transitions, a new
    /// estimate is weighed against the regions; each confirmed transition waits out its wake and
    /// dispatch (``takeDelayed(through:)``), a region's events in order.
    package mutating func estimateForRegions(_ sample: DeviceSample) {
        guard field != nil else { return }
        let monitoring = regionMonitoringAllowed && !regions.isEmpty
        // In place: the field state, the monitor and the queue are distinct stored properties.
        field?.step(
            sample, monitoring: monitoring, regions: &regions, mechanism: configuration.regionMechanism,
            delayed: &delayed)
    }

    /// The region changes whose dispatch is over by `time`, in the order they fall due; they
    /// wait no more.
    package mutating func takeDelayed(through time: EpochInstant) -> [RegionMonitor.Change] {
        guard delayed.contains(where: { $0.due <= time }) else { return [] }
        let ready = delayed.filter { $0.due <= time }.sorted { $0.due < $1.due }
        delayed.removeAll { $0.due <= time }
        return ready.map(\.change)
    }

    /// Under a non-exact realism, whether no region event is on its way (none waiting out its
    /// dispatch, no timer running, no exit owed): a resting device may stop.
    package var fieldIsSettled: Bool { mutating get { delayed.isEmpty && (field?.rule.isSettled ?? true) } }

    /// Appends the events emitted since the last call to `buffer`, each named for `device`, and
    /// empties the log.
    package mutating func drainEmitted(into buffer: inout [TimedEvent], device: String?) {
        guard !emitted.isEmpty else { return }
        if let device {
            for index in emitted.indices { emitted[index].device = device }
        }
        // The events change hands without being copied when the log would not keep a larger
        // storage than its own (a simulation's buffer gathers every device's events in one array).
        if buffer.isEmpty && buffer.capacity <= emitted.capacity {
            swap(&buffer, &emitted)
        } else if emitted.count == 1 {
            // A sample's usual lot, moved: appending the array copied the event, retained and
            // released both arrays' storage, and destroyed the original (9 % of a 3,000-device
            // crowd's CPU).
            buffer.append(emitted.removeLast())
        } else {
            buffer.append(contentsOf: emitted)
            emitted.removeAll(keepingCapacity: true)
        }
    }
}
