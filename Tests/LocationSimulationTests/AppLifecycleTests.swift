import Geo
import LocationEvents
import LocationSimulation
import SimulatedTime
import TestSupport
import Testing

/// Authorization as each iOS release grants it, and events as iOS delivers them in each app
/// state. Each test names the rule's source.
@Suite struct AppLifecycleTests {
    /// A manager answered by `answer`, monitoring a 300 m region 1 km north, walking through it
    /// at 10 m/s (enter reported at 90 s, exit at 170 s... see `RegionMonitoringTests`).
    func walkThrough(
        answer: AuthorizationAnswer = .allowAlways, ios: Int = 26, states: [(Double, AppState)] = [],
        configure: (SimulatedLocationManager) -> Void = { _ in }
    ) -> [TimedEvent] {
        var configuration = LocationManagerConfiguration()
        configuration.iosVersion = ios
        let manager = SimulatedLocationManager(
            authorizationAnswer: answer, startTime: t0, configuration: configuration)
        configure(manager)
        manager.requestAlwaysAuthorization()
        manager.startMonitoring(for: CircularRegion(identifier: "r", center: north(1000), radius: 300))
        manager.startUpdatingLocation()
        return run(
            route(seconds: 300) { 10 * $0 }, manager: manager,
            script: states.map { (t0 + $0.0, .appState($0.1)) })
    }

    func types(_ events: [TimedEvent]) -> [String] {
        events.filter { $0.event.type != "location" && $0.event.type != "regionState" }.map {
            "\($0.event.type)\($0.event.detail.map { " " + $0 } ?? "")"
        }
    }

    /// Apple, requestAlwaysAuthorization(): "The second prompt displays when Core Location
    /// prepares to deliver an event to your app requiring CLAuthorizationStatus.authorizedAlways";
    /// "Keep Only While Using": "The delegate receives CLAuthorizationStatus.authorizedWhenInUse";
    /// "Change to Always Allow": "The delegate doesn't receive a callback."
    @Test func provisionalAlwaysIsSettledAtTheFirstBackgroundEvent() {
        // The stream starts with the manager's creation (not determined), then the launch:
        // provisional Always reads as Always, monitoring starts.
        let launch = ["authorization notDetermined", "authorization authorizedAlways", "monitoringStarted"]
        let kept = walkThrough(answer: .allowWhenInUse, states: [(30, .background)])
        #expect(types(kept) == launch + ["appState background", "authorization authorizedWhenInUse"])
        let upgraded = walkThrough(answer: .allowAlways, states: [(30, .background)])
        #expect(types(upgraded) == launch + ["appState background", "regionEnter", "regionExit"])
    }

    /// Apple, "Handling location updates in the background": a suspended app does not "receive
    /// location updates"; `allowsBackgroundLocationUpdates` keeps them coming, and the app in use.
    @Test func standardUpdatesStopInTheBackgroundUnlessBackgroundUpdatesAreOn() {
        let plain = walkThrough(states: [(100, .background)])
        #expect(plain.fixes.last?.time == 99)
        let background = walkThrough(states: [(100, .background)]) { $0.allowsBackgroundLocationUpdates = true }
        #expect(background.fixes.last?.time == 300)
    }

