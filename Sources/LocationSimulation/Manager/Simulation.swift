import CMemoryHints
import Geo
import HeapModule
import LocationEvents
import SimulatedTime
import Tracks

/// A change the script makes to a device's world at a virtual time.
public enum ScriptedChange: Sendable, Equatable {
    /// The user changes the app's permission in Settings.
    case authorization(AuthorizationStatus)
    /// The app moves between foreground, background, suspension and termination.
    case appState(AppState)
    /// The app asks for temporary full accuracy (iOS 14) with an Info.plist purpose key, answered
    /// by the manager's script.
    case temporaryFullAccuracy(purposeKey: String)
    /// The app calls `requestLocation()` (iOS 9): one fix, or `locationUnknown`.
    case requestLocation
}

/// One simulated device in a run: its route, its location manager and its script.
public struct SimulatedDevice {
    /// Shown in the event stream of a run with several devices.
    public var name: String?
    /// The route's timeline (see `RouteTiming`), made sample by sample as the run goes.
    public var route: RouteTimeline
    public var manager: SimulatedLocationManager
    /// Added to the route's times: several devices can share one route, staggered.
    public var clockOffset: Seconds
    /// Metres the route is moved, north and east: several devices can share one route side by
    /// side. Converted to degrees once, at the route's first position.
    public var displacement: (north: Double, east: Double)
    /// Virtual-time intervals with no signal (tunnels), after the offset is applied.
    public var signalGaps: [ClosedRange<EpochInstant>]
    /// Changes by the user or iOS during the run, at virtual times, in time order.
    public var script: [(time: EpochInstant, change: ScriptedChange)]
    /// How long the device stays at its route's last position after the route ends, still
    /// sampled, so events waiting out their latency arrive as they would on a resting phone.
    public var rest = Seconds.zero

    public init(
        name: String? = nil, route: RouteTimeline, manager: SimulatedLocationManager, clockOffset: Seconds = .zero,
        displacement: (north: Double, east: Double) = (0, 0), signalGaps: [ClosedRange<EpochInstant>] = [],
        script: [(time: EpochInstant, change: ScriptedChange)] = []
    ) {
        self.name = name
        self.route = route
        self.manager = manager
        self.clockOffset = clockOffset
        self.displacement = displacement
        self.signalGaps = signalGaps.sorted { $0.lowerBound < $1.lowerBound }
        self.script = script.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map(\.element)
    }

    /// The same device on samples already made (tests, generated routes).
    public init(
        name: String? = nil, route: [RouteSample], manager: SimulatedLocationManager, clockOffset: Seconds = .zero,
        signalGaps: [ClosedRange<EpochInstant>] = [], script: [(time: EpochInstant, change: ScriptedChange)] = []
    ) {
        self.init(
            name: name, route: RouteTimeline(route), manager: manager, clockOffset: clockOffset,
            signalGaps: signalGaps, script: script)
    }

    /// First and last instants of the device's route, after the offset.
    public var span: ClosedRange<EpochInstant>? {
        route.span.map {
            $0.lowerBound.advanced(by: clockOffset)...$0.upperBound.advanced(by: clockOffset).advanced(by: rest)
        }
    }
}

/// Runs devices along their routes on virtual time. ``events()`` pulls the run's events one at a
/// time, in time order; the run advances only as far as the next event needs, so a consumer that
/// stops or throws simply stops pulling.
///
/// ```swift
/// let start = timeline.span?.lowerBound ?? RouteTiming.defaultStart
/// let manager = SimulatedLocationManager(status: .authorizedAlways, startTime: start)
/// manager.startUpdatingLocation()
/// let simulation = Simulation(devices: [SimulatedDevice(route: timeline, manager: manager)])
/// for event in simulation.events() { print(event) }
/// ```
public struct Simulation {
    public var devices: [SimulatedDevice]

    public init(devices: [SimulatedDevice]) {
        self.devices = devices
    }

    /// The instants the run covers.
    public var span: ClosedRange<EpochInstant>? {
        let spans = devices.compactMap(\.span)
        guard let low = spans.map(\.lowerBound).min(), let high = spans.map(\.upperBound).max() else { return nil }
        return low...high
    }

