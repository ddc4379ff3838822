import Foundation
import Geo
import LocationEvents
import LocationSimulation
import Testing
import Tracks

/// The app's own delegate, as it would be written against CLLocationManagerDelegate.
final class CafeArrivals: SimulatedLocationManagerDelegate {
    var arrivals: [(cafe: String, at: String)] = []
    var authorized = false

    func locationManagerDidChangeAuthorization(_ manager: SimulatedLocationManager) {
        authorized = manager.authorizationStatus == .authorizedAlways
    }

    func locationManager(_ manager: SimulatedLocationManager, didEnterRegion region: CircularRegion) {
        arrivals.append((region.identifier, manager.now.iso8601))
    }
}

@Test func theWalkArrivesAtTheCafe() throws {
    // The route, read and timed (a walk past Infinite Loop, shipped with Waypost).
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../../tracks/cupertino-walk.kml")
    let timeline = try RouteTiming().timeline(for: TrackReader().read(contentsOf: file))
    let start = timeline.span?.lowerBound ?? RouteTiming.defaultStart

    // The manager, set up as the app sets up CLLocationManager.
    let manager = SimulatedLocationManager(authorizationAnswer: .allowAlways, startTime: start)
    let app = CafeArrivals()
    manager.delegate = app
    manager.requestAlwaysAuthorization()
    let cafe = Coordinate(latitude: 37.33160, longitude: -122.03050)
    manager.startMonitoring(for: CircularRegion(identifier: "infinite-loop-cafe", center: cafe, radius: 200))

    // Drive it: each event reaches the delegate as the simulation reaches its instant.
    var entries: [TimedEvent] = []
    for event in Simulation(devices: [SimulatedDevice(route: timeline, manager: manager)]).events()
    where event.event.kind == .regionEnter {
        entries.append(event)
    }

    #expect(app.authorized)
    #expect(app.arrivals.map(\.cafe) == ["infinite-loop-cafe"])
    // The delegate's clock is the stream's instant.
    #expect(app.arrivals.map(\.at) == entries.map(\.time.iso8601))
}
