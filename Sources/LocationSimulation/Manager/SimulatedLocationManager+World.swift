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
        if let due = core.authorization.promptDue(by: sample.time) {
            core.now = max(now, due)
            perform(core.authorization.answerPrompt())
        }
        if let expiry = core.authorization.oneTimeExpiry(by: sample.time) {
            core.now = max(now, expiry)
            perform(core.authorization.oneTimeExpired(isInUse: isInUse))
        }
        if !core.delayed.isEmpty { for change in core.takeDelayed(through: sample.time) { deliver(change) } }
        if core.lastLaunch != nil { expireStaleSessions(at: sample.time) }
        if !core.stateRequests.isEmpty {
            for request in core.takeStateRequests() {
                emit(
                    .determinedState(core.regions.state(of: request.region.identifier), for: request.region),
                    at: request.time)
            }
        }
        if let deadline = core.services.oneShotDeadline(by: sample.time) {
            core.services.endOneShot()
            emit(.failed(LocationError(.locationUnknown, "no fix for requestLocation()")), at: max(now, deadline))
        }
        core.now = sample.time
        core.device = sample
        guard sample.hasSignal else {
            if !core.inSignalGap && authorizationStatus.allowsLocation && core.services.deliversFixes && isInUse {
                emit(.failed(LocationError(.locationUnknown, "no signal")))
            }
            core.inSignalGap = true
            updateLive(sample, believed: nil, noiseRadius: 0)
            return
        }
        let (believed, noiseRadius) = core.locate(sample)
        if regionMonitoringAllowed && !core.regions.isEmpty {
            for change in core.regions.evaluate(at: believed, time: sample.time) { handle(change) }
        }
        if configuration.realism == .device { core.estimateForRegions(sample) }
        refreshMonitoringBlockers()
        if core.monitoringBlockers.isEmpty && core.conditions.isMonitoring {
            for event in core.conditions.evaluate(believed: believed, actual: sample.coordinate, time: sample.time) {
                deliver(event)
            }
        }
        updateLive(sample, believed: believed, noiseRadius: noiseRadius)
        guard authorizationStatus.allowsLocation else { return }
        if core.services.isUpdating { updateStandard(sample, believed: believed, noiseRadius: noiseRadius) }
        if case .waiting = core.services.oneShot, authorizationStatus == .authorizedAlways || isInUse {
            core.services.endOneShot()
            let fix = standardFix(sample, believed: believed, noiseRadius: noiseRadius)
            core.location = fix
            emit(.locationUpdated(fix, service: .standard))
        }
        if core.services.significantChanges { updateSignificantChanges(sample) }
        if let visit = core.services.observeVisit(believed, at: sample.time), deliversInBackground(.visit) {
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
        core.fixes.standardFix(
            sample, believed: believed, noiseRadius: noiseRadius,
            source: configuration.positioning(for: desiredAccuracy),
            reduced: deliversReducedAccuracy)
    }

    private func updateStandard(_ sample: DeviceSample, believed: Coordinate, noiseRadius: Double) {
        if pausesLocationUpdatesAutomatically {
            switch core.services.checkPause(at: sample, radius: configuration.pauseRadius, delay: core.pauseDelay) {
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
        guard core.services.standardFixDue(at: sample.time, interval: interval) else { return }
        let fix = core.fixes.standardFix(
            sample, believed: believed, noiseRadius: noiseRadius, source: source, reduced: reduced)
        if core.services.takeCachedFix() { emitCachedFix(sample, near: believed) }
        if distanceFilter <= 0
            || location.map({ ShortDistance.distance($0.coordinate, fix.coordinate) + Self.tolerance >= distanceFilter }
            )
                ?? true
        {
            core.location = fix
            emit(.locationUpdated(fix, service: .standard))
        }
    }

    private func updateSignificantChanges(_ sample: DeviceSample) {
        var heartbeat: EpochInstant?
        if configuration.realism == .device, let last = core.services.lastSignificant {
            heartbeat =
                core.services.nextHeartbeat
                ?? last.time.advanced(
                    bySeconds: exponential(configuration.deviceRealism.significantChangeHeartbeat.seconds))
        }
        guard
            core.services.significantChangeDue(
                at: sample, distance: configuration.significantChangeDistance,
                interval: configuration.significantChangeInterval, heartbeat: heartbeat)
        else { return }
        let fix = core.fixes.significantChangeFix(sample, reduced: accuracyAuthorization == .reducedAccuracy)
        if deliversInBackground(.significantChange) {
            if !core.services.isUpdating { core.location = fix }
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
        visit.horizontalAccuracy = core.fixes.reducedAccuracyRadius(at: visit.coordinate)
        visit.coordinate = core.fixes.approximate(visit.coordinate)
        return visit
    }

    // MARK: Live updates

    func updateLive(_ sample: DeviceSample, believed: Coordinate?, noiseRadius: Double) {
        guard core.services.live != nil else { return }
        // An update to an app not in use is a use of Always: provisional Always is settled first.
        if authorizationStatus == .authorizedAlways && !isInUseForTodaysAPIs && configuration.iosVersion >= 18
            && holdsSessionForBackground
        {
            _ = settleProvisionalAlways()
        }
        let diagnostics = liveUpdateDiagnostics(hasSignal: sample.hasSignal)
        let reduced = accuracyAuthorization == .reducedAccuracy
        let action = core.services.liveUpdate(
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
                ? core.fixes.approximateFix(sample, near: believed)
                : core.fixes.makeFix(sample, at: believed, accuracy: noiseRadius)
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

    /// Under a non-exact realism, whether no region event is on its way: a resting device may stop.
    var fieldIsSettled: Bool { core.fieldIsSettled }

    /// The first fix after a start, from the cache: up to ``DeviceRealism/cachedFixMaximumAge``
    /// old, where the device was believed to be then, with Wi-Fi accuracy.
    private func emitCachedFix(_ sample: DeviceSample, near position: Coordinate) {
        let age = core.realism.unit() * configuration.deviceRealism.cachedFixMaximumAge.seconds
        let sigma = 65 / NoiseModel.radius68
        let offset = (north: sigma * core.realism.gaussian(), east: sigma * core.realism.gaussian(), radius: 65.0)
        var fix = core.fixes.makeFix(sample, at: FixMaker.shifted(position, by: offset), accuracy: 65)
        fix.timestamp = sample.time.advanced(bySeconds: -age)
        fix.speed = -1
        fix.course = -1
        emit(.locationUpdated(fix, service: .standard))
    }

    private func exponential(_ mean: Double) -> Double {
        -mean * log(1 - core.realism.unit())
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