    /// The run's events, pulled one at a time: each manager's log
    /// (``SimulatedLocationManager/drainEmitted(into:device:)``), from what it emitted before the
    /// run — an app's launch: its authorization and monitoring events — to the end of every route.
    /// The same stream, byte for byte, as `waypost replay` prints.
    public func events() -> SimulationEvents { SimulationEvents(devices: devices) }

    /// The run's events, stopped when `shouldStop` answers true: see
    /// ``SimulationEvents/stopping(when:)``.
    public func events(stoppingWhen shouldStop: @escaping () -> Bool) -> SimulationEvents {
        SimulationEvents(devices: devices, stop: shouldStop)
    }

    /// The run's events in the same order, moving each device through `window` of virtual time
    /// at a time rather than one sample: for a consumer that only reads the events, never calling
    /// a manager between two of them (a scenario's run). Faster for a crowd; `next(through:)`
    /// moves whole windows.
    package func events(window: Seconds, stoppingWhen shouldStop: (() -> Bool)? = nil) -> SimulationEvents {
        SimulationEvents(devices: devices, stop: shouldStop, windowSpan: window.seconds)
    }

    /// Runs to the end of every route, moving `clock` to each event's instant before it is
    /// handed on, after `pacing` (if any) has waited for it.
    public func run(clock: SimulatedClock? = nil, pacing: (any Pacing)? = nil, onEvent: (TimedEvent) -> Void) {
        var pacing = pacing
        for event in events() {
            pacing?.wait(until: event.time)
            clock?.advance(to: event.time)
            onEvent(event)
        }
    }
}

/// The events of a ``Simulation``, in virtual-time order, produced as they are pulled.
///
/// With one device, events come out as its manager emits them. With several, a region event may
/// be stamped between a device's samples, so events wait until every device has moved past their
/// time; same-time events keep the order they were emitted in.
public struct SimulationEvents: Sequence, IteratorProtocol {
    /// A device's next sample time; the earliest first, ties to the device listed first.
    private struct Due: Comparable {
        var time: EpochInstant
        var device: Int

        static func < (a: Due, b: Due) -> Bool { (a.time, a.device) < (b.time, b.device) }
    }

    /// A sample moved in a window (see ``Run/stepWindow(span:)``): when, and where the events it
    /// brought lie in the window's. Samples are appended device by device, each device's in its
    /// order, so a stable sort by time gives the order ``Run/step()`` moves them in: by time, ties
    /// to the device listed first (and a device's own samples at one instant in their order).
    /// Sixteen bytes: a window sorts a few hundred thousand of them. The events' place travels
    /// with the sample: looked up by the sample's number after the sort, nearly every lookup
    /// missed the cache (perf: a fifth of handing a window on).
    private struct WindowStep {
        var time: EpochInstant
        var first: UInt32
        var end: UInt32

        var events: Range<Int> { Int(first)..<Int(end) }
    }

    /// The run's state: the cursors, and the managers' events taken from their logs.
    private struct Run {
        var cursors: [DeviceCursor]
        /// With several devices, when each one that is still moving moves next: a heap, so a step
        /// costs log(devices), not a scan of 10,000 of them.
        var upcoming = Heap<Due>()
        var buffer: [TimedEvent] = []
        var ready: [TimedEvent] = []
        var readIndex = 0
        let managers: [SimulatedLocationManager]
        /// The same managers unretained (`managers` keeps them for the run): a sample reaches its
        /// manager without retaining and releasing it (perf: 3 % of a field trial's simulation).
        let unretained: [Unmanaged<SimulatedLocationManager>]
        let names: [String?]
        /// Asked every ``SimulationEvents/pollInterval`` samples moved; true stops the run.
        let stop: (() -> Bool)?
        var movesSincePoll = 0
        /// The time of the last sample moved.
        var reached: EpochInstant?
        /// Set when `stop` stopped the run: the virtual time it had reached.
        var stoppedAt: EpochInstant?
        /// Seconds of virtual time each device is moved through at a time, when set (see
        /// ``stepWindow(span:)``); nil moves one sample at a time.
        let windowSpan: Double?
        /// A window's samples and the events they brought, kept between windows for their
        /// capacity.
        var windowSteps: [WindowStep] = []
        var windowEvents: [TimedEvent] = []
        /// The sort's working space, kept for its capacity.
        var windowScratch: [WindowStep] = []
        /// The window's next sample to hand on, in `windowSteps`; the events of the one handed on
        /// still to be taken from `windowEvents`; the earliest sample after the window.
        var windowNext = 0
        var streamed = 0..<0
        var afterWindow = EpochInstant.distantFuture

