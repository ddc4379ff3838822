import CheckinEngine
import ConfigFiles
import Foundation
import LocationSimulation
import SocialAPI
import SocialEmulator
import Store
import Tracks

/// A scenario's verdict: every expectation's result, or why it could not run.
public struct ScenarioResult: Sendable {
    public var name: String
    public var file: String
    public var expectations: [ExpectationResult]
    /// Set when the scenario could not be read or run; then nothing was checked.
    public var error: ScenarioError?

    public var passed: Bool { error == nil && expectations.allSatisfy(\.passed) }

    public init(name: String, file: String, expectations: [ExpectationResult], error: ScenarioError? = nil) {
        self.name = name
        self.file = file
        self.expectations = expectations
        self.error = error
    }
}

/// Runs scenarios: the devices through the simulated location manager, their events through
/// the check-in engine to an in-process emulator set up as the scenario says, all on one
/// virtual clock — then checks the expectations against the events, the audit and the
/// emulator's journal.
///
/// ```swift
/// let runner = ScenarioRunner(fixtures: try EmulatorFixtures.load(from: placesFolder))
/// let scenario = try ScenarioFile.read(contentsOf: url)
/// let result = await runner.run(scenario)
/// print(result.passed)
/// ```
///
/// A scenario's run is recorded in the store under its name (replacing any earlier run of the
/// same name), so `waypost report NAME` can draw it; the same scenario gives the same result
/// every time.
public struct ScenarioRunner: Sendable {
    public var fixtures: EmulatorFixtures
    /// The database runs are recorded in; nil: a temporary one, removed afterwards.
    public var storePath: String?
    /// Wall-clock seconds a scenario may take unless it sets its own `timeBudget`: a run past it
    /// stops and fails, so a scenario that would never end (a route of millions of fixes, say)
    /// cannot hang CI.
    public var timeBudget: Double
    /// Where the temporary stores of runs without ``storePath`` are registered while they exist,
    /// for a command to remove when a signal ends it; nil: nobody outside the run needs to know.
    public var temporaryStores: TemporaryStores?
    /// A deadline that many seconds ahead on the wall clock the runner was given.
    private let deadline: @Sendable (Double) -> Deadline

    public static let defaultTimeBudget = 600.0

    /// - Parameter clock: the wall clock budgets are measured on (tests give their own).
    public init<C: Clock<Duration> & Sendable>(
        fixtures: EmulatorFixtures, storePath: String? = nil, timeBudget: Double = defaultTimeBudget,
        clock: C = ContinuousClock(), temporaryStores: TemporaryStores? = nil
    ) {
        self.fixtures = fixtures
        self.storePath = storePath
        self.timeBudget = timeBudget
        self.temporaryStores = temporaryStores
        self.deadline = { seconds in
            let end = clock.now.advanced(by: .milliseconds(Int64(min(seconds, 1e12) * 1_000)))
            return Deadline { clock.now >= end }
        }
    }

    /// Reads a scenario file and runs it; a file that cannot be read is a result with an error.
    public func run(contentsOf url: URL, displayName: String) async -> ScenarioResult {
        do {
            return await run(try ScenarioFile.read(contentsOf: url, displayName: displayName))
        } catch {
            return ScenarioResult(name: displayName, file: displayName, expectations: [], error: error)
        }
    }

    public func run(_ scenario: Scenario) async -> ScenarioResult {
        var result = ScenarioResult(name: scenario.name, file: scenario.file, expectations: [])
        do {
            let outcome = try await execute(scenario)
            result.expectations = zip(scenario.expectations, outcome.tallies).map { $0.evaluate(outcome, tally: $1) }
        } catch let error as ScenarioError {
            result.error = error
        } catch {
            result.error = ScenarioError(.data, "\(scenario.file): \(error)")
        }
        return result
    }

