import Foundation
import Geo
import LocationEvents
import LocationSimulation
import SimulatedTime
import TestSupport
import Testing

/// `CLMonitor` and `CLLocationUpdate.liveUpdates` (iOS 17) on the same world as the delegate API.
@Suite struct TodayAPITests {
    let cafe = CircularRegion(identifier: "cafe", center: north(1_000), radius: 150)
    var cafeCondition: MonitoringCondition { .circularGeographic(.init(center: cafe.center, radius: cafe.radius)) }

    /// Issue 14, item 4: one world. Walk through the café at 2 m/s: the delegate's enter/exit and
    /// the monitor's satisfied/unsatisfied come at the same instants under the exact realism.
    @Test func monitorAndDelegateAgreeToTheMillisecond() {
        let manager = alwaysManager()
        manager.startMonitoring(for: cafe)
        manager.add(cafeCondition, identifier: "cafe", to: "places")
        let events = run(route(seconds: 1_000) { 2 * $0 }, manager: manager)
        let monitor = events.compactMap { timed -> (MonitoringState, Double)? in
            guard case .monitorEvent(let event, _) = timed.event, event.date == timed.time else { return nil }
            return (event.state, timed.time - t0)
        }
        let transitions = events.transitions
        #expect(transitions.count == 2)
        #expect(monitor.map(\.0) == [.unsatisfied, .satisfied, .unsatisfied])
        #expect(monitor.dropFirst().map(\.1) == transitions.map(\.2))
    }

    /// Apple, `add(_:identifier:)`: "The initial state is CLRegionState.unknown";
    /// `add(_:identifier:assuming:)` sets the "initial state you specify". An event comes only when
    /// the monitor determines another (Waypost's reading).
    @Test func theFirstEventFollowsTheAssumedState() {
        func first(assuming: MonitoringState) -> [MonitoringState] {
            let manager = alwaysManager()
            var states: [MonitoringState] = []
            manager.observer = { if case .monitorEvent(let event, _) = $0.event { states.append(event.state) } }
            manager.move(to: DeviceSample(time: t0, coordinate: origin))
            manager.add(cafeCondition, identifier: "cafe", to: "places", assuming: assuming)
            for s in 1...30 {
                manager.move(to: DeviceSample(time: t0 + Double(s), coordinate: origin))
            }
            #expect(manager.record(for: "cafe", in: "places")?.lastEvent.state == .unsatisfied)
            return states
        }
        #expect(first(assuming: .unsatisfied) == [])
        #expect(first(assuming: .unknown) == [.unsatisfied])
        #expect(first(assuming: .satisfied) == [.unsatisfied])
    }

    /// The app's conditions share iOS's limit of 20; a condition beyond it, or one iOS cannot
    /// monitor, is `unmonitored` with the reason (iOS 18: `conditionLimitExceeded`,
    /// `conditionUnsupported`).
    @Test func conditionsBeyondTheLimitAreUnmonitored() {
        let manager = alwaysManager()
        var events: [MonitoringEvent] = []
        manager.observer = { if case .monitorEvent(let event, _) = $0.event { events.append(event) } }
        for i in 0..<21 {
            manager.add(
                .circularGeographic(.init(center: north(Double(i) * 10_000), radius: 100)), identifier: "c\(i)",
                to: "many")
        }
        manager.add(.circularGeographic(.init(center: origin, radius: 0)), identifier: "dot", to: "many")
        #expect(events.map(\.identifier) == ["c20", "dot"])
        #expect(events.map(\.state) == [.unmonitored, .unmonitored])
        #expect(events.map(\.diagnostics) == [.conditionLimitExceeded, .conditionUnsupported])
        #expect(manager.identifiers(of: "many").count == 22)
        // The limit is per type of condition ("monitoring too many other conditions of this
        // type", Apple, `CLMonitor.Event.conditionLimitExceeded`): beacon conditions have room of
        // their own, 20 of them, where they were refused after the geographic ones.
        events = []
        let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
        for i in 0..<21 {
            manager.add(.beaconIdentity(.init(uuid: uuid, major: 1, minor: UInt16(i))), identifier: "b\(i)", to: "many")
        }
        #expect(events.filter { $0.state == .unmonitored }.map(\.identifier) == ["b20"], "\(events)")
    }

