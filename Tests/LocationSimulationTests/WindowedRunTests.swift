import Geo
import LocationEvents
import SimulatedTime
import Testing
import Tracks
import WaypostSupport

@testable import LocationSimulation

/// A run that moves each device through a window at a time (`Simulation.events(window:)`, a
/// scenario's run) hands on the same events in the same order as one moved sample by sample:
/// region events stamped between samples or after them (the OS's latency), devices at different
/// update intervals and offsets, signal gaps, lifecycle moves that relaunch the app, rests, and
/// samples that share an instant.
struct WindowedRunTests {
    /// A crowd of `count` devices along the meridian past two regions, each device made afresh
    /// (a manager is used up by its run).
    static func crowd(_ count: Int, realism: Realism) -> [SimulatedDevice] {
        let regions = [
            CircularRegion(identifier: "near", center: north(300), radius: 100),
            CircularRegion(identifier: "far", center: north(900), radius: 150),
        ]
        return (0..<count).map { index in
            var configuration = LocationManagerConfiguration()
            configuration.realism = realism
            configuration.updateInterval = Seconds([1, 2.5, 1, 0.7][index % 4])
            let manager = SimulatedLocationManager(
                status: .authorizedAlways, noise: NoiseModel(index % 2 == 0 ? .urban : .none), seed: UInt64(index),
                startTime: t0, configuration: configuration)
            for region in regions { manager.startMonitoring(for: region) }
            if index % 3 != 2 { manager.startUpdatingLocation() }
            // Some walk, some cycle; some routes record a point every 4 s (gaps filled), one
            // records two points at each instant.
            let speed = index % 2 == 0 ? 1.4 : 5.0
            var samples = route(seconds: 400) { speed * $0 }.enumerated().filter { $0.offset % (1 + index % 5) == 0 }
                .map(\.element)
            if index % 7 == 3 { samples = samples.flatMap { [$0, $0] } }
            let offset = Seconds(Double(index) * 3.3 - Double(index % 4) * 0.25)
            let gap = t0.advanced(bySeconds: 100 + offset.seconds)...t0.advanced(bySeconds: 130 + offset.seconds)
            var script: [(time: EpochInstant, change: ScriptedChange)] = []
            if index % 4 == 1 {
                script = [
                    (t0.advanced(bySeconds: 30 + offset.seconds), .appState(.background)),
                    (t0.advanced(bySeconds: 60 + offset.seconds), .appState(.terminated)),
                ]
            }
            var device = SimulatedDevice(
                name: "d\(index)", route: samples, manager: manager, clockOffset: offset,
                signalGaps: index % 3 == 0 ? [gap] : [], script: script)
            device.rest = Seconds(index % 2 == 0 ? 120 : 0)
            return device
        }
    }

    /// A displaced device's longitude is wrapped without `fmod` where the difference is the
    /// remainder: the same bits as the remainder, for longitudes on both sides of the
    /// antimeridian, at its edges, and from every part of a random spread.
    @Test func aDisplacedLongitudeWrapsToTheRemaindersBits() {
        func remainder(_ longitude: Double) -> Double {
            (longitude + 540).truncatingRemainder(dividingBy: 360) - 180
        }
        var longitudes: [Double] = [
            0, -0.0, 180, -180, 179.999_999_999_999_97, -179.999_999_999_999_97, 180.000_000_000_000_03,
            -180.000_000_000_000_03, 359.5, -359.5, 540, -540, 1e-300, -1e-300, 0.1, -0.1,
            (-180.0).nextDown, (-180.0).nextUp, 180.0.nextDown, 180.0.nextUp,
        ]
        var generator = SplitMix64(seed: 41)
        for _ in 0..<100_000 { longitudes.append(Double.random(in: -400...400, using: &generator)) }
        for longitude in longitudes {
            #expect(
                DeviceCursor.wrappedLongitude(longitude).bitPattern == remainder(longitude).bitPattern,
                "longitude \(longitude)")
        }
    }

    @Test(arguments: [Realism.exact, .device])
    func aWindowedRunHandsOnTheSameEventsInTheSameOrder(realism: Realism) {
        let reference = Array(Simulation(devices: Self.crowd(12, realism: realism)).events())
        #expect(reference.count > 1_000)
        // The OS's latency stamps region events after the sample that found them: the case a
        // window must hold back, present under a non-exact realism.
        if realism == .device {
            #expect(reference.contains { if case .enteredRegion = $0.event { true } else { false } })
        }
        for window in [0.5, 3, 16, 100_000] {
            let windowed = Array(Simulation(devices: Self.crowd(12, realism: realism)).events(window: Seconds(window)))
            let differs = zip(windowed, reference).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            #expect(
                windowed.count == reference.count && differs == nil,
                "window \(window) s: first difference at \(differs ?? -1)")
        }
    }

    /// `next(through:)` moves devices only as far as asked (a whole window at a time, for a
    /// windowed run); pulled a minute at a time, then to the end, a run hands on what `next()`
    /// does, and no event while nothing is due.
    @Test(arguments: [nil, 16.0])
    func aRunPulledUpToHorizonsHandsOnTheSameEvents(window: Double?) {
        func simulation() -> Simulation { Simulation(devices: Self.crowd(8, realism: .device)) }
        let reference = Array(simulation().events())
        var events = window.map { simulation().events(window: Seconds($0)) } ?? simulation().events()
        var taken: [TimedEvent] = []
        for minute in 1...20 {
            let horizon = t0.advanced(bySeconds: Double(minute) * 60)
            while let event = events.next(through: horizon) { taken.append(event) }
            // Nothing more by this horizon: asked again, still nothing.
            #expect(events.next(through: horizon) == nil)
        }
        while let event = events.next() { taken.append(event) }
        #expect(taken.count == reference.count && taken == reference)
    }

    @Test func aStoppedWindowedRunHandsOnAPrefixAndSaysWhereItStopped() {
        let reference = Array(Simulation(devices: Self.crowd(6, realism: .exact)).events())
        var asked = 0
        var events = Simulation(devices: Self.crowd(6, realism: .exact)).events(window: Seconds(16)) {
            asked += 1
            return asked > 3
        }
        var taken: [TimedEvent] = []
        while let event = events.next() { taken.append(event) }
        #expect(!taken.isEmpty && taken.count < reference.count)
        #expect(Array(reference.prefix(taken.count)) == taken)
        #expect(events.stoppedAt != nil)
    }
}
