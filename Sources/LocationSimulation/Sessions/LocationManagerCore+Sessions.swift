import LocationEvents
import SimulatedTime

/// Service sessions (`CLServiceSession`, iOS 18) and background activity sessions
/// (`CLBackgroundActivitySession`, iOS 17): what they ask of the user, when they are in effect,
/// and what they let today's APIs (live updates, `CLMonitor`) deliver while the app is not in use.
///
/// The rules, with their sources (see also docs/location-manager.md's table):
/// - A session with a requirement other than `.none` "causes Location Services to request a
///   person's permission for the corresponding level of authorization when possible — for
///   example, when your app is in the foreground" (Apple, `CLServiceSession.init(authorization:)`);
///   with a full-accuracy purpose key it asks for temporary full accuracy the same way.
/// - "A new session may only become active while the app is foregrounded and in direct use"
///   (`CLBackgroundActivitySession.h`); likewise a service session ("you can only start holding
///   one when your app is in the foreground", WWDC 2024 "What's new in location authorization").
/// - Sessions outlive the app's termination; at its next launch they must be recreated "within a
///   few seconds" or they end (Apple engineer, developer forums thread 797319):
///   ``LocationManagerConfiguration/serviceSessionResumeWindow``.
/// - Iterating live updates or a monitor's events holds an implicit session with a When In Use
///   goal, unless the app sets `NSLocationRequireExplicitServiceSession` (Apple, "Handling
///   location updates in the background"); then, without an explicit session requiring
///   authorization, updates and monitor events report `serviceSessionRequired`.
/// - Live updates and monitor events reach an app that is not in use only when it is authorized
///   Always and holds an active service session requiring Always ("An app with Always
///   authorization, but which is not holding such a CLServiceSession will not be able to receive
///   CLLocationUpdate.liveUpdates() or CLMonitor.events() when it is not in-use",
///   `CLServiceSession.h`), or holds an active background activity session, which keeps it in
///   use ("When a session is active, the app remains in-use, so When-In-Use authorization will
///   remain effective, and both Updater and Monitor APIs will be available",
///   `CLBackgroundActivitySession.h`).
extension LocationManagerCore {
    /// A session the app holds.
    struct HeldSession {
        var kind: SessionKind
        var requirement: ServiceSessionRequirement?
        var fullAccuracyPurposeKey: String?
        var isActive: Bool
        /// The launch of the app the session belongs to (see ``launches``).
        var launch: Int
        /// The diagnostics last reported, nil before the first report.
        var reported: SessionDiagnostics?
        /// Whether it was in effect when last reported (``LocationManagerCore/isInEffect(_:)``).
        var reportedInEffect = false
    }

    /// Opens a service session; one requiring authorization asks for it (and for temporary full
    /// accuracy, given a purpose key) while the app is in the foreground.
    mutating func beginServiceSession(_ requirement: ServiceSessionRequirement, fullAccuracyPurposeKey: String?) {
        openSession(kind: .service, requirement: requirement, fullAccuracyPurposeKey: fullAccuracyPurposeKey)
        askForAuthorization(requirement)
        if fullAccuracyPurposeKey != nil, appState == .foreground, accuracyAuthorization == .reducedAccuracy {
            authorization.noteFullAccuracyRequested()
            perform(authorization.requestTemporaryFullAccuracy(inForeground: true))
        }
        refreshSessions()
    }

    /// A session's requirement asked for, while the app is in the foreground (a prompt shows only
    /// there): the status when it is not determined, Always from While Using.
    mutating func askForAuthorization(_ requirement: ServiceSessionRequirement) {
        guard requirement != .none, appState == .foreground else { return }
        if authorizationStatus == .notDetermined {
            requestAuthorization(always: requirement == .always)
        } else if requirement == .always && authorizationStatus == .authorizedWhenInUse {
            requestAuthorization(always: true)
        }
    }

    /// The app came to the foreground: the active sessions ask again for what they require — a
    /// session re-asks "as needed after temporary authorization lapses due to time your app spends
    /// in the background" (Apple, `CLServiceSession`), as Allow Once does after the app left use.
    mutating func sessionsEnteredForeground() {
        let required = sessions.values.filter { $0.kind == .service && $0.isActive }.compactMap(\.requirement)
        if required.contains(.always) {
            askForAuthorization(.always)
        } else if required.contains(.whenInUse) {
            askForAuthorization(.whenInUse)
        }
    }

    /// The identifier the next session opened gets.
    package var nextSessionID: SessionID { SessionID(rawValue: nextSession + 1) }

    /// The sessions the app holds now, in the order they began.
    var heldSessions: [SessionDiagnostic] {
        sessionOrder.compactMap { id in sessions[id].map { diagnostic(id, $0) } }
    }

    /// Opens a session; it gets ``nextSessionID``.
    mutating func openSession(
        kind: SessionKind, requirement: ServiceSessionRequirement?, fullAccuracyPurposeKey: String?
    ) {
        nextSession += 1
        let id = SessionID(rawValue: nextSession)
        // In use now, or resumed at once after a launch, the previous launch having held one.
        let resumes =
            lastLaunch.map { $0.seconds(to: now) <= configuration.serviceSessionResumeWindow.seconds + 1e-9 }
            ?? false
            && sessions.values.contains {
                $0.launch < launches && $0.isActive && $0.kind == kind && $0.requirement == requirement
            }
        sessions[id] = HeldSession(
            kind: kind, requirement: requirement, fullAccuracyPurposeKey: fullAccuracyPurposeKey,
            isActive: isInUseForTodaysAPIs || resumes, launch: launches)
        sessionOrder.append(id)
    }

