import Geo
import Tracks

/// One simulated device in a run: its route, its location manager and its script.
public struct SimulatedDevice {
    /// Shown in the event stream of a run with several devices.
    public var name: String?
    /// The route's timeline (see `RouteTiming`).
    public var route: [RouteSample]
    public var manager: SimulatedLocationManager
    /// Seconds added to the route's times: several devices can share one route, staggered.
    public var clockOffset: Double
    /// Virtual-time intervals with no signal (tunnels), after the offset is applied.
    public var signalGaps: [ClosedRange<Double>]
    /// Authorization changes by the user during the run, at virtual times.
    public var authorizationChanges: [(time: Double, status: AuthorizationStatus)]

    public init(
        name: String? = nil, route: [RouteSample], manager: SimulatedLocationManager, clockOffset: Double = 0,
        signalGaps: [ClosedRange<Double>] = [], authorizationChanges: [(time: Double, status: AuthorizationStatus)] = []
    ) {
        self.name = name
        self.route = route
        self.manager = manager
        self.clockOffset = clockOffset
        self.signalGaps = signalGaps.sorted { $0.lowerBound < $1.lowerBound }
        self.authorizationChanges = authorizationChanges.sorted { $0.time < $1.time }
    }

    /// First and last instants of the device's route, after the offset.
    public var span: ClosedRange<Double>? {
        guard let first = route.first?.point.timeIntervalSince1970, let last = route.last?.point.timeIntervalSince1970
        else { return nil }
        return (first + clockOffset)...(last + clockOffset)
    }
}

/// Runs devices along their routes on virtual time and hands every event, in time order, to
/// `onEvent`.
///
/// ```swift
/// let manager = SimulatedLocationManager(status: .authorizedAlways, startTime: timeline[0].point.timeIntervalSince1970 ?? 0)
/// manager.startUpdatingLocation()
/// var simulation = Simulation(devices: [SimulatedDevice(route: timeline, manager: manager)])
/// var clock = VirtualClock()
/// simulation.run(clock: &clock) { print($0) }
/// ```
public struct Simulation {
    public var devices: [SimulatedDevice]

    public init(devices: [SimulatedDevice]) {
        self.devices = devices
    }

    /// The instants the run covers.
    public var span: ClosedRange<Double>? {
        let spans = devices.compactMap(\.span)
        guard let low = spans.map(\.lowerBound).min(), let high = spans.map(\.upperBound).max() else { return nil }
        return low...high
    }

    /// Runs to the end of every route. Each manager's ``SimulatedLocationManager/observer`` is
    /// borrowed for the run and restored afterwards.
    public func run(clock: inout some SimulationClock, onEvent: @escaping (TimedEvent) -> Void) {
        let previousObservers = devices.map(\.manager.observer)
        defer { for (device, observer) in zip(devices, previousObservers) { device.manager.observer = observer } }
        var cursors = devices.map { DeviceCursor(device: $0, interval: $0.manager.configuration.updateInterval) }
        if devices.count == 1 {
            // One device: its events are already in time order.
            let name = devices[0].name
            devices[0].manager.observer = { event in
                var event = event
                event.device = name
                onEvent(event)
            }
            while let sample = cursors[0].next() {
                clock.advance(to: sample.time)
                cursors[0].deliver(sample)
            }
            return
        }
        // Several devices: a region event may be stamped between a device's samples, so events
        // wait in a buffer until every device has moved past their time.
        var buffer: [TimedEvent] = []
        for device in devices {
            let name = device.name
            device.manager.observer = { event in
                var event = event
                event.device = name
                buffer.append(event)
            }
        }
        var upcoming = cursors.map { $0.peek() }
        while let (i, _) = upcoming.enumerated().compactMap({ i, s in s.map { (i, $0.time) } }).min(by: { $0.1 < $1.1 }
        ),
            let sample = cursors[i].next()
        {
            clock.advance(to: sample.time)
            cursors[i].deliver(sample)
            upcoming[i] = cursors[i].peek()
            let horizon = upcoming.compactMap { $0?.time }.min() ?? .infinity
            if !buffer.isEmpty {
                var ready = buffer.filter { $0.time <= horizon }
                buffer.removeAll { $0.time <= horizon }
                ready.sort { $0.time < $1.time }  // stable: same-time events keep their order
                ready.forEach(onEvent)
            }
        }
        buffer.sorted { $0.time < $1.time }.forEach(onEvent)
    }
}

/// Walks one device's route: samples at the route's points, with points interpolated where
/// the route leaves gaps longer than the update interval, and the script applied on the way.
struct DeviceCursor {
    let device: SimulatedDevice
    let interval: Double
    private var index = 0
    private var fill: (from: RouteSample, to: RouteSample, step: Int, steps: Int)?
    private var gap = 0
    private var change = 0

    init(device: SimulatedDevice, interval: Double) {
        self.device = device
        self.interval = interval
    }

    func peek() -> DeviceSample? {
        var copy = self
        return copy.next()
    }

    mutating func next() -> DeviceSample? {
        if var fill {
            fill.step += 1
            if fill.step < fill.steps {
                self.fill = fill
                let f = Double(fill.step) / Double(fill.steps)
                let a = fill.from.point
                let b = fill.to.point
                return sample(
                    time: a.storedTimeOrZero + (b.storedTimeOrZero - a.storedTimeOrZero) * f,
                    coordinate: Coordinate(
                        latitude: a.latitude + (b.latitude - a.latitude) * f,
                        longitude: a.longitude + (b.longitude - a.longitude) * f),
                    altitude: a.altitude.flatMap { x in b.altitude.map { x + ($0 - x) * f } },
                    speed: fill.from.speed, course: fill.from.course)
            }
            self.fill = nil
        }
        guard index < device.route.count else { return nil }
        let current = device.route[index]
        index += 1
        if index < device.route.count {
            let next = device.route[index]
            let span = next.point.storedTimeOrZero - current.point.storedTimeOrZero
            let steps = Int((span / interval).rounded(.up))
            if steps > 1 { fill = (current, next, 0, steps) }
        }
        return sample(
            time: current.point.storedTimeOrZero, coordinate: current.point.coordinate,
            altitude: current.point.altitude, speed: current.speed, course: current.course)
    }

    private func sample(time: Double, coordinate: Coordinate, altitude: Double?, speed: Double?, course: Double?)
        -> DeviceSample
    {
        let t = time + device.clockOffset
        return DeviceSample(
            time: t, coordinate: coordinate, altitude: altitude, speed: speed, course: course,
            hasSignal: !device.signalGaps.contains { $0.contains(t) })
    }

    /// Applies scripted changes due by the sample's time, then moves the device.
    mutating func deliver(_ sample: DeviceSample) {
        while change < device.authorizationChanges.count, device.authorizationChanges[change].time <= sample.time {
            let scripted = device.authorizationChanges[change]
            device.manager.changeAuthorization(to: scripted.status, at: scripted.time)
            change += 1
        }
        device.manager.move(to: sample)
    }
}

extension TrackPoint {
    fileprivate var storedTimeOrZero: Double { timeIntervalSince1970 ?? 0 }
}