        init(devices: [SimulatedDevice], stop: (() -> Bool)?, windowSpan: Double? = nil) {
            self.stop = stop
            self.windowSpan = devices.count > 1 ? windowSpan : nil
            cursors = devices.map {
                DeviceCursor(device: $0, interval: $0.manager.configuration.updateInterval.seconds)
            }
            if cursors.count > 1 && self.windowSpan == nil {
                for i in cursors.indices {
                    if let time = cursors[i].peek()?.time { upcoming.insert(Due(time: time, device: i)) }
                }
            }
            managers = devices.map(\.manager)
            unretained = managers.map(Unmanaged.passUnretained)
            names = devices.map(\.name)
            // What the managers emitted before the run (an app's launch) comes first.
            for (manager, name) in zip(managers, names) { manager.drainEmitted(into: &buffer, device: name) }
        }

        /// When the next sample of any device is stamped, nil when every route is done.
        mutating func nextSampleTime() -> EpochInstant? {
            if windowSpan != nil { return earliestNextSample() }
            return cursors.count > 1 ? upcoming.min?.time : cursors[0].peek()?.time
        }

        /// Moves the device whose next sample comes first (or, with a window span, every device
        /// through a window); false when every route is done.
        mutating func step() -> Bool {
            if let windowSpan { return stepWindow(span: windowSpan) }
            let chosen = cursors.count > 1 ? upcoming.popMin()?.device ?? 0 : 0
            guard let sample = cursors[chosen].next() else {
                release(through: .distantFuture)
                return false
            }
            unretained[chosen]._withUnsafeGuaranteedRef { manager in
                cursors[chosen].deliver(sample, to: manager)
                manager.drainEmitted(into: &buffer, device: names[chosen])
            }
            reached = sample.time
            if cursors.count > 1, let time = cursors[chosen].peek()?.time {
                upcoming.insert(Due(time: time, device: chosen))
            }
            release(through: cursors.count > 1 ? upcoming.min?.time ?? .distantFuture : .distantFuture)
            return true
        }

        /// Moves each device in turn through its samples stamped before the window's end — `span`
        /// seconds past the earliest next sample — and sorts the samples moved into the order
        /// ``step()`` would have moved them in; ``takePending()`` then hands their events on
        /// exactly as ``step()`` would have, sample by sample. Managers share nothing, so a
        /// device's events do not depend on when the others move; moving one device through many
        /// samples keeps its state in the processor's cache, where one sample of each of 10,000
        /// devices in turn fetches each one's from memory every time. Only for a run whose
        /// consumer does not reach into a manager between events (a scenario's run).
        private mutating func stepWindow(span: Double) -> Bool {
            guard let start = earliestNextSample() else {
                release(through: .distantFuture)
                return false
            }
            let end = start.advanced(bySeconds: span)
            windowSteps.removeAll(keepingCapacity: true)
            windowEvents.removeAll(keepingCapacity: true)
            windowNext = 0
            for device in cursors.indices {
                // Taken once a device: read from the arrays at every sample, the manager was
                // retained and released each time (perf: 2 % of a 10,000-device crowd's CPU).
                let (manager, name) = (managers[device], names[device])
                // The manager appends to the window's events while it moves (its own log is
                // empty between samples: every sample's events are taken).
                let named = windowEvents.count
                manager.exchangeLog(&windowEvents)
                var stopped = false
                while let sample = cursors[device].next(before: end) {
                    // A stop abandons the window: what was handed on stays a prefix of the run.
                    if mustStop() {
                        stopped = true
                        break
                    }
                    let first = UInt32(manager.loggedCount)
                    cursors[device].deliver(sample, to: manager)
                    windowSteps.append(WindowStep(time: sample.time, first: first, end: UInt32(manager.loggedCount)))
                }
                manager.exchangeLog(&windowEvents)
                if stopped {
                    windowSteps.removeAll(keepingCapacity: true)
                    return false
                }
                if let name { Self.name(&windowEvents, from: named, device: name) }
            }
            StableRadixSort.sort(&windowSteps, scratch: &windowScratch) {
                StableRadixSort.key($0.time.secondsSince1970)
            }
            afterWindow = earliestNextSample() ?? .distantFuture
            return true
        }

