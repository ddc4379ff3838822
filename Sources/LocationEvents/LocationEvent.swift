import Geo
import SimulatedTime

/// Everything a location manager tells its delegate, as a value.
public enum LocationEvent: Sendable, Equatable {
    case authorizationChanged(AuthorizationStatus)
    /// `accuracyAuthorization` changed (iOS 14+), reported through
    /// `locationManagerDidChangeAuthorization`.
    case accuracyAuthorizationChanged(AccuracyAuthorization)
    case locationUpdated(Location, service: LocationService)
    case failed(LocationError)
    /// `didStartMonitoringFor`: the region is monitored from now on.
    case startedMonitoring(CircularRegion)
    /// The device's position when the transition was reported.
    case enteredRegion(CircularRegion, at: Coordinate)
    case exitedRegion(CircularRegion, at: Coordinate)
    case determinedState(RegionState, for: CircularRegion)
    case monitoringFailed(CircularRegion?, LocationError)
    /// An arrival (departure ``Visit/distantFuture``) or a departure.
    case visited(Visit)
    /// `locationManagerDidPauseLocationUpdates`: the device is still, standard updates pause.
    case locationUpdatesPaused
    case locationUpdatesResumed
    /// The app moved to another lifecycle state (a script, or iOS suspending it).
    case appStateChanged(AppState)
    /// iOS launched the terminated app into the background to deliver a location event.
    case appLaunched(LaunchReason)
    /// A `CLMonitor` event (iOS 17): a condition's state, or why it has none; with the device's
    /// believed position at the fix that decided it (nil when no fix did). Boxed: the largest
    /// payload by a quarter, it made every event over the 128 bytes copied without a call to
    /// `memmove`.
    indirect case monitorEvent(MonitoringEvent, at: Coordinate?)
    /// An element of `CLLocationUpdate.liveUpdates` (iOS 17).
    case liveUpdate(LocationUpdate)
    /// A session's diagnostics when it began and at each change (`CLServiceSession.diagnostics`,
    /// iOS 18; `CLBackgroundActivitySession`'s diagnostics handler).
    case sessionDiagnostic(SessionDiagnostic)
}

/// An event at its virtual time, from one device of a run.
public struct TimedEvent: Sendable, Equatable {
    /// Virtual time.
    public var time: EpochInstant
    /// The device's name in a run with several devices, nil otherwise. Spelled `Optional`, not
    /// `String?`: `?` gives the property an implicit `= nil`, which the initializer, inlined in
    /// another module, stored first and then overwrote — and the event it built was copied into
    /// the manager's log and the original destroyed, at every fix (1,000 field trials took 4 %
    /// longer so).
    public var device: Optional<String>
    public var event: LocationEvent

    public init(time: EpochInstant, device: String? = nil, event: LocationEvent) {
        self.time = time
        self.device = device
        self.event = event
    }
}

extension LocationEvent {
    /// The event stream's `type` (DESIGN.md's contract and docs/event-stream.md's additions): `authorization`,
    /// `accuracyAuthorization`, `location`, `error`, `monitoringStarted`, `regionEnter`,
    /// `regionExit`, `regionState`, `monitoringFailed`, `visit`, `locationUpdatesPaused`,
    /// `locationUpdatesResumed`, `appState` or `appLaunch`.
    /// What kind of event this is, for matching without strings: `event.kind == .regionEnter`.
    /// Its raw value is the event stream's `type`.
    public enum Kind: String, Sendable, CaseIterable {
        case authorization, accuracyAuthorization, location, error, monitoringStarted, regionEnter, regionExit
        case regionState, monitoringFailed, visit, locationUpdatesPaused, locationUpdatesResumed, appState
        case appLaunch, monitorEvent, liveUpdate, sessionDiagnostic
    }

    public var kind: Kind {
        switch self {
        case .authorizationChanged: .authorization
        case .accuracyAuthorizationChanged: .accuracyAuthorization
        case .locationUpdated: .location
        case .failed: .error
        case .startedMonitoring: .monitoringStarted
        case .enteredRegion: .regionEnter
        case .exitedRegion: .regionExit
        case .determinedState: .regionState
        case .monitoringFailed: .monitoringFailed
        case .visited: .visit
        case .locationUpdatesPaused: .locationUpdatesPaused
        case .locationUpdatesResumed: .locationUpdatesResumed
        case .appStateChanged: .appState
        case .appLaunched: .appLaunch
        case .monitorEvent: .monitorEvent
        case .liveUpdate: .liveUpdate
        case .sessionDiagnostic: .sessionDiagnostic
        }
    }