    /// Apple, CLRegion.notifyOnEntry: "If the app is not running when a boundary crossing occurs,
    /// the system launches the app into the background to handle it"; standard updates do not
    /// relaunch it; When In Use never does ("Choosing the Location Services Authorization").
    @Test func aTerminatedAppIsRelaunchedByARegionOnlyWithAlways() {
        let always = walkThrough(states: [(10, .background), (20, .terminated)])
        #expect(
            types(always).suffix(4) == ["appState terminated", "appLaunch region", "regionEnter", "regionExit"])
        #expect(always.fixes.last?.time == 9)
        let whenInUse = walkThrough(answer: .allowWhenInUse, ios: 12, states: [(10, .background), (20, .terminated)])
        #expect(!types(whenInUse).contains("appLaunch region"))
    }

    /// A relaunched app creates its manager, which reports the status before the event iOS
    /// launched it for (`locationManagerDidChangeAuthorization(_:)`: "The system calls this method
    /// when the app creates the related object's CLLocationManager instance"); the scenario app
    /// reported it only at a launch by the user. The launch code runs when iOS launches the app:
    /// for an entry found between two fixes (the crossing interpolated), at the entry's instant —
    /// the status was stamped at the fix after it, out of the virtual-time order DESIGN.md's event
    /// stream keeps.
    @Test func aRelaunchedAppLearnsItsStatusBeforeTheEvent() throws {
        var app = AppScript(regions: [CircularRegion(identifier: "r", center: north(500), radius: 100)])
        app.mode = .none
        app.appStates = [(at: 10, state: .background), (at: 20, state: .terminated)]
        let manager = app.makeManager(startTime: t0)
        app.launch(manager)
        let events = run(route(seconds: 600) { $0 * 1.3 }, manager: manager, script: app.script(from: t0))
        let launched = try #require(events.firstIndex { $0.event.type == "appLaunch" })
        #expect(events[launched...].prefix(3).map(\.event.type) == ["appLaunch", "authorization", "regionEnter"])
        #expect(events[launched + 1].event == .authorizationChanged(.authorizedAlways))
        let launch = events[launched].time
        #expect(launch.secondsSince1970.rounded() != launch.secondsSince1970, "the entry falls between fixes")
        #expect(events[launched...].prefix(3).map(\.time) == [launch, launch, launch])
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time }, "in virtual-time order")
    }

    /// Apple, `startUpdatingLocation()`: "If your app is terminated, the delivery of new location
    /// events stops altogether"; a suspended or terminated app runs no code. Found at stop 80: a
    /// Settings change, the declined upgrade prompt and a scheduled `requestLocation()` reached a
    /// terminated app (no `appLaunch` before them); the user's next launch tells it the status.
    @Test func nothingReachesATerminatedAppUntilItIsLaunched() {
        var configuration = LocationManagerConfiguration()
        configuration.iosVersion = 26
        let manager = SimulatedLocationManager(
            authorizationAnswer: .allowAlways, startTime: t0, configuration: configuration)
        manager.requestAlwaysAuthorization()
        manager.startMonitoring(for: CircularRegion(identifier: "r", center: north(5_000), radius: 300))
        // The app's launch code, as an app's: the manager it creates reports the status.
        manager.lifecycleHandler = { manager, previous in
            if previous == .terminated && manager.appState == .foreground { manager.reportInitialAuthorization() }
        }
        let events = run(
            route(seconds: 300) { $0 }, manager: manager,
            script: [
                (t0 + 10, .appState(.background)), (t0 + 20, .appState(.terminated)),
                (t0 + 30, .requestLocation), (t0 + 60, .authorization(.denied)),
                (t0 + 200, .appState(.foreground)),
            ])
        let whileTerminated = events.filter { $0.time > t0 + 20 && $0.time < t0 + 200 }
        #expect(whileTerminated.isEmpty, "\(whileTerminated)")
        let atLaunch = events.filter { $0.time == t0 + 200 }.map(\.event.type)
        #expect(atLaunch.prefix(2) == ["appState", "authorization"], "\(atLaunch)")
        #expect(events.last { $0.event.type == "authorization" }?.event == .authorizationChanged(.denied))
    }

    /// Apple, `requestWhenInUseAuthorization()` (iOS 8 reference): When In Use apps "cannot use any
    /// services that automatically relaunch the app, such as region monitoring or the significant
    /// location change service"; from iOS 13 they can, while in use.
    @Test func upToIOS12WhenInUseGetsNoSignificantChanges() {
        for (ios, expected) in [(12, 0), (13, 1)] {
            var configuration = LocationManagerConfiguration()
            configuration.iosVersion = ios
            let manager = SimulatedLocationManager(
                status: .authorizedWhenInUse, startTime: t0,
                configuration: configuration)
            manager.startMonitoringSignificantLocationChanges()
            #expect(run(route(seconds: 60) { $0 }, manager: manager).fixes.count == expected, "iOS \(ios)")
        }
    }

    /// Apple, requestAlwaysAuthorization(), "Allow Once": "This authorization expires when your
    /// app is no longer in use, reverting to CLAuthorizationStatus.notDetermined"; WWDC 2019 705:
    /// in use "for a few seconds after it has been put in the background".
    @Test func allowOnceEndsAfterTheAppLeavesUse() {
        // The creation reports "not determined" at t0; an expiry would report it again.
        let events = walkThrough(answer: .allowOnce, states: [(50, .background), (55, .foreground)])
        #expect(types(events).filter { $0 == "authorization notDetermined" }.count == 1, "back within the grace")
        let expired = walkThrough(answer: .allowOnce, states: [(50, .background)])
        let reset = expired.first { $0.event == .authorizationChanged(.notDetermined) && $0.time > t0 }
        #expect(reset.map { $0.time - t0 } == 50 + LocationManagerConfiguration().allowOnceGrace.seconds)
        #expect(!types(expired).contains("regionEnter"))
    }

    /// Apple, `locationServicesEnabled()`: "When users disable the switch, the system calls your
    /// delegate's locationManager(_:didChangeAuthorization:) method with a denied authorization
    /// status"; `CLAuthorizationStatus.denied`: "disabled globally in Settings".
    @Test func locationServicesOffDeniesEveryApp() {
        let manager = SimulatedLocationManager(authorizationAnswer: .allowAlways, locationServicesEnabled: false)
        var events: [LocationEvent] = []
        manager.observer = { events.append($0.event) }
        manager.reportInitialAuthorization()
        manager.requestAlwaysAuthorization()
        manager.startUpdatingLocation()
        #expect(manager.authorizationStatus == .denied)
        #expect(events.map(\.type) == ["authorization", "error"] && events.last?.detail == "denied")
    }

    /// Apple, `accuracyAuthorization`: with reduced accuracy "your app can't use region
    /// monitoring"; `kCLLocationAccuracyReduced`: "usually within 1–20 kilometers", "at most a few
    /// times per hour".
    @Test func reducedAccuracyGivesApproximateFixesAndNoRegions() {
        let manager = SimulatedLocationManager(
            authorizationAnswer: .allowAlways, accuracyAuthorization: .reducedAccuracy,
            startTime: t0)
        var setup: [TimedEvent] = []
        manager.observer = { setup.append($0) }
        manager.requestAlwaysAuthorization()
        manager.pausesLocationUpdatesAutomatically = false
        manager.startMonitoring(for: CircularRegion(identifier: "r", center: north(1000), radius: 300))
        manager.startUpdatingLocation()
        #expect(setup.failures.map(\.code) == [.regionMonitoringDenied])
        let events = run(route(seconds: 3_600) { $0 }, manager: manager)
        #expect(events.fixes.map(\.time) == [0, 900, 1800, 2700, 3600])
        for fix in events.fixes {
            let error = ShortDistance.distance(fix.location.coordinate, north(fix.time))
            #expect(error < 4_000 && fix.location.horizontalAccuracy > 1_000)
            // A position only: moving north at 1 m/s, nothing says so (a black-box hunt found the
            // route's own speed and heading on the approximate fixes).
            #expect(fix.location.speed == -1 && fix.location.course == -1 && fix.location.verticalAccuracy == -1)
        }
    }

    /// Apple, `pausesLocationUpdatesAutomatically`: "pause updates ... at times when the location
    /// data is unlikely to change"; `locationManagerDidResumeLocationUpdates`: "Core Location does
    /// not resume updates automatically after it pauses them."
    @Test func aLongStopPausesUpdatesUntilTheAppRestartsThem() {
        let manager = alwaysManager()
        manager.startUpdatingLocation()
        // 20 minutes still, then walking on.
        let stop = run(route(seconds: 1_800) { $0 < 1_200 ? 0 : $0 - 1_200 }, manager: manager)
        #expect(types(stop) == ["authorization authorizedAlways", "locationUpdatesPaused"])
        #expect(stop.fixes.last?.time == 899)
        manager.startUpdatingLocation()
        #expect(manager.location?.timestamp == t0 + 899)
        let fitness = alwaysManager()
        fitness.activityType = .automotiveNavigation
        fitness.startUpdatingLocation()
        #expect(run(route(seconds: 1_100) { _ in 0 }, manager: fitness).fixes.count == 1_101)
    }

    @Test func scriptsIOSHasNoPathForAreRefused() {
        var app = AppScript()
        app.prompt = PromptScript(answer: .allowOnce)
        #expect(app.problem(iosVersion: 12)?.setting == .prompt)
        #expect(app.problem(iosVersion: 13) == nil)
        app.accuracyAuthorization = .reducedAccuracy
        #expect(app.problem(iosVersion: 13)?.setting == .accuracyAuthorization)
        app = AppScript()
        app.appStates = [(10, .background), (20, .terminated), (30, .background)]
        #expect(app.problem(iosVersion: 26)?.setting == .appState(2))
        app.appStates = [(10, .suspended)]
        #expect(app.problem(iosVersion: 26)?.setting == .appState(0))
        app.appStates = [(10, .background), (5, .foreground)]
        #expect(app.problem(iosVersion: 26)?.message == "app states must be in time order")
        #expect(PromptScript("when-in-use@60") == PromptScript(answer: .allowWhenInUse, delay: 60))
        #expect(PromptScript("ask@5") == nil && PromptScript("sometimes") == nil && PromptScript("always@-1") == nil)
    }
}