    /// Conditions that change at one fix report in the order they were added — a condition added
    /// again goes last — whatever their identifiers; a removed one frees its place under the
    /// limit. (The monitor looks only at the conditions whose regions changed, not at all of
    /// them, and must still give their events in this order.)
    @Test func conditionsChangingAtOneFixReportInTheOrderTheyWereAdded() {
        let manager = alwaysManager()
        let names = [
            "m", "c", "x", "a", "q", "b", "k", "e", "w", "d", "t", "f", "p", "g", "s", "h", "o", "i", "r", "j",
        ]
        for name in names { manager.add(cafeCondition, identifier: name, to: "places") }
        manager.remove("c", from: "places")
        manager.add(cafeCondition, identifier: "c", to: "places")
        manager.add(cafeCondition, identifier: "over", to: "places")
        let events = run(route(seconds: 1_000) { 2 * $0 }, manager: manager).compactMap {
            timed -> MonitoringEvent? in
            guard case .monitorEvent(let event, _) = timed.event, event.identifier != "over" else { return nil }
            return event
        }
        let added = names.filter { $0 != "c" } + ["c"]
        let instants = Dictionary(grouping: events, by: \.date)
        #expect(instants.count == 3)  // the first fix, the entry, the exit
        for group in instants.values { #expect(group.map(\.identifier) == added) }
        #expect(manager.record(for: "over", in: "places")?.lastEvent.diagnostics == .conditionLimitExceeded)
    }

    /// A beacon condition is satisfied at the first fix in range of a matching beacon and
    /// unsatisfied `beaconExitDelay` (30 s) after the last.
    @Test func beaconConditionsFollowTheBeaconsRange() throws {
        let uuid = try #require(UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        let manager = alwaysManager()
        manager.beacons = [Beacon(uuid: uuid, major: 1, minor: 7, coordinate: north(500), range: 30.5)]
        manager.add(.beaconIdentity(.init(uuid: uuid, major: 1)), identifier: "lobby", to: "beacons")
        manager.add(.beaconIdentity(.init(uuid: uuid, major: 2)), identifier: "other", to: "beacons")
        // 1 m/s: in range from 470 s to 530 s.
        let events = run(route(seconds: 700) { $0 }, manager: manager).compactMap {
            timed -> (String, MonitoringState, Double)? in
            guard case .monitorEvent(let event, _) = timed.event else { return nil }
            return (event.identifier, event.state, timed.time - t0)
        }
        #expect(events.map(\.0) == ["lobby", "other", "lobby", "lobby"])
        #expect(events.map(\.1) == [.unsatisfied, .unsatisfied, .satisfied, .unsatisfied])
        #expect(events.map(\.2) == [0, 0, 470, 560])
    }

    /// The beacons heard at a fix are looked up by place: among 2,000 others that match the
    /// condition too but lie off the route, the beacon on it is heard exactly where it alone is;
    /// one with no finite range is heard everywhere (it cannot be filed by place).
    @Test func beaconsAreHeardWhereTheyAreAmongMany() throws {
        let uuid = try #require(UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        func events(_ beacons: [Beacon]) -> [(MonitoringState, Double)] {
            let manager = alwaysManager()
            manager.beacons = beacons
            manager.add(.beaconIdentity(.init(uuid: uuid)), identifier: "any", to: "beacons")
            return run(route(seconds: 700) { $0 }, manager: manager).compactMap { timed in
                guard case .monitorEvent(let event, _) = timed.event else { return nil }
                return (event.state, timed.time - t0)
            }
        }
        let lobby = Beacon(uuid: uuid, major: 1, minor: 7, coordinate: north(500), range: 30.5)
        let offRoute = (0..<2_000).map {
            let metres = $0.isMultiple(of: 2) ? -200 - 25 * Double($0) : 800 + 25 * Double($0)
            return Beacon(uuid: uuid, major: 2, minor: UInt16($0), coordinate: north(metres), range: 40)
        }
        let alone = events([lobby])
        #expect(alone.map(\.0) == [.unsatisfied, .satisfied, .unsatisfied] && alone.map(\.1) == [0, 470, 560])
        let among = events(offRoute + [lobby] + offRoute.reversed())
        #expect(among.map(\.0) == alone.map(\.0) && among.map(\.1) == alone.map(\.1))
        let everywhere = Beacon(uuid: uuid, major: 3, minor: 0, coordinate: north(-50_000), range: .infinity)
        #expect(events([everywhere]).map(\.0) == [.satisfied])
    }

