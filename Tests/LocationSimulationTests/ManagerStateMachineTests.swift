import Geo
import LocationEvents
import LocationSimulation
import SimulatedTime
import TestSupport
import Testing

/// The manager's machines as values — authorization, the location services and the availability
/// rule — driven by their own `mutating func`s, without a route or a manager.
@Suite struct ManagerStateMachineTests {
    func machine(
        _ answer: AuthorizationAnswer?, delay: Seconds = 0, status: AuthorizationStatus = .notDetermined,
        accuracy: AccuracyAuthorization = .fullAccuracy, ios: Int = 26
    ) -> AuthorizationStateMachine {
        AuthorizationStateMachine(
            status: status, accuracy: accuracy, script: PromptScript(answer: answer, delay: delay), iosVersion: ios,
            allowOnceGrace: 10)
    }

    /// WWDC 2019 "What's New in Core Location": from iOS 13 an Always request answered "Allow
    /// While Using App" grants provisional Always; up to iOS 12 the prompt offered Always itself.
    @Test func anAlwaysRequestIsAnsweredAsEachReleaseOffersIt() {
        var modern = machine(.allowWhenInUse)
        let modernActions = modern.request(wantsAlways: true, inForeground: true, locationServicesEnabled: true, now: 0)
        #expect(modernActions == [.authorizationChanged(.authorizedAlways)])
        #expect(modern.state == .always(provisional: true) && modern.isProvisionalAlways)
        var old = machine(.allowWhenInUse, ios: 12)
        let oldActions = old.request(wantsAlways: true, inForeground: true, locationServicesEnabled: true, now: 0)
        #expect(oldActions == [.authorizationChanged(.authorizedWhenInUse)])
        var oldAlways = machine(.allowAlways, ios: 12)
        _ = oldAlways.request(wantsAlways: true, inForeground: true, locationServicesEnabled: true, now: 0)
        #expect(oldAlways.state == .always(provisional: false))
    }

    /// A prompt answered later is on screen until then; a second request while it is changes
    /// nothing; with Location Services off "the app stays denied" (no prompt at all).
    @Test func aDelayedAnswerKeepsThePromptOnScreenUntilItIsDue() {
        var auth = machine(.deny, delay: 30)
        let shown = auth.request(wantsAlways: false, inForeground: true, locationServicesEnabled: true, now: 100)
        let again = auth.request(wantsAlways: true, inForeground: true, locationServicesEnabled: true, now: 101)
        #expect(shown == [.promptShown] && again.isEmpty)
        #expect(auth.promptDue(by: 129) == nil && auth.promptDue(by: 131) == 130)
        let answered = auth.answerPrompt()
        #expect(answered == [.authorizationChanged(.denied)])
        #expect(auth.prompt == nil && auth.status == .denied)
        var off = machine(.allowAlways, status: .denied)
        let offActions = off.request(wantsAlways: true, inForeground: true, locationServicesEnabled: false, now: 0)
        #expect(offActions.isEmpty)
    }

    /// "Your app must be in the foreground to show a location authorization prompt" (Apple,
    /// `requestWhenInUseAuthorization()`; `CLAuthorizationStatus.notDetermined`: a request
    /// prompts "if the app is in the foreground"). Asked from the background — the first prompt or
    /// the upgrade to Always — nothing is shown or answered (a library hunt: it was), and the
    /// request is not spent: asked again in the foreground, it is.
    @Test func aRequestFromTheBackgroundShowsNoPrompt() {
        var auth = machine(.allowWhenInUse)
        #expect(auth.request(wantsAlways: true, inForeground: false, locationServicesEnabled: true, now: 0).isEmpty)
        #expect(auth.status == .notDetermined && auth.prompt == nil)
        let asked = auth.request(wantsAlways: true, inForeground: true, locationServicesEnabled: true, now: 5)
        #expect(asked == [.authorizationChanged(.authorizedAlways)] && auth.isProvisionalAlways)
        var upgrade = machine(.allowAlways, status: .authorizedWhenInUse)
        #expect(upgrade.request(wantsAlways: true, inForeground: false, locationServicesEnabled: true, now: 0).isEmpty)
        #expect(!upgrade.upgradeAsked)
        let upgraded = upgrade.request(wantsAlways: true, inForeground: true, locationServicesEnabled: true, now: 1)
        #expect(upgraded == [.authorizationChanged(.authorizedAlways)])
    }

