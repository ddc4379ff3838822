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
        refreshMonitoringBlockers()
        let position = device.flatMap { $0.hasSignal ? $0 : nil }
        let evaluates = monitoringBlockers.isEmpty && position != nil
        return conditions.add(
            condition, identifier: identifier, monitor: monitor, assuming: assuming,
            believed: evaluates ? believedPosition : nil, actual: evaluates ? position?.coordinate : nil, time: now)
    }

    package mutating func remove(_ identifier: String, from monitor: String) {
        conditions.remove(identifier, from: monitor)
    }

    package mutating func restore(_ records: [(identifier: String, record: MonitoringRecord)], in monitor: String) {
        for (identifier, record) in records {
            conditions.restore(record, identifier: identifier, monitor: monitor)
        }
    }

    /// Whether a monitor's event reaches the app now. In use as today's APIs count it — in the
    /// foreground, in the background with background updates, or holding an active background
    /// activity session ("both Updater and Monitor APIs will be available",
    /// `CLBackgroundActivitySession.h`) — at once, a terminated app holding such a session
    /// relaunched for it as for live updates; otherwise as a region event, with Always
    /// (``monitoringDiagnostics`` held back what an app that may not get it in the background
    /// could not). A When In Use app holding a session lost its events in the background.
    mutating func monitorAdmission(at time: EpochInstant) -> Admission {
        guard isInUseForTodaysAPIs else { return admission(.region, at: time) }
        guard appState == .terminated else { return .now }
        return launchIntoBackground(for: .region, at: time)
    }

    /// Why monitors cannot evaluate conditions now: a monitor's events reach an app in use
    /// (either way iOS counts use), or an app authorized Always holding what lets them reach it in
    /// the background (from iOS 18 a session).
    @inline(__always) var monitoringDiagnostics: MonitoringDiagnostics {
        let inUse = isInUse || isInUseForTodaysAPIs
        let reaches = authorizationStatus == .authorizedAlways ? inUse || holdsAlwaysSession : inUse
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
    /// authorization when none was given (see the façade's `startLiveUpdates(_:)`); its goal is
    /// When In Use, so it lets nothing reach an app not in use (``holdsAlwaysSession``).
    mutating func startLiveUpdates(_ live: LiveConfiguration) {
        services.startLive(live, pauseDelay: configuration.pauseDelay(for: live.activityType))
        if configuration.iosVersion >= 18 && !configuration.requiresExplicitServiceSession {
            requestAuthorization(always: false)
        }
    }

    package mutating func stopLiveUpdates() {
        services.stopLive()
    }

    /// Whether iOS relaunches the terminated app now for the live updates it was iterating. Core
    /// Location keeps them and "will resume or relaunch the app into the background when new
    /// information is ready for delivery, provided the app's authorization allows it" (WWDC 2024
    /// "What's new in location authorization", session lifecycle): a launch "due to a location
    /// update" (an Apple engineer, developer forums thread 797319), after which the app starts its
    /// updates again (Apple's sample "Adopting live updates in Core Location": "If location
    /// updates were previously active, restart them after the background launch"). The update
    /// must be one that reaches the app in the background: it held an active background activity
    /// session (``isInUseForTodaysAPIs`` of a terminated app), or — from iOS 18 — it is authorized
    /// Always and holds a service session requiring Always (``holdsAlwaysSession``). Provisional
    /// Always is settled by the upgrade prompt, as at any use of Always. For a terminated app.
    mutating func admitsLiveRelaunch() -> Bool {
        guard services.liveAtTermination != nil, locationServicesEnabled, authorizationStatus.allowsLocation else {
            return false
        }
        if isInUseForTodaysAPIs { return true }
        return authorizationStatus == .authorizedAlways && configuration.iosVersion >= 18 && holdsAlwaysSession
            && settleProvisionalAlways()
    }

    /// What keeps live updates from carrying a precise location now (``Availability``).
    @inline(__always) func liveUpdateDiagnostics(hasSignal: Bool) -> LiveUpdateDiagnostics {
        let reaches =
            isInUseForTodaysAPIs
            || (authorizationStatus == .authorizedAlways && configuration.iosVersion >= 18 && holdsAlwaysSession)
        return availability(reachesApp: reaches, hasSignal: hasSignal).liveUpdateDiagnostics
    }
}
