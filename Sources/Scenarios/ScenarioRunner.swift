import CheckinEngine
import ConfigFiles
import Foundation
import LocationEvents
import LocationSimulation
import Runs
import SimulatedTime
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
    /// How many trials the verdict is over; nil: one plain run.
    public var trials: Int?
    /// When the scenario started (wall clock) and how long reading, running and checking it
    /// took (measured): JUnit's `timestamp` and `time`.
    public var startedAt: EpochInstant?
    public var duration: Seconds?
    /// How long each expectation's check took, in the order of ``expectations``.
    public var checkDurations: [Seconds] = []

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
    /// The database runs are recorded in; nil: none (each run in a store nobody keeps).
    public var storePath: String?
    /// How runs nobody records reach their store and emulator: in memory (the default), or the
    /// durable way a recorded run goes — a temporary SQLite store and loopback HTTP — which the
    /// run-path parity test compares it with (`waypost test --run-path durable`).
    public var unrecordedPath = RunPath.inMemory
    /// Wall-clock seconds a scenario may take unless it sets its own `timeBudget`: a run past it
    /// stops and fails, so a scenario that would never end (a route of millions of fixes, say)
    /// cannot hang CI.
    public var timeBudget: Duration
    /// A deadline that many seconds ahead on the wall clock the runner was given.
    private let deadline: @Sendable (Duration) -> Deadline
    /// Routes read and timed once for every run of this runner: a scenario's trials, and
    /// scenarios sharing a route, reuse them.
    private let routes = SharedRoutes()

    public static let defaultTimeBudget = Duration.seconds(600)

    /// - Parameter clock: the wall clock budgets are measured on (tests give a `SimulatedClock`
    ///   or their own).
    public init<C: Clock<Duration> & Sendable>(
        fixtures: EmulatorFixtures, storePath: String? = nil, timeBudget: Duration = defaultTimeBudget,
        clock: C = ContinuousClock()
    ) {
        self.fixtures = fixtures
        self.storePath = storePath
        self.timeBudget = timeBudget
        self.deadline = { budget in
            let end = clock.now.advanced(by: min(budget, .seconds(1e12)))
            return Deadline { clock.now >= end }
        }
    }

    /// Reads a scenario file and runs it; a file that cannot be read is a result with an error.
    public func run(contentsOf url: URL, displayName: String) async -> ScenarioResult {
        let started = WallClock().now
        let clock = ContinuousClock()
        let begin = clock.now
        var result: ScenarioResult
        do {
            result = await run(try ScenarioFile.read(contentsOf: url, displayName: displayName))
        } catch {
            result = ScenarioResult(name: displayName, file: displayName, expectations: [], error: error)
        }
        // Reading the file counts too.
        result.startedAt = started
        result.duration = Seconds(clock.now - begin)
        return result
    }

    /// Runs the scenario — once, or as its trials — and gives its verdict.
    public func run(_ scenario: Scenario, trials: Int? = nil) async -> ScenarioResult {
        let header: ScenarioHeader
        do {
            header = try self.header(scenario, trials: trials)
            try reserveRuns(for: [scenario])
        } catch {
            return ScenarioResult(name: scenario.name, file: scenario.file, expectations: [], error: error)
        }
        var units: [TrialResultsFile.Unit] = []
        let resources = RunResources()
        for unit in header.units {
            units.append(.init(scenario: 0, record: await run(scenario, unit: unit, of: header, reusing: resources)))
        }
        await resources.stop()
        let file = TrialResultsFile(shard: 1, shards: 1, scenarios: [header], units: units)
        do {
            try finishRecording(of: file)
        } catch {
            return ScenarioResult(name: scenario.name, file: scenario.file, expectations: [], error: error)
        }
        return file.results()[0]
    }

    /// Begins the runs of `scenarios` in ``storePath`` in this order, before they run side by
    /// side: which run is the latest (`waypost audit`'s default) then does not depend on which
    /// finished starting first.
    public func reserveRuns(for scenarios: [Scenario]) throws(ScenarioError) {
        guard let storePath, !scenarios.isEmpty else { return }
        do {
            try Store(path: storePath).reserveRuns(
                scenarios.map { ($0.name, $0.trackDescription, $0.dryRun) }, at: WallClock().now)
        } catch {
            throw ScenarioError(.unavailable, error.description)
        }
    }

    /// What `file`'s runs leave in ``storePath`` once they are over: each trials scenario's
    /// distributions beside its exact run, then the runs complete — each replaces the earlier run
    /// of its name for good. A run whose exact unit stopped with an error (a time budget, a route
    /// that cannot be read) is not complete: the earlier run stays the one `waypost report` and
    /// `audit` read, until the scenario's next run.
    public func finishRecording(of file: TrialResultsFile) throws(ScenarioError) {
        try recordDistributions(of: file)
        try completeRuns(of: file)
    }

    private func completeRuns(of file: TrialResultsFile) throws(ScenarioError) {
        guard let storePath else { return }
        let complete = file.units.filter { $0.record.trial == 0 && $0.record.error == nil }.map {
            file.scenarios[$0.scenario].name
        }
        guard !complete.isEmpty else { return }
        do {
            try Store(path: storePath).completeRuns(named: complete)
        } catch {
            throw ScenarioError(.unavailable, error.description)
        }
    }

    /// Records each trials scenario's distributions (``TrialResultsFile/distributions()``) beside
    /// its exact run in ``storePath``, for `waypost report` to draw.
    private func recordDistributions(of file: TrialResultsFile) throws(ScenarioError) {
        let distributions = file.distributions()
        guard let storePath, !distributions.isEmpty else { return }
        do {
            let store = try Store(path: storePath)
            for (header, expectations) in distributions {
                guard let run = try store.runBeingRecorded(named: header.name) else { continue }
                try store.saveTrialDistributions(expectations, run: run.id)
            }
        } catch {
            throw ScenarioError(.unavailable, error.description)
        }
    }

    /// What a verdict over `trials` (or the scenario's own `trials`) needs of the scenario; a
    /// trials count it cannot honour is an error.
    public func header(_ scenario: Scenario, trials override: Int? = nil) throws(ScenarioError) -> ScenarioHeader {
        let trials = override ?? scenario.trials
        if let trials, trials > 1, let problem = Self.trialsProblem(scenario) {
            throw ScenarioError(.data, "\(scenario.file): \(trials) trials: \(problem)")
        }
        return ScenarioHeader(
            name: scenario.name, file: scenario.file, trials: trials,
            expectations: scenario.expectations.map { ScenarioHeader.Spec(rate: $0.rate, lateBy: $0.lateBy) },
            seed: scenario.seed, realism: Set(scenario.devices.map { ($0.realism ?? .exact).rawValue }).sorted(),
            inputs: scenario.inputs.map(InputDigest.init))
    }

    /// Why a scenario cannot run as several trials: every device follows Apple's rules to the
    /// millisecond, so every trial would be the same run.
    package static func trialsProblem(_ scenario: Scenario) -> String? {
        guard scenario.devices.allSatisfy({ ($0.realism ?? .exact) == .exact }) else { return nil }
        return "with realism: exact every trial would be the same run; "
            + "give a realism that varies (field or device)"
    }

    /// Runs one unit of the scenario: trial 0 (its plain run, or for trials the exact run that
    /// lateness is measured against) or trial k with its own seed. Units run one after another
    /// may share `resources` (stores and emulators handed on instead of made anew).
    public func run(
        _ scenario: Scenario, unit trial: Int, of header: ScenarioHeader, reusing resources: RunResources? = nil
    ) async -> TrialRecord {
        let variant = Self.variant(of: scenario, unit: trial, trials: header.trials != nil)
        let seed = variant.seed
        var record = TrialRecord(file: scenario.file, trial: trial, seed: seed, results: [], firstMatches: [])
        record.startedAt = WallClock().now
        let clock = ContinuousClock()
        let begin = clock.now
        do {
            let outcome = try await execute(
                variant, runName: trial == 0 ? scenario.name : "\(scenario.name)#\(trial)", recorded: trial == 0,
                reusing: resources)
            for (expectation, tally) in zip(scenario.expectations, outcome.tallies) {
                let checking = clock.now
                record.results.append(expectation.evaluate(outcome, tally: tally))
                record.firstMatches.append(expectation.firstMatch(outcome, tally: tally))
                record.checkDurations.append(Seconds(clock.now - checking))
            }
        } catch let error as ScenarioError {
            record.error = error
        } catch {
            record.error = ScenarioError(.data, "\(scenario.file): \(error)")
        }
        record.duration = Seconds(clock.now - begin)
        return record
    }

    /// The scenario as unit `trial` runs it: unchanged for a plain run (`trials` false); for
    /// trials, unit 0 with every device exact, unit k with its own seeds (``Trials/seed(_:trial:)``).
    static func variant(of scenario: Scenario, unit trial: Int, trials: Bool) -> Scenario {
        var variant = scenario
        guard trials else { return variant }
        if trial == 0 {
            for index in variant.devices.indices { variant.devices[index].realism = .exact }
        } else {
            for index in variant.devices.indices {
                variant.devices[index].seed = Trials.seed(variant.devices[index].seed ?? scenario.seed, trial: trial)
            }
            variant.seed = Trials.seed(scenario.seed, trial: trial)
        }
        return variant
    }

    /// Runs the scenario and collects what expectations look at; a `recorded` run goes into
    /// ``storePath`` under `runName` (default: the scenario's name). A run nobody records takes
    /// its store and emulator from `resources` when given.
    public func execute(
        _ scenario: Scenario, runName: String? = nil, recorded: Bool = true, reusing resources: RunResources? = nil
    ) async throws -> ScenarioOutcome {
        try await execute(
            scenario, runName: runName, recorded: recorded, reusing: resources, keepsRegionTransitions: false)
    }

    /// The same, keeping the run's region entries and exits in ``ScenarioOutcome/transitions``
    /// when `keepsRegionTransitions` is set (`waypost compare`'s prediction).
    func execute(
        _ scenario: Scenario, runName: String? = nil, recorded: Bool = true, reusing resources: RunResources? = nil,
        keepsRegionTransitions: Bool
    ) async throws -> ScenarioOutcome {
        let budget = scenario.timeBudget ?? timeBudget
        let deadline = self.deadline(budget)
        var plan = try self.plan(scenario)

        // Only the run that `waypost report` draws goes into the database: the plain run, or a
        // trials run's exact run. Trials and runs without one use a store nobody keeps.
        let database = recorded ? storePath : nil
        let name = runName ?? scenario.name
        let path = database == nil ? unrecordedPath : .durable
        let store: any RunStore
        var temporary: Store?
        do {
            if let database {
                let sqlite = try Store(path: database)
                try sqlite.resetRun(named: name)
                store = sqlite
            } else if path == .inMemory {
                store = InMemoryStore()
            } else {
                let sqlite = try resources?.store() ?? Store.temporary()
                (store, temporary) = (sqlite, sqlite)
            }
        } catch {
            throw ScenarioError(.unavailable, "\(error)")
        }
        defer { if let temporary { resources?.giveBack(temporary) } }
        let networks = EmulatorNetworks(
            fixtures: scenario.places ?? fixtures, setup: scenario.emulator, seed: scenario.seed, path: path,
            resources: resources)
        var checkins = CheckinPlan(
            store: store, runName: name, track: scenario.trackDescription,
            rules: scenario.rules,
            network: scenario.dryRun ? nil : .simulated(networks))
        checkins.profile = scenario.privacy
        checkins.seed = scenario.seed
        checkins.twitterAPI = scenario.emulator.twitterAPI
        // A scenario's device starts afresh: unlike `waypost replay`, whose CLMonitor records
        // outlive a run in the store as iOS keeps a monitor's file between launches, a scenario
        // neither finds records another run left in its --db (its result would depend on what
        // the store held: a black-box hunt saw monitor-checkin fail when recorded twice) nor
        // leaves its own.
        checkins.keepsHistory = database != nil
        plan.checkins = checkins

        // Expectations see the events as they come; the events themselves are not kept.
        var tallies = scenario.expectations.map {
            EventTally(for: $0, origin: plan.origin ?? EpochInstant(secondsSince1970: 0))
        }
        var transitions: [TimedEvent] = []
        let outcome: RunOutcome
        do {
            outcome = try await RunSession(plan).run(stoppingWhen: deadline.hasPassedNow) { timed in
                for index in tallies.indices { tallies[index].observe(timed) }
                if keepsRegionTransitions, timed.event.kind == .regionEnter || timed.event.kind == .regionExit {
                    transitions.append(timed)
                }
            }
        } catch RunSessionError.stopped(let at) {
            throw overBudget(scenario, budget, at: at.inSeconds)
        } catch RunSessionError.emulatorUnavailable(let reason) {
            throw ScenarioError(.unavailable, "cannot start the in-process emulator: \(reason)")
        } catch {
            throw ScenarioError(.unavailable, "\(scenario.file): \(error)")
        }
        var result = ScenarioOutcome(
            origin: outcome.origin, tallies: tallies, eventCount: outcome.eventCount,
            posts: outcome.posts,
            journal: await networks.journal)
        result.transitions = transitions
        return result
    }

    /// The scenario's devices as a run plan: each route read and timed once, however many devices
    /// share it.
    func plan(_ scenario: Scenario) throws -> RunPlan {
        let devices = try scenario.devices.map { script in
            let route: RouteTimeline
            do {
                route = try routes.timeline(for: script.routeSpec)
            } catch {
                throw ScenarioError(.data, "\(error)")
            }
            var device = DevicePlan(name: script.name, route: route, app: script.app)
            if let version = script.iosVersion { device.configuration.iosVersion = version }
            script.realism?.apply(to: &device.configuration)
            device.configuration.surroundings = Surroundings(
                script.environment ?? Surroundings.standard.environment, wifi: script.wifi ?? Surroundings.standard.wifi
            )
            device.noise = NoiseModel(script.noise)
            device.seed = script.seed ?? scenario.seed
            device.startAfter = script.startAfter
            device.displacement = script.displacement
            device.signalLoss = script.signalLoss
            device.rest = scenario.rest ?? device.configuration.restForLatencyTail
            return device
        }
        guard !devices.isEmpty else { throw ScenarioError(.data, "\(scenario.file): no devices") }
        return RunPlan(devices: devices, regions: scenario.regions, beacons: scenario.beacons)
    }

    /// The failure of a run stopped by its time budget: the budget, where it is set, and the
    /// virtual time (seconds from the scenario's start) the run had reached.
    private func overBudget(_ scenario: Scenario, _ budget: Duration, at virtual: Double) -> ScenarioError {
        ScenarioError(
            .overBudget,
            "\(scenario.file): the run took longer than its time budget of \(ConfigNode.describe(Seconds(budget))) "
                + "(timeBudget, or waypost test --time-budget), at virtual +\(Int(max(0, virtual))) s")
    }
}

