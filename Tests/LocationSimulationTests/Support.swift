import Geo
import LocationEvents
import LocationSimulation
import SimulatedTime
import TestSupport
import Tracks

/// Start of every synthetic route: 2025-01-01T00:00:00Z, on Cupertino's meridian.
let t0: EpochInstant = 1_735_689_600
let origin = Coordinate(latitude: 37.30, longitude: -122.03)

/// The point `metres` due north of `origin` (exactly, along the meridian).
func north(_ metres: Double) -> Coordinate {
    Geodesic.wgs84.direct(from: origin, azimuth: 0, distance: metres).coordinate
}

/// A route along the meridian: one sample a second, `position(t)` metres north of `origin`.
func route(seconds: Int, position: (Double) -> Double) -> [RouteSample] {
    (0...seconds).map { s in
        let c = north(position(Double(s)))
        return RouteSample(
            point: TrackPoint(
                latitude: c.latitude, longitude: c.longitude,
                time: .init(timeIntervalSince1970: (t0 + Double(s)).secondsSince1970)),
            speed: nil, course: nil)
    }
}

/// Runs one device and returns its events.
func run(
    _ route: [RouteSample], manager: SimulatedLocationManager, gaps: [ClosedRange<EpochInstant>] = [],
    changes: [(time: EpochInstant, status: AuthorizationStatus)] = [],
    script: [(time: EpochInstant, change: ScriptedChange)] = []
) -> [TimedEvent] {
    let simulation = Simulation(devices: [
        SimulatedDevice(
            route: route, manager: manager,
            signalGaps: gaps,
            script: changes.map { ($0.time, .authorization($0.status)) } + script)
    ])
    return Array(simulation.events())
}

/// A manager already authorized Always, created at `t0`.
func alwaysManager(
    configuration: LocationManagerConfiguration = LocationManagerConfiguration(), noise: NoiseModel = NoiseModel(.none),
    seed: UInt64 = 0
) -> SimulatedLocationManager {
    SimulatedLocationManager(
        status: .authorizedAlways, noise: noise, seed: seed, startTime: t0,
        configuration: configuration)
}

extension TimedEvent {
    var isFailure: Bool {
        if case .failed = event { return true }
        return false
    }
}

extension [TimedEvent] {
    /// Times (seconds after t0) of region transitions: ("enter"|"exit", region, t).
    var transitions: [(String, String, Double)] {
        compactMap { timed in
            switch timed.event {
            case .enteredRegion(let region, _): ("enter", region.identifier, timed.time - t0)
            case .exitedRegion(let region, _): ("exit", region.identifier, timed.time - t0)
            default: nil
            }
        }
    }

    var fixes: [(time: Double, location: Location, service: LocationService)] {
        compactMap { timed in
            if case .locationUpdated(let fix, let service) = timed.event { return (timed.time - t0, fix, service) }
            return nil
        }
    }

    var failures: [(time: Double, region: String?, code: LocationError.Code)] {
        compactMap { timed in
            switch timed.event {
            case .monitoringFailed(let region, let error): (timed.time - t0, region?.identifier, error.code)
            case .failed(let error): (timed.time - t0, nil, error.code)
            default: nil
            }
        }
    }
}