/// `--realism device`: what devices show in the field, seeded (sources on `DeviceRealism`).
@Suite struct DeviceRealismTests {
    func manager(seed: UInt64, realism: Realism = .device) -> SimulatedLocationManager {
        var configuration = LocationManagerConfiguration()
        configuration.realism = realism
        return alwaysManager(configuration: configuration, seed: seed)
    }

    /// Region events under the mechanism come late and in order, and the same seed gives the same
    /// events (their rates and lateness: FieldMechanismTests).
    @Test func regionEventsComeLateInOrderAndTheSameSeedGivesTheSameEvents() {
        func walk(seed: UInt64, realism: Realism = .device) -> [TimedEvent] {
            let m = manager(seed: seed, realism: realism)
            m.startMonitoring(for: CircularRegion(identifier: "r", center: north(1000), radius: 300))
            return run(route(seconds: 1_800) { 10 * min($0, 150) }, manager: m)
        }
        var entries = 0
        for seed: UInt64 in 1...20 {
            let late = walk(seed: seed).transitions
            // An exit never overtakes its entry.
            #expect(late.enumerated().allSatisfy { $0.element.0 == ($0.offset % 2 == 0 ? "enter" : "exit") }, "\(late)")
            #expect(zip(late, late.dropFirst()).allSatisfy { $0.2 <= $1.2 })
            entries += late.filter { $0.0 == "enter" }.count
        }
        #expect(entries >= 15, "a 300 m region crossed on foot: \(entries) of 20 entered")
        #expect(walk(seed: 7) == walk(seed: 7))
        #expect(walk(seed: 7) != walk(seed: 8))
    }