        /// Names the events from `start` on for `device`, in place.
        private static func name(_ events: inout [TimedEvent], from start: Int, device: String) {
            events.withUnsafeMutableBufferPointer { events in
                for index in start..<events.count { events[index].device = device }
            }
        }

        /// The next event already made: the ready queue's, else the window's — handing on the
        /// window's samples in time order until one brings an event. Nil when neither holds one.
        ///
        /// A window's events are taken from where each device's run put them, one sample's at a
        /// time, rather than gathered into the ready queue first: a move less for every event,
        /// and the window's megabytes not held twice.
        mutating func takePending() -> TimedEvent? {
            while true {
                if readIndex < ready.count { return takeReady() }
                if let position = streamed.popFirst() {
                    return windowEvents.withUnsafeMutableBufferPointer { Self.take(position, from: $0) }
                }
                guard windowNext < windowSteps.count else { return nil }
                handOnWindowStep()
            }
        }

        /// Hands on the window's next sample's events as ``step()`` would: to be taken in place
        /// when nothing waits and they are due in order, else through the buffer.
        private mutating func handOnWindowStep() {
            let index = windowNext
            windowNext += 1
            prefetchWindow(after: index)
            let step = windowSteps[index]
            let range = step.events
            let horizon = windowNext < windowSteps.count ? windowSteps[windowNext].time : afterWindow
            reached = step.time
            if buffer.isEmpty && Self.inOrder(windowEvents[range], through: horizon) {
                streamed = range
            } else {
                buffer.append(contentsOf: windowEvents[range])
                release(through: horizon)
            }
        }

        /// The window's events are read in time order, each device's from where its own run put
        /// them: across the whole window (10,000 devices' events, megabytes), where nearly every
        /// read missed the cache (perf: a sixth of a crowd's CPU stalled there). The lines a few
        /// samples ahead are asked for early, so they arrive while these are handed on.
        @inline(__always) private func prefetchWindow(after index: Int) {
            guard index + Self.prefetchDistance < windowSteps.count else { return }
            let ahead = Int(windowSteps[index + Self.prefetchDistance].first)
            guard ahead < windowEvents.count else { return }
            windowEvents.withUnsafeBufferPointer { events in
                guard let first = UnsafeRawPointer(events.baseAddress) else { return }
                // Every cache line the event touches is asked for: 112 bytes lie across three
                // lines as often as across two.
                let size = MemoryLayout<TimedEvent>.stride
                let start = first + ahead * size
                for offset in Swift.stride(from: 0, to: size, by: 64) { waypost_prefetch(start + offset) }
                waypost_prefetch(start + (size - 1))
            }
        }

        /// How many samples ahead ``handOnWindowStep()`` asks for a sample's events: far enough
        /// for memory to answer while the samples between are handed on.
        private static let prefetchDistance = 8

        /// Whether `events` are in time order and none is stamped after `horizon`.
        private static func inOrder(_ events: some Collection<TimedEvent>, through horizon: EpochInstant) -> Bool {
            var previous = EpochInstant.distantPast
            for event in events {
                guard event.time <= horizon, event.time >= previous else { return false }
                previous = event.time
            }
            return true
        }

        /// The earliest next sample of any device, nil when every route is done.
        private mutating func earliestNextSample() -> EpochInstant? {
            var earliest: EpochInstant?
            for device in cursors.indices {
                if let time = cursors[device].peek()?.time, earliest.map({ time < $0 }) ?? true { earliest = time }
            }
            return earliest
        }

