import Geo
import LocationEvents
import LocationSimulation
import SimulatedTime
import TestSupport
import Testing

/// Three rules from Apple's pages (issue 28): visits under reduced accuracy, `requestLocation()`,
/// and `desiredAccuracy = kCLLocationAccuracyReduced`. Each test quotes the sentence it checks.
@Suite struct CoreLocationRulesTests {
    /// Apple, `NSLocationDefaultAccuracyReduced`: "all Core Location services (location updates,
    /// visit monitoring, significant location change, fence monitoring) receive service at the
    /// reduced-accuracy service level"; `CLVisit.horizontalAccuracy`: "The latitude and longitude
    /// specified by the coordinate property identify the center of the circle, and this value
    /// indicates the radius of that circle." — so an approximate visit reports the approximate
    /// circle, as a reduced-accuracy significant change does.
    @Test func aVisitUnderReducedAccuracyReportsTheReducedCircle() {
        func visits(_ accuracy: AccuracyAuthorization) -> [Visit] {
            let manager = SimulatedLocationManager(
                status: .authorizedAlways, accuracyAuthorization: accuracy,
                startTime: t0)
            manager.startMonitoringVisits()
            // Still for ten minutes 500 m north, then 3 km on.
            let events = run(route(seconds: 601) { $0 < 600 ? 500 : 3_500 }, manager: manager)
            return events.compactMap {
                if case .visited(let visit) = $0.event { return visit }
                return nil
            }
        }
        let precise = visits(.fullAccuracy)
        let reduced = visits(.reducedAccuracy)
        #expect(precise.count == 2 && reduced.count == 2)
        #expect(precise.allSatisfy { $0.horizontalAccuracy < 10 })
        for visit in reduced {
            let missed = ShortDistance.distance(visit.coordinate, north(500))
            // The circle reported covers the coarsening applied: ≈ 0.465 √(cell area), > 1 km.
            #expect(visit.horizontalAccuracy > 1_000 && visit.horizontalAccuracy < 5_000)
            #expect(missed > 10 && missed < 2 * visit.horizontalAccuracy)
        }
    }

    /// Apple, `requestTemporaryFullAccuracyAuthorization(withPurposeKey:)`: "The request always
    /// fails … The app is in the background" — in use there with background updates running too
    /// (the request was granted then); asked again in the foreground, it is.
    @Test(arguments: [AppState.background, .foreground])
    func temporaryFullAccuracyIsAskedForInTheForeground(_ state: AppState) {
        let manager = SimulatedLocationManager(
            status: .authorizedAlways, accuracyAuthorization: .reducedAccuracy, startTime: t0)
        manager.allowsBackgroundLocationUpdates = true
        manager.startUpdatingLocation()
        let events = run(
            route(seconds: 200) { $0 }, manager: manager,
            script: [
                (t0 + 60, .appState(.background)), (t0 + 90, .appState(state)),
                (t0 + 120, .temporaryFullAccuracy(purposeKey: "Nav")),
            ])
        // The first is the creation's report of reduced accuracy.
        let changes = events.filter { $0.event.type == "accuracyAuthorization" }
        #expect(changes.map { $0.time - t0 } == (state == .foreground ? [0, 120] : [0]))
    }

    /// Apple, `requestLocation()`: "Only one location fix is reported to the delegate, after which
    /// location services are stopped."
    @Test func requestLocationReportsOneFixThenStops() {
        let manager = SimulatedLocationManager(
            status: .authorizedWhenInUse, startTime: t0)
        let events = run(
            route(seconds: 120) { $0 * 2 }, manager: manager,
            script: [])
        #expect(events.fixes.isEmpty)
        let asking = SimulatedLocationManager(
            status: .authorizedWhenInUse, startTime: t0)
        asking.requestLocation(at: t0)
        let answered = run(route(seconds: 120) { $0 * 2 }, manager: asking)
        #expect(answered.fixes.map(\.time) == [0])
        #expect(answered.failures.isEmpty)
        // Asked for a later virtual time (`requestLocation(at:)`): the fix is one from then.
        let later = SimulatedLocationManager(status: .authorizedWhenInUse, startTime: t0)
        later.requestLocation(at: t0 + 30)
        #expect(run(route(seconds: 120) { $0 * 2 }, manager: later).fixes.map(\.time) == [30])
    }