    /// WWDC 2019: Allow Once lasts while the app is in use "and for a few seconds after it has
    /// been put in the background"; a terminated app loses it at once.
    @Test func allowOnceEndsAfterTheGraceOrAtTermination() {
        var auth = machine(.allowOnce)
        _ = auth.request(wantsAlways: false, inForeground: true, locationServicesEnabled: true, now: 0)
        #expect(auth.isOneTime && auth.status == .authorizedWhenInUse)
        let left = auth.leftUse(terminated: false, now: 50)
        #expect(left.isEmpty)
        #expect(auth.oneTimeExpiry(by: 59) == nil && auth.oneTimeExpiry(by: 60) == 60)
        let expired = auth.oneTimeExpired(isInUse: false)
        #expect(expired == [.authorizationChanged(.notDetermined)])
        var terminated = machine(.allowOnce)
        _ = terminated.request(wantsAlways: false, inForeground: true, locationServicesEnabled: true, now: 0)
        let ended = terminated.leftUse(terminated: true, now: 5)
        #expect(ended == [.authorizationChanged(.notDetermined)])
        // Back in use before the grace ends: Allow Once waits for the next departure.
        var back = machine(.allowOnce)
        _ = back.request(wantsAlways: false, inForeground: true, locationServicesEnabled: true, now: 0)
        _ = back.leftUse(terminated: false, now: 50)
        back.enteredUse()
        #expect(back.oneTimeExpiry == nil && back.isOneTime)
    }

    /// Apple, `requestAlwaysAuthorization()`: the upgrade prompt from When In Use shows once
    /// ("further calls have no effect"), never under Allow Once; provisional Always is settled at
    /// the first use in the background: "Keep Only While Using" gives When In Use.
    @Test func theUpgradePromptShowsOnceAndSettlesProvisionalAlways() {
        var auth = machine(.allowWhenInUse, status: .authorizedWhenInUse)
        let upgrade = auth.request(wantsAlways: true, inForeground: true, locationServicesEnabled: true, now: 0)
        #expect(upgrade.isEmpty && auth.upgradeAsked)
        var provisional = machine(.allowWhenInUse)
        _ = provisional.request(wantsAlways: true, inForeground: true, locationServicesEnabled: true, now: 0)
        let settled = provisional.settleProvisionalAlways()
        #expect(!settled.holds && settled.actions == [.authorizationChanged(.authorizedWhenInUse)])
        #expect(provisional.upgradeAsked && !provisional.isProvisionalAlways)
        var kept = machine(.allowAlways)
        _ = kept.request(wantsAlways: true, inForeground: true, locationServicesEnabled: true, now: 0)
        let keptSettled = kept.settleProvisionalAlways()
        #expect(keptSettled.holds && keptSettled.actions.isEmpty)
        #expect(kept.state == .always(provisional: false))
    }

