import Geo
import LocationEvents
import SimulatedTime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The world side: the device moves, and the core emits what a real device's location manager
/// would — in the order iOS does, each machine consulted and settled before the event is logged.
extension LocationManagerCore {
    /// How far a sample's step has gone: it stops where iOS launches the app for a delivery.
    struct SampleProgress {
        var sample: DeviceSample
        var phase = Phase.clock
        /// Where the device believes it is, and the noise's radius (from ``Phase/regions`` on).
        var believed = Coordinate(latitude: 0, longitude: 0)
        var noiseRadius = 0.0

        /// A sample's phases, in iOS's order; each may end in deliveries made before the next.
        enum Phase {
            /// The prompt's answer and Allow Once's expiry, when due.
            case clock
            /// Region events that waited out their dispatch.
            case delayed
            /// Sessions, `requestState` answers, `requestLocation()`'s deadline; the signal; the
            /// exact rule's region changes.
            case regions
            /// The OS's estimates and `CLMonitor` conditions.
            case conditions
            /// Live, standard and significant-change updates.
            case updates
            case visits
            case done
        }
    }

    /// Runs `progress`'s phases from where it stands until one makes deliveries, which it returns
    /// (the phase after it next), or the sample is done (none).
    ///
    /// A phase that delivers nothing falls through to the next, so a sample takes one call and
    /// one jump on its phase: a call for each phase, each jumping on it, was most of this
    /// function's time (perf, a 10,000-device crowd: the jump, mispredicted).
    mutating func advance(_ progress: inout SampleProgress) -> [Delivery] {
        let sample = progress.sample
        switch progress.phase {
        case .clock:
            progress.phase = .delayed
            if let due = authorization.promptDue(by: sample.time) {
                now = max(now, due)
                perform(authorization.answerPrompt())
            }
            if let expiry = authorization.oneTimeExpiry(by: sample.time) {
                now = max(now, expiry)
                perform(authorization.oneTimeExpired(isInUse: isInUse))
            }
            fallthrough
        case .delayed:
            progress.phase = .regions
            if !delayed.isEmpty {
                let deliveries = takeDelayed(through: sample.time).map(Delivery.region)
                if !deliveries.isEmpty { return deliveries }
            }
            fallthrough
        case .regions:
            if lastLaunch != nil { expireStaleSessions(at: sample.time) }
            if !stateRequests.isEmpty {
                for request in takeStateRequests() {
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
                if !inSignalGap && authorization.status.allowsLocation && services.deliversFixes && isInUse {
                    emit(.failed(LocationError(.locationUnknown, "no signal")))
                }
                inSignalGap = true
                updateLive(sample, believed: nil, noiseRadius: 0)
                progress.phase = .done
                return []
            }
            (progress.believed, progress.noiseRadius) = locate(sample)
            progress.phase = .conditions
            if regionMonitoringAllowed && !regions.isEmpty {
                // Under a non-exact realism only a region's first state comes from the exact rule,
                // its transitions from the OS's estimates.
                let device = configuration.realism == .device
                let deliveries: [Delivery] = regions.evaluate(at: progress.believed, time: sample.time).compactMap {
                    change in
                    if device, case .crossed = change { return nil }
                    return .region(change)
                }
                if !deliveries.isEmpty { return deliveries }
            }
            fallthrough
        case .conditions:
            progress.phase = .updates
            if configuration.realism == .device { estimateForRegions(sample) }
            refreshMonitoringBlockers()
            if monitoringBlockers.isEmpty && conditions.isMonitoring {
                let deliveries = conditions.evaluate(
                    believed: progress.believed, actual: sample.coordinate, time: sample.time
                ).map(Delivery.monitor)
                if !deliveries.isEmpty { return deliveries }
            }
            fallthrough
        case .updates:
            // The phase is left as it is: once the app's launch code has run, it comes again.
            if appState == .terminated && admitsLiveRelaunch() { return [.liveUpdate] }
            progress.phase = .visits
            let (believed, noiseRadius) = (progress.believed, progress.noiseRadius)
            updateLive(sample, believed: believed, noiseRadius: noiseRadius)
            guard authorization.status.allowsLocation else {
                progress.phase = .done
                return []
            }
            if services.isUpdating { updateStandard(sample, believed: believed, noiseRadius: noiseRadius) }
            // A request made for a later virtual time is answered from then on, not by a fix before it.
            if case .waiting(let asked, _) = services.oneShot, asked <= sample.time,
                authorization.status == .authorizedAlways || isInUse
            {
                services.endOneShot()
                let fix = standardFix(sample, believed: believed, noiseRadius: noiseRadius)
                location = fix
                emit(.locationUpdated(fix, service: .standard))
            }
            if services.significantChanges, let fix = significantChange(sample) { return [.significantChange(fix)] }
            fallthrough
        case .visits:
            progress.phase = .done
            return services.observeVisit(progress.believed, at: sample.time).map { [.visit($0)] } ?? []
        case .done:
            return []
        }
    }

    /// Delivers what iOS lets reach the app now; true when iOS launched the app for it, the event
    /// itself to follow the app's launch code (``finish(_:)``).
    mutating func deliver(_ delivery: Delivery) -> Bool {
        let admitted: Admission =
            switch delivery {
            // A region's first state never launches the app.
            case .region(.determined): admission(.region, relaunch: false)
            case .region(.crossed(let region, let state, let time, _)):
                admission(.region, relaunch: Self.notifies(region, of: state), at: time)
            case .monitor(let event): event.state == .unmonitored ? .now : monitorAdmission(at: event.date)
            case .significantChange: admission(.significantChange)
            case .visit: admission(.visit)
            case .liveUpdate: launchIntoBackground(for: .liveUpdate)
            }
        switch admitted {
        case .refused: return false
        case .afterLaunch: return true
        case .now:
            finish(delivery)
            return false
        }
    }

    /// Whether `region` asks to be told of a crossing into `state` (`notifyOnEntry`/`notifyOnExit`).
    private static func notifies(_ region: CircularRegion, of state: RegionState) -> Bool {
        state == .inside ? region.notifyOnEntry : region.notifyOnExit
    }

    /// Emits a delivery's events, iOS having let it reach the app.
    mutating func finish(_ delivery: Delivery) {
        switch delivery {
        case .region(.determined(let region, let state, let time)):
            emit(.determinedState(state, for: region), at: time)
        case .region(.crossed(let region, let state, let time, let position)):
            if Self.notifies(region, of: state) {
                emit(
                    state == .inside ? .enteredRegion(region, at: position) : .exitedRegion(region, at: position),
                    at: time)
            }
            emit(.determinedState(state, for: region), at: time)
        case .monitor(let event):
            emit(.monitorEvent(shown(event), at: believedPosition), at: event.date)
        case .significantChange(let fix):
            if !services.isUpdating { location = fix }
            emit(.locationUpdated(fix, service: .significantChange))
        case .visit(let visit):
            emit(.visited(reducedIfNeeded(visit)))
        case .liveUpdate:
            break
        }
    }

    /// Whether the standard service delivers approximate locations: under reduced accuracy
    /// authorization, or when the app asks for them with `desiredAccuracy =
    /// kCLLocationAccuracyReduced` ("If your app is authorized to access location information with
    /// full accuracy, you can use this constant to access location data as if the app didn't have
    /// that authorization", Apple, `kCLLocationAccuracyReduced`).
    @inline(__always) var deliversReducedAccuracy: Bool {
        accuracyAuthorization == .reducedAccuracy || desiredAccuracy == LocationAccuracy.reduced
    }

    /// A fix of the standard service (and of `requestLocation()`) at the desired accuracy.
    private mutating func standardFix(_ sample: DeviceSample, believed: Coordinate, noiseRadius: Double) -> Location {
        fixes.standardFix(
            sample, believed: believed, noiseRadius: noiseRadius,
            source: configuration.positioning(for: desiredAccuracy),
            reduced: deliversReducedAccuracy)
    }

    private mutating func updateStandard(_ sample: DeviceSample, believed: Coordinate, noiseRadius: Double) {
        if pausesLocationUpdatesAutomatically {
            switch services.checkPause(at: sample, radius: configuration.pauseRadius, delay: pauseDelay) {
            case .running: break
            case .pausedNow:
                emit(.locationUpdatesPaused)
                return
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
        if services.takeInitialFix() || distanceFilter <= 0
            || location.map({ ShortDistance.distance($0.coordinate, fix.coordinate) + Self.tolerance >= distanceFilter }
            )
                ?? true
        {
            location = fix
            emit(.locationUpdated(fix, service: .standard))
        }
    }

    /// A significant-change fix when one is due at `sample`.
    private mutating func significantChange(_ sample: DeviceSample) -> Location? {
        var heartbeat: EpochInstant?
        if configuration.realism == .device, let last = services.lastSignificant {
            // No sooner than the service's interval after the last event: "Notifications are not
            // sent unless at least five minutes has elapsed since the last notification" (iOS
            // Components and Frameworks, Addison-Wesley 2013); a draw of 27 s delivered twice.
            heartbeat =
                services.nextHeartbeat
                ?? last.time.advanced(
                    bySeconds: max(
                        configuration.significantChangeInterval.seconds,
                        exponential(configuration.deviceRealism.significantChangeHeartbeat.seconds)))
        }
        guard
            services.significantChangeDue(
                at: sample, distance: configuration.significantChangeDistance,
                interval: configuration.significantChangeInterval, heartbeat: heartbeat)
        else { return nil }
        return fixes.significantChangeFix(sample, reduced: accuracyAuthorization == .reducedAccuracy)
    }

    /// A visit under reduced accuracy: "all Core Location services (location updates, visit
    /// monitoring, significant location change, fence monitoring) receive service at the
    /// reduced-accuracy service level" (Apple, `NSLocationDefaultAccuracyReduced`). Its coordinate is
    /// the approximate location, and — since `CLVisit.horizontalAccuracy` is the radius of the
    /// circle centred on that coordinate (Apple) — its accuracy the radius of the coarsening
    /// applied, as reduced-accuracy fixes report.
    mutating func reducedIfNeeded(_ visit: Visit) -> Visit {
        guard accuracyAuthorization == .reducedAccuracy else { return visit }
        var visit = visit
        visit.horizontalAccuracy = fixes.reducedAccuracyRadius(at: visit.coordinate)
        visit.coordinate = fixes.approximate(visit.coordinate)
        return visit
    }

    // MARK: Live updates

    mutating func updateLive(_ sample: DeviceSample, believed: Coordinate?, noiseRadius: Double) {
        guard services.live != nil else { return }
        // An update to an app not in use is a use of Always: provisional Always is settled first.
        if authorizationStatus == .authorizedAlways && !isInUseForTodaysAPIs && configuration.iosVersion >= 18
            && holdsAlwaysSession
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
            var update = LocationUpdate(location: fix, isStationary: isStationary, diagnostics: diagnostics)
            // An update's diagnostics exist from iOS 18 (`CLLocationUpdate.stationary`,
            // `insufficientlyInUse`, …); iOS 17 has `isStationary` only.
            if configuration.iosVersion < 18 { update.diagnostics = [] }
            emit(.liveUpdate(update))
        }
    }

    // MARK: Regions, and device realism

    /// The first fix after a start, from the cache: up to ``DeviceRealism/cachedFixMaximumAge``
    /// old, where the device was believed to be then, with Wi-Fi accuracy.
    private mutating func emitCachedFix(_ sample: DeviceSample, near position: Coordinate) {
        let age = realism.unit() * configuration.deviceRealism.cachedFixMaximumAge.seconds
        let sigma = 65 / NoiseModel.radius68
        let offset = (north: sigma * realism.gaussian(), east: sigma * realism.gaussian(), radius: 65.0)
        var fix = fixes.coarseFix(sample, at: FixMaker.shifted(position, by: offset), accuracy: 65)
        fix.timestamp = sample.time.advanced(bySeconds: -age)
        emit(.locationUpdated(fix, service: .standard))
    }

    private mutating func exponential(_ mean: Double) -> Double {
        -mean * log(1 - realism.unit())
    }
}