        /// Whether the run must stop before the next sample: `stop` is asked once every
        /// ``SimulationEvents/pollInterval`` samples, so a clock read costs nothing per sample;
        /// once it has said yes, the run stays stopped.
        @inline(__always) mutating func mustStop() -> Bool {
            guard let stop else { return false }
            if stoppedAt != nil { return true }
            movesSincePoll &+= 1
            guard movesSincePoll >= SimulationEvents.pollInterval else { return false }
            movesSincePoll = 0
            guard stop() else { return false }
            stoppedAt = reached ?? nextSampleTime() ?? EpochInstant(secondsSince1970: 0)
            return true
        }

        /// Moves buffered events stamped up to `horizon` to the ready queue, in time order (one
        /// device's as they were emitted).
        private mutating func release(through horizon: EpochInstant) {
            guard !buffer.isEmpty else { return }
            // Nearly always everything buffered is due and in time order: moved whole.
            if (horizon == .distantFuture && cursors.count == 1) || Self.inOrder(buffer, through: horizon) {
                if readIndex == ready.count {
                    ready.removeAll(keepingCapacity: true)
                    readIndex = 0
                    swap(&ready, &buffer)  // the events change hands without being copied
                } else {
                    ready.append(contentsOf: buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
                return
            }
            var due = buffer.filter { $0.time <= horizon }
            buffer.removeAll { $0.time <= horizon }
            due.sort { $0.time < $1.time }  // stable: same-time events keep their order
            handOn(due)
        }

        /// The next ready event, moved out of the queue: copying it would cost a copy now and a
        /// destroy when the queue is emptied, for every event of the run.
        private mutating func takeReady() -> TimedEvent {
            defer { readIndex += 1 }
            return ready.withUnsafeMutableBufferPointer { [readIndex] in Self.take(readIndex, from: $0) }
        }

        /// The event at `index`, moved out; a placeholder with nothing to release is put in its
        /// place. Moved and put, not swapped: a swap made the placeholder twice and copied and
        /// destroyed one through the event's outlined copy and destroy, at every event.
        @inline(__always) private static func take(_ index: Int, from events: UnsafeMutableBufferPointer<TimedEvent>)
            -> TimedEvent
        {
            let taken = events.moveElement(from: index)
            events.initializeElement(
                at: index, to: TimedEvent(time: EpochInstant(secondsSince1970: 0), event: .locationUpdatesPaused))
            return taken
        }

        /// Appends `events` to the ready queue, emptying it first when all of it has been taken.
        private mutating func handOn(_ events: some Collection<TimedEvent>) {
            if readIndex == ready.count {
                ready.removeAll(keepingCapacity: true)
                readIndex = 0
            }
            ready.append(contentsOf: events)
        }
    }

    /// The run, shared by copies of this sequence. A run is pulled on one thread, one step at a
    /// time, so no two accesses to it overlap: the runtime's exclusivity checks (a few per event,
    /// through thread-local storage) are left out.
    private final class Shared {
        @exclusivity(unchecked) var run: Run
        init(_ run: Run) { self.run = run }
    }

    private let shared: Shared
    private var run: Run {
        _read { yield shared.run }
        nonmutating _modify { yield &shared.run }
    }

    /// Samples moved between two questions to a `stop` closure: a wall-clock read every 256
    /// samples is nothing next to moving them, yet a stretch of samples without any event (paused
    /// updates, a regions-only app, a long gap in a timed track) still looks at it every few
    /// milliseconds.
    public static let pollInterval = 256

    init(devices: [SimulatedDevice], stop: (() -> Bool)? = nil, windowSpan: Double? = nil) {
        shared = Shared(Run(devices: devices, stop: stop, windowSpan: windowSpan))
    }

    /// Where a run stopped by its `stop` closure (``Simulation/events(stoppingWhen:)``) stopped:
    /// the virtual time of the last sample moved. Nil while it goes on, or when it ran to its end.
    ///
    /// A time budget checked only as events come would never fire while none come: a route whose
    /// updates paused can grind through days of samples without one. The run itself asks.
    public var stoppedAt: EpochInstant? { run.stoppedAt }

    /// The next event, moving devices only through samples stamped up to `horizon`; nil when no
    /// event comes by then (the later samples stay for the next call).
    public mutating func next(through horizon: EpochInstant) -> TimedEvent? {
        while true {
            if let event = run.takePending() { return event }
            guard !run.mustStop(), let time = run.nextSampleTime(), time <= horizon else { return nil }
            _ = run.step()
        }
    }

    /// The next event; nil at the end of the run, or when its `stop` closure stopped it
    /// (``stoppedAt``).
    public mutating func next() -> TimedEvent? {
        while true {
            if let event = run.takePending() { return event }
            if run.mustStop() { return nil }
            guard run.step() else { return run.takePending() }
        }
    }
}

/// Walks one device's route: samples at the route's points, with points interpolated where
/// the route leaves gaps longer than the update interval, and the script applied on the way.
struct DeviceCursor {
    let device: SimulatedDevice
    let interval: Double
    private var route: RouteTimeline.Iterator
    /// The route's next sample, read one ahead to fill the gap before it.
    private var upcoming: RouteSample?
    private var fill: (from: RouteSample, to: RouteSample, step: Int, steps: Int, motion: Motion)?
    private var change = 0
    /// What ``peek()`` made, handed out by the next ``next()``.
    private var peeked: DeviceSample??
    /// The route's last sample once it has been handed out, and the time of the latest resting
    /// sample after it (``SimulatedDevice/rest``).
    private var resting: (at: RouteSample, time: Double)?
    /// The device's displacement in degrees (latitude, longitude).
    private let shift: (latitude: Double, longitude: Double)