    /// `CLLocationManager.h`, requestAlwaysAuthorization: "An application which currently has
    /// 'when-in-use' authorization and has never before requested 'always' authorization may use
    /// this method to request 'always' authorization one time only." An app that asked for Always
    /// at its first launch and was set to While Using in Settings asks in vain (it got Always
    /// back); one that asked for When In Use first gets its one upgrade.
    @Test func anAppThatAskedForAlwaysOnceCannotAskAgain() {
        var asked = machine(.allowAlways)
        _ = asked.request(wantsAlways: true, inForeground: true, locationServicesEnabled: true, now: 0)
        _ = asked.settleProvisionalAlways()
        _ = asked.change(to: .authorizedWhenInUse)
        #expect(asked.request(wantsAlways: true, inForeground: true, locationServicesEnabled: true, now: 500).isEmpty)
        #expect(asked.state.status == .authorizedWhenInUse)
        var firstWhenInUse = machine(.allowAlways)
        _ = firstWhenInUse.request(wantsAlways: false, inForeground: true, locationServicesEnabled: true, now: 0)
        let upgraded = firstWhenInUse.request(
            wantsAlways: true, inForeground: true, locationServicesEnabled: true, now: 10)
        #expect(upgraded == [.authorizationChanged(.authorizedAlways)])
    }

    /// Apple, `requestTemporaryFullAccuracyAuthorization(withPurposeKey:)`: full accuracy for the
    /// session in use; it ends when the app leaves use. Asked from the background, it fails ("The
    /// request always fails … The app is in the background").
    @Test func temporaryFullAccuracyLastsWhileInUse() {
        var auth = machine(nil, status: .authorizedAlways, accuracy: .reducedAccuracy)
        let inBackground = auth.requestTemporaryFullAccuracy(inForeground: false)
        let inForeground = auth.requestTemporaryFullAccuracy(inForeground: true)
        #expect(inBackground.isEmpty && inForeground == [.accuracyChanged(.fullAccuracy)])
        #expect(auth.accuracyAuthorization == .fullAccuracy)
        let leaving = auth.leftUse(terminated: false, now: 0)
        #expect(leaving == [.accuracyChanged(.reducedAccuracy)])
        // Reduced accuracy exists from iOS 14.
        #expect(machine(nil, accuracy: .reducedAccuracy, ios: 13).accuracyAuthorization == .fullAccuracy)
    }

    // MARK: Availability

