import Geo
import LocationEvents
import SimulatedTime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The world side: the device moves, and the manager delivers what a real device's location
/// manager would — in the order iOS does, each machine consulted and settled before the app hears
/// of it.
extension SimulatedLocationManager {
    /// The device is at `sample` (its true position) at `sample.time`: deliver what a real
    /// device's location manager would.
    public func move(to sample: DeviceSample) {
        if let due = authorization.promptDue(by: sample.time) {
            now = max(now, due)
            perform(authorization.answerPrompt())
        }
        if let expiry = authorization.oneTimeExpiry(by: sample.time) {
            now = max(now, expiry)
            perform(authorization.oneTimeExpired(isInUse: isInUse))
        }
        if !delayed.isEmpty { deliverDelayed(through: sample.time) }
        if lastLaunch != nil { expireStaleSessions(at: sample.time) }
        if !stateRequests.isEmpty {
            let requests = stateRequests
            stateRequests.removeAll()
            for request in requests {
                emit(
                    .determinedState(regions.state(of: request.region.identifier), for: request.region),
                    at: request.time)
            }
        }
        if let deadline = services.oneShotDeadline(by: sample.time) {
            services.endOneShot()
            emit(.failed(LocationError(.locationUnknown, "no fix for requestLocation()")), at: max(now, deadline))
        }
        now = sample.time
        device = sample
        guard sample.hasSignal else {
            if !inSignalGap && authorizationStatus.allowsLocation && services.deliversFixes && isInUse {
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
        let offset = fixes.noise.step(at: sample.time)
        let believed = FixMaker.shifted(sample.coordinate, by: offset)
        believedPosition = believed
        if regionMonitoringAllowed && !regions.isEmpty {
            for change in regions.evaluate(at: believed, time: sample.time) { handle(change) }
        }
        if configuration.realism == .device { estimateForRegions(sample) }
        refreshMonitoringBlockers()
        if monitoringBlockers.isEmpty && conditions.isMonitoring {
            for event in conditions.evaluate(believed: believed, actual: sample.coordinate, time: sample.time) {
                deliver(event)
            }
        }
        updateLive(sample, believed: believed, noiseRadius: offset.radius)
        guard authorizationStatus.allowsLocation else { return }
        if services.isUpdating { updateStandard(sample, believed: believed, noiseRadius: offset.radius) }
        if case .waiting = services.oneShot, authorizationStatus == .authorizedAlways || isInUse {
            services.endOneShot()
            let fix = standardFix(sample, believed: believed, noiseRadius: offset.radius)
            location = fix
            emit(.locationUpdated(fix, service: .standard))
        }
        if services.significantChanges { updateSignificantChanges(sample) }
        if let visit = services.observeVisit(believed, at: sample.time), deliversInBackground(.visit) {
            emit(.visited(reducedIfNeeded(visit)))
        }
    }

    /// Whether the standard service delivers approximate locations: under reduced accuracy
    /// authorization, or when the app asks for them with `desiredAccuracy =
    /// kCLLocationAccuracyReduced` ("If your app is authorized to access location information with
    /// full accuracy, you can use this constant to access location data as if the app didn't have
    /// that authorization", Apple, `kCLLocationAccuracyReduced`).
    var deliversReducedAccuracy: Bool {
        accuracyAuthorization == .reducedAccuracy || desiredAccuracy == LocationAccuracy.reduced
    }

    /// A fix of the standard service (and of `requestLocation()`) at the desired accuracy.
    private func standardFix(_ sample: DeviceSample, believed: Coordinate, noiseRadius: Double) -> Location {
        fixes.standardFix(
            sample, believed: believed, noiseRadius: noiseRadius,
            source: configuration.positioning(for: desiredAccuracy),
            reduced: deliversReducedAccuracy)
    }

    private func updateStandard(_ sample: DeviceSample, believed: Coordinate, noiseRadius: Double) {
        if pausesLocationUpdatesAutomatically {
            switch services.checkPause(at: sample, radius: configuration.pauseRadius, delay: pauseDelay) {
            case .running: break
            case .pausedNow: return emit(.locationUpdatesPaused)
            case .paused: return
            }
        }
        guard isInUse else { return }
        let reduced = deliversReducedAccuracy
        let source = configuration.positioning(for: desiredAccuracy)
        // GPS gives a fix per sample; Wi-Fi, cells and approximate locations come less often.
        let interval = reduced ? configuration.reducedAccuracyInterval : source.error == nil ? .zero : source.interval
        guard services.standardFixDue(at: sample.time, interval: interval) else { return }
        let fix = fixes.standardFix(
            sample, believed: believed, noiseRadius: noiseRadius, source: source, reduced: reduced)
        if services.takeCachedFix() { emitCachedFix(sample, near: believed) }
        if distanceFilter <= 0
            || location.map({ ShortDistance.distance($0.coordinate, fix.coordinate) + Self.tolerance >= distanceFilter }
            )
                ?? true
        {
            location = fix
            emit(.locationUpdated(fix, service: .standard))
        }
    }

    private func updateSignificantChanges(_ sample: DeviceSample) {
        var heartbeat: EpochInstant?
        if configuration.realism == .device, let last = services.lastSignificant {
            heartbeat =
                services.nextHeartbeat
                ?? last.time.advanced(
                    bySeconds: exponential(configuration.deviceRealism.significantChangeHeartbeat.seconds))
        }
        guard
            services.significantChangeDue(
                at: sample, distance: configuration.significantChangeDistance,
                interval: configuration.significantChangeInterval, heartbeat: heartbeat)
        else { return }
        let fix = fixes.significantChangeFix(sample, reduced: accuracyAuthorization == .reducedAccuracy)
        if deliversInBackground(.significantChange) {
            if !services.isUpdating { location = fix }
            emit(.locationUpdated(fix, service: .significantChange))
        }
    }

    /// A visit under reduced accuracy: "all Core Location services (location updates, visit
    /// monitoring, significant location change, fence monitoring) receive service at the
    /// reduced-accuracy service level" (Apple, `NSLocationDefaultAccuracyReduced`). Its coordinate is
    /// the approximate location, and — since `CLVisit.horizontalAccuracy` is the radius of the
    /// circle centred on that coordinate (Apple) — its accuracy the radius of the coarsening
    /// applied, as reduced-accuracy fixes report.
    func reducedIfNeeded(_ visit: Visit) -> Visit {
        guard accuracyAuthorization == .reducedAccuracy else { return visit }
        var visit = visit
        visit.horizontalAccuracy = fixes.reducedAccuracyRadius(at: visit.coordinate)
        visit.coordinate = fixes.approximate(visit.coordinate)
        return visit
    }

    // MARK: Live updates

    func updateLive(_ sample: DeviceSample, believed: Coordinate?, noiseRadius: Double) {
        guard services.live != nil else { return }
        // An update to an app not in use is a use of Always: provisional Always is settled first.
        if authorizationStatus == .authorizedAlways && !isInUseForTodaysAPIs && configuration.iosVersion >= 18
            && holdsSessionForBackground
        {
            _ = settleProvisionalAlways()
        }
        let diagnostics = liveUpdateDiagnostics(hasSignal: sample.hasSignal)
        let reduced = accuracyAuthorization == .reducedAccuracy
        let action = services.liveUpdate(
            at: sample, diagnostics: diagnostics,
            interval: reduced ? configuration.reducedAccuracyInterval : configuration.updateInterval,
            radius: configuration.pauseRadius, iosVersion: configuration.iosVersion)
        switch action {
        case .none: return
        case .diagnostic(let diagnostics):
            emit(.liveUpdate(LocationUpdate(location: nil, diagnostics: diagnostics)))
        case .update(let isStationary):
            guard let believed else { return }
            // GPS-class (the configurations all ask for the best), or approximate under reduced accuracy.
            let fix =
                reduced
                ? fixes.approximateFix(sample, near: believed)
                : fixes.makeFix(sample, at: believed, accuracy: noiseRadius)
            emit(.liveUpdate(LocationUpdate(location: fix, isStationary: isStationary, diagnostics: diagnostics)))
        }
    }

    // MARK: Regions, and device realism

    /// A region change of the exact rule: delivered as it is under `exact`; under a non-exact
    /// realism only a region's first state is, its transitions coming from the OS's estimates.
    private func handle(_ change: RegionMonitor.Change) {
        if configuration.realism == .device, case .crossed = change { return }
        deliver(change)
    }

    /// The OS's own positioning at this sample: timers that held confirm their transitions, a new
    /// estimate is weighed against the regions; each confirmed transition reaches the app after
    /// its wake and dispatch, a region's events in order.
    private func estimateForRegions(_ sample: DeviceSample) {
        guard var (estimator, rule) = field else { return }
        field = nil  // Moved out while they change: one copy, not two.
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

    /// Under a non-exact realism, whether no region event is on its way (none waiting out its
    /// dispatch, no timer running, no exit owed): a resting device may stop.
    var fieldIsSettled: Bool { delayed.isEmpty && (field?.rule.isSettled ?? true) }

    private func deliverDelayed(through time: EpochInstant) {
        let ready = delayed.filter { $0.due <= time }.sorted { $0.due < $1.due }
        guard !ready.isEmpty else { return }
        delayed.removeAll { $0.due <= time }
        for (_, change) in ready { deliver(change) }
    }

    /// The first fix after a start, from the cache: up to ``DeviceRealism/cachedFixMaximumAge``
    /// old, where the device was believed to be then, with Wi-Fi accuracy.
    private func emitCachedFix(_ sample: DeviceSample, near position: Coordinate) {
        let age = realism.unit() * configuration.deviceRealism.cachedFixMaximumAge.seconds
        let sigma = 65 / NoiseModel.radius68
        let offset = (north: sigma * realism.gaussian(), east: sigma * realism.gaussian(), radius: 65.0)
        var fix = fixes.makeFix(sample, at: FixMaker.shifted(position, by: offset), accuracy: 65)
        fix.timestamp = sample.time.advanced(bySeconds: -age)
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
}