    /// Runs the scenario and collects what expectations look at.
    public func execute(_ scenario: Scenario) async throws -> ScenarioOutcome {
        let budget = scenario.timeBudget ?? timeBudget
        let deadline = self.deadline(budget)
        // Devices a `count` entry made share one route: it is read and timed once.
        var timelines: [String: RouteTimeline] = [:]
        let routes = try scenario.devices.map { script in
            let key =
                "\(script.route.path)\u{0}\(script.path ?? 0) \(script.speed) \(script.sampleInterval) "
                + "\(script.start ?? .nan) \(script.timeOrder) \(script.maxFixes)"
            if let timeline = timelines[key] { return timeline }
            let timeline = try route(script)
            timelines[key] = timeline
            return timeline
        }
        let starts = zip(scenario.devices, routes).map { ($1.span?.lowerBound ?? 0) + $0.startAfter }
        guard let origin = starts.min() else { throw ScenarioError(.data, "\(scenario.file): no devices") }

        var setupEvents: [TimedEvent] = []
        var devices: [SimulatedDevice] = []
        for (index, script) in scenario.devices.enumerated() {
            var configuration = LocationManagerConfiguration()
            if let version = script.iosVersion { configuration.iosVersion = version }
            if let realism = script.realism { configuration.realism = realism }
            var app = script.app
            app.regions = scenario.regions
            app.beacons = scenario.beacons
            let manager = app.makeManager(
                configuration: configuration, noise: NoiseModel(script.noise), seed: script.seed ?? scenario.seed,
                startTime: starts[index])
            let name = script.name
            manager.observer = { event in
                var event = event
                event.device = name
                setupEvents.append(event)
            }
            app.launch(manager)
            manager.observer = nil
            devices.append(
                SimulatedDevice(
                    name: name, route: routes[index], manager: manager, clockOffset: script.startAfter,
                    displacement: script.displacement,
                    signalGaps: script.signalLoss.map { (origin + $0.lowerBound)...(origin + $0.upperBound) },
                    script: app.script(from: origin)))
        }

        let temporary =
            storePath == nil
            ? FileManager.default.temporaryDirectory
                .appendingPathComponent("waypost-scenario-\(UUID().uuidString)") : nil
        if let temporary { temporaryStores?.add(temporary) }
        defer {
            if let temporary {
                if let temporaryStores {
                    temporaryStores.remove(temporary)
                } else {
                    try? FileManager.default.removeItem(at: temporary)
                }
            }
        }
        let store: Store
        do {
            store = try Store(path: storePath ?? temporary?.appendingPathComponent("run.db").path ?? "")
            try store.deleteRun(named: scenario.name)
        } catch {
            throw ScenarioError(.unavailable, error.description)
        }
        let run = try store.beginRun(
            name: scenario.name, track: scenario.devices.map(\.routeDisplayName).uniqued().joined(separator: ", "),
            at: Date().timeIntervalSince1970, dryRun: scenario.dryRun)

        let clock = VirtualDeliveryClock(start: origin)
        var emulator: InProcessEmulator?
        var delivery: OutboxDelivery?
        if !scenario.dryRun {
            do {
                emulator = try await InProcessEmulator.start(
                    fixtures: scenario.places ?? fixtures, configuration: configuration(scenario.emulator),
                    seed: scenario.seed, twitterAPI: scenario.emulator.twitterAPI, now: { clock.now })
            } catch {
                throw ScenarioError(.unavailable, "cannot start the in-process emulator: \(error)")
            }
            for var fault in scenario.emulator.faults {
                fault.from = fault.from.map { origin + $0 }
                fault.until = fault.until.map { origin + $0 }
                await emulator?.core.addFault(fault)
            }
            delivery = OutboxDelivery(
                store: store, clients: emulator?.clients ?? SocialClients(twitter: nil, facebook: nil), clock: clock,
                retry: RetryPolicy(seed: scenario.seed))
        }
        let engine = CheckinEngine(
            rules: scenario.rules, profile: scenario.privacy, store: store, run: run, delivery: delivery,
            twitterAPI: scenario.emulator.twitterAPI)
        var changes = scenario.emulator.changes[...]
        func applyChanges(through time: Double) async {
            while let change = changes.first, origin + change.at <= time {
                changes.removeFirst()
                await emulator?.apply(change)
            }
        }

        // Expectations see the events as they come, setup events merged in by time (a later
        // device's launch belongs after earlier devices' events; same-time setup events first).
        var tallies = scenario.expectations.map { EventTally(for: $0, origin: origin) }
        let setup = setupEvents.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map(\.element)
        var nextSetup = setup.startIndex
        var eventCount = 0
        func observe(_ event: TimedEvent) {
            while nextSetup < setup.endIndex, setup[nextSetup].time <= event.time {
                for index in tallies.indices { tallies[index].observe(setup[nextSetup]) }
                nextSetup += 1
            }
            for index in tallies.indices { tallies[index].observe(event) }
        }
        do {
            try engine.recordPlaces(regions: scenario.regions)
            for event in setupEvents { _ = try await engine.handle(event) }
            // The budget is asked between events, and by the simulation itself while it moves
            // samples that make none (paused updates, a regions-only app): a quiet route used to
            // run on for minutes past its budget and pass.
            let events = Simulation(devices: devices).events(stoppingWhen: deadline.hasPassedNow)
            var reached = origin
            for event in events {
                if deadline.hasPassed {
                    await emulator?.stop()
                    throw overBudget(scenario, budget, at: event.time - origin)
                }
                reached = event.time
                observe(event)
                eventCount += 1
                await applyChanges(through: event.time)
                clock.advance(to: event.time)
                _ = try await engine.handle(event)
            }
            if let stopped = events.stoppedAt {
                await emulator?.stop()
                throw overBudget(scenario, budget, at: stopped - origin)
            }
            await applyChanges(through: .infinity)
            _ = try await engine.finish(maxWait: .infinity)
            // The last events and the deliveries after them count too: a run that ends past its
            // budget has not kept it.
            if deadline.hasPassed {
                await emulator?.stop()
                throw overBudget(scenario, budget, at: reached - origin)
            }
            try store.finishRun(run.id, at: Date().timeIntervalSince1970)
        } catch let error as ScenarioError {
            throw error
        } catch {
            await emulator?.stop()
            throw ScenarioError(.unavailable, "\(scenario.file): \(error)")
        }
        for event in setup[nextSetup...] {
            for index in tallies.indices { tallies[index].observe(event) }
        }
        let journal = await emulator?.core.journal ?? []
        await emulator?.stop()
        let posts = try store.auditRecords(run: run.id).map(AuditRecord.init(stored:))
        return ScenarioOutcome(
            origin: origin, tallies: tallies, eventCount: eventCount + setup.count, posts: posts, journal: journal)
    }

