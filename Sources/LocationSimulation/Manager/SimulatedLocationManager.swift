import Geo

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
/// device: standard and significant-change updates, circular region monitoring with Apple's
/// thresholds, visits, and authorization — on virtual time.
///
/// The app side is CoreLocation's API; the world side is ``move(to:)``, which a ``Simulation``
/// calls with the device's true position at each instant, and ``changeAuthorization(to:)``,
/// the user changing Settings.
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
/// virtual-time order. Behaviour and numbers: ``LocationManagerConfiguration``.
public final class SimulatedLocationManager {
    public weak var delegate: (any SimulatedLocationManagerDelegate)?
    /// Receives every event with its time (the simulation runner's hook).
    @exclusivity(unchecked) public var observer: ((TimedEvent) -> Void)?

    public let configuration: LocationManagerConfiguration
    /// `desiredAccuracy`, metres or a ``LocationAccuracy`` constant.
    @exclusivity(unchecked) public var desiredAccuracy = LocationAccuracy.best
    /// `distanceFilter`: metres from the last delivered fix; ``LocationAccuracy/distanceFilterNone`` delivers all.
    @exclusivity(unchecked) public var distanceFilter = LocationAccuracy.distanceFilterNone
    /// The most recently delivered fix.
    @exclusivity(unchecked) public private(set) var location: Location?
    @exclusivity(unchecked) public private(set) var authorizationStatus: AuthorizationStatus
    public var maximumRegionMonitoringDistance: Double { configuration.maximumRegionMonitoringDistance }
    /// The regions being monitored.
    public var monitoredRegions: Set<CircularRegion> { Set(slots.filter(\.isLive).map(\.region)) }
    /// The current virtual time: the last instant the manager was moved to.
    @exclusivity(unchecked) public private(set) var now: Double

    /// The answer the user gives when the app first asks for location (nil: nobody answers).
    @exclusivity(unchecked) public var authorizationAnswer: AuthorizationAnswer?

    // The manager is driven from one thread at a time (like CLLocationManager); its state skips
    // runtime exclusivity checks, which cost a third of a replay's time.
    @exclusivity(unchecked) private var noise: NoiseProcess
    @exclusivity(unchecked) private var device: DeviceSample?
    @exclusivity(unchecked) private var updating = false
    @exclusivity(unchecked) private var significantChanges = false
    @exclusivity(unchecked) private var lastSignificant: Location?
    @exclusivity(unchecked) private var visitsOn = false
    @exclusivity(unchecked) private var visitAnchor: (coordinate: Coordinate, since: Double)?
    @exclusivity(unchecked) private var visitConfirmed = false
    @exclusivity(unchecked) private var inSignalGap = false
    /// When the signal last came back after a gap: a crossing is never placed before it.
    @exclusivity(unchecked) private var signalResumed = -Double.infinity

    private struct Monitored {
        var region: CircularRegion
        var state: RegionState = .unknown
        /// The state being confirmed and since when it has held.
        var pending: (state: RegionState, since: Double)?
        var lastDistance: Double?
        var lastTime: Double?
        /// Evaluated on every sample, wherever the device is: inside, pending or undetermined.
        var isActive = true
        /// False once the slot's region stopped being monitored (slots are reused).
        var isLive = true
    }
    /// Monitored regions by slot; slots are reused, identifiers map to them.
    @exclusivity(unchecked) private var slots: [Monitored] = []
    @exclusivity(unchecked) private var slotOf: [String: Int] = [:]
    @exclusivity(unchecked) private var freeSlots: [Int] = []
    @exclusivity(unchecked) private var index: CircleIndex<Int>
    @exclusivity(unchecked) private var active: [Int] = []
    /// Reused for each sample's candidates, so evaluating regions allocates nothing.
    @exclusivity(unchecked) private var scratch: [Int] = []
    @exclusivity(unchecked) private var metric: (latitude: Double, metric: LocalMetric)?
    @exclusivity(unchecked) private var continuation: AsyncStream<TimedEvent>.Continuation?
    /// Distances are compared to the micrometre, so a route exactly at a threshold meets it.
    private static let tolerance = 1e-6

