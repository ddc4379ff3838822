import LocationEvents
import LocationSimulation
import SimulatedTime
import Testing

/// Issue 44: inside `didEnterRegion` the manager's `now` was the next sample (0.14 s after the
/// crossing on the commute) while the stream reported the crossing's instant. One time for one
/// event now: the delegate reads the stream's instant.
struct DelegateClockTests {
    final class Recorder: SimulatedLocationManagerDelegate {
        var seen: [(String, EpochInstant)] = []
        func locationManager(_ manager: SimulatedLocationManager, didEnterRegion region: CircularRegion) {
            seen.append(("regionEnter", manager.now))
        }
        func locationManager(_ manager: SimulatedLocationManager, didExitRegion region: CircularRegion) {
            seen.append(("regionExit", manager.now))
        }
        func locationManager(_ manager: SimulatedLocationManager, didUpdateLocations locations: [Location]) {
            seen.append(("location", manager.now))
        }
    }

    @Test func aCallbacksClockIsItsEventsInstant() throws {
        let manager = alwaysManager()
        let recorder = Recorder()
        manager.delegate = recorder
        manager.startUpdatingLocation()
        manager.startMonitoring(for: CircularRegion(identifier: "r", center: north(500), radius: 100))
        // 0.7 m/s, sampled each second: the entry's instant falls between samples.
        let events = run(route(seconds: 1_500) { 0.7 * $0 }, manager: manager)
        let stream = events.compactMap { timed -> (String, EpochInstant)? in
            ["regionEnter", "regionExit", "location"].contains(timed.event.type) ? (timed.event.type, timed.time) : nil
        }
        #expect(stream.contains { $0.0 == "regionEnter" } && stream.contains { $0.0 == "regionExit" })
        #expect(recorder.seen.map(\.0) == stream.map(\.0))
        #expect(recorder.seen.map(\.1) == stream.map(\.1))
        let entry = try #require(stream.first { $0.0 == "regionEnter" })
        #expect(entry.1.secondsSince1970.rounded() != entry.1.secondsSince1970, "between samples")
        #expect(manager.now >= stream.last?.1 ?? manager.now, "the clock does not go back after a callback")
    }
}
