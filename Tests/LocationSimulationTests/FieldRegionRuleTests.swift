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

    static func estimate(_ seconds: Double, at coordinate: Coordinate) -> OSEstimate {
        OSEstimate(time: start.advanced(by: Seconds(seconds)), coordinate: coordinate, horizontalAccuracy: 10)
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
}