    /// A beacon condition settled as unsatisfied is not looked at again until a beacon it names is
    /// heard: each of Apple's three forms (`uuid:`, `uuid:major:`, `uuid:major:minor:`) must wake
    /// for the lobby's beacon, and the others must not. The forms are Apple's
    /// (`CLMonitor.BeaconIdentityCondition` initialisers).
    @Test func settledBeaconConditionsWakeForTheBeaconsTheyName() throws {
        let uuid = try #require(UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        let other = try #require(UUID(uuidString: "F7826DA6-4FA2-4E98-8024-BC5B71E0893E"))
        let manager = alwaysManager()
        manager.beacons = [Beacon(uuid: uuid, major: 1, minor: 7, coordinate: north(500), range: 30.5)]
        let conditions: [(String, BeaconIdentityCondition)] = [
            ("uuid", .init(uuid: uuid)), ("major", .init(uuid: uuid, major: 1)),
            ("minor", .init(uuid: uuid, major: 1, minor: 7)), ("other-major", .init(uuid: uuid, major: 2)),
            ("other-minor", .init(uuid: uuid, major: 1, minor: 8)), ("other-uuid", .init(uuid: other)),
        ]
        for (identifier, condition) in conditions {
            manager.add(.beaconIdentity(condition), identifier: identifier, to: "beacons")
        }
        // Removed and added again while settled: it names the beacon under a new entry, last.
        var script: [Double: () -> Void] = [:]
        script[300] = {
            manager.remove("major", from: "beacons")
            manager.add(.beaconIdentity(.init(uuid: uuid, major: 1)), identifier: "major", to: "beacons")
        }
        var seen: [String: [MonitoringState]] = [:]
        var order: [String] = []
        manager.observer = {
            guard case .monitorEvent(let event, _) = $0.event else { return }
            seen[event.identifier, default: []].append(event.state)
            if event.state == .satisfied { order.append(event.identifier) }
        }
        for s in 0...700 {
            script[Double(s)]?()
            manager.move(to: DeviceSample(time: t0 + Double(s), coordinate: north(Double(s))))
        }
        for name in ["uuid", "minor"] { #expect(seen[name] == [.unsatisfied, .satisfied, .unsatisfied], "\(name)") }
        // The re-added one's first event is determined at once (unsatisfied, as assumed unknown).
        #expect(seen["major"] == [.unsatisfied, .unsatisfied, .satisfied, .unsatisfied])
        for name in ["other-major", "other-minor", "other-uuid"] { #expect(seen[name] == [.unsatisfied], "\(name)") }
        #expect(order == ["uuid", "minor", "major"])
        #expect(manager.identifiers(of: "beacons") == conditions.map(\.0).filter { $0 != "major" } + ["major"])
    }

    /// iOS keeps a monitor's records by name across the app's termination; the relaunched app
    /// finds its conditions and is relaunched by their events, as a terminated app is for region
    /// events (WWDC 2023 "Meet Core Location Monitor"; `CLRegion.notifyOnEntry`) — on iOS 18 only
    /// while it holds a service session requiring Always ("An app with Always authorization, but
    /// which is not holding such a CLServiceSession will not be able to receive … CLMonitor.events()
    /// when it is not in-use", `CLServiceSession.h`); without one, its conditions turn unknown.
    @Test(arguments: [ServiceSessionRequirement?.none, .whenInUse, .always])
    func recordsSurviveTerminationAndEventsRelaunchTheApp(session: ServiceSessionRequirement?) {
        var app = AppScript(regions: [cafe])
        app.apis = [.monitor]
        app.serviceSession = session
        app.appStates = [(at: 100, state: .terminated), (at: 150, state: .foreground), (at: 200, state: .terminated)]
        let manager = app.makeManager(startTime: t0)
        app.launch(manager)
        let events = run(
            route(seconds: 1_000) { 2 * $0 }, manager: manager, script: app.script(from: t0))
        let types = events.map(\.event.type).filter { $0 != "authorization" && $0 != "sessionDiagnostic" }
        #expect(manager.identifiers(of: "waypost") == ["cafe"])
        guard session == .always else {
            #expect(!types.contains("appLaunch"))
            #expect(manager.record(for: "cafe", in: "waypost")?.lastEvent.state == .unknown)
            return
        }
        // The user's launch at 150 s opens the monitor by name and adds nothing: no new first event.
        #expect(
            types == [
                "monitorEvent", "appState", "appState", "appState", "appLaunch", "monitorEvent", "monitorEvent",
            ])
        #expect(manager.record(for: "cafe", in: "waypost")?.lastEvent.state == .unsatisfied)
    }

    /// A When In Use app holding a background activity session stays in use in the background:
    /// its monitor's events reach it there ("both Updater and Monitor APIs will be available",
    /// `CLBackgroundActivitySession.h`); they were dropped, as a region event is for an app not in
    /// use. Without the session, its conditions turn unknown (`insufficientlyInUse`).
    @Test(arguments: [true, false])
    func aBackgroundActivitySessionKeepsMonitorEventsComing(session: Bool) {
        var app = AppScript(regions: [cafe])
        app.apis = [.monitor]
        app.prompt = PromptScript(answer: .allowWhenInUse)
        app.backgroundActivitySession = session
        app.appStates = [(at: 60, state: .background)]
        let manager = app.makeManager(startTime: t0)
        app.launch(manager)
        let states = run(route(seconds: 1_000) { 2 * $0 }, manager: manager, script: app.script(from: t0))
            .compactMap { timed -> MonitoringState? in
                guard case .monitorEvent(let event, _) = timed.event, timed.time >= t0 + 60 else { return nil }
                return event.state
            }
        #expect(states == (session ? [.satisfied, .unsatisfied] : [.unknown]))
    }

    /// `CLMonitor.remove(_:)`: a removed condition has no record and no more events.
    @Test func removedConditionsFallSilent() {
        let manager = alwaysManager()
        manager.add(cafeCondition, identifier: "cafe", to: "places")
        var states: [MonitoringState] = []
        manager.observer = { if case .monitorEvent(let event, _) = $0.event { states.append(event.state) } }
        // 5 m/s: satisfied at ≈ 205 s; the exit would be confirmed at ≈ 290 s, after the removal.
        for s in 0...400 {
            if s == 250 { manager.remove("cafe", from: "places") }
            manager.move(to: DeviceSample(time: t0 + Double(s), coordinate: north(5 * Double(s))))
        }
        #expect(states == [.unsatisfied, .satisfied])
        #expect(manager.record(for: "cafe", in: "places") == nil && manager.identifiers(of: "places").isEmpty)
    }

    /// iOS 18 diagnostics on `CLMonitor.Event`: refused authorization makes every condition
    /// `unknown` with `authorizationDenied`; When In Use out of use, `insufficientlyInUse`.
    @Test func authorizationShowsInTheMonitorsDiagnostics() {
        let manager = alwaysManager()
        manager.add(cafeCondition, identifier: "cafe", to: "places")
        let events = run(
            route(seconds: 200) { _ in 0 }, manager: manager,
            changes: [(t0 + 50, .denied), (t0 + 100, .authorizedWhenInUse)],
            script: [(t0 + 150, .appState(.background))]
        ).compactMap { timed -> (MonitoringState, MonitoringDiagnostics)? in
            guard case .monitorEvent(let event, _) = timed.event else { return nil }
            return (event.state, event.diagnostics)
        }
        #expect(events.map(\.0) == [.unsatisfied, .unknown, .unsatisfied, .unknown])
        #expect(events.map(\.1) == [[], .authorizationDenied, [], .insufficientlyInUse])
    }

    // MARK: Live updates

    /// WWDC 2023 "Discover streamlined location updates": updates about once a second; when the
    /// device stops, an update with `isStationary`, then none until it moves again.
    /// The configuration sets when the device counts as stationary, as the activity type does for
    /// the delegate's pauses (20 min for vehicles, 15 otherwise).
    @Test(arguments: [LiveConfiguration.default, .automotiveNavigation])
    func liveUpdatesStopWhileStationaryAndResume(_ configuration: LiveConfiguration) throws {
        let manager = alwaysManager()
        manager.startLiveUpdates(configuration)
        // Walk 300 s, stand 1200 s, walk again.
        let updates = run(route(seconds: 1_800) { t in t < 300 ? t : t < 1_500 ? 300 : t - 1_200 }, manager: manager)
            .compactMap { timed -> (Double, LocationUpdate)? in
                guard case .liveUpdate(let update) = timed.event else { return nil }
                return (timed.time - t0, update)
            }
        let stationary = updates.filter { $0.1.isStationary }
        #expect(stationary.count == 1)
        let stopped = try #require(stationary.first).0
        // Still means within `pauseRadius` (25 m) of where the stop began, for the pause delay.
        let delay = LocationManagerConfiguration().pauseDelay(for: configuration.activityType).seconds
        #expect(stopped > 300 + delay - 25 && stopped <= 300 + delay)
        #expect(stationary.first?.1.diagnostics == .stationary)
        #expect(!updates.contains { $0.0 > stopped && $0.0 < 1_500 })
        #expect(updates.filter { $0.0 <= 300 }.count == 301)
        let resumed = try #require(updates.first { $0.0 > 1_500 })
        #expect(resumed.0 < 1_530 && !resumed.1.isStationary && resumed.1.location != nil)
        // They resume once the device has moved 25 m from where it stood, not from where its
        // still spell began, up to 25 m behind it (a black-box hunt: 3 m of creep resumed them).
        let back = try #require(resumed.1.location).coordinate
        #expect(ShortDistance.distance(north(300), back) >= 25)
    }

    /// iOS 18: an update without a location says why, once per change (`authorizationDenied`,
    /// `locationUnavailable` in a signal gap); iOS 17 has no diagnostics and sends nothing.
    @Test(arguments: [17, 18])
    func liveUpdatesReportWhyNothingComes(_ ios: Int) {
        var configuration = LocationManagerConfiguration()
        configuration.iosVersion = ios
        let manager = alwaysManager(configuration: configuration)
        manager.startLiveUpdates(.fitness)
        let updates = run(
            route(seconds: 300) { $0 }, manager: manager, gaps: [(t0 + 50)...(t0 + 60)], changes: [(t0 + 200, .denied)]
        ).compactMap { timed -> (Double, LocationUpdate)? in
            guard case .liveUpdate(let update) = timed.event else { return nil }
            return (timed.time - t0, update)
        }
        let withoutLocation = updates.filter { $0.1.location == nil }
        #expect(
            withoutLocation.map(\.0) == (ios >= 18 ? [50, 200] : []))
        #expect(
            withoutLocation.map(\.1.diagnostics) == (ios >= 18 ? [.locationUnavailable, .authorizationDenied] : []))
        #expect(!updates.contains { $0.0 > 200 && $0.1.location != nil })
    }

    /// A terminated app that was iterating live updates is relaunched into the background for
    /// their next update when that update would reach it there — it held a background activity
    /// session (While Using), or, from iOS 18, it is authorized Always and holds a service session
    /// requiring Always — and, like Apple's sample, starts them again at launch ("If location updates were
    /// previously active, restart them after the background launch", "Adopting live updates in
    /// Core Location"; "relaunch the app into the background when new information is ready for
    /// delivery, provided the app's authorization allows it", WWDC 2024 "What's new in location
    /// authorization"; a launch "due to a location update", developer forums thread 797319).
    /// Without either, or on iOS 17 authorized Always alone, nothing comes after the termination.
    @Test(
        "Live updates relaunch a terminated app that held what lets them reach it",
        arguments: [
            ("While Using, background activity session", 18, true),
            ("Always, service session", 18, true),
            ("Always, no session", 18, false),
            ("Always, no session", 17, false),
            ("While Using, background activity session", 17, true),
        ])
    func liveUpdatesRelaunchATerminatedApp(app kind: String, ios: Int, relaunches: Bool) throws {
        var configuration = LocationManagerConfiguration()
        configuration.iosVersion = ios
        var app = AppScript()
        app.apis = [.liveUpdates]
        app.liveConfiguration = .fitness
        if kind.hasPrefix("While Using") { app.prompt = PromptScript(answer: .allowWhenInUse) }
        app.backgroundActivitySession = kind.hasSuffix("background activity session")
        if kind.hasSuffix("service session") { app.serviceSession = .always }
        app.appStates = [(at: 60, state: .background), (at: 120, state: .terminated)]
        let manager = app.makeManager(configuration: configuration, startTime: t0)
        app.launch(manager)
        let events = run(route(seconds: 300) { $0 }, manager: manager, script: app.script(from: t0))
        let launches = events.filter { $0.event.type == "appLaunch" }
        let located = events.compactMap { timed -> Double? in
            guard case .liveUpdate(let update) = timed.event, update.location != nil else { return nil }
            return timed.time - t0
        }
        #expect(located.filter { $0 < 60 }.count == 60)
        guard relaunches else {
            #expect(launches.isEmpty)
            #expect(!located.contains { $0 >= 120 })
            return
        }
        // Relaunched at the first sample after the termination (the one stamped with it), its
        // update right after the launch, and one a second from then on.
        #expect(launches.map { $0.time - t0 } == [120])
        #expect(launches.first?.event == .appLaunched(.liveUpdate))
        #expect(located.filter { $0 >= 120 } == (120...300).map(Double.init))
        #expect(manager.appState == .background && manager.heldSessions.allSatisfy(\.isActive))
    }

    /// A service session re-asks for its authorization when the app is back in the foreground
    /// after Allow Once lapsed in the background ("including automatically re-asking as needed
    /// after temporary authorization lapses due to time your app spends in the background", Apple,
    /// `CLServiceSession`); out of use no prompt can show, so the updates say `insufficientlyInUse`,
    /// not `authorizationRequestInProgress`. Live updates stopped for good once the app was back.
    @Test func aSessionAsksAgainAfterAllowOnceLapses() {
        var configuration = LocationManagerConfiguration()
        configuration.iosVersion = 18
        var app = AppScript()
        app.apis = [.liveUpdates]
        app.prompt = PromptScript(answer: .allowOnce)
        app.serviceSession = .whenInUse
        app.appStates = [(at: 60, state: .background), (at: 200, state: .foreground)]
        let manager = app.makeManager(configuration: configuration, startTime: t0)
        app.launch(manager)
        let events = run(route(seconds: 400) { $0 }, manager: manager, script: app.script(from: t0))
        let statuses = events.compactMap { timed -> (Double, AuthorizationStatus)? in
            guard case .authorizationChanged(let status) = timed.event else { return nil }
            return (timed.time - t0, status)
        }
        #expect(statuses.map(\.1) == [.notDetermined, .authorizedWhenInUse, .notDetermined, .authorizedWhenInUse])
        #expect(statuses.last?.0 == 200)
        let updates = events.compactMap { timed -> (Double, LocationUpdate)? in
            guard case .liveUpdate(let update) = timed.event else { return nil }
            return (timed.time - t0, update)
        }
        #expect(!updates.contains { $0.1.diagnostics.contains(.authorizationRequestInProgress) })
        #expect(updates.filter { $0.0 >= 200 && $0.1.location != nil }.count == 201)
    }

    /// A background activity session is active only while the app has effective authorization
    /// ("A session may only be active for an app which has effective authorization",
    /// `CLBackgroundActivitySession.h`), and reports diagnostics only from iOS 18
    /// (`CLBackgroundActivitySession.Diagnostic`, iOS 18.0+). A black-box hunt saw one `active`
    /// beside `authorizationDenied`, and iOS 18's flags on iOS 17.
    @Test(arguments: [17, 18])
    func aBackgroundActivitySessionNeedsAuthorization(ios: Int) {
        var configuration = LocationManagerConfiguration()
        configuration.iosVersion = ios
        let manager = SimulatedLocationManager(status: .denied, startTime: t0, configuration: configuration)
        manager.beginBackgroundActivitySession()
        manager.startLiveUpdates()
        let sessions = run(
            route(seconds: 120) { $0 }, manager: manager, changes: [(t0 + 60, .authorizedWhenInUse)]
        ).compactMap { timed -> (Double, SessionDiagnostic)? in
            guard case .sessionDiagnostic(let diagnostic) = timed.event else { return nil }
            return (timed.time - t0, diagnostic)
        }
        #expect(sessions.map { $0.1.isActive } == [false, true], "\(sessions)")
        #expect(sessions.last?.0 == 60)
        let denied: SessionDiagnostics = ios >= 18 ? .authorizationDenied : []
        #expect(sessions.first?.1.diagnostics == denied, "\(sessions)")
        #expect(sessions.allSatisfy { ios >= 18 || $0.1.diagnostics.isEmpty })
    }

    /// An app whose launch code does not start its updates again gets none after the relaunch,
    /// and is not relaunched for them again ("If not, you will be considered no longer wanting to
    /// continue location updates", developer forums thread 797319).
    @Test func aRelaunchedAppThatDoesNotRestartLiveUpdatesGetsNone() {
        let manager = SimulatedLocationManager(status: .authorizedWhenInUse, startTime: t0)
        manager.beginBackgroundActivitySession()
        manager.startLiveUpdates()
        var launchCodeRan = 0
        manager.lifecycleHandler = { manager, previous in
            if previous == .terminated && manager.appState == .background { launchCodeRan += 1 }
        }
        let events = run(
            route(seconds: 300) { $0 }, manager: manager,
            script: [(t0 + 60, .appState(.background)), (t0 + 120, .appState(.terminated))])
        #expect(launchCodeRan == 1)
        #expect(events.filter { $0.event.type == "appLaunch" }.map { $0.time - t0 } == [120])
        #expect(!events.contains { $0.time >= t0 + 120 && $0.event.type == "liveUpdate" })
    }

    /// Reduced accuracy: live updates carry approximate locations at most every 15 minutes,
    /// flagged `accuracyLimited` (Apple, `CLLocationUpdate.accuracyLimited`).
    @Test func reducedAccuracyLimitsLiveUpdates() {
        let manager = SimulatedLocationManager(
            status: .authorizedAlways, accuracyAuthorization: .reducedAccuracy,
            startTime: t0)
        manager.startLiveUpdates()
        let updates = run(route(seconds: 3_600) { $0 }, manager: manager).compactMap { timed -> LocationUpdate? in
            guard case .liveUpdate(let update) = timed.event else { return nil }
            return update
        }
        #expect(updates.count == 5)
        #expect(
            updates.allSatisfy { $0.diagnostics == .accuracyLimited && ($0.location?.horizontalAccuracy ?? 0) > 1_000 })
    }
}