    /// The failure of a run stopped by its time budget: the budget, where it is set, and the
    /// virtual time (seconds from the scenario's start) the run had reached.
    private func overBudget(_ scenario: Scenario, _ budget: Double, at virtual: Double) -> ScenarioError {
        ScenarioError(
            .overBudget,
            "\(scenario.file): the run took longer than its time budget of \(ConfigNode.describe(budget)) "
                + "(timeBudget, or waypost test --time-budget), at virtual +\(Int(max(0, virtual))) s")
    }

    private func route(_ script: DeviceScript) throws -> RouteTimeline {
        do {
            let track = try TrackReader(timeOrder: script.timeOrder).read(
                contentsOf: script.route, displayName: script.routeDisplayName)
            return try RouteTiming(
                speed: script.speed, sampleInterval: script.sampleInterval,
                start: script.start.map(Date.init(timeIntervalSince1970:)), maximumSamples: script.maxFixes
            ).timeline(for: track, path: script.path)
        } catch let error as RouteTimingError {
            throw ScenarioError(.data, "\(script.routeDisplayName): \(error.message)")
        } catch {
            throw ScenarioError(.data, "\(error)")
        }
    }

    private func configuration(_ setup: EmulatorSetup) -> EmulatorConfiguration {
        var configuration = EmulatorConfiguration.demo
        for index in configuration.twitterAccounts.indices {
            configuration.twitterAccounts[index].geoEnabled = setup.geoEnabled
            configuration.twitterAccounts[index].protected = setup.protected
        }
        for index in configuration.facebookAccounts.indices {
            configuration.facebookAccounts[index].permissions = setup.permissions
            configuration.facebookAccounts[index].defaultAudience = setup.facebookAudience
        }
        configuration.geoRateLimit = setup.geoRateLimit
        return configuration
    }
}

/// A point ahead on a clock: whether it has passed, without naming the clock's instant type.
struct Deadline: Sendable {
    let hasPassedNow: @Sendable () -> Bool
    var hasPassed: Bool { hasPassedNow() }
}

extension InProcessEmulator {
    /// Applies a scripted account change through the emulator's control plane.
    fileprivate func apply(_ change: EmulatorSetup.Change) async {
        let demo = EmulatorConfiguration.demo
        if let on = change.geoEnabled, let user = demo.twitterAccounts.first?.userID {
            await core.control("POST", "/__waypost/twitter/geo_enabled", "user_id=\(user)&enabled=\(on)")
        }
        if let on = change.protected, let user = demo.twitterAccounts.first?.userID {
            await core.control("POST", "/__waypost/twitter/protected", "user_id=\(user)&protected=\(on)")
        }
        if let state = change.graphToken, let token = demo.facebookAccounts.first?.accessToken {
            await core.control("POST", "/__waypost/facebook/tokens", "access_token=\(token)&state=\(state)")
        }
        if let granted = change.permissions, let user = demo.facebookAccounts.first?.userID {
            let known: Set<String> = ["public_profile", "publish_checkins", "publish_actions"]
            for permission in known.union(granted).sorted() {
                let status = granted.contains(permission) ? "granted" : "declined"
                await core.control(
                    "POST", "/__waypost/facebook/permissions",
                    "user_id=\(user)&permission=\(permission)&status=\(status)")
            }
        }
    }
}

extension Sequence where Element: Hashable {
    /// The elements without repeats, in order: ten thousand generated devices share one route.
    fileprivate func uniqued() -> [Element] {
        var seen: Set<Element> = []
        return filter { seen.insert($0).inserted }
    }
}
