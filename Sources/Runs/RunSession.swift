import CheckinEngine
import Foundation
import LocationEvents
import LocationSimulation
import SimulatedTime
import SocialAPI
import Store

/// What a run tells its front end, in virtual-time order.
public enum RunEvent {
    /// A device's manager told its app something (launch events included, merged by time).
    case location(TimedEvent)
    /// A post was created or moved on, at this instant of the delivery's clock. Boxed: a record
    /// is twice an event's size, and every event of a run is handed on in this enum.
    indirect case post(AuditRecord, at: EpochInstant)
}

/// What is left when a run is over.
public struct RunOutcome {
    /// The run's start (the earliest device's), in virtual time.
    public var origin: EpochInstant
    /// The run as the store recorded it; nil without check-ins.
    public var run: RunRecord?
    /// How many location events the run made.
    public var eventCount: Int
    /// Posts the outbox still holds unsent (servers that kept failing past the longest wait).
    public var stillQueued: Int
    /// The networks whose servers refused the run's credentials, with the refusal: their posts
    /// stay queued (``CheckinEngine/OutboxDelivery/credentialsRefused``).
    public var credentialsRefused: [Network: String] = [:]
    /// The run's audit records as the store holds them, in the order the posts were first
    /// recorded (empty without check-ins).
    public var posts: [AuditRecord] = []
}

/// Why a run could not be carried out.
public enum RunSessionError: Error, CustomStringConvertible {
    case noDevices
    /// A route could not be timed (read errors are the reader's own).
    case route(displayName: String, message: String)
    case emulatorUnavailable(String)
    case unreadableMonitorRecord(store: String, monitor: String, identifier: String)
    /// `stoppingWhen` said stop; how far past the start the run had reached, in virtual time.
    case stopped(at: Duration)

    public var description: String {
        switch self {
        case .noDevices: "no devices"
        case .route(let name, let message): "\(name): \(message)"
        case .emulatorUnavailable(let reason): "cannot start the in-process emulator: \(reason)"
        case .unreadableMonitorRecord(let store, let monitor, let identifier):
            "\(store): the monitor record '\(identifier)' of '\(monitor)' is unreadable"
        case .stopped(let at): "stopped at virtual +\(Int(max(0, at.inSeconds))) s"
        }
    }
}

/// One run: the devices' managers made and launched, their routes moved on one virtual clock,
/// every event — launch events merged in by time — handed to the front end and, when the plan
/// checks in, to the engine, whose posts go through the outbox to the emulator or the servers.
/// `waypost replay` and `waypost test` are two front ends over this one path.
///
/// ```swift
/// var plan = RunPlan(devices: [DevicePlan(route: timeline, app: AppScript())])
/// plan.regions = regions
/// let outcome = try await RunSession(plan).run { event in
///     if case .location(let timed) = event { print(timed) }
/// }
/// print(outcome.eventCount)
/// ```
public struct RunSession {
    public var plan: RunPlan

    public init(_ plan: RunPlan) {
        self.plan = plan
    }

    /// Carries the run out.
    ///
    /// - Parameters:
    ///   - pacing: waits before each simulated event (``RealTimePacing`` for `--realtime`); nil: none.
    ///   - shouldStop: asked after events that posted, and every few hundred events and samples
    ///     otherwise; true ends the run
    ///     with ``RunSessionError/stopped(at:)`` (a scenario's time budget).
    ///   - onEvent: every location event and post outcome, in order.
    public func run(
        pacing: (any Pacing)? = nil, stoppingWhen shouldStop: (() -> Bool)? = nil,
        onEvent: (RunEvent) -> Void
    ) async throws -> RunOutcome {
        try await run(
            pacing: pacing, stoppingWhen: shouldStop, onLocation: { onEvent(.location($0)) },
            onPost: { onEvent(.post($0, at: $1)) })
    }