    /// The event stream's `type`: ``kind``'s raw value.
    public var type: String { kind.rawValue }

    /// The region the event is about, if any.
    public var region: CircularRegion? {
        switch self {
        case .enteredRegion(let region, _), .exitedRegion(let region, _), .determinedState(_, let region),
            .startedMonitoring(let region):
            region
        case .monitoringFailed(let region, _): region
        default: nil
        }
    }

    /// The region or `CLMonitor` condition the event is about, by identifier.
    public var identifier: String? {
        if case .monitorEvent(let event, _) = self { return event.identifier }
        return region?.identifier
    }

    /// Where the device was, when the event says.
    public var coordinate: Coordinate? {
        switch self {
        case .locationUpdated(let fix, _): fix.coordinate
        case .enteredRegion(_, let at), .exitedRegion(_, let at): at
        case .visited(let visit): visit.coordinate
        case .monitorEvent(_, let at): at
        case .liveUpdate(let update): update.location?.coordinate
        default: nil
        }
    }

    /// The status, state or error name an event carries: what a scenario matches on.
    public var detail: String? {
        switch self {
        case .authorizationChanged(let status): status.description
        case .accuracyAuthorizationChanged(let accuracy): accuracy.description
        case .determinedState(let state, _): state.description
        case .failed(let error), .monitoringFailed(_, let error): error.name
        case .locationUpdated(_, let service): service == .standard ? "standard" : "significantChange"
        case .visited(let visit): visit.isInProgress ? "arrival" : "departure"
        case .appStateChanged(let state): state.rawValue
        case .appLaunched(let reason): reason.rawValue
        case .monitorEvent(let event, _): event.state.rawValue
        case .sessionDiagnostic(let session):
            session.diagnostics.names.first ?? (session.isActive ? "active" : "inactive")
        case .liveUpdate(let update):
            update.isStationary
                ? "stationary" : update.location == nil ? update.diagnostics.names.first ?? "none" : "location"
        case .enteredRegion, .exitedRegion, .startedMonitoring, .locationUpdatesPaused, .locationUpdatesResumed: nil
        }
    }
}

extension LocationEvent.Kind {
    /// Whether events of this kind name a region or `CLMonitor` condition
    /// (``LocationEvent/identifier``): a scenario's `region:` matches only these, so on another
    /// kind it is an error, not a `noEvent` that passes untested.
    package var namesRegion: Bool {
        switch self {
        case .monitoringStarted, .regionEnter, .regionExit, .regionState, .monitoringFailed, .monitorEvent: true
        default: false
        }
    }

    /// The scenario key that matches this kind's ``LocationEvent/detail``, and every value that
    /// detail can take; nil for a kind that carries none. A scenario's filter is checked against
    /// it, so a misspelt value is an error, not an expectation that silently never matches.
    public var detail: (key: String, values: [String])? {
        switch self {
        case .authorization: ("status", AuthorizationStatus.allCases.map(\.description))
        case .accuracyAuthorization: ("accuracy", AccuracyAuthorization.allCases.map(\.description))
        case .location: ("service", ["standard", "significantChange"])
        case .error, .monitoringFailed: ("error", LocationError.Code.allCases.map { "\($0)" })
        case .regionState: ("state", [RegionState.inside, .outside, .unknown].map(\.description))
        case .appState: ("state", AppState.allCases.map(\.rawValue))
        case .appLaunch: ("reason", LaunchReason.allCases.map(\.rawValue))
        case .visit: ("kind", ["arrival", "departure"])
        case .monitorEvent: ("state", MonitoringState.allCases.map(\.rawValue))
        case .liveUpdate: ("kind", ["location", "stationary", "none"] + LiveUpdateDiagnostics.names.map(\.1))
        case .sessionDiagnostic: ("kind", ["active", "inactive"] + SessionDiagnostics.names.map(\.1))
        case .monitoringStarted, .regionEnter, .regionExit, .locationUpdatesPaused, .locationUpdatesResumed: nil
        }
    }
}
