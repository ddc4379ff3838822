import CafeCheckins
import Foundation
import Geo
import LocationSimulation
import SimulatedTime
import Testing
import Tracks

/// The example app's check-in logic, tested on a simulated walk with Waypost's `CLMonitor`.
@Suite struct CafeCheckinsTests {
    static let start = 1_750_000_000.0
    static let origin = Coordinate(latitude: 37.3230, longitude: -122.0322)

    /// The point `metres` due north of `origin`.
    static func north(_ metres: Double) -> Coordinate {
        Geodesic.wgs84.direct(from: origin, azimuth: 0, distance: metres).coordinate
    }

    /// A walk at 1.4 m/s along the meridian, one sample a second: `position(t)` metres north.
    static func walk(seconds: Int, position: (Double) -> Double) -> [RouteSample] {
        (0...seconds).map { s in
            let c = north(position(Double(s)))
            return RouteSample(
                point: TrackPoint(
                    latitude: c.latitude, longitude: c.longitude, time: Date(timeIntervalSince1970: start + Double(s))),
                speed: nil, course: nil)
        }
    }

    let cafes = [
        CafeCheckins<SimulatedMonitor>.Cafe(name: "roasters", area: .init(center: north(500), radius: 100)),
        CafeCheckins<SimulatedMonitor>.Cafe(name: "corner", area: .init(center: north(1_500), radius: 100)),
    ]

    func checkIns(along route: [RouteSample]) async throws -> [CafeCheckins<SimulatedMonitor>.CheckIn] {
        let manager = SimulatedLocationManager(
            status: .authorizedAlways, startTime: EpochInstant(secondsSince1970: Self.start))
        let world = SimulatedWorld(SimulatedDevice(route: route, manager: manager))
        let app = await CafeCheckins(monitor: await SimulatedMonitor(named: "cafes", in: world), cafes: cafes)
        try await app.run()
        return await app.checkIns
    }

    @Test func walkingPastTwoCafesChecksInAtEach() async throws {
        let visits = try await checkIns(along: Self.walk(seconds: 1_500) { 1.4 * $0 })
        #expect(visits.map(\.cafe) == ["roasters", "corner"])
        // Arrival is reported once the walker is well inside and has stayed 20 s (Apple's region
        // threshold, which CLMonitor's circular conditions share in Waypost).
        #expect(
            visits[0].date.secondsSince1970 > Self.start + 400 / 1.4
                && visits[0].date.secondsSince1970 < Self.start + 500 / 1.4)
    }

    @Test func goingBackWithinTheCooldownChecksInOnce() async throws {
        // To the first café, back out, and in again ten minutes later.
        let visits = try await checkIns(
            along: Self.walk(seconds: 1_400) { t in
                t < 500 ? 1.4 * t : t < 800 ? 700 - 1.4 * (t - 500) : 280 + 1.4 * (t - 800)
            })
        #expect(visits.map(\.cafe) == ["roasters"])
    }
}