    /// `CLLocationManager.h`, `requestLocation`: "this method can not be used concurrently with
    /// startUpdatingLocation"; starting updates "will immediately cancel the location request", and
    /// stopUpdatingLocation "can be used to explicitly cancel the request". Neither a second copy of
    /// a fix the updates deliver, nor a late answer or timeout to a cancelled request.
    @Test func requestLocationYieldsToStandardUpdates() {
        let updating = SimulatedLocationManager(status: .authorizedWhenInUse, startTime: t0)
        updating.startUpdatingLocation()
        updating.requestLocation(at: t0 + 30)
        let fixes = run(route(seconds: 60) { $0 * 2 }, manager: updating).fixes.map(\.time)
        #expect(fixes == Array(0...60).map(Double.init), "one fix a second, none twice")

        let cancelled = SimulatedLocationManager(status: .authorizedWhenInUse, startTime: t0)
        cancelled.requestLocation(at: t0)
        cancelled.stopUpdatingLocation()
        let none = run(route(seconds: 60) { $0 }, manager: cancelled, gaps: [t0...(t0 + 60)])
        #expect(none.fixes.isEmpty && none.failures.isEmpty, "cancelled: no fix, no locationUnknown")
    }

    /// Apple, `requestLocation()`: "If a location fix cannot be determined in a timely manner, the
    /// location manager calls the delegate's locationManager(_:didFailWithError:) method instead."
    /// Waypost's timeout: ``LocationManagerConfiguration/requestLocationTimeout`` (10 s).
    @Test func requestLocationFailsWithLocationUnknownWithoutAFix() {
        let manager = SimulatedLocationManager(
            status: .authorizedWhenInUse, startTime: t0)
        manager.requestLocation(at: t0 + 5)
        // No signal from 0 to 60 s.
        let events = run(route(seconds: 120) { $0 }, manager: manager, gaps: [t0...(t0 + 60)])
        #expect(events.failures.map(\.code) == [.locationUnknown])
        #expect(events.failures.first?.time == 15)
        #expect(events.fixes.isEmpty, "the request ended with its error")
        // A fix arriving within the timeout answers it.
        let inTime = SimulatedLocationManager(
            status: .authorizedWhenInUse, startTime: t0)
        inTime.requestLocation(at: t0 + 5)
        let answered = run(route(seconds: 120) { $0 }, manager: inTime, gaps: [t0...(t0 + 12)])
        #expect(answered.fixes.map(\.time) == [13] && answered.failures.isEmpty)
    }

    /// Apple, `locationManager(_:didFailWithError:)`: "If the user denies your app's use of the
    /// location service, this method reports a CLError.Code.denied error."
    /// Apple, `startUpdatingLocation()`: "Calling this method several times in succession does not
    /// automatically result in new events being generated. Calling stopUpdatingLocation() in
    /// between, however, does cause a new initial event to be sent the next time you call this
    /// method." A library hunt: with a distance filter, a start after a stop sent nothing.
    @Test func aStartAfterAStopSendsANewInitialFixWhateverTheDistanceFilter() {
        let manager = alwaysManager()
        manager.distanceFilter = 100
        var fixes: [Double] = []
        manager.observer = { if case .locationUpdated = $0.event { fixes.append($0.time - t0) } }
        func walk(_ seconds: Range<Int>) {
            for s in seconds { manager.move(to: DeviceSample(time: t0 + Double(s), coordinate: north(Double(s)))) }
        }
        manager.startUpdatingLocation()
        walk(0..<5)
        manager.stopUpdatingLocation()
        manager.startUpdatingLocation()
        walk(5..<10)
        manager.startUpdatingLocation()
        walk(10..<15)
        #expect(fixes == [0, 5], "a new initial fix after the stop, none for a second start without one")
    }

