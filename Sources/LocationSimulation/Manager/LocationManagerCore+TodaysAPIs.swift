import LocationEvents
import SimulatedTime

/// Today's APIs on the same world: `CLMonitor` and `CLLocationUpdate.liveUpdates` (iOS 17), with
/// their iOS 18 diagnostics derived from ``Availability``.
extension LocationManagerCore {
    // MARK: - CLMonitor (iOS 17)

    /// Adds a condition; returns the events its first evaluation gives, to be delivered (a
    /// condition that cannot be monitored gets its `unmonitored` event in them).
    mutating func add(
        _ condition: MonitoringCondition, identifier: String, monitor: String, assuming: MonitoringState
    ) -> [MonitoringEvent] {
        iterationChanged(iterating: true)
        refreshMonitoringBlockers()
        let position = device.flatMap { $0.hasSignal ? $0 : nil }
        let evaluates = monitoringBlockers.isEmpty && position != nil
        return conditions.add(
            condition, identifier: identifier, monitor: monitor, assuming: assuming,
            believed: evaluates ? believedPosition : nil, actual: evaluates ? position?.coordinate : nil, time: now)
    }

    package mutating func remove(_ identifier: String, from monitor: String) {
        conditions.remove(identifier, from: monitor)
        iterationChanged(iterating: conditions.isMonitoring || services.live != nil)
    }

    package mutating func restore(_ records: [(identifier: String, record: MonitoringRecord)], in monitor: String) {
        for (identifier, record) in records {
            conditions.restore(record, identifier: identifier, monitor: monitor)
        }
        if !records.isEmpty { iterationChanged(iterating: true) }
    }

    /// Why monitors cannot evaluate conditions now: a monitor's events reach an app in use
    /// (either way iOS counts use), or an app authorized Always holding what lets them reach it in
    /// the background (from iOS 18 a session).
    @inline(__always) var monitoringDiagnostics: MonitoringDiagnostics {
        let inUse = isInUse || isInUseForTodaysAPIs
        let reaches = authorizationStatus == .authorizedAlways ? inUse || holdsSessionForBackground : inUse
        return availability(reachesApp: reaches, hasSignal: true).monitoringDiagnostics
    }

    /// Reports, once, each condition's loss of evaluation when the diagnostics change to a
    /// non-empty set; when they clear, conditions are determined afresh at the next fix.
    /// Also reports sessions whose diagnostics changed: both follow authorization and use.
    mutating func refreshMonitoringBlockers() {
        refreshSessions()
        let blockers = monitoringDiagnostics
        guard blockers != monitoringBlockers else { return }
        monitoringBlockers = blockers
        if !blockers.isEmpty { reportSuspended(blockers) }
    }

    /// Each condition's loss of evaluation for `blockers`, reported once.
    mutating func reportSuspended(_ blockers: MonitoringDiagnostics) {
        for event in conditions.suspend(blockers, time: now) { emit(.monitorEvent(shown(event), at: nil)) }
    }

    /// A monitor's event as the device's iOS delivers it: its diagnostics (`authorizationDenied`,
    /// `conditionLimitExceeded`, `insufficientlyInUse`, …) exist from iOS 18 (Apple,
    /// `CLMonitor.Event`: each "iOS 18.0+"); on iOS 17 the event says its state alone.
    func shown(_ event: MonitoringEvent) -> MonitoringEvent {
        guard configuration.iosVersion < 18, !event.diagnostics.isEmpty else { return event }
        var event = event
        event.diagnostics = []
        return event
    }

    /// ``Availability`` for today's APIs, whose use the caller judges.
    @inline(__always) func availability(reachesApp: Bool, hasSignal: Bool, needsServiceSession: Bool? = nil)
        -> Availability
    {
        Availability(
            .init(
                locationServicesEnabled: locationServicesEnabled, authorizationStatus: authorizationStatus,
                accuracyAuthorization: accuracyAuthorization,
                needsServiceSession: needsServiceSession ?? self.needsServiceSession, reachesApp: reachesApp,
                hasSignal: hasSignal))
    }

    // MARK: - Live updates (iOS 17)

    /// From iOS 18 iterating holds an implicit service session, which asks for When In Use
    /// authorization when none was given (see the façade's `startLiveUpdates(_:)`).
    mutating func startLiveUpdates(_ live: LiveConfiguration) {
        services.startLive(live, pauseDelay: configuration.pauseDelay(for: live.activityType))
        iterationChanged(iterating: true)
        if configuration.iosVersion >= 18 && !configuration.requiresExplicitServiceSession {
            requestAuthorization(always: false)
        }
    }

    package mutating func stopLiveUpdates() {
        services.stopLive()
        iterationChanged(iterating: conditions.isMonitoring)
    }

    /// Whether iOS relaunches the terminated app now for the live updates it was iterating. Core
    /// Location keeps them and "will resume or relaunch the app into the background when new
    /// information is ready for delivery, provided the app's authorization allows it" (WWDC 2024
    /// "What's new in location authorization", session lifecycle): a launch "due to a location
    /// update" (an Apple engineer, developer forums thread 797319), after which the app starts its
    /// updates again (Apple's sample "Adopting live updates in Core Location": "If location
    /// updates were previously active, restart them after the background launch"). The update
    /// must be one that reaches the app in the background: it held an active background activity
    /// session, or — from iOS 18 — it is authorized Always and holds a service session (the
    /// implicit session of iterating ended with its process). Provisional Always is settled by
    /// the upgrade prompt, as at any use of Always.
    mutating func admitsLiveRelaunch() -> Bool {
        guard services.liveAtTermination != nil, locationServicesEnabled, authorizationStatus.allowsLocation else {
            return false
        }
        if sessions.values.contains(where: { $0.kind == .backgroundActivity && $0.isActive }) { return true }
        return authorizationStatus == .authorizedAlways && configuration.iosVersion >= 18 && holdsSessionForBackground
            && settleProvisionalAlways()
    }

    /// The app relaunched for its live updates' next update (``admitsLiveRelaunch()``).
    mutating func relaunchedForLiveUpdates() -> Admission {
        launchIntoBackground(for: .liveUpdate)
        return .afterLaunch
    }

    /// What keeps live updates from carrying a precise location now (``Availability``).
    @inline(__always) func liveUpdateDiagnostics(hasSignal: Bool) -> LiveUpdateDiagnostics {
        let reaches =
            isInUseForTodaysAPIs
            || (authorizationStatus == .authorizedAlways && configuration.iosVersion >= 18 && holdsSessionForBackground)
        return availability(reachesApp: reaches, hasSignal: hasSignal).liveUpdateDiagnostics
    }
}
