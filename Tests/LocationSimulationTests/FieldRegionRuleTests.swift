import Geo
import LocationEvents
import SimulatedTime
import Testing

@testable import LocationSimulation

/// Apple's region rule as a value: a crossing starts a timer that confirms it after the
/// persistence, and a region keeps its state and timer while it stays monitored — whatever
/// else is added, removed or reordered around it.
struct FieldRegionRuleTests {
    static let centre = Coordinate(latitude: 37.3318, longitude: -122.0312)
    static let start = EpochInstant(secondsSince1970: 1_748_937_600)
    static let mechanism = RegionMechanism(
        cushion: 50, minimumInterval: Seconds(5), cadenceScale: 1, satelliteAcquisition: Seconds(10))

    static func north(_ metres: Double) -> Coordinate {
        Coordinate(latitude: centre.latitude + metres / 111_195, longitude: centre.longitude)
    }

    static func estimate(_ seconds: Double, at coordinate: Coordinate, accuracy: Double = 10) -> OSEstimate {
        OSEstimate(time: start.advanced(by: Seconds(seconds)), coordinate: coordinate, horizontalAccuracy: accuracy)
    }

    static let cafe = CircularRegion(identifier: "cafe", center: centre, radius: 150)
    static let park = CircularRegion(identifier: "park", center: north(5_000), radius: 150)
    static let office = CircularRegion(identifier: "office", center: north(-5_000), radius: 150)

    @Test func anEntryHeldForThePersistenceIsConfirmedAtItsEnd() {
        var rule = FieldRegionRule(mechanism: Self.mechanism)
        rule.evaluate(Self.estimate(0, at: Self.north(1_000)), regions: [Self.cafe, Self.park])
        rule.evaluate(Self.estimate(10, at: Self.centre), regions: [Self.cafe, Self.park])
        #expect(rule.confirmations(through: Self.start.advanced(by: Seconds(29)), isMonitored: { _ in true }).isEmpty)
        let confirmed = rule.confirmations(through: Self.start.advanced(by: Seconds(30)), isMonitored: { _ in true })
        #expect(confirmed.map(\.region.identifier) == ["cafe"])
        #expect(confirmed.first?.state == .inside)
        #expect(confirmed.first?.time == Self.start.advanced(by: Seconds(30)))
    }

    @Test func aRegionKeepsItsTimerWhileOthersComeGoAndMove() {
        var rule = FieldRegionRule(mechanism: Self.mechanism)
        rule.evaluate(Self.estimate(0, at: Self.north(1_000)), regions: [Self.park, Self.cafe])
        rule.evaluate(Self.estimate(10, at: Self.centre), regions: [Self.park, Self.cafe])  // the timer starts
        // The park stops being monitored, the office starts, the café moves to the front.
        rule.evaluate(Self.estimate(15, at: Self.centre), regions: [Self.cafe, Self.office])
        let confirmed = rule.confirmations(through: Self.start.advanced(by: Seconds(40)), isMonitored: { _ in true })
        #expect(confirmed.map(\.region.identifier) == ["cafe"])
        #expect(confirmed.first?.time == Self.start.advanced(by: Seconds(30)))
    }

    @Test func aRegionMonitoredAgainOrChangedStartsOver() {
        var rule = FieldRegionRule(mechanism: Self.mechanism)
        rule.evaluate(Self.estimate(0, at: Self.north(1_000)), regions: [Self.cafe])
        rule.evaluate(Self.estimate(10, at: Self.centre), regions: [Self.cafe])
        var moved = Self.cafe
        moved.radius = 200
        // Replaced by a region of its identifier but another radius: its state is determined
        // afresh (inside), as a registration's is, and nothing is confirmed.
        rule.evaluate(Self.estimate(15, at: Self.centre), regions: [moved])
        #expect(rule.confirmations(through: Self.start.advanced(by: Seconds(60)), isMonitored: { _ in true }).isEmpty)
        #expect(!rule.isSettled)  // the OS believes the device inside it
        // Two regions of one identifier: the last one is monitored, as CLLocationManager
        // replaces a region monitored again.
        rule.evaluate(Self.estimate(70, at: Self.north(1_000)), regions: [moved, Self.cafe])
        rule.evaluate(Self.estimate(80, at: Self.north(1_000)), regions: [moved, Self.cafe])
        #expect(rule.isSettled)  // the café, determined afresh, is outside
    }