    /// A library hunt: a device sample at no place on the Earth (NaN; 1e10°) trapped the region
    /// index while a region was monitored. Positioning never reports such a place
    /// (`CLLocationCoordinate2DIsValid`): it is a sample without a fix, as in a signal gap.
    @Test func aSampleAtNoPlaceIsOneWithoutAFix() {
        let manager = alwaysManager()
        manager.startMonitoring(for: CircularRegion(identifier: "a", center: origin, radius: 100))
        manager.startUpdatingLocation()
        var events: [TimedEvent] = []
        manager.observer = { events.append($0) }
        let places = [
            origin, Coordinate(latitude: .nan, longitude: .nan), Coordinate(latitude: 1e10, longitude: 1e10), origin,
        ]
        for (second, place) in places.enumerated() {
            manager.move(to: DeviceSample(time: t0 + Double(second), coordinate: place))
        }
        #expect(events.failures.map(\.code) == [.locationUnknown])
        let fixes = events.filter { $0.event.type == "location" }.map { $0.time - t0 }
        #expect(fixes == [0, 3])
    }

    /// A library hunt: an update interval of zero trapped filling a route's gaps (a gap over zero
    /// is no count of steps). Not above zero, it fills none: the route's own points are the samples.
    @Test func anUpdateIntervalOfZeroFillsNoGap() {
        var configuration = LocationManagerConfiguration()
        configuration.updateInterval = .zero
        let manager = alwaysManager(configuration: configuration)
        manager.startUpdatingLocation()
        let sparse = route(seconds: 60) { $0 }.enumerated().filter { $0.offset % 20 == 0 }.map(\.element)
        #expect(run(sparse, manager: manager).fixes.map(\.time) == [0, 20, 40, 60])
    }

    /// Apple, `requestLocation()`: an app refused location is told at once; and
    /// `locationManager(_:didFailWithError:)`: "If the user denies your app's use of the location
    /// service, this method reports a CLError.Code.denied error" — the significant-change service
    /// too (a library hunt: it started silently, where the standard service's start reported it).
    @Test(arguments: ["requestLocation", "significantChanges"])
    func aDeniedAppIsToldAtOnce(_ call: String) {
        let manager = SimulatedLocationManager(status: .denied, startTime: t0)
        var events: [TimedEvent] = []
        manager.observer = { events.append($0) }
        if call == "requestLocation" {
            manager.requestLocation()
        } else {
            manager.startMonitoringSignificantLocationChanges()
        }
        #expect(events.failures.map(\.code) == [.denied])
    }

    /// A region whose centre is no place says so (its message spoke of the radius: a library hunt).
    @Test func aRegionAtNoPlaceSaysSo() {
        let manager = alwaysManager()
        var events: [TimedEvent] = []
        manager.observer = { events.append($0) }
        manager.startMonitoring(
            for: CircularRegion(identifier: "x", center: Coordinate(latitude: 91, longitude: 0), radius: 100))
        let failure = events.compactMap { if case .monitoringFailed(_, let error) = $0.event { error } else { nil } }
        #expect(failure.map(\.code) == [.regionMonitoringFailure])
        #expect(failure.first?.reason.contains("no place on the Earth") == true, "\(failure)")
    }

    /// Apple, `kCLLocationAccuracyReduced`: "If your app is authorized to access location
    /// information with full accuracy, you can use this constant to access location data as if the
    /// app didn't have that authorization"; "The accuracy of location data is reduced in both space
    /// and time using approaches like selecting a nearby point of interest and updating the
    /// location at most a few times per hour".
    @Test func desiredAccuracyReducedGivesApproximateFixesUnderFullAccuracy() {
        let manager = alwaysManager()
        manager.pausesLocationUpdatesAutomatically = false
        manager.desiredAccuracy = LocationAccuracy.reduced
        manager.startUpdatingLocation()
        #expect(manager.accuracyAuthorization == .fullAccuracy)
        let events = run(route(seconds: 3_600) { $0 }, manager: manager)
        #expect(events.fixes.map(\.time) == [0, 900, 1800, 2700, 3600])
        for fix in events.fixes {
            let error = ShortDistance.distance(fix.location.coordinate, north(fix.time))
            #expect(error < 4_000 && fix.location.horizontalAccuracy > 1_000)
        }
        // The constant is its own value, not kCLLocationAccuracyThreeKilometers: that one still
        // asks for cell positioning, at full accuracy.
        #expect(LocationAccuracy.reduced != LocationAccuracy.threeKilometers)
        let cells = alwaysManager()
        cells.pausesLocationUpdatesAutomatically = false
        cells.desiredAccuracy = LocationAccuracy.threeKilometers
        cells.startUpdatingLocation()
        #expect(run(route(seconds: 600) { $0 }, manager: cells).fixes.count == 11)
    }
}
