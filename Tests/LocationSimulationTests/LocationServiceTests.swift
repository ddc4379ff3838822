import Foundation
import Geo
import LocationEvents
import LocationSimulation
import SimulatedTime
import TestSupport
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

    /// The fixes filled in between two of the route's points move along the leg between them,
    /// and report its speed and course: the first point's own motion was carried over every one
    /// — a recorded 2.5 m/s east while the leg goes 1.85 m/s north, and 5.55 m/s across a jump
    /// of 1.1 km in 4 s between a GPX track's segments (a black-box hunt).
    @Test func filledFixesReportTheirLegsMotion() {
        func sample(_ seconds: Double, _ metres: Double, speed: Double? = nil, course: Double? = nil) -> RouteSample {
            let c = north(metres)
            return RouteSample(
                point: TrackPoint(
                    latitude: c.latitude, longitude: c.longitude,
                    time: .init(timeIntervalSince1970: (t0 + seconds).secondsSince1970)),
                speed: speed, course: course)
        }
        let manager = alwaysManager()
        manager.startUpdatingLocation()
        // A recorded motion at the first point, then a leg of 111 m north in 60 s; then a pause
        // of 20 s where the device stays put; then a jump of 1,100 m in 4 s.
        let fixes = run(
            [
                sample(0, 0, speed: 2.5, course: 90), sample(60, 111, speed: 1.85, course: 0),
                sample(80, 111, speed: 1.85, course: 0), sample(84, 1_211, speed: 1.85, course: 0),
            ], manager: manager
        ).fixes
        func motion(at time: Double) -> (Double, Double)? {
            fixes.first { $0.time == time }.map { ($0.location.speed, $0.location.course) }
        }
        #expect(motion(at: 0).map { $0 == (2.5, 90) } == true, "a route point keeps what the file says")
        #expect(
            motion(at: 30).map { abs($0.0 - 1.85) < 0.01 && $0.1 < 0.01 } == true,
            "\(String(describing: motion(at: 30)))")
        #expect(motion(at: 70).map { $0.0 == 0 && $0.1 < 0 } == true, "still: \(String(describing: motion(at: 70)))")
        #expect(motion(at: 82).map { abs($0.0 - 275) < 1 } == true, "\(String(describing: motion(at: 82)))")
    }

    /// `horizontalAccuracy` is "the radius of uncertainty for the location" (Apple, CLLocation
    /// `horizontalAccuracy`): with GPS-class accuracy it is the noise model's, so the ideal receiver
    /// (`none`, fixes exactly on the route) reports 0 whatever `desiredAccuracy` asks for.
    @Test func accuracyConstantsSetTheReportedAccuracy() {
        #expect(LocationAccuracy.bestForNavigation == -2 && LocationAccuracy.best == -1)
        #expect(LocationAccuracy.nearestTenMeters == 10 && LocationAccuracy.hundredMeters == 100)
        #expect(LocationAccuracy.kilometer == 1000 && LocationAccuracy.threeKilometers == 3000)
        #expect(LocationAccuracy.named("reduced") == LocationAccuracy.reduced)
        let manager = alwaysManager()
        manager.desiredAccuracy = LocationAccuracy.nearestTenMeters
        manager.startUpdatingLocation()
        #expect(
            run(route(seconds: 3) { $0 }, manager: manager).fixes.allSatisfy { $0.location.horizontalAccuracy == 0 })
    }

    /// Apple, `desiredAccuracy`: "if you need the current location only within a kilometer,
    /// specify kCLLocationAccuracyKilometer" — a cheaper source, so fewer and coarser fixes. The
    /// figures are what devices report for Wi-Fi (65 m) and cell fixes (1414 m, Stack Overflow
    /// 7402503); `hacc` is the 68 % radius of the error actually applied. Such a fix is a position
    /// only: "the -1 for verticalAccuracy indicates that the altitude in the CLLocation is not
    /// valid. You only get altitude with a 3D GPS position" (ibid.), and no speed or course.
    @Test func coarseAccuracyMeansCoarseFixesLessOften() {
        for (desired, accuracy, interval) in [
            (LocationAccuracy.hundredMeters, 65.0, 5.0), (LocationAccuracy.kilometer, 1414, 60),
            (LocationAccuracy.threeKilometers, 1414, 60),
        ] {
            let manager = alwaysManager(seed: 3)
            manager.desiredAccuracy = desired
            manager.pausesLocationUpdatesAutomatically = false  // the device stands still
            manager.startUpdatingLocation()
            let fixes = run(route(seconds: Int(interval) * 2_000) { _ in 0 }, manager: manager).fixes
            #expect(zip(fixes, fixes.dropFirst()).allSatisfy { $1.time - $0.time == interval })
            #expect(fixes.allSatisfy { $0.location.horizontalAccuracy == accuracy })
            #expect(
                fixes.allSatisfy {
                    $0.location.verticalAccuracy == -1 && $0.location.speed == -1 && $0.location.course == -1
                })
            let errors = fixes.map { ShortDistance.distance($0.location.coordinate, origin) }.sorted()
            let within = Double(errors.filter { $0 <= accuracy }.count) / Double(errors.count)
            #expect(within > 0.5 && within < 0.85, "\(desired): \(within) of fixes within \(accuracy) m")
        }
    }

    @Test func significantChangesNeed500MetresAnd5Minutes() {
        // At 2 m/s, 500 m takes 250 s: the 5 minutes bind → events at 0, 300, …, 1800 s.
        let fast = alwaysManager()
        fast.startMonitoringSignificantLocationChanges()
        let fastFixes = run(route(seconds: 1800) { 2 * $0 }, manager: fast).fixes
        #expect(fastFixes.map(\.time) == [0, 300, 600, 900, 1200, 1500, 1800])
        #expect(fastFixes.allSatisfy { $0.service == .significantChange && $0.location.horizontalAccuracy == 500 })
        // A cell-class position: moving at 2 m/s, it knows no speed or course.
        #expect(fastFixes.allSatisfy { $0.location.speed == -1 && $0.location.course == -1 })
        // At 1 m/s the 500 m bind → 0, 500, 1000, 1500 s.
        let slow = alwaysManager()
        slow.startMonitoringSignificantLocationChanges()
        #expect(run(route(seconds: 1800) { $0 }, manager: slow).fixes.map(\.time) == [0, 500, 1000, 1500])
    }

    /// Under device realism the service also wakes without movement (exponential gaps, mean
    /// 15 min), but never sooner than 5 minutes after its last event: "Notifications are not sent
    /// unless at least five minutes has elapsed since the last notification" (iOS Components and
    /// Frameworks, 2013). A black-box hunt saw events 27 s apart.
    @Test func significantChangeWakeUpsKeepFiveMinutesApart() {
        var configuration = LocationManagerConfiguration()
        configuration.realism = .device
        var gaps: [Double] = []
        for seed: UInt64 in 1...20 {
            let manager = alwaysManager(configuration: configuration, seed: seed)
            manager.startMonitoringSignificantLocationChanges()
            // Three hours standing still, then three walking at 1.4 m/s.
            let times = run(route(seconds: 21_600) { $0 < 10_800 ? 0 : 1.4 * ($0 - 10_800) }, manager: manager)
                .fixes.map(\.time)
            gaps += zip(times, times.dropFirst()).map { $1 - $0 }
        }
        #expect(gaps.count > 200, "wake-ups without movement, and movement's events")
        #expect(gaps.allSatisfy { $0 >= 300 }, "\(gaps.min() ?? 0) s")
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
        let manager = SimulatedLocationManager(
            authorizationAnswer: .allowAlways, startTime: t0)
        manager.reportInitialAuthorization()
        manager.requestAlwaysAuthorization()
        manager.startUpdatingLocation()
        // Entered at 50 m from the centre (100 m along, 50 s), reported at 70 s; the exit (at
        // 300 m past, 450 m along: 225 s + 20 s) would come after the revocation at 100 s.
        manager.startMonitoring(for: CircularRegion(identifier: "r", center: north(150), radius: 100))
        // The stream starts with what the manager emitted before the run.
        let events = run(route(seconds: 300) { 2 * $0 }, manager: manager, changes: [(t0 + 100, .denied)])
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

    /// Apple, `requestAlwaysAuthorization()`: from iOS 13 "Allow While Using App" to an Always
    /// request gives "Provisional Always authorization. The delegate receives
    /// CLAuthorizationStatus.authorizedAlways"; "Allow Once" gives "a Temporary When in Use
    /// authorization". Up to iOS 12 the Always prompt answered directly.
    @Test func promptAnswersMapToStatuses() {
        for (ios, answer, request, expected, provisional) in [
            (26, AuthorizationAnswer.allowAlways, true, AuthorizationStatus.authorizedAlways, true),
            (26, .allowWhenInUse, true, .authorizedAlways, true),
            (26, .allowAlways, false, .authorizedWhenInUse, false), (26, .allowOnce, true, .authorizedWhenInUse, false),
            (26, .deny, true, .denied, false), (12, .allowAlways, true, .authorizedAlways, false),
            (12, .allowWhenInUse, true, .authorizedWhenInUse, false),
        ] {
            var configuration = LocationManagerConfiguration()
            configuration.iosVersion = ios
            let manager = SimulatedLocationManager(authorizationAnswer: answer, configuration: configuration)
            if request { manager.requestAlwaysAuthorization() } else { manager.requestWhenInUseAuthorization() }
            #expect(manager.authorizationStatus == expected, "iOS \(ios) \(answer)")
            #expect(manager.isProvisionalAlways == provisional, "iOS \(ios) \(answer)")
            #expect(manager.isOneTimeAuthorization == (answer == .allowOnce))
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
        #expect(offsets.map(abs).max()! < 6 * 3.3)
        let urban = fixes(seed: 7, preset: .urban)
        let meanAccuracy = { (fixes: [Location]) in fixes.map(\.horizontalAccuracy).reduce(0, +) / Double(fixes.count) }
        #expect(meanAccuracy(urban) > 2 * meanAccuracy(a))
        #expect(
            fixes(seed: 7, preset: .none).allSatisfy {
                ShortDistance.distance($0.coordinate, origin) < 1e-6 && $0.horizontalAccuracy == 0
            })
    }

    /// Issue 13, item 6: `hacc` is the 68 % radius of the error actually applied, under every
    /// noise model — about two fixes in three lie within it (Apple, CLLocation `horizontalAccuracy`:
    /// "the latitude and longitude identify the center of the circle, and this value indicates the
    /// radius of that circle").
    @Test(arguments: [NoiseModel.Preset.openSky, .urban, .indoor])
    func reportedAccuracyIsTheRadiusOfTheAppliedError(_ preset: NoiseModel.Preset) {
        let manager = alwaysManager(noise: NoiseModel(preset), seed: 11)
        manager.pausesLocationUpdatesAutomatically = false  // the device stands still
        manager.startUpdatingLocation()
        let fixes = run(route(seconds: 40_000) { _ in 0 }, manager: manager).fixes.map(\.location)
        let within = fixes.filter { ShortDistance.distance($0.coordinate, origin) <= $0.horizontalAccuracy }
        let share = Double(within.count) / Double(fixes.count)
        #expect(share > 0.6 && share < 0.76, "\(preset): \(share) of fixes within their hacc")
    }

    /// Significant-change fixes come from cells: their 500 m accuracy is the error applied.
    @Test func significantChangeFixesCarryTheirCellError() {
        let manager = alwaysManager(seed: 5)
        manager.startMonitoringSignificantLocationChanges()
        let fixes = run(route(seconds: 300 * 400) { 2 * $0 }, manager: manager).fixes
        let errors = fixes.map { fix in
            ShortDistance.distance(fix.location.coordinate, north(2 * fix.time))
        }
        let share = Double(errors.filter { $0 <= 500 }.count) / Double(errors.count)
        #expect(fixes.count == 401 && share > 0.6 && share < 0.76, "\(share) of fixes within 500 m")
    }

    /// Apple, `CLVisit`: "when the user arrives at a location, the system may send an event with
    /// only an arrival time" (`departureDate` is `distantFuture`: "if the device hasn't yet
    /// left"), and on departure an event with both; `coordinate` is "the center of the region
    /// which the device is visiting", `horizontalAccuracy` "an estimate of the radius".
    @Test func visitsAreReportedOnArrivalThenDeparture() throws {
        let manager = alwaysManager()
        manager.startMonitoringVisits()
        // Drive in at 10 m/s, stay 10 min pacing ±20 m around 1 km north, drive on.
        let events = run(
            route(seconds: 900) { t in t < 100 ? 10 * t : t < 700 ? 1000 + 20 * sin(t / 5) : 1000 + 10 * (t - 700) },
            manager: manager)
        let visits = events.compactMap { timed -> (Double, Visit)? in
            if case .visited(let v) = timed.event { return (timed.time - t0, v) }
            return nil
        }
        try #require(visits.count == 2)
        let (arrivalTime, arrival) = visits[0]
        let (departureTime, departure) = visits[1]
        #expect(arrival.isInProgress && arrival.departure == Visit.distantFuture)
        // The stay begins on the way in (within 100 m of its centre) and is recognised 5 min on.
        #expect(arrival.arrival - t0 >= 85 && arrival.arrival - t0 <= 105, "\(arrival.arrival - t0)")
        #expect(arrivalTime == arrival.arrival - t0 + 300)
        #expect(!departure.isInProgress && departure.arrival == arrival.arrival)
        #expect(departureTime > 700 && departureTime < 720 && departure.departure - t0 == departureTime)
        #expect(ShortDistance.distance(departure.coordinate, north(1000)) < 10, "the centre of the stay")
        #expect(departure.horizontalAccuracy > 10 && departure.horizontalAccuracy < 20, "the spread of ±20 m pacing")
    }
}