    init(device: SimulatedDevice, interval: Double) {
        self.device = device
        // Zero, negative or NaN fills no gap (it trapped: a gap over zero is no count of steps).
        self.interval = interval > 0 ? interval : .infinity
        route = device.route.makeIterator()
        upcoming = route.next()
        if let origin = upcoming?.point, device.displacement != (0, 0) {
            let metric = LocalMetric(latitude: origin.latitude)
            shift = (
                device.displacement.north / metric.metresPerDegreeLatitude,
                device.displacement.east / metric.metresPerDegreeLongitude
            )
        } else {
            shift = (0, 0)
        }
    }

    mutating func peek() -> DeviceSample? {
        if let peeked { return peeked }
        let sample = make()
        peeked = .some(sample)
        return sample
    }

    mutating func next() -> DeviceSample? {
        if let peeked {
            self.peeked = nil
            return peeked
        }
        return make()
    }

    /// The next sample when it is stamped before `end`; a later one waits for the next call (or
    /// ``peek()``). A window's samples go straight on, not kept by ``peek()`` and copied out again
    /// by ``next()`` (perf: 1.5 % of a 10,000-device crowd's CPU).
    mutating func next(before end: EpochInstant) -> DeviceSample? {
        if let peeked {
            guard let sample = peeked, sample.time < end else { return nil }
            self.peeked = nil
            return sample
        }
        let sample = make()
        guard let sample, sample.time < end else {
            peeked = .some(sample)
            return nil
        }
        return sample
    }

