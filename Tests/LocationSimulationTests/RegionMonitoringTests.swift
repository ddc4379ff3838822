import Foundation
import Geo
import LocationEvents
import LocationSimulation
import SimulatedTime
import TestSupport
import Testing
import Tracks

/// Region monitoring, pinned with times computed by hand from Apple's rule: cross the boundary,
/// get the hysteresis distance past it (200 m out; in, at most half the radius), stay 20 s.
struct RegionMonitoringTests {
    /// 10 m/s due north through a region centred 1,500 m ahead.
    func straightThrough(radius: Double, notifyOnEntry: Bool = true) -> [TimedEvent] {
        let manager = alwaysManager()
        manager.startMonitoring(
            for: CircularRegion(identifier: "r", center: north(1500), radius: radius, notifyOnEntry: notifyOnEntry))
        return run(route(seconds: 300) { 10 * $0 }, manager: manager)
    }

    @Test func smallRegionEnterAndExitTimes() {
        // r = 300 m: inward threshold min(200, 150) = 150 m → enter at distance 150 m, i.e.
        // 1,350 m along = 135 s, reported 20 s later at 155 s. Exit at r + 200 = 500 m past the
        // centre: 2,000 m = 200 s, reported at 220 s.
        let transitions = straightThrough(radius: 300).transitions
        #expect(transitions.count == 2)
        #expect(transitions[0].0 == "enter" && abs(transitions[0].2 - 155) < 0.01, "\(transitions)")
        #expect(transitions[1].0 == "exit" && abs(transitions[1].2 - 220) < 0.01, "\(transitions)")
    }

    @Test func largeRegionUsesTheFull200Metres() {
        // r = 1,000 m: inward threshold 200 m → enter at 800 m from the centre: 700 m = 70 s,
        // reported at 90 s. Exit at 1,200 m past: 2,700 m = 270 s, reported at 290 s.
        let transitions = straightThrough(radius: 1000).transitions
        #expect(transitions.map(\.0) == ["enter", "exit"])
        #expect(abs(transitions[0].2 - 90) < 0.01)
        #expect(abs(transitions[1].2 - 290) < 0.01)
    }

    @Test func stateAccompaniesEveryTransitionAndNotifyFlagsAreHonoured() {
        let events = straightThrough(radius: 300, notifyOnEntry: false)
        #expect(events.transitions.map(\.0) == ["exit"])
        let states = events.compactMap { timed -> (RegionState, Double)? in
            if case .determinedState(let state, _) = timed.event { return (state, timed.time - t0) }
            return nil
        }
        // The first fix determines the state (observed on devices, see
        // `LocationManagerConfiguration.reportsInitialRegionState`), then one per transition.
        #expect(states.map(\.0) == [.outside, .inside, .outside])
        #expect(states[0].1 == 0 && abs(states[1].1 - 155) < 0.01)
    }

    @Test func jitterAroundTheBoundaryDoesNotFlap() {
        // Start 350 m from the centre of a 300 m region and wander ±60 m across its boundary
        // for ten minutes: never 150 m inside, never 500 m outside — no transitions.
        let manager = alwaysManager()
        manager.startMonitoring(for: CircularRegion(identifier: "r", center: north(1500), radius: 300))
        let events = run(route(seconds: 600) { t in 1500 - 350 + 60 * sin(t / 7) + 40 * sin(t / 3) }, manager: manager)
        #expect(events.transitions.isEmpty)
        // A brief excursion past the exit threshold (10 s < 20 s) does not count either.
        let second = alwaysManager()
        second.startMonitoring(for: CircularRegion(identifier: "r", center: north(0), radius: 300))
        let excursion = run(route(seconds: 200) { t in (90...99).contains(t) ? 520 : 100 }, manager: second)
        #expect(excursion.transitions.isEmpty)
    }

