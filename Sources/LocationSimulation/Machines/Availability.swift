import LocationEvents

/// Why a location API cannot deliver now: the one rule from which the delegate's errors, the
/// diagnostics of `CLMonitor` events, of `CLLocationUpdate`s and of service sessions all derive.
///
/// Apple names the reasons (iOS 18: `CLLocationUpdate`'s diagnostic properties,
/// `CLMonitor.Event`'s, `CLServiceSession.Diagnostic`'s — `authorizationDeniedGlobally`,
/// `authorizationDenied`, `authorizationRestricted`, `serviceSessionRequired`,
/// `authorizationRequestInProgress`, `insufficientlyInUse`, `locationUnavailable`,
/// `accuracyLimited`) but documents no order between them. Waypost's precedence, one for every
/// API, goes from the widest cause to the narrowest, so that the reason reported is the one the
/// user or the app must act on first:
///
/// 1. ``Blocker/authorizationDeniedGlobally`` — Location Services are off for the whole device
///    (`CLLocationManager.locationServicesEnabled()` false): no app setting matters.
/// 2. ``Blocker/authorizationDenied`` — the user refused this app.
/// 3. ``Blocker/authorizationRestricted`` — parental controls or a profile forbid it.
/// 4. ``Blocker/serviceSessionRequired`` — the app adopted `NSLocationRequireExplicitServiceSession`
///    and holds no session requiring authorization (iOS 18).
/// 5. ``Blocker/authorizationRequestInProgress`` — the user has not decided yet: the app's status
///    is `notDetermined`, its request (its own, a session's, or the implicit session iterating
///    holds) waiting on the prompt. Only for an app in use: a prompt shows only in the foreground
///    ("Your app must be in the foreground to show a location authorization prompt",
///    `requestWhenInUseAuthorization()`), so an app out of use whose Allow Once lapsed is
///    `insufficientlyInUse` until it is back.
/// 6. ``Blocker/insufficientlyInUse`` — authorized, but the app is not in use and holds nothing
///    that lets this API reach it (When In Use without a background activity session; from
///    iOS 18, Always without a session).
///
/// At most one blocker is reported. Two limits accompany a delivery rather than prevent it, and are
/// reported only when no blocker applies: ``locationUnavailable`` (no signal; a live update
/// without a location) and ``accuracyLimited`` (approximate locations only). A `CLMonitor` is the
/// exception Apple's semantics force: under reduced accuracy it cannot evaluate a circle at all,
/// so for monitors `accuracyLimited` is reported with any blocker too
/// (``monitoringDiagnostics``).
///
/// Evaluated as a pure function of an ``Availability/Context`` value, so it is tested without a
/// route or a manager.
package struct Availability: Sendable, Equatable {
    /// What prevents delivery, in precedence order (the smallest applies).
    package enum Blocker: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
        case authorizationDeniedGlobally
        case authorizationDenied
        case authorizationRestricted
        case serviceSessionRequired
        case authorizationRequestInProgress
        case insufficientlyInUse

        package static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

        package var description: String {
            switch self {
            case .authorizationDeniedGlobally: "authorizationDeniedGlobally"
            case .authorizationDenied: "authorizationDenied"
            case .authorizationRestricted: "authorizationRestricted"
            case .serviceSessionRequired: "serviceSessionRequired"
            case .authorizationRequestInProgress: "authorizationRequestInProgress"
            case .insufficientlyInUse: "insufficientlyInUse"
            }
        }
    }

    /// What the rule reads: the device's and the app's state as one API sees it.
    package struct Context: Sendable, Equatable {
        /// `CLLocationManager.locationServicesEnabled()`.
        package var locationServicesEnabled: Bool
        package var authorizationStatus: AuthorizationStatus
        package var accuracyAuthorization: AccuracyAuthorization
        /// The app requires explicit service sessions and holds none requiring authorization.
        package var needsServiceSession: Bool
        /// The API's output reaches the app now: it is in use as this API counts use, or holds
        /// what lets the API reach it while it is not (the caller decides, per API).
        package var reachesApp: Bool
        /// The device can determine its position (false inside a signal gap).
        package var hasSignal: Bool

        package init(
            locationServicesEnabled: Bool = true, authorizationStatus: AuthorizationStatus,
            accuracyAuthorization: AccuracyAuthorization = .fullAccuracy, needsServiceSession: Bool = false,
            reachesApp: Bool = true, hasSignal: Bool = true
        ) {
            self.locationServicesEnabled = locationServicesEnabled
            self.authorizationStatus = authorizationStatus
            self.accuracyAuthorization = accuracyAuthorization
            self.needsServiceSession = needsServiceSession
            self.reachesApp = reachesApp
            self.hasSignal = hasSignal
        }
    }

    /// The first reason in precedence order, nil when the API can deliver.
    package var blocker: Blocker?
    /// No position can be determined now (reported only when nothing blocks).
    package var locationUnavailable: Bool
    /// Approximate locations only (reduced accuracy).
    package var accuracyLimited: Bool

    package init(blocker: Blocker?, locationUnavailable: Bool = false, accuracyLimited: Bool = false) {
        self.blocker = blocker
        self.locationUnavailable = locationUnavailable
        self.accuracyLimited = accuracyLimited
    }

    /// The rule.
    package init(_ context: Context) {
        let blocker = Self.blocker(context)
        self.init(
            blocker: blocker, locationUnavailable: blocker == nil && !context.hasSignal,
            accuracyLimited: context.accuracyAuthorization == .reducedAccuracy)
    }

    /// The first blocker in precedence order.
    private static func blocker(_ context: Context) -> Blocker? {
        guard context.locationServicesEnabled else { return .authorizationDeniedGlobally }
        switch context.authorizationStatus {
        case .denied: return .authorizationDenied
        case .restricted: return .authorizationRestricted
        case _ where context.needsServiceSession: return .serviceSessionRequired
        case .notDetermined: return context.reachesApp ? .authorizationRequestInProgress : .insufficientlyInUse
        case .authorizedWhenInUse, .authorizedAlways: return context.reachesApp ? nil : .insufficientlyInUse
        }
    }

    /// Whether the API delivers (perhaps approximately, perhaps without a location).
    package var delivers: Bool { blocker == nil }

    /// A blocker that is the user's refusal, reported to a delegate as `kCLErrorDenied`
    /// (`locationManager(_:didFailWithError:)`: "the user denied your app's use of the location
    /// service", which Location Services off and restrictions are to the app).
    package var isRefusal: Bool {
        switch blocker {
        case .authorizationDeniedGlobally, .authorizationDenied, .authorizationRestricted: true
        default: false
        }
    }

    /// `CLLocationUpdate`'s diagnostics (iOS 18): the blocker alone, else the limits.
    package var liveUpdateDiagnostics: LiveUpdateDiagnostics {
        if let flag: LiveUpdateDiagnostics = blockerFlag() { return flag }
        var limits: LiveUpdateDiagnostics = []
        if locationUnavailable { limits.insert(.locationUnavailable) }
        if accuracyLimited { limits.insert(.accuracyLimited) }
        return limits
    }

    /// `CLMonitor.Event`'s diagnostics (iOS 18): the blocker, and `accuracyLimited` whenever
    /// accuracy is reduced — for a monitor that is itself a reason it cannot evaluate geographic
    /// conditions (Apple, `CLMonitor.Event.accuracyLimited`).
    package var monitoringDiagnostics: MonitoringDiagnostics {
        var flags: MonitoringDiagnostics = blockerFlag() ?? []
        if accuracyLimited { flags.insert(.accuracyLimited) }
        return flags
    }

    /// `CLServiceSession.Diagnostic`'s (and `CLBackgroundActivitySession.Diagnostic`'s) common
    /// part: the blocker. The session-specific flags (`alwaysAuthorizationDenied`,
    /// `fullAccuracyDenied`) are the session's own.
    package var sessionDiagnostics: SessionDiagnostics { blockerFlag() ?? [] }

    /// The blocker as the flag of the same name in one of the three diagnostics types.
    private func blockerFlag<Flags: BlockerFlags>() -> Flags? {
        switch blocker {
        case .authorizationDeniedGlobally: .authorizationDeniedGlobally
        case .authorizationDenied: .authorizationDenied
        case .authorizationRestricted: .authorizationRestricted
        case .serviceSessionRequired: .serviceSessionRequired
        case .authorizationRequestInProgress: .authorizationRequestInProgress
        case .insufficientlyInUse: .insufficientlyInUse
        case nil: nil
        }
    }
}

/// The diagnostics types that name each ``Availability/Blocker`` with a flag of its own (Apple
/// gives `CLLocationUpdate`, `CLMonitor.Event` and `CLServiceSession` one type each).
protocol BlockerFlags: OptionSet {
    static var authorizationDeniedGlobally: Self { get }
    static var authorizationDenied: Self { get }
    static var authorizationRestricted: Self { get }
    static var serviceSessionRequired: Self { get }
    static var authorizationRequestInProgress: Self { get }
    static var insufficientlyInUse: Self { get }
}

extension LiveUpdateDiagnostics: BlockerFlags {}
extension MonitoringDiagnostics: BlockerFlags {}
extension SessionDiagnostics: BlockerFlags {}
