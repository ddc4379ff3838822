import ConfigFiles
import Foundation
import LocationEvents
import SimulatedTime
import WaypostSupport

/// What a real device logged: the event stream's JSONL (`t`, `type`, `region`, …), one object a
/// line, as `waypost replay --format jsonl` writes it and an app can write from its delegate
/// callbacks (docs/compare.md).
///
/// Every line must be a JSON object with `t` (ISO 8601, e.g. `2025-06-03T15:10:00.000Z`) and
/// `type` (an event stream type); `regionEnter`, `regionExit` and `regionState` need `region`.
/// Other fields are the app's own and are not read. Blank lines are skipped; lines may come in
/// any time order. A bad line is one ``ConfigFileError`` at its line and column.
package struct ObservedLog: Sendable, Equatable {
    /// One line of the log.
    package struct Event: Sendable, Equatable {
        /// 1-based line in the file.
        package var line: Int
        /// `t`, as written.
        package var text: String
        /// `t`, seconds since 1970.
        package var time: Double
        package var type: String
        package var region: String?

        package init(line: Int, text: String, time: Double, type: String, region: String?) {
            (self.line, self.text, self.time, self.type, self.region) = (line, text, time, type, region)
        }
    }

    package var file: String
    /// Every line, in file order.
    package var events: [Event]

    package init(file: String, events: [Event]) { (self.file, self.events) = (file, events) }

    /// The types a line may have: the event stream's (``LocationEvent/Kind``) and `post`.
    package static let types = Set(LocationEvent.Kind.allCases.map(\.rawValue) + ["post"])

    /// Reads a log file; a missing file is an `.unreadable` error, a bad line `.invalid`.
    package static func read(contentsOf url: URL, displayName: String) throws(ConfigFileError) -> ObservedLog {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ConfigFileError(.unreadable, file: displayName, message: "no such file, or it cannot be read")
        }
        return try parse(data, name: displayName)
    }

    /// Reads the log's bytes, named `name` in errors.
    package static func parse(_ data: Data, name: String) throws(ConfigFileError) -> ObservedLog {
        var events: [Event] = []
        var number = 0
        for bytes in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            var line = Array(bytes)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if number == 1 && line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
            guard let text = String(validating: line, as: UTF8.self) else {
                let valid = (0...line.count).last { String(validating: line.prefix($0), as: UTF8.self) != nil } ?? 0
                throw ConfigFileError(
                    file: name, line: number, column: valid + 1, message: "the line is not UTF-8 text")
            }
            guard let start = text.firstIndex(where: { !$0.isWhitespace }) else { continue }
            let column = text.distance(from: text.startIndex, to: start) + 1
            guard text[start] == "{" else {
                throw ConfigFileError(
                    file: name, line: number, column: column,
                    message: "expected a JSON object: the event stream has one object per line")
            }
            events.append(try event(text, line: number, column: column, file: name))
        }
        guard !events.isEmpty else {
            throw ConfigFileError(file: name, message: "the log has no events: nothing to align or compare")
        }
        return ObservedLog(file: name, events: events)
    }

    /// One line's event; errors carry the line's number.
    private static func event(_ text: String, line: Int, column: Int, file: String) throws(ConfigFileError)
        -> Event
    {
        func here(_ error: ConfigFileError) -> ConfigFileError {
            ConfigFileError(file: file, line: line, column: max(error.column, 1), message: error.message)
        }
        let node: ConfigNode
        do {
            node = try ConfigNode.parse(text, name: file)
        } catch {
            throw here(error)
        }
        // The YAML reader takes more than JSON (`{t: x}`): a line must be JSON as well.
        guard (try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil else {
            throw ConfigFileError(
                file: file, line: line, column: column,
                message: "the line is not JSON (RFC 8259): keys and strings in double quotes")
        }
        do throws(ConfigFileError) {
            guard case .mapping = node.node else { throw node.failure("expected a JSON object") }
            let t = try node.required("t")
            let stamp = try t.string()
            guard stamp.contains("T"), let time = XSDDateTime.parse(stamp) else {
                throw t.failure("t '\(stamp)' is not an ISO 8601 time such as 2025-06-03T15:10:00.000Z")
            }
            let typeNode = try node.required("type")
            let type = try typeNode.string()
            guard types.contains(type) else {
                throw typeNode.failure(
                    "unknown type '\(type)' (expected an event stream type: \(types.sorted().joined(separator: ", ")))")
            }
            var region: String?
            if let value = node["region"], case .scalar = value.node,
                value.node.tag.rawValue != "tag:yaml.org,2002:null",
                value.node.string != "null"
            {
                region = try value.string()
            }
            if ["regionEnter", "regionExit", "regionState"].contains(type) && region == nil {
                throw (node["region"] ?? typeNode).failure("a \(type) needs 'region', the region's identifier")
            }
            return Event(line: line, text: stamp, time: time, type: type, region: region)
        } catch {
            throw here(error)
        }
    }
}

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

    package init(exact: [Occurrence], trials: [[Occurrence]], rest: Double = 0) {
        (self.exact, self.trials, self.rest) = (exact, trials, rest)
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
            counts[name, default: 0] += 1
            return (EventKey(type: type(item), region: region(item), occurrence: counts[name]!), item)
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

        /// When it comes, for ordering a report: observed, else the exact run's, else the trials' middle.
        var sortOffset: Double { offset ?? exactOffset ?? central.map { ($0.lowerBound + $0.upperBound) / 2 } ?? 0 }
    }

    package var scenario: String
    package var scenarioFile: String
    package var log: String
    package var trials: Int
    package var seed: UInt64
    package var realism: [String]
    /// The instant offsets are counted from (`t` of the log's first line, or `--start`).
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
    /// its first line's `t`). `expectations`: the scenario's, for naming events.
    package init(
        _ log: ObservedLog, with prediction: Prediction, start: Double? = nil, scenario: Scenario, seed: UInt64
    ) {
        self.scenario = scenario.name
        self.scenarioFile = scenario.file
        self.log = log.file
        self.trials = prediction.trials.count
        self.seed = seed
        self.realism = Set(scenario.devices.map { ($0.realism ?? .exact).rawValue }).sorted()
        let origin = start ?? log.events.first?.time ?? 0
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
            var event = Self.event(key, exact: exact[key], values: runs.compactMap { $0[key] }, trials: runs.count)
            (event.line, event.time, event.offset) = (line.line, line.text, offset)
            event.lateness = event.exactOffset.map { Self.milliseconds(offset - $0) }
            Self.judgeObserved(&event, values: runs.compactMap { $0[key] })
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
                "never reported; the trials miss it in \(Percent.text(event.missRate)) (\(event.trials - event.produced) of \(event.trials))"
                + (outside ? ", below \(Percent.text(Self.tail))" : "")
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
    private static func judgeObserved(_ event: inout Event, values: [Double]) {
        guard let offset = event.offset, let central = event.central else {
            event.status = .unpredicted
            event.verdict = .outside
            event.reason =
                "unpredicted: no trial (of \(event.trials)) produced it"
                + (event.exactOffset.map { " (the exact run has it at \(Offset.text($0)))" } ?? ", nor the exact run")
            return
        }
        event.percentile = percentile(offset, among: values)
        event.verdict = .within
        var reasons: [String] = []
        if event.rate < tail {
            event.verdict = .outside
            reasons.append(
                "the trials produce it in \(Percent.text(event.rate)) (\(event.produced) of \(event.trials)), below \(Percent.text(tail))"
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
        let runs = await withTaskGroup(of: (Int, Result<[Prediction.Occurrence], ScenarioError>).self) { group in
            var runs: [Result<[Prediction.Occurrence], ScenarioError>?] = Array(repeating: nil, count: trials + 1)
            var next = 0
            func start() {
                guard next <= trials else { return }
                let unit = next
                next += 1
                group.addTask {
                    let variant = Self.variant(of: scenario, unit: unit, trials: true)
                    do {
                        let outcome = try await execute(
                            variant, runName: "\(scenario.name)#\(unit)", recorded: false, keepsMonitorRecords: false,
                            reusing: resources, keepsRegionTransitions: true)
                        return (unit, .success(Prediction.occurrences(outcome)))
                    } catch let error as ScenarioError {
                        return (unit, .failure(error))
                    } catch {
                        return (unit, .failure(ScenarioError(.data, "\(scenario.file): \(error)")))
                    }
                }
            }
            for _ in 0..<min(max(1, jobs), trials + 1) { start() }
            for await (unit, result) in group {
                runs[unit] = result
                start()
            }
            return runs.compactMap { $0 }
        }
        await resources.stop()
        var occurrences: [[Prediction.Occurrence]] = []
        for run in runs {
            switch run {
            case .success(let list): occurrences.append(list)
            case .failure(let error): throw error
            }
        }
        let rest = (try? plan(Self.variant(of: scenario, unit: 1, trials: true)))?.devices.first?.rest.seconds ?? 0
        return Prediction(exact: occurrences[0], trials: Array(occurrences.dropFirst()), rest: rest)
    }
}

extension Comparison {
    /// `7 events: 6 within, 1 outside`.
    package var summary: String {
        "\(events.count) events: \(events.count - outside.count) within, \(outside.count) outside"
    }

    /// One line of figures for an event: when, how late, its percentile, the central 95 %, how
    /// often the trials produce it.
    package func figures(_ event: Event) -> String {
        let produced = "in \(event.produced) of \(event.trials) trials"
        if event.status == .missed {
            return "never reported"
                + (event.exactOffset.map { " (the exact run has it at \(Offset.text($0)))" } ?? "")
                + "; missed in \(Percent.text(event.missRate)) of the trials (\(event.trials - event.produced) of \(event.trials))"
        }
        var parts: [String] = []
        if let lateness = event.lateness { parts.append("late by \(Self.signed(lateness)) against the exact run") }
        if let percentile = event.percentile { parts.append("percentile \(Self.decimal(percentile))") }
        if let central = event.central {
            if let exact = event.exactOffset {
                parts.append(
                    "central 95 % late by \(Self.signed(central.lowerBound - exact)) to \(Self.signed(central.upperBound - exact))"
                )
            } else {
                parts.append("central 95 % at \(Offset.text(central.lowerBound)) to \(Offset.text(central.upperBound))")
            }
        }
        parts.append(produced)
        return parts.joined(separator: "; ")
    }

    /// `PASS`/`OUTSIDE` and the scenario, then each event with ✓ (within) or ✗ (outside), in time
    /// order; an outside event says why, and names the expectation about it.
    package func text() -> String {
        func shown(_ text: String) -> String { DisplayEscaping.escape(text) }
        var out =
            (passed ? "PASS     " : "OUTSIDE  ") + "\(shown(scenario))  (\(shown(scenarioFile))) — "
            + (passed
                ? "every event within the central 95 % of \(trials) trials"
                : "\(outside.count) of \(events.count) events outside the central 95 % of \(trials) trials")
            + " (realism \(realism.joined(separator: ", ")), seed \(seed))\n"
        out +=
            "  log: \(shown(log)), \(lines) lines from \(EpochInstant(secondsSince1970: start).iso8601) "
            + (startGiven ? "(--start)" : "(its first line)")
            + "; \(ignored) of types not compared (only regionEnter and regionExit are)\n"
        out +=
            "  device: rests \(Self.decimal(rest)) s after its route (a replay set up as it: --realism "
            + realism.joined(separator: ",") + " --rest \(Self.decimal(rest)))\n"
        for event in events {
            let when = event.offset.map { Offset.text($0) + " " } ?? ""
            let line = event.line.map { " (line \($0))" } ?? ""
            let mark = event.verdict == .within ? "✓" : "✗"
            out += "  \(mark) \(when)\(shown(event.key.description))\(line): \(figures(event))\n"
            if event.verdict == .outside {
                out += "      why:         \(shown(event.reason))\n"
                if let line = event.line { out += "      at:          \(shown(log)):\(line)\n" }
            }
            if let expectation = event.expectation, event.verdict == .outside {
                out +=
                    "      expectation: \(shown(expectation))"
                    + (event.expectationLocation.map { " (\(shown($0)))" } ?? "") + "\n"
            }
        }
        return out + summary + "\n"
    }

    /// The comparison as JSON (docs/schemas/compare.schema.json).
    package func json() -> String {
        struct Range: Encodable {
            var from: Double
            var to: Double
        }
        struct Named: Encodable {
            var name: String
            var location: String?
        }
        struct Row: Encodable {
            var type: String
            var region: String
            var occurrence: Int
            var status: Status
            var verdict: Verdict
            var reason: String
            var line: Int?
            var t: String?
            var offset: Double?
            var exactOffset: Double?
            var lateness: Double?
            var percentile: Double?
            var trials: Int
            var produced: Int
            var rate: Double
            var missRate: Double
            var central95: Range?
            var central95Lateness: Range?
            var expectation: Named?
        }
        struct ScenarioPart: Encodable {
            var name: String
            var file: String
            var trials: Int
            var seed: UInt64
            var realism: [String]
            var rest: Double
        }
        struct LogPart: Encodable {
            var file: String
            var start: String
            var startFrom: String
            var lines: Int
            var ignored: Int
        }
        struct Document: Encodable {
            var passed: Bool
            var summary: String
            var scenario: ScenarioPart
            var log: LogPart
            var events: [Row]
        }
        let rows = events.map { event in
            Row(
                type: event.key.type, region: event.key.region, occurrence: event.key.occurrence,
                status: event.status, verdict: event.verdict, reason: event.reason, line: event.line, t: event.time,
                offset: event.offset, exactOffset: event.exactOffset, lateness: event.lateness,
                percentile: event.percentile.map(Self.rounded), trials: event.trials, produced: event.produced,
                rate: Self.rounded(event.rate), missRate: Self.rounded(event.missRate),
                central95: event.central.map { Range(from: $0.lowerBound, to: $0.upperBound) },
                central95Lateness: zip2(event.central, event.exactOffset).map {
                    Range(
                        from: Self.milliseconds($0.lowerBound - $1), to: Self.milliseconds($0.upperBound - $1))
                },
                expectation: event.expectation.map { Named(name: $0, location: event.expectationLocation) })
        }
        let document = Document(
            passed: passed, summary: summary,
            scenario: ScenarioPart(
                name: scenario, file: scenarioFile, trials: trials, seed: seed, realism: realism, rest: rest),
            log: LogPart(
                file: log, start: EpochInstant(secondsSince1970: start).iso8601,
                startFrom: startGiven ? "--start" : "first line", lines: lines, ignored: ignored),
            events: rows)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(document)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// JUnit XML: one suite for the scenario, one case per event, an outside event a
    /// `<failure>`; valid against Jenkins' JUnit 4 schema and xUnit's junit-10, as
    /// ``ScenarioReport/junit(_:hostname:)`` is.
    package func junit() -> String {
        let escape = ScenarioReport.escape
        let name = escape(scenario)
        let failures = outside.count
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"waypost compare\" tests=\"\(events.count)\" failures=\"\(failures)\" errors=\"0\">\n"
        out += "  <testsuite name=\"\(name)\" tests=\"\(events.count)\" failures=\"\(failures)\" errors=\"0\">\n"
        out += "    <properties>\n"
        out += "      <property name=\"file\" value=\"\(escape(scenarioFile))\"/>\n"
        out += "      <property name=\"log\" value=\"\(escape(log))\"/>\n"
        out += "      <property name=\"trials\" value=\"\(trials)\"/>\n"
        out += "    </properties>\n"
        for event in events {
            out += "    <testcase classname=\"\(name)\" name=\"\(escape(event.key.description))\">\n"
            if event.verdict == .outside {
                var detail = "\(event.reason)\n\(figures(event))"
                if let line = event.line { detail += "\nat: \(log):\(line)" }
                if let expectation = event.expectation { detail += "\nexpectation: \(expectation)" }
                out += "      <failure message=\"\(escape(event.reason))\">\(escape(detail))</failure>\n"
            } else {
                out += "      <system-out>\(escape(figures(event)))</system-out>\n"
            }
            out += "    </testcase>\n"
        }
        out += "  </testsuite>\n</testsuites>\n"
        return out
    }

    /// `+6.2 s`, `-33 s` (early), `+7:26` from a minute on.
    static func signed(_ seconds: Double) -> String {
        abs(seconds) < 59.95 ? (seconds < 0 ? "-" : "+") + decimal(abs(seconds)) + " s" : Offset.text(seconds)
    }

    /// One decimal at most.
    static func decimal(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// Four decimals: a rate or percentile as JSON shows it.
    static func rounded(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }
}

private func zip2<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