    /// Apple, Location and Maps Programming Guide (Region Monitoring): "if the user's location is
    /// already inside the region at registration time, the location manager doesn't automatically
    /// generate an event"; `didStartMonitoringFor`: "a new region is being monitored";
    /// `requestState(for:)`: "performs the request asynchronously and delivers the results to the
    /// location manager's delegate". The initial `didDetermineState` is observed, not documented.
    @Test func registeringInsideGivesNoEventAndRequestStateAnswers() {
        let manager = alwaysManager()
        let region = CircularRegion(identifier: "here", center: north(0), radius: 200)
        var seen: [String] = []
        manager.observer = { timed in
            switch timed.event {
            case .determinedState(let state, let region): seen.append("\(region.identifier) \(state)")
            case .startedMonitoring(let region): seen.append("started \(region.identifier)")
            case .enteredRegion, .exitedRegion: seen.append("transition")
            default: break
            }
        }
        manager.startMonitoring(for: region)
        manager.requestState(for: region)  // before any fix: unknown, answered at the next instant
        #expect(seen == ["started here"])
        manager.move(to: DeviceSample(time: t0, coordinate: north(10)))
        #expect(seen == ["started here", "here unknown", "here inside"])
        manager.requestState(for: region)
        #expect(seen.count == 3, "not answered during the call")
        manager.move(to: DeviceSample(time: t0 + 1, coordinate: north(20)))
        #expect(seen == ["started here", "here unknown", "here inside", "here inside"])
        // Registered while already inside, with a known position: its state, never an entry.
        let later = CircularRegion(identifier: "later", center: north(30), radius: 200)
        manager.startMonitoring(for: later)
        #expect(seen.suffix(2) == ["started later", "later inside"])
        #expect(!seen.contains("transition"))
        // With the observed initial state turned off, only requestState tells.
        var quiet = LocationManagerConfiguration()
        quiet.reportsInitialRegionState = false
        let silent = alwaysManager(configuration: quiet)
        var states = 0
        silent.observer = { if case .determinedState = $0.event { states += 1 } }
        silent.move(to: DeviceSample(time: t0, coordinate: north(10)))
        silent.startMonitoring(for: later)
        #expect(states == 0)
    }

    @Test func theTwentyFirstRegionFailsUnlessTheLimitIsLifted() {
        let manager = alwaysManager()
        var failures: [(String?, LocationError.Code)] = []
        manager.observer = { timed in
            if case .monitoringFailed(let region, let error) = timed.event {
                failures.append((region?.identifier, error.code))
            }
        }
        for i in 0..<21 {
            manager.startMonitoring(
                for: CircularRegion(identifier: "r\(i)", center: north(Double(i) * 1000), radius: 100))
        }
        #expect(manager.monitoredRegions.count == 20)
        #expect(failures.count == 1)
        #expect(failures.first?.0 == "r20" && failures.first?.1 == .regionMonitoringFailure)
        #expect(LocationError.Code.regionMonitoringFailure.rawValue == 5)
        // Re-registering an identifier replaces it and does not count against the limit.
        manager.startMonitoring(for: CircularRegion(identifier: "r3", center: north(99), radius: 150))
        #expect(manager.monitoredRegions.count == 20)
        #expect(manager.monitoredRegions.first { $0.identifier == "r3" }?.radius == 150)
        #expect(failures.count == 1)

        var configuration = LocationManagerConfiguration()
        configuration.regionLimit = nil
        let lifted = alwaysManager(configuration: configuration)
        for i in 0..<10_000 {
            lifted.startMonitoring(for: CircularRegion(identifier: "r\(i)", center: north(Double(i) * 10), radius: 50))
        }
        #expect(lifted.monitoredRegions.count == 10_000)
    }

    @Test func radiusAndAuthorizationAreChecked() {
        let manager = alwaysManager()
        var codes: [LocationError.Code] = []
        manager.observer = { timed in
            if case .monitoringFailed(_, let error) = timed.event { codes.append(error.code) }
        }
        manager.startMonitoring(
            for: CircularRegion(identifier: "huge", center: origin, radius: manager.maximumRegionMonitoringDistance + 1)
        )
        #expect(codes == [.regionMonitoringFailure])
        // Up to iOS 12 monitoring needs Always; from iOS 13 When In Use allows it (Apple,
        // "Choosing the Location Services Authorization to Request").
        for (version, expected) in [(12, [LocationError.Code.regionMonitoringDenied]), (13, []), (26, [])] {
            var configuration = LocationManagerConfiguration()
            configuration.iosVersion = version
            let whenInUse = SimulatedLocationManager(
                status: .authorizedWhenInUse, startTime: t0,
                configuration: configuration)
            var denied: [LocationError.Code] = []
            whenInUse.observer = { timed in
                if case .monitoringFailed(_, let error) = timed.event { denied.append(error.code) }
            }
            whenInUse.startMonitoring(for: CircularRegion(identifier: "r", center: origin, radius: 100))
            #expect(denied == expected, "iOS \(version)")
        }
        #expect(LocationError.Code.regionMonitoringDenied.rawValue == 4)
    }