    /// ``run(pacing:stoppingWhen:onEvent:)`` with the events and the posts handed to a closure
    /// each, for Waypost's own front ends: an event reaches `onLocation` borrowed, where wrapping
    /// it in a ``RunEvent`` and binding it out of one copied every event of a run twice (a
    /// 10,000-device crowd took 1.1× the time).
    package func run(
        pacing: (any Pacing)? = nil, stoppingWhen shouldStop: (() -> Bool)? = nil,
        onLocation: (TimedEvent) -> Void, onPost: (AuditRecord, EpochInstant) -> Void = { _, _ in }
    ) async throws -> RunOutcome {
        guard let origin = plan.origin else { throw RunSessionError.noDevices }
        let (devices, launches, keepers) = try launch(from: origin)
        // The run's one time: moved to each event as it is handled; the in-process emulator,
        // its clients and the outbox read it.
        let clock = SimulatedClock(start: origin)

        guard let checkins = plan.checkins else {
            var pacer = pacing
            let events = Self.events(of: devices, stoppingWhen: shouldStop)
            var merge = LaunchMerge(launches)
            var count = 0
            for event in events {
                for launch in merge.take(through: event.time) { onLocation(launch) }
                pacer?.wait(until: event.time)
                onLocation(event)
                count += 1
            }
            if let stopped = events.stoppedAt {
                throw RunSessionError.stopped(at: origin.duration(to: stopped))
            }
            for launch in merge.take(through: .distantFuture) { onLocation(launch) }
            return RunOutcome(origin: origin, run: nil, eventCount: count + launches.count, stillQueued: 0)
        }

        let store = checkins.store
        let run = try store.beginRun(
            name: checkins.runName, track: checkins.track, at: WallClock().now, dryRun: checkins.dryRun)
        let wiring = try await Wiring(checkins, clock: clock, run: run.id)
        do {
            let engine = CheckinEngine(
                rules: checkins.rules, profile: checkins.profile, store: store, run: run, delivery: wiring.delivery,
                keepsHistory: checkins.keepsHistory, twitterAPI: checkins.twitterAPI)
            var count = 0
            // Events since `shouldStop` was last asked: after an event that posted (its requests
            // may have waited on a slow server), else every poll interval, as the simulation asks.
            var unasked = 0
            // An event is taken without waiting; only a scripted change due or a delivery pass
            // is awaited (an `async` call for every event was ~4 % of a field trial, perf). The
            // networks' changes come first: they touch only the emulator, not what is reported.
            func handle(_ event: TimedEvent) async throws {
                await wiring.applyChanges(through: event.time)
                if let work = try take(event) { try await complete(work) }
            }
            func take(_ event: TimedEvent) throws -> CheckinEngine.PendingWork? {
                onLocation(event)
                count += 1
                unasked += 1
                clock.advance(to: event.time)
                return try engine.take(event)
            }
            func complete(_ work: CheckinEngine.PendingWork) async throws {
                for record in try await engine.complete(work) {
                    unasked = SimulationEvents.pollInterval
                    onPost(record, clock.now)
                }
            }
            if checkins.keepsHistory { try engine.recordPlaces(regions: plan.regions) }
            var merge = LaunchMerge(launches)
            let events = Self.events(of: devices, stoppingWhen: shouldStop)
            var reached = origin
            for event in events {
                for launch in merge.take(through: event.time) { try await handle(launch) }
                if unasked >= SimulationEvents.pollInterval {
                    unasked = 0
                    if shouldStop?() == true {
                        throw RunSessionError.stopped(at: origin.duration(to: event.time))
                    }
                }
                reached = event.time
                // `handle(event)`, without an `async` call when nothing is due.
                if wiring.changeIsDue(through: event.time) { await wiring.applyChanges(through: event.time) }
                if let work = try take(event) { try await complete(work) }
            }
            if let stopped = events.stoppedAt {
                throw RunSessionError.stopped(at: origin.duration(to: stopped))
            }
            for launch in merge.take(through: .distantFuture) { try await handle(launch) }
            await wiring.applyChanges(through: .distantFuture)
            for record in try await engine.finish(maxWait: wiring.maxWait) {
                onPost(record, wiring.clock.now)
            }
            // The last events and the deliveries after them count too: a run that ends past its
            // budget has not kept it.
            if shouldStop?() == true { throw RunSessionError.stopped(at: origin.duration(to: reached)) }
            try store.finishRun(run.id, at: WallClock().now)
            for (keeping, manager) in keepers { try keeping.save(from: manager) }
            await wiring.finish(completed: true)
            return RunOutcome(
                origin: origin, run: run, eventCount: count,
                stillQueued: try store.outbox(states: [.pending, .sending], run: run.id).count,
                credentialsRefused: wiring.delivery?.credentialsRefused ?? [:], posts: try engine.auditRecords())
        } catch {
            await wiring.finish(completed: false)
            throw error
        }
    }

    /// How far each device of a crowd moves at a time (``Simulation/events(window:stoppingWhen:)``):
    /// 32 s, shorter for crowds over 10,000 so that a window holds about 320,000 samples' events
    /// (a 100,000-device crowd, 3.2 s). Measured on a 10,000-device crowd (paired, 3 runs each):
    /// 32 s took 0.92 of 16 s's CPU at the same peak (252 MB) once a window's events were no
    /// longer copied into the ready queue; 64 s took 0.88 for 16 % more memory. Earlier, 4 s
    /// took 1.3 times the CPU of 16 s.
    static func window(devices: Int) -> Seconds {
        Seconds(min(32, max(1, 320_000 / Double(max(devices, 1)))))
    }

