import Foundation
import Geo
import LocationEvents
import LocationSimulation
import SimulatedTime
import TestSupport
import Testing
import Tracks

/// Issue 14, items 1–3: `CLMonitor`, `CLLocationUpdate.liveUpdates` and the iOS 18 sessions with
/// Apple's shapes (actors, asynchronous sequences) on a ``SimulatedWorld``.
@Suite struct AsyncAPITests {
    let cafe = CircularGeographicCondition(center: north(1_000), radius: 150)

    func world(
        _ route: [RouteSample], manager: sending SimulatedLocationManager,
        script: [(time: EpochInstant, change: ScriptedChange)] = []
    ) -> SimulatedWorld {
        SimulatedWorld(SimulatedDevice(route: route, manager: manager, script: script))
    }

    /// The monitor's events, pulled through `events`, come at the instants the delegate API
    /// reports the same crossings (item 4), and follow `assuming:` (Apple,
    /// `add(_:identifier:assuming:)`: "Adds the monitoring condition with the identifier and
    /// initial state you specify").
    @Test func monitorEventsMatchTheDelegateAPI() async {
        let walk = route(seconds: 1_000) { 2 * $0 }
        let delegate = alwaysManager()
        delegate.startMonitoring(for: CircularRegion(identifier: "cafe", center: cafe.center, radius: cafe.radius))
        let transitions = run(walk, manager: delegate).transitions.map(\.2)

        let world = world(walk, manager: alwaysManager())
        let monitor = await SimulatedMonitor(named: "places", in: world)
        await monitor.add(cafe, identifier: "cafe", assuming: .unsatisfied)
        var seen: [(MonitoringState, Double)] = []
        for await event in monitor.events { seen.append((event.state, event.date - t0)) }
        #expect(seen.map(\.0) == [.satisfied, .unsatisfied])
        #expect(seen.map(\.1) == transitions)
        #expect(await monitor.record(for: "cafe")?.lastEvent.state == .unsatisfied)
    }

    /// Records belong to the monitor's name: a monitor opened again by that name finds its
    /// conditions and their last events ("Conditions you add to an instance of CLMonitor persist
    /// until you remove them from monitoring", Apple, `CLMonitor` configuration).
    @Test func aMonitorOpenedAgainByNameFindsItsRecords() async {
        let world = world(route(seconds: 1_000) { 2 * $0 }, manager: alwaysManager())
        let first = await SimulatedMonitor(named: "places", in: world)
        await first.add(cafe, identifier: "cafe")
        await first.add(BeaconIdentityCondition(uuid: UUID()), identifier: "lobby")
        await world.run(through: t0 + 520)
        let again = await SimulatedMonitor(named: "places", in: world)
        #expect(await again.identifiers == ["cafe", "lobby"])
        #expect(await again.record(for: "cafe")?.lastEvent.state == .satisfied)
        await again.remove("lobby")
        #expect(await first.identifiers == ["cafe"])
        #expect(await SimulatedMonitor(named: "other", in: world).identifiers.isEmpty)
    }

    /// Live updates start when iteration begins and stop when the loop is left (Apple,
    /// `liveUpdates(_:)`: "Tells Core Location to start delivering the location updates it
    /// produces"; WWDC 2023 "Discover streamlined location updates": break out of the loop to stop).
    @Test func liveUpdatesRunWhileIterated() async throws {
        // 200 s walking, then still for 30 minutes.
        let world = world(route(seconds: 2_200) { min($0, 200) * 1.4 }, manager: alwaysManager())
        var updates = 0
        var stationaryAt: Double?
        for await update in world.liveUpdates(.fitness) {
            if update.isStationary {
                stationaryAt = update.location.map { $0.timestamp - t0 }
                break
            }
            updates += 1
        }
        // Once a second until then; stationary 15 minutes (fitness, as the delegate API's pause)
        // after the device last left a 25 m radius, which it did within 25 m of its stop.
        let stationary = try #require(stationaryAt)
        let earliest: Double = 200 - 25 / 1.4 + 900
        #expect(stationary >= earliest && stationary <= 1_100)
        #expect(updates == Int(stationary))
        await world.run(through: t0 + 1_200)
        #expect(await world.manager { $0.liveUpdatesConfiguration } == nil)
    }