extension ScenarioResult {
    /// The verdict from a scenario's unit records: the plain run's, or the trials' aggregated.
    public init(_ header: ScenarioHeader, records: [TrialRecord]) {
        if header.trials == nil {
            let record = records.first
            self.init(
                name: header.name, file: header.file, expectations: record?.results ?? [], error: record?.error)
        } else {
            self = .aggregating(
                header, exact: records.first { $0.trial == 0 }, trials: records.filter { $0.trial > 0 })
        }
        // JUnit's figures: when the first unit began, and the time every unit took, summed.
        startedAt = records.compactMap(\.startedAt).min()
        duration = records.compactMap(\.duration).reduce(.zero, +)
        checkDurations = expectations.indices.map { index in
            records.reduce(.zero) {
                $0 + ($1.checkDurations.indices.contains(index) ? $1.checkDurations[index] : .zero)
            }
        }
    }
}

extension LocationManagerConfiguration {
    /// How long a device rests after its route by default: through its realism's latency tail,
    /// rounded up to the minute; none under `exact`, whose events are never late.
    var restForLatencyTail: Seconds {
        realism == .exact ? .zero : Seconds((regionMechanism.latencyTail.seconds / 60).rounded(.up) * 60)
    }
}

/// A ``RouteLibrary`` that concurrent runs share: a route is read and timed under the lock the
/// first time, then handed out (a timeline is a value; each run iterates its own copy).
final class SharedRoutes: @unchecked Sendable {
    private let lock = NSLock()
    /// Trials and crowds follow one route many times: up to 100,000 samples (about 8 MB) each
    /// route's samples are made once (perf: making them again was 4 % of a 10,000-device crowd).
    private var library = RouteLibrary(keepsSamplesUpTo: 100_000)

    func timeline(for spec: RouteSpec) throws -> RouteTimeline {
        lock.lock()
        defer { lock.unlock() }
        return try library.timeline(for: spec)
    }
}

/// A point ahead on a clock: whether it has passed, without naming the clock's instant type.
struct Deadline: Sendable {
    let hasPassedNow: @Sendable () -> Bool
}

extension Scenario {
    /// The run's `track` in the store: its devices' routes, each named once.
    var trackDescription: String { devices.map(\.routeDisplayName).uniqued().joined(separator: ", ") }
}

extension Sequence where Element: Hashable {
    /// The elements without repeats, in order: ten thousand generated devices share one route.
    fileprivate func uniqued() -> [Element] {
        var seen: Set<Element> = []
        return filter { seen.insert($0).inserted }
    }
}
