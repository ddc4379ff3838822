import ConfigFiles
import Foundation
import LocationEvents
import SimulatedTime
import WaypostSupport

/// What a scenario's trials predict for one device: its region entries and exits in the exact
/// run and in each trial, as offsets in seconds from the scenario's start.
package struct Prediction: Sendable, Equatable {
    package struct Occurrence: Sendable, Equatable {
        package var type: String
        package var region: String
        package var offset: Double

        package init(type: String, region: String, offset: Double) {
            (self.type, self.region, self.offset) = (type, region, offset)
        }
    }

    /// The exact run (Apple's rules to the millisecond): lateness is measured against it.
    package var exact: [Occurrence]
    /// One list per trial.
    package var trials: [[Occurrence]]
    /// Seconds the scenario's device rests after its route (its `rest`, or its realism's latency
    /// tail): what `waypost replay --rest` gives a replay set up as it.
    package var rest: Double
    /// When the runs end, from the scenario's start (the route, then the rest); nil when unknown.
    package var end: Double?

    package init(exact: [Occurrence], trials: [[Occurrence]], rest: Double = 0, end: Double? = nil) {
        (self.exact, self.trials, self.rest, self.end) = (exact, trials, rest, end)
    }

    /// Region entries and exits of a run, from its start.
    static func occurrences(_ outcome: ScenarioOutcome) -> [Occurrence] {
        outcome.transitions.compactMap { timed in
            timed.event.identifier.map {
                Occurrence(type: timed.event.type, region: $0, offset: outcome.origin.seconds(to: timed.time))
            }
        }
    }
}

/// The n-th event of a type for a region: how observed and predicted events are matched.
package struct EventKey: Sendable, Hashable {
    package var type: String
    package var region: String
    /// From 1: the first `regionEnter` of the region is 1, the second 2.
    package var occurrence: Int

    package init(type: String, region: String, occurrence: Int) {
        (self.type, self.region, self.occurrence) = (type, region, occurrence)
    }

    /// `regionEnter 'cafe'`, with `#2` from the second occurrence on.
    package var description: String {
        "\(type) '\(region)'" + (occurrence > 1 ? " #\(occurrence)" : "")
    }

    /// Each event's key, in the given (time) order.
    static func keyed<T>(_ items: [T], type: (T) -> String, region: (T) -> String) -> [(EventKey, T)] {
        var counts: [String: Int] = [:]
        return items.map { item in
            let name = type(item) + "\u{0}" + region(item)
            let occurrence = counts[name, default: 0] + 1
            counts[name] = occurrence
            return (EventKey(type: type(item), region: region(item), occurrence: occurrence), item)
        }
    }
}