    /// With `NSLocationRequireExplicitServiceSession`, updates say `serviceSessionRequired` until
    /// the app holds a session requiring authorization; the session asks the user (in the
    /// foreground) and updates flow (Apple, `CLServiceSession.h`: "LocationServices are disabled
    /// because the app has adopted CLRequireExplicitServiceSession info.plist key but no
    /// CLServiceSession requiring authorization is outstanding yet"; `init(authorization:)`).
    @Test func anExplicitSessionIsRequiredWhenTheAppSaysSo() async {
        var configuration = LocationManagerConfiguration()
        configuration.requiresExplicitServiceSession = true
        let manager = SimulatedLocationManager(
            authorizationAnswer: .allowWhenInUse, startTime: t0,
            configuration: configuration)
        let world = world(route(seconds: 120) { $0 }, manager: manager)
        var iterator = world.liveUpdates().makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.location == nil)
        #expect(first?.diagnostics == .serviceSessionRequired)
        #expect(await world.manager { $0.authorizationStatus } == .notDetermined)

        let session = await SimulatedServiceSession(authorization: .whenInUse, in: world)
        var diagnostics = session.diagnostics.makeAsyncIterator()
        let begun = await diagnostics.next()
        #expect(begun?.isActive == true)
        #expect(begun?.diagnostics == [])
        #expect(await world.manager { $0.authorizationStatus } == .authorizedWhenInUse)
        #expect(await iterator.next()?.location != nil)
        withExtendedLifetime(session) {}
    }

    /// A session requiring Always, answered While Using: once iOS asks for the upgrade and the
    /// user keeps While Using, the session reports `alwaysAuthorizationDenied` ("a session
    /// requiring Always authorization has been denied Always due to user decision").
    @Test func alwaysDeniedIsReported() async {
        let manager = SimulatedLocationManager(
            status: .authorizedWhenInUse, authorizationAnswer: .allowWhenInUse,
            startTime: t0)
        let world = world(route(seconds: 60) { $0 }, manager: manager)
        let session = await SimulatedServiceSession(authorization: .always, in: world)
        var diagnostics: [SessionDiagnostics] = []
        for await diagnostic in session.diagnostics { diagnostics.append(diagnostic.diagnostics) }
        #expect(diagnostics == [.alwaysAuthorizationDenied])
    }

    /// A When In Use app that leaves the foreground gets no live updates (`insufficientlyInUse`)
    /// unless it holds a background activity session begun in the foreground ("A new session may
    /// only become active while the app is foregrounded and in direct use … When a session is
    /// active, the app remains in-use", `CLBackgroundActivitySession.h`).
    @Test(arguments: [Double?.none, 0, 100])
    func backgroundActivityKeepsAWhenInUseAppInUse(sessionAt: Double?) async {
        let manager = SimulatedLocationManager(
            status: .authorizedWhenInUse, startTime: t0)
        let world = world(
            route(seconds: 200) { $0 }, manager: manager, script: [(t0 + 60, .appState(.background))]
        )
        var session: SimulatedBackgroundActivitySession?
        if sessionAt == 0 { session = await SimulatedBackgroundActivitySession(in: world) }
        var inBackground: [LocationUpdate] = []
        for await update in world.liveUpdates() {
            if sessionAt == 100 && session == nil && update.location.map({ $0.timestamp >= t0 + 100 }) ?? true {
                session = await SimulatedBackgroundActivitySession(in: world)
            }
            if (update.location?.timestamp ?? t0 + 60) >= t0 + 60 { inBackground.append(update) }
        }
        let delivered = inBackground.filter { $0.location != nil }.count
        switch sessionAt {
        case 0: #expect(delivered == 141)
        default:
            #expect(delivered == 0)
            #expect(inBackground.first?.diagnostics == .insufficientlyInUse)
        }
        if sessionAt == 100 {
            var diagnostics = session?.diagnostics.makeAsyncIterator()
            let diagnostic = await diagnostics?.next()
            #expect(diagnostic == nil || diagnostic?.isActive == false)
            #expect(await world.manager { $0.heldSessions.map { $0.isActive } } == [false])
        }
    }

    /// Sessions outlive termination but must be recreated within a few seconds of the next
    /// launch (Apple engineer, developer forums thread 797319); a region relaunches the app, which
    /// recreates its session: it resumes in effect although the app is in the background.
    @Test(arguments: [true, false])
    func sessionsMustBeRecreatedAfterARelaunch(recreates: Bool) {
        let manager = alwaysManager()
        manager.beginServiceSession(.always)
        manager.startMonitoring(for: CircularRegion(identifier: "cafe", center: cafe.center, radius: cafe.radius))
        if recreates {
            manager.lifecycleHandler = { manager, previous in
                if previous == .terminated && manager.appState == .background { manager.beginServiceSession(.always) }
            }
        }
        let events = run(
            route(seconds: 800) { 2 * $0 }, manager: manager,
            script: [(t0 + 10, .appState(.terminated))])
        #expect(events.contains { if case .appLaunched(.region) = $0.event { true } else { false } })
        let held = manager.heldSessions
        #expect(held.map(\.isActive) == (recreates ? [true] : []))
    }
}