    /// One precedence for every API, widest cause first (see `Availability`): Location Services
    /// off before the app's refusal, refusal before a missing session, before the pending request,
    /// before use.
    @Test func availabilityReportsTheWidestBlockerFirst() {
        typealias Context = Availability.Context
        #expect(
            Availability(Context(locationServicesEnabled: false, authorizationStatus: .denied)).blocker
                == .authorizationDeniedGlobally)
        #expect(
            Availability(Context(authorizationStatus: .denied, needsServiceSession: true)).blocker
                == .authorizationDenied)
        #expect(
            Availability(Context(authorizationStatus: .notDetermined, needsServiceSession: true)).blocker
                == .serviceSessionRequired)
        #expect(Availability(Context(authorizationStatus: .notDetermined)).blocker == .authorizationRequestInProgress)
        // No prompt shows out of use ("Your app must be in the foreground to show a location
        // authorization prompt"): a request there is not in progress.
        #expect(
            Availability(Context(authorizationStatus: .notDetermined, reachesApp: false)).blocker
                == .insufficientlyInUse)
        #expect(
            Availability(Context(authorizationStatus: .authorizedWhenInUse, reachesApp: false)).blocker
                == .insufficientlyInUse)
        let free = Availability(Context(authorizationStatus: .authorizedAlways, hasSignal: false))
        #expect(free.blocker == nil && free.locationUnavailable)
    }

    /// The three diagnostics derive from the one answer: a live update reports the blocker alone
    /// (or its limits), a monitor event the blocker with `accuracyLimited` (reduced accuracy is
    /// itself why a circle cannot be evaluated), a session the blocker.
    @Test func theThreeDiagnosticsDeriveFromOneAvailability() {
        let blocked = Availability(
            .init(authorizationStatus: .authorizedWhenInUse, accuracyAuthorization: .reducedAccuracy, reachesApp: false)
        )
        #expect(blocked.liveUpdateDiagnostics == .insufficientlyInUse)
        #expect(blocked.monitoringDiagnostics == [.insufficientlyInUse, .accuracyLimited])
        #expect(blocked.sessionDiagnostics == .insufficientlyInUse)
        let limited = Availability(
            .init(authorizationStatus: .authorizedAlways, accuracyAuthorization: .reducedAccuracy, hasSignal: false))
        #expect(limited.liveUpdateDiagnostics == [.locationUnavailable, .accuracyLimited])
        #expect(limited.monitoringDiagnostics == .accuracyLimited && limited.sessionDiagnostics.isEmpty)
        #expect(Availability(.init(authorizationStatus: .restricted)).isRefusal)
        #expect(!Availability(.init(authorizationStatus: .notDetermined)).isRefusal)
    }

    // MARK: Location services

    func sample(_ seconds: Double, north metres: Double, signal: Bool = true) -> DeviceSample {
        DeviceSample(time: t0 + seconds, coordinate: north(metres), hasSignal: signal)
    }

    /// Apple, `locationManagerDidResumeLocationUpdates(_:)`: "Core Location does not resume updates
    /// automatically after it pauses them"; only the app's start does.
    @Test func standardUpdatesPauseWhenStillAndResumeOnlyWhenStarted() {
        var services = LocationServicesStateMachine(configuration: LocationManagerConfiguration())
        let resumedAtStart = services.startUpdating(deviceRealism: false)
        #expect(!resumedAtStart)
        var checks: [LocationServicesStateMachine.PauseCheck] = []
        for s in 0...900 { checks.append(services.checkPause(at: sample(Double(s), north: 0), radius: 25, delay: 900)) }
        #expect(checks.firstIndex(of: .pausedNow) == 900 && services.isPaused)
        let later = services.checkPause(at: sample(1000, north: 500), radius: 25, delay: 900)
        let resumed = services.startUpdating(deviceRealism: false)
        #expect(later == .paused && resumed)
        #expect(services.isUpdating && !services.isPaused)
    }

    /// DESIGN.md after Apple: the first significant change at start, then ≥ 500 m and ≥ 5 minutes
    /// from the last; a new start gives a new initial event.
    /// The stillness test answers as ``ShortDistance`` does, though it measures with a metric
    /// fixed where the device stayed, or taken over from a stillness up to 0.005° of latitude
    /// away: at every latitude, for radii up to a few kilometres, and for points on either side
    /// of the radius down to a ten-thousandth of it.
    @Test func stillnessAnswersAsShortDistanceDoes() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func unit() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        var disagreements = 0
        for _ in 0..<20_000 {
            let centre = Coordinate(latitude: -89.9 + 179.8 * unit(), longitude: -180 + 360 * unit())
            let radius = [5.0, 25, 100, 1_000, 5_000][Int(unit() * 5)]
            let scale = [1e-4, 1e-3, 2e-3, 0.1, 3][Int(unit() * 5)]
            let distance = radius * (1 + scale * (2 * unit() - 1))
            let point = Geodesic.wgs84.direct(from: centre, azimuth: 360 * unit(), distance: distance).coordinate
            let elsewhere = min(90, max(-90, centre.latitude + 0.005 * (2 * unit() - 1)))
            var fresh: (latitude: Double, metric: LocalMetric)?
            var cached: (latitude: Double, metric: LocalMetric)? = (elsewhere, LocalMetric(latitude: elsewhere))
            let since = EpochInstant(secondsSince1970: 0)
            let expected = ShortDistance.distance(centre, point) <= radius
            for still in [
                LocationServicesStateMachine.Stillness(coordinate: centre, since: since, reusing: &fresh),
                LocationServicesStateMachine.Stillness(coordinate: centre, since: since, reusing: &cached),
            ] where still.contains(point, radius: radius) != expected {
                disagreements += 1
            }
        }
        #expect(disagreements == 0)
    }

    @Test func significantChangesNeedDistanceAndTime() {
        var services = LocationServicesStateMachine(configuration: LocationManagerConfiguration())
        services.startSignificantChanges()
        func due(_ s: Double, _ m: Double) -> Bool {
            services.significantChangeDue(at: sample(s, north: m), distance: 500, interval: 300, heartbeat: nil)
        }
        var dues = [due(0, 0), due(100, 600), due(400, 400), due(400, 600)]
        services.startSignificantChanges()
        dues.append(due(401, 600))
        #expect(dues == [true, false, false, true, true])
    }

    /// Apple, `requestLocation()`: one fix, "after which location services are stopped"; a
    /// request not answered in time fails at its deadline.
    @Test func aOneShotRequestWaitsUntilItsDeadline() {
        var services = LocationServicesStateMachine(configuration: LocationManagerConfiguration())
        services.requestLocation(at: 100, timeout: 10)
        services.requestLocation(at: 105, timeout: 10)
        #expect(services.oneShot == .waiting(asked: 100, deadline: 110))
        #expect(services.oneShotDeadline(by: 109) == nil && services.oneShotDeadline(by: 111) == 110)
        services.endOneShot()
        #expect(services.oneShot == .idle)
    }

    /// `CLLocationManager.h`, `requestLocation`: it "can not be used concurrently with
    /// startUpdatingLocation … Calling either of those methods will immediately cancel the location
    /// request. The method stopUpdatingLocation can be used to explicitly cancel the request."
    @Test func startingOrStoppingUpdatesCancelsAOneShotRequest() {
        var services = LocationServicesStateMachine(configuration: LocationManagerConfiguration())
        services.requestLocation(at: 100, timeout: 10)
        _ = services.startUpdating(deviceRealism: false)
        #expect(services.oneShot == .idle, "startUpdatingLocation cancels it")
        services.requestLocation(at: 101, timeout: 10)
        #expect(services.oneShot == .idle, "a request while updates run adds nothing to them")
        services.stopUpdating()
        services.requestLocation(at: 102, timeout: 10)
        #expect(services.oneShot == .waiting(asked: 102, deadline: 112))
        services.stopUpdating()
        #expect(services.oneShot == .idle, "stopUpdatingLocation cancels it")
    }

    /// Apple, WWDC 2023 "Discover streamlined location updates": updates stop while the device is
    /// stationary (one says so) and resume when it moves; iOS 18 reports what blocks them once
    /// per change, iOS 17 nothing.
    @Test func liveUpdatesGoQuietWhenStationaryAndReportBlockersOnce() {
        var services = LocationServicesStateMachine(configuration: LocationManagerConfiguration())
        services.startLive(.default, pauseDelay: 60)
        var actions: [LocationServicesStateMachine.LiveAction] = []
        for s in 0...70 {
            actions.append(
                services.liveUpdate(
                    at: sample(Double(s), north: 0), diagnostics: [], interval: 1, radius: 25, iosVersion: 18))
        }
        #expect(actions[60] == .update(isStationary: true) && actions[61...].allSatisfy { $0 == .none })
        let moved = services.liveUpdate(
            at: sample(71, north: 100), diagnostics: [], interval: 1, radius: 25, iosVersion: 18)
        let blocked = services.liveUpdate(
            at: sample(72, north: 100), diagnostics: .insufficientlyInUse, interval: 1, radius: 25, iosVersion: 18)
        let still = services.liveUpdate(
            at: sample(73, north: 100), diagnostics: .insufficientlyInUse, interval: 1, radius: 25, iosVersion: 18)
        #expect(moved == .update(isStationary: false))
        #expect(blocked == .diagnostic(.insufficientlyInUse) && still == .none)
        var ios17 = LocationServicesStateMachine(configuration: LocationManagerConfiguration())
        ios17.startLive(.default, pauseDelay: 60)
        let silent = ios17.liveUpdate(
            at: sample(0, north: 0), diagnostics: .insufficientlyInUse, interval: 1, radius: 25, iosVersion: 17)
        #expect(silent == .none)
    }
}