    /// - Parameters:
    ///   - status: the authorization at creation (default: not determined, as on first launch).
    ///   - authorizationAnswer: how the user answers the prompt when the app asks.
    ///   - noise: the error model of fixes (default: none — fixes lie on the route).
    ///   - seed: seeds the noise; the same seed gives the same fixes.
    ///   - startTime: virtual time of creation, seconds since 1970.
    public init(
        status: AuthorizationStatus = .notDetermined, authorizationAnswer: AuthorizationAnswer? = nil,
        noise: NoiseModel = NoiseModel(.none), seed: UInt64 = 0, startTime: Double = 0,
        configuration: LocationManagerConfiguration = LocationManagerConfiguration()
    ) {
        self.configuration = configuration
        self.authorizationStatus = status
        self.authorizationAnswer = authorizationAnswer
        self.noise = NoiseProcess(model: noise, seed: seed)
        self.now = startTime
        self.index = CircleIndex<Int>(margin: configuration.regionHysteresis)
    }

    /// Every event from now on as an async sequence (like `CLLocationUpdate.liveUpdates`).
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

    /// Reports the authorization at creation, as CoreLocation does when a manager is made.
    public func reportInitialAuthorization() {
        emit(.authorizationChanged(authorizationStatus))
    }

    // MARK: - Authorization

    public func requestWhenInUseAuthorization() {
        requestAuthorization(wantsAlways: false)
    }

    public func requestAlwaysAuthorization() {
        requestAuthorization(wantsAlways: true)
    }

    private func requestAuthorization(wantsAlways: Bool) {
        guard authorizationStatus == .notDetermined, let answer = authorizationAnswer else { return }
        // A when-in-use request cannot be answered with Always.
        let status = !wantsAlways && answer == .allowAlways ? AuthorizationStatus.authorizedWhenInUse : answer.status
        changeAuthorization(to: status)
    }

    /// The user changes the app's location permission (Settings, or a prompt answer), now or at
    /// a later virtual `time`.
    public func changeAuthorization(to status: AuthorizationStatus, at time: Double? = nil) {
        if let time { now = max(now, time) }
        guard status != authorizationStatus else { return }
        authorizationStatus = status
        emit(.authorizationChanged(status))
        if !status.allowsLocation && status != .notDetermined && (updating || significantChanges) {
            emit(.failed(LocationError(.denied, "location access is \(status)")))
        }
        if !configuration.allowsRegionMonitoring(status) && status != .notDetermined {
            for region in slots.filter(\.isLive).map(\.region).sorted(by: { $0.identifier < $1.identifier }) {
                emit(.monitoringFailed(region, monitoringDenied))
            }
        }
    }

    // MARK: - Standard and significant-change services

    public func startUpdatingLocation() {
        updating = true
        if !authorizationStatus.allowsLocation && authorizationStatus != .notDetermined {
            emit(.failed(LocationError(.denied, "location access is \(authorizationStatus)")))
        }
    }