    @Test func significantChangesWakeWithoutMovementAndTheFirstFixIsCached() {
        let still = manager(seed: 3)
        still.startMonitoringSignificantLocationChanges()
        let events = run(route(seconds: 7_200) { _ in 0 }, manager: still)
        // Exponential gaps, mean 15 min: about 8 in two hours after the first.
        #expect((4...14).contains(events.fixes.count - 1), "\(events.fixes.count) significant changes")
        let exact = manager(seed: 3, realism: .exact)
        exact.startMonitoringSignificantLocationChanges()
        #expect(run(route(seconds: 7_200) { _ in 0 }, manager: exact).fixes.count == 1)

        let walker = manager(seed: 5)
        walker.startUpdatingLocation()
        let fixes = run(route(seconds: 10) { $0 }, manager: walker).fixes
        let cached = fixes[0].location
        #expect(fixes.count == 12 && fixes[0].time == 0 && fixes[1].time == 0)
        #expect(cached.horizontalAccuracy == 65 && cached.timestamp < t0 && cached.timestamp >= t0 - 120)
        #expect(
            EventStreamEncoder.json(TimedEvent(time: t0, event: .locationUpdated(cached, service: .standard)))
                .contains(#""age":"#))
    }
}

/// The manager's one log keeps every event until a simulation takes it: a launch that monitors
/// 70,000 regions emits 70,000 `monitoringStarted` before the run, and every one reaches the
/// stream (a cap on the log once dropped the oldest half, and with them the first lines of a
/// replay with 100,000 regions).
struct EmittedLogTests {
    @Test func everyEventOfALargeLaunchReachesTheStream() {
        var configuration = LocationManagerConfiguration()
        configuration.regionLimit = nil
        let manager = SimulatedLocationManager(status: .authorizedAlways, startTime: t0, configuration: configuration)
        for index in 0..<70_000 {
            manager.startMonitoring(
                for: CircularRegion(identifier: "r\(index)", center: north(Double(index)), radius: 100))
        }
        var events: [TimedEvent] = []
        manager.drainEmitted(into: &events, device: nil)
        // The creation's report, then every region.
        #expect(events.count == 70_001)
        #expect(events.first?.event == .authorizationChanged(.authorizedAlways))
        #expect(events.dropFirst().first?.event.identifier == "r0")
        manager.drainEmitted(into: &events, device: nil)
        #expect(events.count == 70_001, "a drained log is empty")
    }
}