    /// The OS acts on what its estimate is sure of (`doubt`, in 68 % radii): a coarse estimate
    /// past the exit threshold by less than its accuracy neither starts an exit nor stops one
    /// under way; one past it by more does. Deciding on a cell estimate's centre, a walker in the
    /// middle of a fence was told it had left in most walks with Wi-Fi off. Apple,
    /// UNLocationNotificationTrigger: "The system applies heuristics to ensure that the boundary
    /// crossing represents a deliberate event and is not the result of spurious location data";
    /// Location and Maps Programming Guide: "To prevent spurious notifications, iOS doesn't
    /// deliver region notifications until certain threshold conditions are met".
    @Test func anEstimateActsOnlyOnWhatItIsSureOf() {
        var mechanism = Self.mechanism
        mechanism.doubt = 1
        let outside = mechanism.exitThreshold(radius: Self.cafe.radius)  // 200 m
        func rule() -> FieldRegionRule {
            var rule = FieldRegionRule(mechanism: mechanism)
            rule.evaluate(Self.estimate(0, at: Self.centre), regions: [Self.cafe])  // determined inside
            return rule
        }
        func exits(_ rule: inout FieldRegionRule, through seconds: Double) -> [FieldRegionRule.Confirmation] {
            rule.confirmations(through: Self.start.advanced(by: Seconds(seconds)), isMonitored: { _ in true })
        }
        // 300 m out, ±450 m: not sure the device left.
        var unsure = rule()
        unsure.evaluate(Self.estimate(10, at: Self.north(outside + 100), accuracy: 450))
        #expect(exits(&unsure, through: 100).isEmpty)
        // 300 m out, ±60 m: sure.
        var sure = rule()
        sure.evaluate(Self.estimate(10, at: Self.north(outside + 100), accuracy: 60))
        // An unsure estimate back inside the threshold leaves the timer running; its end confirms.
        sure.evaluate(Self.estimate(20, at: Self.north(outside - 100), accuracy: 450))
        #expect(exits(&sure, through: 30).map(\.state) == [.outside])
        // A sure one back inside stops it.
        var stopped = rule()
        stopped.evaluate(Self.estimate(10, at: Self.north(outside + 100), accuracy: 60))
        stopped.evaluate(Self.estimate(20, at: Self.north(outside - 100), accuracy: 60))
        #expect(exits(&stopped, through: 100).isEmpty)
    }
}

/// A sweep's route is placed with the metric the region rule measures with: placed on a sphere,
/// it measured 0.12 % longer east–west, and a 400 km region's crossings came 490 m (350 s on
/// foot) after the geometry said.
struct FieldSweepGeometryTests {
    @Test(arguments: [100.0, 10_000, 400_000])
    func theRouteIsWhereTheRuleMeasuresIt(_ radius: Double) throws {
        let geometry = FieldSweep.Geometry(FieldSweep.Cell(radius: radius, speed: 1.4, offset: radius / 2))
        let entry = try #require(geometry.entry)
        for t in [0, entry, geometry.closest, geometry.end] {
            let measured = ShortDistance.distance(FieldSweep.centre, geometry.position(at: t))
            #expect(abs(measured - geometry.distance(at: t)) <= 1e-6 * geometry.distance(at: t) + 1e-6)
        }
    }
}

/// The satellite receiver the OS powers near a boundary: its first fix comes after the
/// acquisition time, which varies from one power-up to the next (Wikipedia, *Time to first fix*:
/// a hot start "22 seconds (or only a few seconds)"). With a fixed delay, a route that powered it
/// at its first estimate had every trial's fixes at the same instants (a black-box hunt of
/// `sweep`: a 50 m fence at 28 m/s notified 4.8 %, at 29 m/s 47 %).
struct SatelliteAcquisitionTests {
    static let mechanism = RegionMechanism(
        cushion: 0, minimumInterval: Seconds(10), cadenceScale: 1, satelliteAcquisition: Seconds(30))

    /// Seconds from powering satellites up to the first fix, sampling once a second at rest.
    static func firstFixDelay(seed: UInt64, mechanism: RegionMechanism = mechanism) -> Int? {
        var estimator = OSEstimator(surroundings: .standard, mechanism: mechanism, seed: seed)
        estimator.wantsSatellite(true, at: FieldRegionRuleTests.start)
        for second in 0...120 {
            let time = FieldRegionRuleTests.start.advanced(by: Seconds(Double(second)))
            if estimator.observe(FieldRegionRuleTests.centre, at: time) != nil { return second }
        }
        return nil
    }

    @Test func theFirstFixComesWithinHalfAScanIntervalOfTheAcquisitionTime() throws {
        let delays = try (1...400).map { try #require(Self.firstFixDelay(seed: $0)) }
        #expect(delays.allSatisfy { (25...35).contains($0) }, "\(Set(delays).sorted())")
        // Every second of the interval is a phase some power-up has: the fixes after it fall anywhere.
        #expect(Set(delays.map { $0 % 10 }).count == 10, "\(Set(delays).sorted())")
        let mean = Double(delays.reduce(0, +)) / Double(delays.count)
        #expect(abs(mean - 30.5) < 1, "mean \(mean) s: the fitted acquisition time, on whole seconds")
    }

    /// An acquisition shorter than half the interval varies by as much as it lasts, never less
    /// than nothing.
    @Test func theFirstFixNeverComesBeforeSatellitesArePowered() throws {
        let quick = RegionMechanism(
            cushion: 0, minimumInterval: Seconds(60), cadenceScale: 1, satelliteAcquisition: Seconds(5))
        let delays = try (1...200).map { try #require(Self.firstFixDelay(seed: $0, mechanism: quick)) }
        #expect(delays.allSatisfy { (0...10).contains($0) }, "\(Set(delays).sorted())")
    }
}
