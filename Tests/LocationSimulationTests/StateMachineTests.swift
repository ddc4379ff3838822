import Foundation
import Geo
import LocationEvents
import LocationSimulation
import TestSupport
import Testing

/// The machines count plain seconds since 1970; `t0` as those seconds.

/// The region-monitoring rule and the visit detector as values, fed positions directly.
@Suite struct StateMachineTests {
    let configuration = LocationManagerConfiguration()

    /// Apple, Location and Maps Programming Guide (Region Monitoring): "the user's location must
    /// cross the region boundary, move away from the boundary by a minimum distance, and remain at
    /// that minimum distance for at least 20 seconds"; "for testing purposes, you can assume that
    /// the minimum distance is approximately 200 meters".
    @Test func regionMonitorConfirmsACrossingAfterTheDistanceAndTheDwell() {
        var monitor = RegionMonitor(configuration: configuration)
        let region = CircularRegion(identifier: "r", center: north(1000), radius: 1000)
        #expect(monitor.register(region, deviceAt: north(-500), time: t0) == .outside)
        var changes: [RegionMonitor.Change] = []
        for s in 1...200 {
            // 10 m/s northwards from 500 m south of the edge.
            changes += monitor.evaluate(at: north(-500 + 10 * Double(s)), time: t0 + Double(s))
        }
        // Inward threshold 200 m: 800 m from the centre is 700 m on, at 70 s; reported at 90 s.
        #expect(changes.count == 1)
        guard case .crossed(let crossed, let state, let time, _) = changes.first else {
            Issue.record("expected a crossing, got \(changes)")
            return
        }
        #expect(crossed.identifier == "r" && state == .inside)
        #expect(abs(time - t0 - 90) < 0.01)
        #expect(monitor.state(of: "r") == .inside)
    }

    @Test func regionMonitorDeterminesAnUnknownStateWithoutATransition() {
        var monitor = RegionMonitor(configuration: configuration)
        let region = CircularRegion(identifier: "r", center: origin, radius: 200)
        #expect(monitor.register(region, deviceAt: nil, time: t0) == .unknown)
        #expect(monitor.evaluate(at: north(50), time: t0 + 1) == [.determined(region, .inside, time: t0 + 1)])
        #expect(monitor.evaluate(at: north(60), time: t0 + 2).isEmpty)
        monitor.remove("r")
        #expect(monitor.isEmpty && monitor.state(of: "r") == .unknown)
        #expect(monitor.evaluate(at: north(5000), time: t0 + 3).isEmpty)
    }

    /// A slot freed by `remove` goes to the next region registered, and an identifier registered
    /// again replaces its region rather than adding one; room reserved beforehand changes neither.
    @Test func regionMonitorReusesFreedSlotsAndReplacesByIdentifier() {
        var monitor = RegionMonitor(configuration: configuration)
        monitor.reserveCapacity(forAdditional: 3)
        let a = CircularRegion(identifier: "a", center: origin, radius: 200)
        let b = CircularRegion(identifier: "b", center: north(3000), radius: 200)
        #expect(monitor.register(a, deviceAt: north(50), time: t0) == .inside)
        #expect(monitor.register(b, deviceAt: north(50), time: t0) == .outside)
        monitor.remove("a")
        let c = CircularRegion(identifier: "c", center: north(50), radius: 100)
        #expect(monitor.register(c, deviceAt: north(50), time: t0) == .inside)
        let movedB = CircularRegion(identifier: "b", center: north(60), radius: 100)
        #expect(monitor.register(movedB, deviceAt: north(50), time: t0) == .inside)
        #expect(monitor.regions == [movedB, c])
        // Gone far away: the two regions monitored exit once each, the removed one never.
        var changes: [RegionMonitor.Change] = []
        for s in 1...40 { changes += monitor.evaluate(at: north(5000), time: t0 + Double(s)) }
        let exits = changes.compactMap { change -> String? in
            guard case .crossed(let region, .outside, _, _) = change else { return nil }
            return region.identifier
        }
        #expect(exits.sorted() == ["b", "c"] && exits.count == changes.count)
    }

    /// Nothing is stamped inside a signal gap: a dwell begun before it is not evidence, and the
    /// crossing counts from the first fix after it.
    @Test func regionMonitorNeedsFixesThatArrived() {
        var monitor = RegionMonitor(configuration: configuration)
        let region = CircularRegion(identifier: "r", center: origin, radius: 300)
        monitor.register(region, deviceAt: north(100), time: t0)
        _ = monitor.evaluate(at: north(100), time: t0 + 1)
        // Past the exit threshold (500 m) for 5 s, then a 60 s gap, then back past it.
        for s in 2...6 { #expect(monitor.evaluate(at: north(600), time: t0 + Double(s)).isEmpty) }
        monitor.signalResumed(at: t0 + 66)
        var changes: [RegionMonitor.Change] = []
        for s in 66...90 { changes += monitor.evaluate(at: north(600), time: t0 + Double(s)) }
        guard case .crossed(_, .outside, let time, _) = changes.first else {
            Issue.record("no exit: \(changes)")
            return
        }
        #expect(time - t0 == 66 + 20, "counted from the first fix after the gap")
    }

    @Test func visitDetectorReportsArrivalThenDepartureAtTheCentre() {
        var detector = VisitDetector(configuration: configuration)
        var visits: [(Double, Visit)] = []
        // Still (±10 m east–west) for 400 s, then 2 km away.
        for s in 0...400 {
            let east = 10 * sin(Double(s))
            let here = Geodesic.wgs84.direct(from: north(500), azimuth: 90, distance: east).coordinate
            if let visit = detector.observe(here, at: t0 + Double(s)) { visits.append((Double(s), visit)) }
        }
        if let visit = detector.observe(north(2500), at: t0 + 401) { visits.append((401, visit)) }
        #expect(visits.map(\.0) == [300, 401])
        #expect(visits.first?.1.isInProgress == true)
        #expect(visits.last?.1.departure == t0 + 401 && visits.last?.1.arrival == t0)
        if let centre = visits.last?.1 {
            #expect(ShortDistance.distance(centre.coordinate, north(500)) < 1)
            // RMS of 10 sin(s): 7.07 m.
            #expect(abs(centre.horizontalAccuracy - 7.07) < 0.2)
        }
        // A pass-through is no visit.
        var passing = VisitDetector(configuration: configuration)
        #expect((0...600).allSatisfy { passing.observe(north(Double($0) * 2), at: t0 + Double($0)) == nil })
    }
}