/// A real device's log placed in a scenario's trials: per observed region entry or exit, how
/// late it came against the exact run and where that falls among the trials; per predicted one
/// the device never reported, how often the trials missed it. The rules are docs/compare.md's.
package struct Comparison: Sendable, Equatable {
    /// The event stream types compared; other lines are read, checked and counted, not compared.
    package static let comparedTypes: Set<String> = ["regionEnter", "regionExit"]
    /// Two-sided: the central 95 % of the trials is from their 2.5th to their 97.5th percentile.
    package static let tail = 0.025

    package enum Verdict: String, Sendable, Codable {
        case within, outside
    }

    package enum Status: String, Sendable, Codable {
        /// Logged, and produced by at least one trial.
        case observed
        /// Logged, and produced by no trial (nor the exact run).
        case unpredicted
        /// Produced by trials (or the exact run), not logged.
        case missed
    }

    /// One event's verdict.
    package struct Event: Sendable, Equatable {
        package var key: EventKey
        package var status: Status
        package var verdict: Verdict
        /// The log's line and its `t` (observed events).
        package var line: Int?
        package var time: String?
        /// Seconds from the start: when the device reported it, and when the exact run did.
        package var offset: Double?
        package var exactOffset: Double?
        /// `offset − exactOffset`, seconds.
        package var lateness: Double?
        /// Where `offset` falls among the trials that produced the event, 0–100 (ties count half).
        package var percentile: Double?
        /// The trials that produced it, and how many there were.
        package var produced: Int
        package var trials: Int
        /// The 2.5th and 97.5th percentiles of the producing trials' offsets (nearest rank).
        package var central: ClosedRange<Double>?
        /// The first expectation about such events: its name and `file:line:column`.
        package var expectation: String?
        package var expectationLocation: String?
        /// One line: why the verdict.
        package var reason: String

        /// The fraction of trials with the event.
        package var rate: Double { trials == 0 ? 0 : Double(produced) / Double(trials) }
        package var missRate: Double { 1 - rate }

        /// When it comes, for ordering a report: observed, else the middle of the trials' (where
        /// the report places it), else the exact run's. Not the exact run's first: its Nth
        /// occurrence of a region need not be the trials' Nth (an entry on a pass the exact rule
        /// lets go by), and missed events came out of time order, a second entry before the first.
        var sortOffset: Double { offset ?? central.map { ($0.lowerBound + $0.upperBound) / 2 } ?? exactOffset ?? 0 }
    }

    package var scenario: String
    package var scenarioFile: String
    package var log: String
    package var trials: Int
    package var seed: UInt64
    package var realism: [String]
    /// The instant offsets are counted from (the log's earliest `t`, or `--start`).
    package var start: Double
    package var startGiven: Bool
    /// Seconds the scenario's device rests after its route (``Prediction/rest``).
    package var rest: Double
    /// Lines of the log, and those of types not compared.
    package var lines: Int
    package var ignored: Int
    /// In time order.
    package var events: [Event]

    package var passed: Bool { events.allSatisfy { $0.verdict == .within } }
    package var outside: [Event] { events.filter { $0.verdict == .outside } }

    /// Compares `log` with `prediction`. `start`: the instant the log's offsets count from (nil:
    /// its earliest `t`). `expectations`: the scenario's, for naming events.
    package init(
        _ log: ObservedLog, with prediction: Prediction, start: Double? = nil, scenario: Scenario, seed: UInt64
    ) {
        self.scenario = scenario.name
        self.scenarioFile = scenario.file
        self.log = log.file
        self.trials = prediction.trials.count
        self.seed = seed
        self.realism = Set(scenario.devices.map { ($0.realism ?? .exact).rawValue }).sorted()
        // The earliest `t`, not the first line's: a log written from several threads need not be
        // in time order, and its first line may come after the route started.
        let origin = start ?? log.events.map(\.time).min() ?? 0
        self.start = origin
        self.startGiven = start != nil
        self.rest = prediction.rest
        self.lines = log.events.count
        let compared = log.events.filter { Self.comparedTypes.contains($0.type) && $0.region != nil }
        self.ignored = log.events.count - compared.count
        // Stable: lines with the same `t` keep their order.
        let ordered = compared.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map(\.element)
        let observed = EventKey.keyed(ordered, type: \.type, region: { $0.region ?? "" })
        func keyed(_ run: [Prediction.Occurrence]) -> [EventKey: Double] {
            Dictionary(
                EventKey.keyed(run, type: \.type, region: \.region).map { ($0.0, Self.milliseconds($0.1.offset)) },
                uniquingKeysWith: { first, _ in first })
        }
        let exact = keyed(prediction.exact)
        let runs = prediction.trials.map(keyed)
        let named = Self.names(scenario.expectations)
        var events: [Event] = []
        var seen = Set<EventKey>()
        for (key, line) in observed {
            seen.insert(key)
            let offset = Self.milliseconds(line.time - origin)
            let values = runs.compactMap { $0[key] }
            var event = Self.event(key, exact: exact[key], values: values, trials: runs.count)
            (event.line, event.time, event.offset) = (line.line, line.text, offset)
            event.lateness = event.exactOffset.map { Self.milliseconds(offset - $0) }
            Self.judgeObserved(&event, values: values, end: prediction.end)
            (event.expectation, event.expectationLocation) = named(key)
            events.append(event)
        }
        let predicted = Set(exact.keys).union(runs.flatMap(\.keys)).subtracting(seen)
        for key in predicted {
            var event = Self.event(key, exact: exact[key], values: runs.compactMap { $0[key] }, trials: runs.count)
            event.status = .missed
            let outside = event.missRate < Self.tail
            event.verdict = outside ? .outside : .within
            event.reason =
                "never reported; the trials miss it in \(Proportions.percent(event.missRate)) (\(event.trials - event.produced) of \(event.trials))"
                + (outside ? ", below \(Proportions.percent(Self.tail))" : "")
            (event.expectation, event.expectationLocation) = named(key)
            events.append(event)
        }
        self.events = events.sorted {
            ($0.sortOffset, $0.key.type, $0.key.region, $0.key.occurrence)
                < ($1.sortOffset, $1.key.type, $1.key.region, $1.key.occurrence)
        }
    }

    /// An event's figures from the trials, before it is judged.
    private static func event(_ key: EventKey, exact: Double?, values: [Double], trials: Int) -> Event {
        let sorted = values.sorted()
        let central =
            sorted.isEmpty
            ? nil : Proportions.percentile(sorted, tail)...Proportions.percentile(sorted, 1 - tail)
        return Event(
            key: key, status: .observed, verdict: .within, exactOffset: exact, produced: sorted.count, trials: trials,
            central: central, reason: "")
    }

    /// Outside when the trials produce the event in under 2.5 % of them (never: unpredicted), or
    /// when it came before the 2.5th or after the 97.5th percentile of those that did.
    private static func judgeObserved(_ event: inout Event, values: [Double], end: Double?) {
        guard let offset = event.offset, let central = event.central else {
            event.status = .unpredicted
            event.verdict = .outside
            event.reason = unpredictedReason(event, end: end)
            return
        }
        event.percentile = percentile(offset, among: values)
        event.verdict = .within
        var reasons: [String] = []
        if event.rate < tail {
            event.verdict = .outside
            reasons.append(
                "the trials produce it in \(Proportions.percent(event.rate)) (\(event.produced) of \(event.trials)), below \(Proportions.percent(tail))"
            )
        }
        if !central.contains(offset) {
            event.verdict = .outside
            reasons.append(
                (offset < central.lowerBound ? "earlier" : "later")
                    + " than the central 95 % of the trials that produced it"
            )
        }
        event.reason =
            reasons.isEmpty ? "within the central 95 % of the trials that produced it" : reasons.joined(separator: "; ")
    }

    /// Why no trial produced an event: outside the runs' time altogether (the log goes on past
    /// the scenario, or is aligned wrong), or a device anomaly within it.
    private static func unpredictedReason(_ event: Event, end: Double?) -> String {
        let none = "no trial (of \(event.trials)) produced it"
        if let offset = event.offset, offset < 0 {
            return "unpredicted: logged at \(Offset.text(offset)), before the run starts: \(none); check --start"
        }
        if let offset = event.offset, let end, offset > end {
            return
                "unpredicted: logged at \(Offset.text(offset)), after the run ends at \(Offset.text(end)) (its route and rest): "
                + "\(none); the log goes on past the scenario, or --start is wrong"
        }
        return "unpredicted: \(none)"
            + (event.exactOffset.map { " (the exact run has it at \(Offset.text($0)))" } ?? ", nor the exact run")
    }

    /// Where `value` falls among `values`, 0–100: the share of them below it, ties counted half
    /// (mid-rank), so a value equal to all of them is the 50th percentile.
    package static func percentile(_ value: Double, among values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let below = values.filter { $0 < value }.count
        let equal = values.filter { $0 == value }.count
        return (Double(below) + Double(equal) / 2) / Double(values.count) * 100
    }

    /// Seconds rounded to the millisecond the event stream writes: the same instant read from a
    /// log and taken from a run compare equal.
    static func milliseconds(_ seconds: Double) -> Double { (seconds * 1_000).rounded() / 1_000 }

    /// The first `events` expectation whose type is the event's and whose region is the event's
    /// (or unnamed): its name and where it is written.
    private static func names(_ expectations: [Expectation]) -> (EventKey) -> (String?, String?) {
        let filters: [(EventFilter, Expectation)] = expectations.compactMap {
            guard case .events(let filter, _) = $0.kind else { return nil }
            return (filter, $0)
        }
        return { key in
            guard
                let (filter, expectation) = filters.first(where: {
                    $0.0.type == key.type && ($0.0.region == nil || $0.0.region == key.region)
                })
            else { return (nil, nil) }
            return (expectation.label ?? filter.description, expectation.location)
        }
    }
}

