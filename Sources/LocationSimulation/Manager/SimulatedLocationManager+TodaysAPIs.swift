import LocationEvents
import SimulatedTime

/// Today's APIs on the same world: `CLMonitor` (iOS 17), `CLLocationUpdate.liveUpdates`
/// (iOS 17) and the sessions that let them reach an app in the background (iOS 17–18), with their
/// iOS 18 diagnostics derived from ``Availability``. The rules, with their sources, are the
/// core's (`LocationManagerCore+TodaysAPIs.swift`, `LocationManagerCore+Sessions.swift`).
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
        run(.add(condition, identifier: identifier, monitor: monitor, assuming: assuming))
    }

    /// `CLMonitor.remove(_:)`.
    public func remove(_ identifier: String, from monitor: String) {
        core.remove(identifier, from: monitor)
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
        core.restore(records, in: monitor)
    }

    /// Why monitors cannot evaluate conditions now (iOS 18's `CLMonitor.Event` diagnostics):
    /// empty when they can. Derived from ``Availability``: a monitor's events reach an app in use
    /// (either way iOS counts use), or an app authorized Always holding what lets them reach it in
    /// the background (from iOS 18 a session).
    public var monitoringDiagnostics: MonitoringDiagnostics { core.monitoringDiagnostics }

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
        run(.startLiveUpdates(configuration))
    }

    /// The configuration of the live updates being iterated, nil when none are.
    public var liveUpdatesConfiguration: LiveConfiguration? { core.services.live?.configuration }

    /// The app stopped iterating (it left the `for await` loop).
    public func stopLiveUpdates() {
        core.stopLiveUpdates()
    }

    /// What keeps live updates from carrying a precise location now (``Availability``):
    /// authorization, use, signal, accuracy. `accuracyLimited` still delivers (approximate)
    /// locations; the others deliver none. Live updates reach an app in use as today's APIs count
    /// it, or — from iOS 18 — one authorized Always holding a session; on iOS 17 an app not kept
    /// running gets none.
    public func liveUpdateDiagnostics(hasSignal: Bool) -> LiveUpdateDiagnostics {
        core.liveUpdateDiagnostics(hasSignal: hasSignal)
    }

    // MARK: - Sessions (iOS 17–18)

    /// `CLServiceSession(authorization:fullAccuracyPurposeKey:)` (iOS 18): the app declares the
    /// authorization a workflow needs. Returns the session's identifier; its diagnostics come as
    /// ``LocationEvent/sessionDiagnostic(_:)`` events, the first at once.
    @discardableResult
    public func beginServiceSession(
        _ requirement: ServiceSessionRequirement, fullAccuracyPurposeKey: String? = nil
    ) -> SessionID {
        let id = core.nextSessionID
        run(.beginServiceSession(requirement, fullAccuracyPurposeKey: fullAccuracyPurposeKey))
        return id
    }

    /// `CLBackgroundActivitySession()` (iOS 17): keeps a When In Use app in use in the background
    /// (the blue indicator), so live updates and monitor events go on.
    @discardableResult
    public func beginBackgroundActivitySession() -> SessionID {
        let id = core.nextSessionID
        run(.beginBackgroundActivitySession)
        return id
    }

    /// `invalidate()`: the session ends at once and cannot become active again.
    public func invalidateSession(_ id: SessionID) {
        run(.invalidateSession(id))
    }

    /// The sessions the app holds now, in the order they began.
    public var heldSessions: [SessionDiagnostic] { core.heldSessions }
}