    private mutating func make() -> DeviceSample? {
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
                        longitude: Longitude.between(a.longitude, b.longitude, at: f)),
                    altitude: a.altitude.flatMap { x in b.altitude.map { x + ($0 - x) * f } },
                    speed: fill.motion.speed, course: fill.motion.course)
            }
            self.fill = nil
        }
        guard let current = upcoming else { return restingSample() }
        upcoming = route.next()
        if upcoming == nil, device.rest > .zero { resting = (current, current.point.storedTimeOrZero) }
        if let next = upcoming {
            let span = next.point.storedTimeOrZero - current.point.storedTimeOrZero
            // At most Int32.max steps: a gap of years at a nanosecond's interval is no count of steps.
            let steps = Int(min((span / interval).rounded(.up), Double(Int32.max)))
            if steps > 1 { fill = (current, next, 0, steps, Self.motion(from: current, to: next)) }
        }
        return sample(
            time: current.point.storedTimeOrZero, coordinate: current.point.coordinate,
            altitude: current.point.altitude, speed: current.speed, course: current.course)
    }

    typealias Motion = (speed: Double?, course: Double?)

    /// The motion of the samples filled in between two of the route's: the leg's — its length
    /// over its time, its direction (none without one) — as a receiver moving along it reports.
    /// The first sample's own motion was carried over every filled sample: a recorded speed or
    /// course (GPX `speed`, Garmin's TrackPointExtension) is the point's, not the leg's, and the
    /// jump between two of a file's paths (a GPX track's segments) is a leg of its own — 5.55
    /// m/s was reported across a 1.1 km gap crossed in 4 s, and a pause between segments kept
    /// the speed before it (a black-box hunt). Where the first sample's motion is the leg's
    /// already (the timeline derived it from the same two points, within its metric's rounding),
    /// it is kept to the bit.
    static func motion(from a: RouteSample, to b: RouteSample) -> Motion {
        let (speed, course) = RouteTimeline.motion(
            from: a.point, to: b.point, metric: LocalMetric(latitude: a.point.latitude))
        func near(_ given: Double?, _ leg: Double?, within tolerance: Double) -> Bool {
            guard let given, let leg else { return given == nil && leg == nil }
            return abs(given - leg) <= tolerance
        }
        return (
            near(a.speed, speed, within: 1e-3 * (speed ?? 0) + 1e-9) ? a.speed : speed,
            near(a.course, course, within: 0.05) ? a.course : course
        )
    }

    /// The next sample of the rest after the route: the last position, still, every interval.
    private mutating func restingSample() -> DeviceSample? {
        guard let (last, time) = resting else { return nil }
        let end = last.point.storedTimeOrZero + device.rest.seconds
        guard time < end else { return nil }
        let next = min(end, time + interval)
        resting = (last, next)
        return sample(
            time: next, coordinate: last.point.coordinate, altitude: last.point.altitude, speed: 0, course: nil)
    }

    private func sample(time: Double, coordinate: Coordinate, altitude: Double?, speed: Double?, course: Double?)
        -> DeviceSample
    {
        let t = EpochInstant(secondsSince1970: time + device.clockOffset.seconds)
        var coordinate = coordinate
        if shift != (0, 0) {
            coordinate.latitude = min(90, max(-90, coordinate.latitude + shift.latitude))
            coordinate.longitude = Self.wrappedLongitude(coordinate.longitude + shift.longitude)
        }
        return DeviceSample(
            time: t, coordinate: coordinate, altitude: altitude, speed: speed, course: course,
            hasSignal: !device.signalGaps.contains { $0.contains(t) })
    }

    /// `longitude` wrapped as `(longitude + 540) % 360 - 180` has always wrapped it (into
    /// [-180, 180) from -540 up). Nearly every displaced longitude is in range, and there the
    /// remainder is the difference, exactly (Sterbenz's lemma: 360 ≤ x < 720), so the `fmod`
    /// call is left out (perf: 1.3 % of a 10,000-device crowd's CPU).
    static func wrappedLongitude(_ longitude: Double) -> Double {
        let turned = longitude + 540
        return (turned >= 360 && turned < 720 ? turned - 360 : turned.truncatingRemainder(dividingBy: 360)) - 180
    }

    /// Applies scripted changes due by the sample's time, then moves the device: through its
    /// `manager`, which the caller holds (read from `device` here, it was retained and released
    /// around every sample).
    mutating func deliver(_ sample: DeviceSample, to manager: SimulatedLocationManager) {
        while change < device.script.count, device.script[change].time <= sample.time {
            let (time, scripted) = device.script[change]
            switch scripted {
            case .authorization(let status): manager.changeAuthorization(to: status, at: time)
            case .appState(let state): manager.changeAppState(to: state, at: time)
            case .temporaryFullAccuracy(let purposeKey):
                manager.requestTemporaryFullAccuracyAuthorization(withPurposeKey: purposeKey, at: time)
            case .requestLocation: manager.requestLocation(at: time)
            }
            change += 1
        }
        manager.move(to: sample)
    }
}

extension TrackPoint {
    fileprivate var storedTimeOrZero: Double { timeIntervalSince1970 ?? 0 }
}
