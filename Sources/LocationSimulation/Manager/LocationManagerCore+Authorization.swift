import LocationEvents
import SimulatedTime

/// Authorization, the app's lifecycle, and whether an event reaches the app: the rules every
/// service consults before it emits.
extension LocationManagerCore {
    @inline(__always) var authorizationStatus: AuthorizationStatus { authorization.status }
    @inline(__always) var accuracyAuthorization: AccuracyAuthorization { authorization.accuracyAuthorization }
    /// Whether the app has asked for Always once already (iOS shows that prompt once).
    @inline(__always) var hasAskedForAlways: Bool { authorization.upgradeAsked }

    // MARK: - Authorization

    /// From iOS 13 the prompt offers While Using, not Always (see the façade's
    /// `requestAlwaysAuthorization()`).
    mutating func requestAuthorization(always: Bool) {
        perform(
            authorization.request(
                wantsAlways: always, inForeground: appState == .foreground,
                locationServicesEnabled: locationServicesEnabled, now: now))
    }

    /// The authorization as a new manager reports it: the status, and the accuracy when it is
    /// reduced.
    mutating func reportAuthorization() {
        emit(.authorizationChanged(authorization.status))
        if authorization.accuracyAuthorization == .reducedAccuracy {
            emit(.accuracyAuthorizationChanged(.reducedAccuracy))
        }
    }

    /// Carries out what the authorization machine decided, its state already settled.
    mutating func perform(_ actions: [AuthorizationStateMachine.Action]) {
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
    private mutating func authorizationChanged(to status: AuthorizationStatus) {
        emit(.authorizationChanged(status))
        if delegateAvailability(hasSignal: true).isRefusal && services.deliversFixes {
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

    /// The first use of Always while the app is not in use: provisional Always is settled by the
    /// upgrade prompt. True when Always holds.
    mutating func settleProvisionalAlways() -> Bool {
        let (holds, actions) = authorization.settleProvisionalAlways()
        perform(actions)
        return holds
    }

    /// ``Availability`` for the delegate API: what the status and Location Services allow, with
    /// the signal (use decides delivery separately, by service).
    @inline(__always) func delegateAvailability(hasSignal: Bool) -> Availability {
        Availability(
            .init(
                locationServicesEnabled: locationServicesEnabled, authorizationStatus: authorizationStatus,
                accuracyAuthorization: accuracyAuthorization, hasSignal: hasSignal))
    }

    // MARK: - The app's lifecycle

    /// The app moves to `state`: standard updates end with the app; monitored regions, the
    /// significant-change service and visits survive it. The app's lifecycle code runs after.
    mutating func changeAppState(to state: AppState, at time: EpochInstant?) -> Action {
        advanceClock(to: time)
        guard state != appState else { return .done }
        let previous = appState
        appState = state
        if state == .terminated { services.appTerminated() }
        emit(.appStateChanged(state))
        if previous == .terminated { launchedAfterTermination(at: now) }
        if isInUse {
            authorization.enteredUse()
        } else {
            perform(authorization.leftUse(terminated: appState == .terminated, now: now))
        }
        if state == .foreground { sessionsEnteredForeground() }
        refreshMonitoringBlockers()
        return .runLifecycleHandler(previous: previous)
    }

    /// Whether the app is in use as iOS counts it: in the foreground, or running in the background
    /// with background location updates on (the status-bar indicator).
    @inline(__always) var isInUse: Bool {
        switch appState {
        case .foreground: true
        case .background, .suspended:
            services.isUpdating && allowsBackgroundLocationUpdates && authorizationStatus.allowsLocation
        case .terminated: false
        }
    }

    /// Whether an event of a background-capable service reaches the app.
    enum Admission {
        case refused
        case now
        /// iOS launched the app into the background for it: the app's launch code runs first.
        case afterLaunch
    }

    /// Whether an event of a background-capable service (regions, significant changes, visits)
    /// reaches the app now: always while in use; otherwise only with Always, waking a suspended
    /// app or relaunching a terminated one (an ``LocationEvent/appLaunched(_:)`` first). Provisional
    /// Always is settled here, by the upgrade prompt iOS shows at the first such use.
    mutating func admission(_ reason: LaunchReason, relaunch: Bool = true, at time: EpochInstant? = nil) -> Admission {
        // iOS 8–12: When In Use "cannot use any services that automatically relaunch the app, such
        // as region monitoring or the significant location change service" (Apple,
        // `requestWhenInUseAuthorization()`, iOS 8 reference); visits are such a service too.
        if configuration.iosVersion < 13 && authorizationStatus != .authorizedAlways { return .refused }
        if isInUse { return .now }
        guard authorizationStatus == .authorizedAlways, relaunch || appState != .terminated,
            settleProvisionalAlways()
        else { return .refused }
        guard appState == .terminated else { return .now }
        return launchIntoBackground(for: reason, at: time)
    }

    /// iOS launches the terminated app into the background for `reason`; its launch code runs
    /// before the event.
    mutating func launchIntoBackground(for reason: LaunchReason, at time: EpochInstant? = nil) -> Admission {
        appState = .background
        emit(.appLaunched(reason), at: time)
        launchedAfterTermination(at: time ?? now)
        return .afterLaunch
    }

    /// The terminated app runs again (launched by the user, or by iOS): its new process iterates
    /// what its launch code starts, and recreates its sessions within the resume window.
    private mutating func launchedAfterTermination(at time: EpochInstant) {
        services.appLaunched()
        sessionsRelaunched(at: time)
    }
}
