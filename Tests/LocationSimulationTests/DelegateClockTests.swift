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

    /// Starts monitoring `region` when the app becomes authorized Always.
    final class StartsOnAlways: SimulatedLocationManagerDelegate {
        let region: CircularRegion
        init(region: CircularRegion) { self.region = region }
        func locationManager(_ manager: SimulatedLocationManager, didChangeAuthorization status: AuthorizationStatus) {
            if status == .authorizedAlways { manager.startMonitoring(for: region) }
        }
    }

    /// A delegate's call from a callback is a step of its own, taken after the step whose event it
    /// received; its events come right after that event in the log, so the stream, the observer
    /// and the delegate see one order, and the call's instant is the event's.
    @Test func aCallbacksCallsComeRightAfterItsEvent() throws {
        let region = CircularRegion(identifier: "r", center: north(0), radius: 100)
        var configuration = LocationManagerConfiguration()
        configuration.iosVersion = 12  // Always without the provisional step; the status callback
        let manager = SimulatedLocationManager(
            authorizationAnswer: .allowAlways, answerDelay: Seconds(2.5), startTime: t0, configuration: configuration)
        let delegate = StartsOnAlways(region: region)
        manager.delegate = delegate
        var observed: [TimedEvent] = []
        manager.observer = { observed.append($0) }
        manager.requestAlwaysAuthorization()
        manager.startUpdatingLocation()
        let events = run(route(seconds: 6) { _ in 0 }, manager: manager)
        #expect(observed == events, "the app saw the log's order")
        let answer = try #require(events.firstIndex { $0.event == .authorizationChanged(.authorizedAlways) })
        #expect(events[answer + 1].event == .startedMonitoring(region), "right after its event: \(events)")
        #expect(events[answer + 1].time == events[answer].time, "at the event's instant")
        #expect(events[answer + 2].event == .determinedState(.inside, for: region))
        let fixTimes = events[(answer + 3)...].filter { $0.event.type == "location" }.map(\.time)
        #expect(fixTimes.first == t0.advanced(bySeconds: 3), "the answer's sample gives a fix")
    }
}
