import Geo
import LocationEvents
import SimulatedTime
import WaypostSupport

/// Everything a ``SimulatedLocationManager`` knows, as one value: its state machines, what the
/// device last was, the OS's own estimates under a non-exact realism, the app's sessions and the
/// log of what was emitted. The manager is a façade that owns one core and calls the app; the
/// core's own `mutating func`s are the steps that call nobody, so they are tested as values
/// (`LocationManagerCoreTests`) and a copy of a core is a snapshot of a device.
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
    /// The most recently delivered fix.
    package var location: Location?
    /// `configuration.pauseDelay(for: activityType)`, kept as the type changes: a dictionary
    /// lookup for every fix was 4 % of a text replay.
    var pauseDelay: Seconds
    /// Launches after termination so far, and the time of the last one.
    var launches = 0
    var lastLaunch: EpochInstant?
    /// Set while iOS 14+'s authorization callback runs for a status change: the status a delegate
    /// without that callback receives through the deprecated one.
    var statusForDeprecatedCallback: AuthorizationStatus?

    // The machines.
    package var authorization: AuthorizationStateMachine
    package var services: LocationServicesStateMachine
    package var regions: RegionMonitor
    /// The app's `CLMonitor` conditions, every monitor's.
    package var conditions: ConditionMonitor
    var fixes: FixMaker
    /// Under a non-exact realism: the OS's own estimates and the region rule judged on them.
    var field: (estimator: OSEstimator, rule: FieldRegionRule)?

    /// Regions registered before authorization allowed them: started when it does.
    var awaitingStart: [String: CircularRegion] = [:]
    /// The order regions awaiting the prompt were first registered in (identifiers may repeat or
    /// be stale; ``awaitingStart`` decides).
    var awaitingOrder: [String] = []

    // Sessions (Sessions/SimulatedLocationManager+Sessions.swift).
    var sessions: [SessionID: SimulatedLocationManager.HeldSession] = [:]
    var sessionOrder: [SessionID] = []
    var nextSession = 0
    /// The implicit session of iterating today's APIs: nil when none is held, else whether it is
    /// in effect (begun while the app was in use).
    var implicitSessionActive: Bool?

    package let configuration: LocationManagerConfiguration

    package init(
        status: AuthorizationStatus, authorizationAnswer: AuthorizationAnswer?, answerDelay: Seconds,
        accuracyAuthorization: AccuracyAuthorization, noise: NoiseModel, seed: UInt64, startTime: EpochInstant,
        configuration: LocationManagerConfiguration
    ) {
        self.configuration = configuration
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
            self.field = (
                OSEstimator(
                    surroundings: configuration.surroundings, mechanism: mechanism, seed: seed ^ 0x2545_F491_4F6C_DD1D),
                FieldRegionRule(mechanism: mechanism)
            )
        }
        self.now = startTime
        self.regions = RegionMonitor(configuration: configuration)
        self.conditions = ConditionMonitor(configuration: configuration)
        self.services = LocationServicesStateMachine(configuration: configuration)
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
        // Moved out while they change (so the rule can read the monitor in place) and back:
        // `take()` moves, where a copy retained and released everything they hold each sample.
        guard var (estimator, rule) = field.take() else { return }
        defer { field = (estimator, rule) }
        let estimate = estimator.observe(sample.coordinate, at: sample.time)
        guard regionMonitoringAllowed && !regions.isEmpty else { return }
        // The monitor is read in place, not copied at every sample.
        let confirmed = rule.confirmations(through: sample.time) { self.regions.contains($0.identifier) }
        let mechanism = configuration.regionMechanism
        if let estimate {
            let regions = self.regions.regions
            rule.evaluate(estimate, regions: regions)
            // Near a boundary, for what this estimate knows, the OS powers satellite positioning up.
            let margin = mechanism.proximityFactor * estimate.horizontalAccuracy + mechanism.cushion
            estimator.wantsSatellite(
                regions.contains {
                    abs(ShortDistance.distance($0.center, estimate.coordinate) - mechanism.effectiveRadius($0.radius))
                        <= margin
                }, at: estimate.time)
        }
        for confirmation in confirmed {
            let region = confirmation.region
            let dispatch = estimator.logNormal(median: mechanism.dispatchMedian, sigma: mechanism.dispatchSigma)
            // Seen at this sample (the simulation's resolution), never stamped before it.
            let earliest = delayed.last { $0.change.region == region }?.due ?? sample.time
            let due = max(earliest, sample.time, confirmation.time.advanced(by: dispatch))
            delayed.append(
                (due, .crossed(region, into: confirmation.state, time: due, position: confirmation.believed)))
        }
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
        // storage than its own (a crowd's window gathers every device's events in one array).
        if buffer.isEmpty && buffer.capacity <= emitted.capacity {
            swap(&buffer, &emitted)
        } else {
            buffer.append(contentsOf: emitted)
            emitted.removeAll(keepingCapacity: true)
        }
    }
}