    @Test func monitoringIsIndependentOfLocationUpdates() {
        // No location service running: region events still arrive, and no fixes do.
        let events = straightThrough(radius: 300)
        #expect(events.fixes.isEmpty)
        #expect(events.transitions.count == 2)
    }

    @Test(.needsCorpus) func regionsOnARealRecordedHike() throws {
        // gpsbabel's google_ext.kml: a 451-point recorded hike. Regions of 150 m centred on its
        // 100th and 300th points: each must be entered, and the entry reported no earlier than
        // 20 s after the hike first came within 75 m (half the radius) of the centre.
        let track = try TrackReader().read(contentsOf: Corpus.url("gpsbabel/reference/track/google_ext.kml"))
        let timeline = try RouteTiming().samples(for: track)
        let points = track.paths[0].points
        let manager = SimulatedLocationManager(
            status: .authorizedAlways,
            startTime: EpochInstant(secondsSince1970: timeline[0].point.timeIntervalSince1970!))
        let centres = [points[100].coordinate, points[300].coordinate]
        for (i, centre) in centres.enumerated() {
            manager.startMonitoring(for: CircularRegion(identifier: "p\(i)", center: centre, radius: 150))
        }
        var events: [TimedEvent] = []
        let clock = SimulatedClock(start: EpochInstant(secondsSince1970: timeline[0].point.timeIntervalSince1970!))
        Simulation(devices: [SimulatedDevice(route: timeline, manager: manager)]).run(clock: clock) {
            events.append($0)
        }
        #expect(clock.now == events.last?.time, "the run moved its clock to its last event")
        for (i, centre) in centres.enumerated() {
            let enters = events.filter {
                if case .enteredRegion(let r, _) = $0.event { return r.identifier == "p\(i)" }
                return false
            }
            #expect(enters.count >= 1, "p\(i) never entered")
            // The crossing is interpolated between route points: after the last point still
            // farther than 75 m, no later than the first point within it.
            let firstClose = try #require(
                timeline.firstIndex { ShortDistance.distance($0.point.coordinate, centre) <= 75 })
            let close = try #require(timeline[firstClose].point.timeIntervalSince1970)
            let before = try #require(timeline[max(0, firstClose - 1)].point.timeIntervalSince1970)
            let entered = try #require(enters.first?.time.secondsSince1970)
            #expect(entered >= before + 20 && entered <= close + 20, "\(entered - before)")
        }
    }

    // A 300 m region 1 km north, approached at 10 m/s: the entry threshold (150 m inside, the
    // inward cap at half the radius) is crossed at 85 s, confirmed 20 s later.

    /// iOS 13+: When In Use monitors regions (Apple, "Choosing the Location Services
    /// Authorization to Request"); iOS 12 refuses with regionMonitoringDenied.
    @Test func whenInUseMonitorsFromIOS13() {
        for (version, enters) in [(13, [105.0]), (12, [])] {
            var configuration = LocationManagerConfiguration()
            configuration.iosVersion = version
            let manager = SimulatedLocationManager(
                status: .authorizedWhenInUse, startTime: t0,
                configuration: configuration)
            manager.startMonitoring(for: CircularRegion(identifier: "r", center: north(1000), radius: 300))
            let events = run(route(seconds: 140) { 10 * $0 }, manager: manager)
            #expect(events.transitions.map(\.0) == enters.map { _ in "enter" }, "iOS \(version)")
            #expect(zip(events.transitions, enters).allSatisfy { abs($0.2 - $1) < 0.01 })
        }
    }

    /// A region registered before the prompt is answered is kept and monitored once the answer
    /// allows it, as iOS keeps it; it does not fail.
    @Test func regionsRegisteredBeforeTheAnswerAreKept() {
        let manager = SimulatedLocationManager(status: .notDetermined, startTime: t0)
        manager.startMonitoring(for: CircularRegion(identifier: "r", center: north(1000), radius: 300))
        let events = run(
            route(seconds: 140) { 10 * $0 }, manager: manager, changes: [(t0 + 60, .authorizedAlways)])
        #expect(events.failures.isEmpty)
        #expect(events.transitions.map(\.0) == ["enter"])
        #expect(events.transitions.first.map { abs($0.2 - 105) < 0.01 } == true)
    }

    /// Transitions are confirmed only by fixes that arrived: with the signal lost from 60 s to
    /// 110 s the crossing (85 s) happened unseen, so the 20 s dwell starts with the first fix
    /// after the gap (111 s) and the entry is reported at 131 s. Interpolating across the gap
    /// placed the crossing at 92 s, inside the gap, and reported the entry on one real fix.
    @Test func nothingIsStampedInsideASignalGap() {
        let manager = alwaysManager()
        manager.startMonitoring(for: CircularRegion(identifier: "r", center: north(1000), radius: 300))
        // To the centre at 10 m/s, then waiting there.
        let events = run(
            route(seconds: 160) { min(10 * $0, 1000) }, manager: manager, gaps: [(t0 + 60)...(t0 + 110)])
        #expect(events.transitions.map(\.0) == ["enter"])
        #expect(events.transitions.first.map { abs($0.2 - 131) < 0.01 } == true, "\(events.transitions)")
        #expect(!events.contains { $0.time > t0 + 60 && $0.time <= t0 + 110 && !$0.isFailure })
    }

    /// A crossing is interpolated between the fix before it and the fix that saw it, even when
    /// the region was not weighed at the fix before (the device was out of its grid cells). Here
    /// the device stands 150 m from a 100 m region at 10 s, is 5 km away at 1,000 s and at the
    /// centre at 1,010 s: the 50 m entry threshold was crossed after 1,000 s (at 1,009.9 s), and
    /// the entry is reported 20 s later. Interpolating from the 10 s fix placed the crossing at
    /// 677 s, when the device was 5 km away, and reported the entry at once.
    @Test func aCrossingIsPlacedAfterTheFixBeforeIt() {
        var monitor = RegionMonitor(configuration: LocationManagerConfiguration())
        let region = CircularRegion(identifier: "r", center: north(0), radius: 100)
        #expect(monitor.register(region, deviceAt: north(150), time: 0) == .outside)
        #expect(monitor.evaluate(at: north(150), time: 10).isEmpty)
        #expect(monitor.evaluate(at: north(5_000), time: 1_000).isEmpty)
        #expect(monitor.evaluate(at: north(0), time: 1_010).isEmpty)
        let entry = monitor.evaluate(at: north(0), time: 1_030)
        guard case .crossed(_, .inside, let time, _) = entry.first else {
            Issue.record("no entry: \(entry)")
            return
        }
        let crossing = 1_000 + 10 * (5_000 - 50) / 5_000.0
        #expect(abs(time.secondsSince1970 - (crossing + 20)) < 0.01, "\(time)")
    }

    /// Regions far from the device are not weighed at every fix (each sleeps until the device
    /// has gone half its distance to the entry threshold), and none is missed or late for it: a
    /// walk due north at 2 m/s through 400 regions of 100 m on a 50 m grid enters exactly the 40
    /// centred 25 m either side of the path (within the 50 m inward threshold, half the radius,
    /// for 43 s), each when the device comes within 50 m of its centre, plus the 20 s dwell.
    @Test func everyRegionNearThePathIsEnteredOnTime() {
        var monitor = RegionMonitor(configuration: LocationManagerConfiguration())
        let metresPerDegreeEast = LocalMetric(latitude: origin.latitude).metresPerDegreeLongitude
        var expected: [String: Double] = [:]
        for row in 0..<20 {
            for column in 0..<20 {
                let east = Double(column - 10) * 50 + 25  // ±25 m … ±475 m
                let centre = Coordinate(
                    latitude: north(Double(row) * 50).latitude, longitude: origin.longitude + east / metresPerDegreeEast
                )
                let region = CircularRegion(identifier: "\(row)/\(column)", center: centre, radius: 100)
                monitor.register(region, deviceAt: north(-3_000), time: 0)
                if abs(east) < 50 {
                    // 50 m from the centre, 25 m off the path: √(50² − 25²) m before the row.
                    let along = Double(row) * 50 - (50.0 * 50 - 25 * 25).squareRoot()
                    expected[region.identifier] = (along + 3_000) / 2 + 20
                }
            }
        }
        var entered: [String: Double] = [:]
        for second in 0...2_100 {  // from 3 km south of the grid to 200 m past it at 2 m/s
            for change in monitor.evaluate(
                at: north(-3_000 + 2 * Double(second)), time: EpochInstant(secondsSince1970: Double(second)))
            {
                if case .crossed(let region, .inside, let time, _) = change {
                    entered[region.identifier] = time.secondsSince1970
                }
            }
        }
        #expect(entered.keys.sorted() == expected.keys.sorted())
        for (identifier, time) in expected {
            #expect(
                abs((entered[identifier] ?? 0) - time) < 0.05, "\(identifier): \(entered[identifier] ?? 0) vs \(time)")
        }
    }
}