    /// The simulation's events, asking `shouldStop` as it moves when there is one.
    private static func events(of devices: [SimulatedDevice], stoppingWhen shouldStop: (() -> Bool)?)
        -> SimulationEvents
    {
        // Nothing here calls a manager between two events: each device may move a window ahead.
        Simulation(devices: devices).events(window: window(devices: devices.count), stoppingWhen: shouldStop)
    }

    /// Each device's manager made and its app launched (kept monitor records restored first);
    /// the launch events, stable-sorted by time.
    private func launch(from origin: EpochInstant) throws -> (
        [SimulatedDevice], [TimedEvent], [(MonitorRecordKeeping, SimulatedLocationManager)]
    ) {
        var launches: [TimedEvent] = []
        var devices: [SimulatedDevice] = []
        var keepers: [(MonitorRecordKeeping, SimulatedLocationManager)] = []
        for device in plan.devices {
            var app = device.app
            app.regions = plan.regions
            app.beacons = plan.beacons
            let manager = app.makeManager(
                configuration: device.configuration, noise: device.noise, seed: device.seed,
                startTime: device.start)
            if let checkins = plan.checkins, checkins.keepsMonitorRecords, app.apis.contains(.monitor) {
                let keeping = MonitorRecordKeeping(store: checkins.store, monitor: app.monitorName, device: device.name)
                try keeping.restore(into: manager)
                keepers.append((keeping, manager))
            }
            let name = device.name
            app.launch(manager)
            manager.drainEmitted(into: &launches, device: name)
            var simulated = SimulatedDevice(
                name: name, route: device.route, manager: manager, clockOffset: device.startAfter,
                displacement: device.displacement,
                signalGaps: device.signalLoss.map {
                    origin.advanced(by: $0.lowerBound)...origin.advanced(by: $0.upperBound)
                },
                script: app.script(from: origin))
            simulated.rest = device.rest
            devices.append(simulated)
        }
        // A later device's launch belongs after earlier devices' events; same-time ones keep
        // their order.
        let sorted = launches.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map(\.element)
        return (devices, sorted, keepers)
    }
}

/// Launch events handed out in time order between the simulation's: each before the first
/// simulated event at or after its time.
private struct LaunchMerge {
    private let events: [TimedEvent]
    private var next = 0

    init(_ events: [TimedEvent]) { self.events = events }

    /// The launch events due by `time`, in order; once they are all out, at no cost per event.
    mutating func take(through time: EpochInstant) -> ArraySlice<TimedEvent> {
        let start = next
        while next < events.endIndex, events[next].time <= time { next += 1 }
        return events[start..<next]
    }
}

/// The delivery side of a checking-in run: its clock, the outbox's sender, and the networks on
/// virtual time when the run posts to them.
private final class Wiring {
    /// The run's simulated clock, or the wall clock of servers elsewhere.
    let clock: any EpochClock
    let delivery: OutboxDelivery?
    /// How long the end of the run waits for retries; nil (on virtual time): until none is due.
    let maxWait: Duration?
    private let networks: (any VirtualTimeNetworks)?
    /// When the networks' next scripted change is due: asked only then, not at every event. Nil
    /// without networks on virtual time.
    private var nextChange: EpochInstant?

    init(_ checkins: CheckinPlan, clock virtual: SimulatedClock, run: Int64) async throws {
        switch checkins.network {
        case nil:
            (clock, maxWait, networks, delivery) = (virtual, nil, nil, nil)
        case .simulated(let networks)?:
            (clock, maxWait, self.networks) = (virtual, nil, networks)
            nextChange = virtual.now
            // On virtual time only this run's posts: another run sharing the store (scenarios side
            // by side on one --db) has its own clock and networks.
            delivery = OutboxDelivery(
                store: checkins.store, clients: try await networks.start(on: virtual), clock: virtual,
                retry: RetryPolicy(seed: checkins.seed), run: run)
        case .servers(let clients, let clock, let maxWait)?:
            (self.clock, self.maxWait, networks) = (clock, maxWait, nil)
            delivery = OutboxDelivery(
                store: checkins.store, clients: clients, clock: clock, retry: RetryPolicy(seed: checkins.seed))
        }
    }

    func finish(completed: Bool) async {
        await networks?.finish(completed: completed)
    }

    /// Whether a scripted change of the networks is due by `time`.
    func changeIsDue(through time: EpochInstant) -> Bool {
        guard let due = nextChange else { return false }
        return due <= time
    }

    /// Applies the networks' scripted changes due by `time`.
    func applyChanges(through time: EpochInstant) async {
        // Due first: `networks` is an existential, copied and destroyed when asked for, and this
        // is asked at every event (perf: ~2 % of a field trial).
        guard changeIsDue(through: time), let networks else { return }
        nextChange = await networks.advance(through: time)
    }
}