extension ScenarioRunner {
    /// Runs the scenario's exact run and `trials` trials of it (`jobs` at a time, in memory, as
    /// `waypost test --trials` runs them), keeping each run's region entries and exits.
    package func predict(_ scenario: Scenario, trials: Int, jobs: Int) async throws(ScenarioError) -> Prediction {
        if let problem = Self.trialsProblem(scenario) { throw ScenarioError(.data, "\(scenario.file): \(problem)") }
        let resources = RunResources()
        let runs = await mapConcurrently(count: trials + 1, jobs: jobs) {
            unit -> Result<[Prediction.Occurrence], ScenarioError> in
            let variant = Self.variant(of: scenario, unit: unit, trials: true)
            do {
                let outcome = try await execute(
                    variant, runName: "\(scenario.name)#\(unit)", recorded: false,
                    reusing: resources, keepsRegionTransitions: true)
                return .success(Prediction.occurrences(outcome))
            } catch let error as ScenarioError {
                return .failure(error)
            } catch {
                return .failure(ScenarioError(.data, "\(scenario.file): \(error)"))
            }
        }
        await resources.stop()
        var occurrences: [[Prediction.Occurrence]] = []
        for run in runs {
            switch run {
            case .success(let list): occurrences.append(list)
            case .failure(let error): throw error
            }
        }
        let device = (try? plan(Self.variant(of: scenario, unit: 1, trials: true)))?.devices.first
        let rest = device?.rest.seconds ?? 0
        // One device: the scenario starts when its route does, and ends after the route and rest.
        let end = device?.route.span.map { $0.lowerBound.seconds(to: $0.upperBound) + rest }
        return Prediction(exact: occurrences[0], trials: Array(occurrences.dropFirst()), rest: rest, end: end)
    }
}
