import Foundation
import Geo
import LocationSimulation
import Testing
import Tracks

/// Standard and significant-change services, authorization, signal loss, noise, devices.
struct LocationServiceTests {
    @Test func distanceFilterIsFromTheLastDeliveredFix() {
        // 1 m/s with a 10 m filter: a fix at 0 s, then every 10 s.
        let manager = alwaysManager()
        manager.distanceFilter = 10
        manager.startUpdatingLocation()
        let fixes = run(route(seconds: 100) { $0 }, manager: manager).fixes
        #expect(fixes.map(\.time) == stride(from: 0.0, through: 100, by: 10).map { $0 })
        // kCLDistanceFilterNone delivers every sample.
        let all = alwaysManager()
        all.startUpdatingLocation()
        #expect(run(route(seconds: 100) { $0 }, manager: all).fixes.count == 101)
    }

    @Test func accuracyConstantsSetTheReportedAccuracy() {
        #expect(LocationAccuracy.bestForNavigation == -2 && LocationAccuracy.best == -1)
        #expect(LocationAccuracy.nearestTenMeters == 10 && LocationAccuracy.hundredMeters == 100)
        #expect(LocationAccuracy.kilometer == 1000 && LocationAccuracy.threeKilometers == 3000)
        let manager = alwaysManager()
        manager.desiredAccuracy = LocationAccuracy.hundredMeters
        manager.startUpdatingLocation()
        #expect(
            run(route(seconds: 3) { $0 }, manager: manager).fixes.allSatisfy { $0.location.horizontalAccuracy == 100 })
    }

    @Test func significantChangesNeed500MetresAnd5Minutes() {
        // At 2 m/s, 500 m takes 250 s: the 5 minutes bind → events at 0, 300, …, 1800 s.
        let fast = alwaysManager()
        fast.startMonitoringSignificantLocationChanges()
        let fastFixes = run(route(seconds: 1800) { 2 * $0 }, manager: fast).fixes
        #expect(fastFixes.map(\.time) == [0, 300, 600, 900, 1200, 1500, 1800])
        #expect(fastFixes.allSatisfy { $0.service == .significantChange && $0.location.horizontalAccuracy == 500 })
        // At 1 m/s the 500 m bind → 0, 500, 1000, 1500 s.
        let slow = alwaysManager()
        slow.startMonitoringSignificantLocationChanges()
        #expect(run(route(seconds: 1800) { $0 }, manager: slow).fixes.map(\.time) == [0, 500, 1000, 1500])
    }

    @Test func restartingSignificantChangesGivesANewInitialEvent() {
        let manager = alwaysManager()
        manager.startMonitoringSignificantLocationChanges()
        var times: [Double] = []
        manager.observer = { if case .locationUpdated = $0.event { times.append($0.time - t0) } }
        for s in 0...400 {
            if s == 100 { manager.stopMonitoringSignificantLocationChanges() }
            if s == 120 { manager.startMonitoringSignificantLocationChanges() }
            manager.move(to: DeviceSample(time: t0 + Double(s), coordinate: north(Double(s))))
        }
        #expect(times == [0, 120])
    }

    @Test func authorizationFlowAndRevocationMidRun() {
        let manager = SimulatedLocationManager(authorizationAnswer: .allowAlways, startTime: t0)
        var events: [TimedEvent] = []
        manager.observer = { events.append($0) }
        manager.reportInitialAuthorization()
        manager.requestAlwaysAuthorization()
        manager.startUpdatingLocation()
        // Entered at 50 m from the centre (100 m along, 50 s), reported at 70 s; the exit (at
        // 300 m past, 450 m along: 225 s + 20 s) would come after the revocation at 100 s.
        manager.startMonitoring(for: CircularRegion(identifier: "r", center: north(150), radius: 100))
        events += run(route(seconds: 300) { 2 * $0 }, manager: manager, changes: [(t0 + 100, .denied)])
        let statuses = events.compactMap { timed -> (AuthorizationStatus, Double)? in
            if case .authorizationChanged(let s) = timed.event { return (s, timed.time - t0) }
            return nil
        }
        #expect(statuses.map(\.0) == [.notDetermined, .authorizedAlways, .denied])
        #expect(statuses.last?.1 == 100)
        #expect(events.fixes.last?.time == 99)  // none after the revocation
        #expect(events.failures.contains { $0.time == 100 && $0.code == .denied })
        #expect(events.failures.contains { $0.time == 100 && $0.code == .regionMonitoringDenied })
        #expect(events.transitions.map(\.0) == ["enter"])
        #expect(events.transitions.first.map { abs($0.2 - 70) < 0.01 } == true)
    }

    @Test func promptAnswersMapToStatuses() {
        for (answer, request, expected) in [
            (AuthorizationAnswer.allowAlways, true, AuthorizationStatus.authorizedAlways),
            (.allowAlways, false, .authorizedWhenInUse), (.allowWhenInUse, true, .authorizedWhenInUse),
            (.deny, true, .denied),
        ] {
            let manager = SimulatedLocationManager(authorizationAnswer: answer)
            if request { manager.requestAlwaysAuthorization() } else { manager.requestWhenInUseAuthorization() }
            #expect(manager.authorizationStatus == expected)
        }
        let unanswered = SimulatedLocationManager()
        unanswered.requestAlwaysAuthorization()
        unanswered.startUpdatingLocation()
        unanswered.move(to: DeviceSample(time: 0, coordinate: origin))
        #expect(unanswered.authorizationStatus == .notDetermined)
        #expect(unanswered.location == nil)
    }

    @Test func signalLossReportsLocationUnknownThenRecovers() {
        let manager = alwaysManager()
        manager.startUpdatingLocation()
        let events = run(route(seconds: 300) { $0 }, manager: manager, gaps: [(t0 + 100)...(t0 + 200)])
        #expect(events.failures.map(\.code) == [.locationUnknown])
        #expect(events.failures.first?.time == 100)
        #expect(LocationError.Code.locationUnknown.rawValue == 0)
        let times = events.fixes.map(\.time)
        #expect(!times.contains { $0 >= 100 && $0 <= 200 })
        #expect(times.contains(201) && times.count == 301 - 101)
    }

    @Test func noiseIsSeededCorrelatedAndReflectedInAccuracy() {
        func fixes(seed: UInt64, preset: NoiseModel.Preset) -> [Location] {
            let manager = alwaysManager(noise: NoiseModel(preset), seed: seed)
            manager.startUpdatingLocation()
            return run(route(seconds: 600) { _ in 0 }, manager: manager).fixes.map(\.location)
        }
        let a = fixes(seed: 7, preset: .openSky)
        #expect(a == fixes(seed: 7, preset: .openSky))
        #expect(a != fixes(seed: 8, preset: .openSky))
        let offsets = a.map { ShortDistance.offset(from: origin, to: $0.coordinate).north }
        // First-order Gauss–Markov with τ = 30 s at 1 Hz: lag-1 correlation e^(−1/30) ≈ 0.967.
        let mean = offsets.reduce(0, +) / Double(offsets.count)
        let centred = offsets.map { $0 - mean }
        let lag1 = zip(centred, centred.dropFirst()).map(*).reduce(0, +) / centred.map { $0 * $0 }.reduce(0, +)
        #expect(lag1 > 0.9)
        #expect(offsets.map(abs).max()! < 6 * 2.5)
        let urban = fixes(seed: 7, preset: .urban)
        let meanAccuracy = { (fixes: [Location]) in fixes.map(\.horizontalAccuracy).reduce(0, +) / Double(fixes.count) }
        #expect(meanAccuracy(urban) > 2 * meanAccuracy(a))
        #expect(
            fixes(seed: 7, preset: .none).allSatisfy {
                ShortDistance.distance($0.coordinate, origin) < 1e-6 && $0.horizontalAccuracy == 5
            })
    }

    @Test func visitsAreReportedOnDeparture() {
        let manager = alwaysManager()
        manager.startMonitoringVisits()
        // Walk 100 s, stay 10 min, walk on.
        let events = run(route(seconds: 1000) { t in t < 100 ? t : t < 700 ? 100 : 100 + (t - 700) }, manager: manager)
        let visits = events.compactMap { timed -> Visit? in
            if case .visited(let v) = timed.event { return v }
            return nil
        }
        #expect(visits.count == 1)
        #expect(visits.first.map { abs($0.departure - $0.arrival - 700) < 102 } == true)
    }

    @Test func severalDevicesMergeInTimeOrder() {
        let a = alwaysManager()
        let b = alwaysManager()
        a.startUpdatingLocation()
        b.startUpdatingLocation()
        let simulation = Simulation(devices: [
            SimulatedDevice(name: "a", route: route(seconds: 10) { $0 }, manager: a),
            SimulatedDevice(name: "b", route: route(seconds: 10) { $0 }, manager: b, clockOffset: 0.5),
        ])
        var events: [TimedEvent] = []
        var clock = VirtualClock()
        simulation.run(clock: &clock) { events.append($0) }
        #expect(events.count == 22)
        #expect(events.map(\.time) == events.map(\.time).sorted())
        #expect(events.prefix(4).map(\.device) == ["a", "b", "a", "b"])
    }

    @Test func eventsAlsoArriveAsAnAsyncSequenceAndThroughTheDelegate() async {
        final class Recorder: SimulatedLocationManagerDelegate {
            var updates = 0
            func locationManager(_ manager: SimulatedLocationManager, didUpdateLocations locations: [Location]) {
                updates += locations.count
            }
        }
        let manager = alwaysManager()
        let recorder = Recorder()
        manager.delegate = recorder
        let stream = manager.events
        manager.startUpdatingLocation()
        _ = run(route(seconds: 4) { $0 }, manager: manager)
        manager.finish()
        var streamed = 0
        for await event in stream { if case .locationUpdated = event.event { streamed += 1 } }
        #expect(streamed == 5)
        #expect(recorder.updates == 5)
    }

    @Test func theBooksLocationController() {
        let manager = SimulatedLocationManager(authorizationAnswer: .allowAlways, startTime: t0)
        let controller = LocationController(manager: manager)
        controller.start(powerSaving: true)
        controller.registerRegion(center: north(600), radius: 300, identifier: "office")
        let events = run(route(seconds: 700) { 2 * $0 }, manager: manager)
        #expect(events.fixes.allSatisfy { $0.service == .significantChange })
        #expect(events.fixes.map(\.time) == [0, 300, 600])
        // Entry 150 m inside (450 m along: 225 s + 20 s), exit 200 m past (1,100 m: 550 s + 20 s).
        #expect(events.transitions.map(\.0) == ["enter", "exit"])
        #expect(zip(events.transitions.map(\.2), [245.0, 570.0]).allSatisfy { abs($0 - $1) < 0.01 })
        controller.stop()
        manager.move(to: DeviceSample(time: t0 + 2000, coordinate: north(5000)))
        #expect(manager.location?.timestamp == t0 + 600)
    }
}
