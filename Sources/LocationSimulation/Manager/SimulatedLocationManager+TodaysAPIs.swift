import LocationEvents
import SimulatedTime

/// Today's APIs on the same world: `CLMonitor` (iOS 17) and `CLLocationUpdate.liveUpdates`
/// (iOS 17), with their iOS 18 diagnostics derived from ``Availability``.
extension SimulatedLocationManager {
    // MARK: - CLMonitor (iOS 17)

    /// The beacons the device can hear, for `CLMonitor` beacon conditions.
    public var beacons: [Beacon] {
        get { core.conditions.beacons }
        set { core.conditions.beacons = newValue }
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
        let position = core.device.flatMap { $0.hasSignal ? $0 : nil }
        let evaluates = core.monitoringBlockers.isEmpty && position != nil
        let events = core.conditions.add(
            condition, identifier: identifier, monitor: monitor, assuming: assuming,
            believed: evaluates ? core.believedPosition : nil, actual: evaluates ? position?.coordinate : nil, time: now
        )
        for event in events { deliver(event) }
        if !core.monitoringBlockers.isEmpty {
            for event in core.conditions.suspend(core.monitoringBlockers, time: now) {
                emit(.monitorEvent(event, at: nil))
            }
        }
    }

    /// `CLMonitor.remove(_:)`.
    public func remove(_ identifier: String, from monitor: String) {
        core.conditions.remove(identifier, from: monitor)
        iterationChanged(iterating: core.conditions.isMonitoring || core.services.live != nil)
    }

    /// `CLMonitor.identifiers`.
    public func identifiers(of monitor: String) -> [String] { core.conditions.identifiers(of: monitor) }

    /// `CLMonitor.record(for:)`: kept across the app's termination and relaunch, as iOS keeps a
    /// monitor's records by name.
    public func record(for identifier: String, in monitor: String) -> MonitoringRecord? {
        core.conditions.record(for: identifier, in: monitor)
    }

    /// Every record of the monitor named `monitor`, in the order its conditions were added: what
    /// iOS keeps in the monitor's file between launches.
    public func records(of monitor: String) -> [(identifier: String, record: MonitoringRecord)] {
        core.conditions.identifiers(of: monitor).compactMap { identifier in
            core.conditions.record(for: identifier, in: monitor).map { (identifier, $0) }
        }
    }

    /// Reopens the monitor named `monitor` with records kept from an earlier launch (an earlier
    /// run): the app finds its conditions there, and an event comes only where the device's state
    /// differs from a record's last event.
    public func restore(_ records: [(identifier: String, record: MonitoringRecord)], in monitor: String) {
        for (identifier, record) in records {
            core.conditions.restore(record, identifier: identifier, monitor: monitor)
        }
        if !records.isEmpty { iterationChanged(iterating: true) }
    }

    /// Why monitors cannot evaluate conditions now (iOS 18's `CLMonitor.Event` diagnostics):
    /// empty when they can. Derived from ``Availability``: a monitor's events reach an app in use
    /// (either way iOS counts use), or an app authorized Always holding what lets them reach it in
    /// the background (from iOS 18 a session).
    public var monitoringDiagnostics: MonitoringDiagnostics {
        let inUse = isInUse || isInUseForTodaysAPIs
        let reaches = authorizationStatus == .authorizedAlways ? inUse || holdsSessionForBackground : inUse
        return availability(reachesApp: reaches, hasSignal: true).monitoringDiagnostics
    }

    /// Reports, once, each condition's loss of evaluation when the diagnostics change to a
    /// non-empty set; when they clear, conditions are determined afresh at the next fix.
    /// Also reports sessions whose diagnostics changed: both follow authorization and use.
    func refreshMonitoringBlockers() {
        refreshSessions()
        let blockers = monitoringDiagnostics
        guard blockers != core.monitoringBlockers else { return }
        core.monitoringBlockers = blockers
        guard !blockers.isEmpty else { return }
        for event in core.conditions.suspend(blockers, time: now) { emit(.monitorEvent(event, at: nil)) }
    }

    func deliver(_ event: MonitoringEvent) {
        guard event.state == .unmonitored || deliversInBackground(.region, at: event.date) else {
            return
        }
        emit(.monitorEvent(event, at: core.believedPosition), at: event.date)
    }

    /// ``Availability`` for today's APIs, whose use the caller judges.
    func availability(reachesApp: Bool, hasSignal: Bool, needsServiceSession: Bool? = nil) -> Availability {
        Availability(
            .init(
                locationServicesEnabled: locationServicesEnabled, authorizationStatus: authorizationStatus,
                accuracyAuthorization: accuracyAuthorization,
                needsServiceSession: needsServiceSession ?? self.needsServiceSession, reachesApp: reachesApp,
                hasSignal: hasSignal))
    }

    // MARK: - Live updates (iOS 17)

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
        core.services.startLive(
            configuration, pauseDelay: self.configuration.pauseDelay(for: configuration.activityType))
        iterationChanged(iterating: true)
        if self.configuration.iosVersion >= 18 && !self.configuration.requiresExplicitServiceSession {
            requestWhenInUseAuthorization()
        }
    }

    /// The configuration of the live updates being iterated, nil when none are.
    public var liveUpdatesConfiguration: LiveConfiguration? { core.services.live?.configuration }

    /// The app stopped iterating (it left the `for await` loop).
    public func stopLiveUpdates() {
        core.services.stopLive()
        iterationChanged(iterating: core.conditions.isMonitoring)
    }

    /// What keeps live updates from carrying a precise location now (``Availability``):
    /// authorization, use, signal, accuracy. `accuracyLimited` still delivers (approximate)
    /// locations; the others deliver none. Live updates reach an app in use as today's APIs count
    /// it, or — from iOS 18 — one authorized Always holding a session; on iOS 17 an app not kept
    /// running gets none.
    public func liveUpdateDiagnostics(hasSignal: Bool) -> LiveUpdateDiagnostics {
        let reaches =
            isInUseForTodaysAPIs
            || (authorizationStatus == .authorizedAlways && configuration.iosVersion >= 18 && holdsSessionForBackground)
        return availability(reachesApp: reaches, hasSignal: hasSignal).liveUpdateDiagnostics
    }
}