    public func stopUpdatingLocation() {
        updating = false
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

    private var monitoringDenied: LocationError {
        LocationError(
            .regionMonitoringDenied,
            configuration.iosVersion >= 13
                ? "region monitoring needs authorizedWhenInUse or authorizedAlways"
                : "region monitoring needs authorizedAlways (iOS \(configuration.iosVersion))")
    }

    /// Registers `region`. Before the user has answered the prompt the region is kept, and
    /// monitored once authorization allows it, as iOS does; refused authorization fails it.
    public func startMonitoring(for region: CircularRegion) {
        if authorizationStatus != .notDetermined && !configuration.allowsRegionMonitoring(authorizationStatus) {
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
        if slotOf[region.identifier] == nil, let limit = configuration.regionLimit, slotOf.count >= limit {
            return emit(
                .monitoringFailed(
                    region, LocationError(.regionMonitoringFailure, "an app can monitor at most \(limit) regions")))
        }
        // The same identifier replaces the region. No event at registration, even when inside.
        var monitored = Monitored(region: region)
        if let device, device.hasSignal {
            let distance = ShortDistance.distance(region.center, device.coordinate)
            monitored.state = distance <= region.radius ? .inside : .outside
            monitored.lastDistance = distance
            monitored.lastTime = device.time
            monitored.isActive = monitored.state == .inside
        }
        let slot: Int
        if let existing = slotOf[region.identifier] {
            slot = existing
        } else if let free = freeSlots.popLast() {
            slot = free
        } else {
            slot = slots.count
            slots.append(monitored)
        }
        slots[slot] = monitored
        slotOf[region.identifier] = slot
        index.insert(region.circle, for: slot)
        active.removeAll { $0 == slot }
        if monitored.isActive { active.append(slot) }
    }

    public func stopMonitoring(for region: CircularRegion) {
        guard let slot = slotOf.removeValue(forKey: region.identifier) else { return }
        slots[slot].isLive = false
        freeSlots.append(slot)
        index.remove(slot)
        active.removeAll { $0 == slot }
    }

    /// Asks for a region's state; the answer comes through `didDetermineState`.
    public func requestState(for region: CircularRegion) {
        let state = slotOf[region.identifier].map { slots[$0].state } ?? .unknown
        emit(.determinedState(state, for: region))
    }

    // MARK: - The world moves

    /// The device is at `sample` (its true position) at `sample.time`: deliver what a real
    /// device's location manager would.
    public func move(to sample: DeviceSample) {
        now = sample.time
        device = sample
        guard sample.hasSignal else {
            if !inSignalGap && authorizationStatus.allowsLocation && (updating || significantChanges) {
                emit(.failed(LocationError(.locationUnknown, "no signal")))
            }
            inSignalGap = true
            return
        }
        if inSignalGap { signalResumed = sample.time }
        inSignalGap = false
        let offset = noise.step(at: sample.time)
        var believed = sample.coordinate
        if offset.north != 0 || offset.east != 0 {
            believed = Coordinate(
                latitude: sample.coordinate.latitude + offset.north / 111_132.954,
                longitude: sample.coordinate.longitude
                    + offset.east / (111_319.49 * cos(sample.coordinate.latitude * .pi / 180)))
        }
        if configuration.allowsRegionMonitoring(authorizationStatus) && !slotOf.isEmpty {
            evaluateRegions(at: believed, time: sample.time)
        }
        guard authorizationStatus.allowsLocation else { return }
        if updating {
            let accuracy = max(LocationAccuracy.reportedAccuracy(for: desiredAccuracy), offset.radius)
            let fix = makeFix(sample, at: believed, accuracy: accuracy)
            if distanceFilter <= 0
                || location.map({
                    ShortDistance.distance($0.coordinate, fix.coordinate) + Self.tolerance >= distanceFilter
                })
                    ?? true
            {
                location = fix
                emit(.locationUpdated(fix, service: .standard))
            }
        }
        if significantChanges {
            let due =
                lastSignificant.map {
                    ShortDistance.distance($0.coordinate, sample.coordinate) + Self.tolerance
                        >= configuration.significantChangeDistance
                        && sample.time - $0.timestamp + 1e-9 >= configuration.significantChangeInterval
                } ?? true
            if due {
                let fix = makeFix(sample, at: sample.coordinate, accuracy: configuration.significantChangeAccuracy)
                lastSignificant = fix
                if !updating { location = fix }
                emit(.locationUpdated(fix, service: .significantChange))
            }
        }
        if visitsOn { trackVisit(at: sample.coordinate, time: sample.time) }
    }

    private func makeFix(_ sample: DeviceSample, at coordinate: Coordinate, accuracy: Double) -> Location {
        Location(
            coordinate: coordinate, altitude: sample.altitude ?? 0, horizontalAccuracy: accuracy,
            verticalAccuracy: sample.altitude == nil ? -1 : configuration.verticalAccuracy,
            speed: sample.speed ?? -1, course: sample.course ?? -1, timestamp: sample.time)
    }

    // MARK: Region thresholds

    private func evaluateRegions(at position: Coordinate, time: Double) {
        let metric = LocalMetric.near(position.latitude, cached: &metric)
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: index.candidates(near: position))
        for slot in active where !scratch.contains(slot) { scratch.append(slot) }
        if scratch.count > 1 { scratch.sort() }  // a fixed order for simultaneous events
        for slot in scratch where slots[slot].isLive {
            let distance = metric.distance(slots[slot].region.center, position)
            evaluate(&slots[slot], distance: distance, at: position, time: time)
            let keep = slots[slot].state != .outside || slots[slot].pending != nil
            if keep != slots[slot].isActive {
                slots[slot].isActive = keep
                if keep { active.append(slot) } else { active.removeAll { $0 == slot } }
            }
        }
    }

    /// Apple's rule: cross the boundary, get the hysteresis distance past it, stay there for the
    /// dwell time. The crossing of the threshold is interpolated between samples, so the
    /// reported time is exact to the route, not to the sampling.
    private func evaluate(_ monitored: inout Monitored, distance: Double, at position: Coordinate, time: Double) {
        let region = monitored.region
        defer {
            monitored.lastDistance = distance
            monitored.lastTime = time
        }
        if monitored.state == .unknown {
            monitored.state = distance <= region.radius ? .inside : .outside
            return
        }
        // The first fix after a signal gap: a dwell begun before the gap is not evidence.
        if (monitored.lastTime ?? .infinity) < signalResumed { monitored.pending = nil }
        let target: RegionState = monitored.state == .inside ? .outside : .inside
        let threshold =
            target == .inside
            ? region.radius - configuration.inwardThreshold(radius: region.radius)
            : region.radius + configuration.regionHysteresis
        let beyond = target == .inside ? distance <= threshold : distance >= threshold
        guard beyond else {
            monitored.pending = nil
            return
        }
        if monitored.pending == nil {
            var since = time
            // Interpolated between two fixes that both arrived; across a signal gap the device's
            // path is unknown, so the crossing counts from the first fix after it, and the dwell
            // is made of fixes that really came.
            if let d0 = monitored.lastDistance, let t0 = monitored.lastTime, d0 != distance, t0 >= signalResumed {
                let fraction = (threshold - d0) / (distance - d0)
                if fraction > 0 && fraction <= 1 { since = t0 + (time - t0) * fraction }
            }
            monitored.pending = (target, since)
        }
        guard let pending = monitored.pending, time - pending.since >= configuration.regionDwell - 1e-9 else { return }
        monitored.state = target
        monitored.pending = nil
        let at = pending.since + configuration.regionDwell
        if target == .inside {
            if region.notifyOnEntry { emit(.enteredRegion(region, at: position), at: at) }
        } else if region.notifyOnExit {
            emit(.exitedRegion(region, at: position), at: at)
        }
        emit(.determinedState(target, for: region), at: at)
    }

    // MARK: Visits

    private func trackVisit(at position: Coordinate, time: Double) {
        guard let anchor = visitAnchor else {
            visitAnchor = (position, time)
            return
        }
        if ShortDistance.distance(anchor.coordinate, position) <= configuration.visitRadius {
            if !visitConfirmed && time - anchor.since >= configuration.visitMinimumDuration { visitConfirmed = true }
            return
        }
        if visitConfirmed {
            emit(
                .visited(
                    Visit(
                        coordinate: anchor.coordinate, horizontalAccuracy: configuration.visitRadius,
                        arrival: anchor.since, departure: time)))
        }
        visitAnchor = (position, time)
        visitConfirmed = false
    }

    // MARK: Delivery

    private func emit(_ event: LocationEvent, at time: Double? = nil) {
        let timed = TimedEvent(time: time ?? now, event: event)
        observer?(timed)
        continuation?.yield(timed)
        guard let delegate else { return }
        switch event {
        case .authorizationChanged(let status): delegate.locationManager(self, didChangeAuthorization: status)
        case .locationUpdated(let fix, _): delegate.locationManager(self, didUpdateLocations: [fix])
        case .failed(let error): delegate.locationManager(self, didFailWithError: error)
        case .enteredRegion(let region, _): delegate.locationManager(self, didEnterRegion: region)
        case .exitedRegion(let region, _): delegate.locationManager(self, didExitRegion: region)
        case .determinedState(let state, let region):
            delegate.locationManager(self, didDetermineState: state, for: region)
        case .monitoringFailed(let region, let error):
            delegate.locationManager(self, monitoringDidFailFor: region, withError: error)
        case .visited(let visit): delegate.locationManager(self, didVisit: visit)
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