    /// The app was launched again after termination (by the user, or by iOS for an event): its
    /// sessions from before must be recreated within the resume window.
    mutating func sessionsRelaunched(at time: EpochInstant) {
        launches += 1
        lastLaunch = time
    }

    /// Ends sessions of an earlier launch that the app did not recreate in time.
    mutating func expireStaleSessions(at time: EpochInstant) {
        guard let launch = lastLaunch,
            launch.seconds(to: time) > configuration.serviceSessionResumeWindow.seconds + 1e-9
        else { return }
        let stale = sessionOrder.filter { sessions[$0].map { $0.launch < launches } ?? false }
        guard !stale.isEmpty else { return }
        for id in stale { sessions.removeValue(forKey: id) }
        sessionOrder.removeAll { stale.contains($0) }
        refreshMonitoringBlockers()
    }

    /// Whether live updates and monitor events reach the app as one in use: in the foreground,
    /// running in the background with background location updates, or holding an active
    /// background activity session.
    @inline(__always) var isInUseForTodaysAPIs: Bool {
        switch appState {
        case .foreground: return true
        case .background where allowsBackgroundLocationUpdates: return true
        default:
            return sessions.values.contains { $0.kind == .backgroundActivity && $0.isActive }
        }
    }

    /// Whether an app authorized Always gets live updates and monitor events while not in use:
    /// from iOS 18 only while it holds an active service session requiring Always ("An app with
    /// Always authorization, but which is not holding such a CLServiceSession will not be able to
    /// receive CLLocationUpdate.liveUpdates() or CLMonitor.events() when it is not in-use",
    /// `CLServiceSession.h`; the implicit session of iterating has a When In Use goal); before
    /// iOS 18 there are no sessions to hold.
    @inline(__always) var holdsAlwaysSession: Bool {
        guard configuration.iosVersion >= 18 else { return true }
        return sessions.values.contains { $0.kind == .service && $0.requirement == .always && $0.isActive }
    }

    /// `serviceSessionRequired`: the app requires explicit sessions (Info.plist) and holds none
    /// requiring authorization (a `.none` session counts once authorization is granted).
    @inline(__always) var needsServiceSession: Bool {
        guard configuration.iosVersion >= 18, configuration.requiresExplicitServiceSession else { return false }
        return !sessions.values.contains {
            $0.kind == .service
                && ($0.requirement != ServiceSessionRequirement.none || authorizationStatus.allowsLocation)
        }
    }

    /// Whether a session is in effect: active (begun in use, not ended by a termination) and, for
    /// a background activity session, the app having effective authorization ("A session may
    /// only be active for an app which has effective authorization", `CLBackgroundActivitySession.h`:
    /// one was reported active beside `authorizationDenied`).
    @inline(__always) func isInEffect(_ session: HeldSession) -> Bool {
        session.isActive && (session.kind != .backgroundActivity || authorizationStatus.allowsLocation)
    }

    /// A session's diagnostics now: ``Availability``'s blocker for it, with the session's own
    /// flags. A session reaches the app while the app is in use as today's APIs count it, or — a
    /// service session of an app authorized Always — while it is active; either way only while
    /// the session itself is active (begun in use, not ended by a termination).
    @inline(__always) func sessionDiagnostics(_ session: HeldSession) -> SessionDiagnostics {
        // `CLBackgroundActivitySession.Diagnostic` is iOS 18.0+: on iOS 17 a session says nothing
        // but whether it is active.
        if session.kind == .backgroundActivity && configuration.iosVersion < 18 { return [] }
        let inUse =
            isInUseForTodaysAPIs
            || (authorizationStatus == .authorizedAlways && session.kind == .service && session.isActive)
        var flags = availability(
            reachesApp: inUse && session.isActive, hasSignal: true,
            needsServiceSession: session.kind == .service && needsServiceSession
        ).sessionDiagnostics
        if session.kind == .service {
            if session.requirement == .always && authorizationStatus == .authorizedWhenInUse && hasAskedForAlways {
                flags.insert(.alwaysAuthorizationDenied)
            }
            if session.fullAccuracyPurposeKey != nil && authorization.fullAccuracyRequested
                && accuracyAuthorization == .reducedAccuracy
            {
                flags.insert(.fullAccuracyDenied)
            }
        }
        return flags
    }

    /// Reports each session whose diagnostics changed (and each new one).
    mutating func refreshSessions() {
        for id in sessionOrder {
            guard var session = sessions[id] else { continue }
            let flags = sessionDiagnostics(session)
            let inEffect = isInEffect(session)
            guard flags != session.reported || inEffect != session.reportedInEffect else { continue }
            (session.reported, session.reportedInEffect) = (flags, inEffect)
            sessions[id] = session
            emit(.sessionDiagnostic(diagnostic(id, session)))
        }
    }

    @inline(__always) private func diagnostic(_ id: SessionID, _ session: HeldSession) -> SessionDiagnostic {
        SessionDiagnostic(
            session: id, kind: session.kind, requirement: session.requirement, isActive: isInEffect(session),
            diagnostics: session.reported ?? sessionDiagnostics(session))
    }
}
