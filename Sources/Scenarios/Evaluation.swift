import CheckinEngine
import Foundation
import Geo
import LocationEvents
import LocationSimulation
import SimulatedTime
import SocialEmulator
import WaypostSupport

/// Everything a run produced that expectations look at.
public struct ScenarioOutcome: Sendable {
    /// The scenario's start (virtual time).
    public var origin: EpochInstant
    /// What each expectation saw of the event stream, in the scenario's order: the events
    /// themselves are not kept (a 10,000-device run makes tens of millions).
    public var tallies: [EventTally]
    /// How many events the run made.
    public var eventCount: Int
    /// The audit: one record per post, its final state.
    public var posts: [AuditRecord]
    /// The emulator's request journal, as received on the wire.
    public var journal: [JournalEntry]
    /// The run's region entries and exits, in time order, when the run was asked to keep them
    /// (`waypost compare`); empty otherwise.
    package var transitions: [TimedEvent] = []
}

/// What one expectation has seen of a run's events, fed one event at a time in time order: the
/// counts, and the first few matches a verdict shows.
public struct EventTally: Sendable {
    /// An event as a verdict shows it.
    struct Seen: Sendable {
        var time: EpochInstant
        var device: String?
        /// `detail 'identifier'`, for the events of the same type listed when none matched.
        var summary: String
    }

    static let shown = 5
    private let kind: Expectation.Kind
    /// `.events`: the filter's event type as a kind, compared with each event's before anything
    /// else (its name was compared as a string, the filter copied out, for every event of every
    /// trial).
    private let eventKind: LocationEvent.Kind?
    /// Whether `kind` is `.events` or `.order`, read at every event without taking the enum apart
    /// (its tag, from an outlined function, was half a percent of a field trial).
    private let readsEvents: (filtered: Bool, ordered: Bool)
    private let origin: EpochInstant
    /// Events matching the filter (`.events`), and the first few.
    private(set) var found = 0
    private(set) var firstFound: [Seen] = []
    /// Events of the filter's type (`.events`), and the first few.
    private(set) var sameType = 0
    private(set) var firstSameType: [Seen] = []
    /// `.order`: the matches so far, one per filter, and each filter's first match anywhere.
    private(set) var ordered: [Seen] = []
    private(set) var firstAnywhere: [Seen?] = []

    public init(for expectation: Expectation, origin: EpochInstant) {
        kind = expectation.kind
        self.origin = origin
        eventKind = if case .events(let filter, _) = kind { LocationEvent.Kind(rawValue: filter.type) } else { nil }
        if case .order(let filters) = kind { firstAnywhere = Array(repeating: nil, count: filters.count) }
        switch kind {
        case .events: readsEvents = (true, false)
        case .order: readsEvents = (false, true)
        case .posts, .noLocationInZone, .requests: readsEvents = (false, false)
        }
    }

    /// Whether an event at `time` is among the earliest ``shown`` of `kept` (sorted by time).
    private static func keeps(_ time: EpochInstant, among kept: [Seen]) -> Bool {
        kept.count < shown || time < (kept.last?.time ?? time)
    }

    /// `seen` in its place by time (after any of the same time), the list cut to ``shown``.
    private static func insert(_ seen: Seen, into kept: inout [Seen]) {
        let place = kept.lastIndex { $0.time <= seen.time }.map { $0 + 1 } ?? 0
        kept.insert(seen, at: place)
        if kept.count > shown { kept.removeLast() }
    }

    public mutating func observe(_ event: TimedEvent) {
        // Most events are not the `.events` filter's type: turned away before its payload is read.
        if readsEvents.filtered {
            guard event.event.kind == eventKind else { return }
        } else if !readsEvents.ordered {
            return
        }
        switch kind {
        case .events(let filter, _):
            let matches = filter.matches(event, origin: origin)
            sameType += 1
            if matches { found += 1 }
            // The earliest few, by time: devices' events of one tick arrive device by device, so
            // a later one may be earlier (a crowd listed +2:10 before +2:09, and lateness was
            // measured from whichever device came first).
            let keepsSameType = Self.keeps(event.time, among: firstSameType)
            let keepsFound = matches && Self.keeps(event.time, among: firstFound)
            // Worded only for the few a verdict lists: a trial sees thousands of fixes.
            guard keepsSameType || keepsFound else { return }
            let seen = Seen(
                time: event.time, device: event.device,
                summary: [event.event.detail, event.event.identifier.map { "'\($0)'" }].compactMap { $0 }
                    .joined(separator: " "))
            if keepsSameType { Self.insert(seen, into: &firstSameType) }
            if keepsFound { Self.insert(seen, into: &firstFound) }
        case .order(let filters):
            for (index, filter) in filters.enumerated()
            where firstAnywhere[index] == nil && filter.matches(event, origin: origin) {
                firstAnywhere[index] = Seen(time: event.time, device: event.device, summary: "")
            }
            if ordered.count < filters.count, filters[ordered.count].matches(event, origin: origin) {
                ordered.append(Seen(time: event.time, device: event.device, summary: ""))
            }
        case .posts, .noLocationInZone, .requests:
            break
        }
    }
}

/// One expectation's verdict, with what was expected and what happened.
public struct ExpectationResult: Sendable, Codable, Equatable {
    public var description: String
    /// `file:line:column` of the expectation.
    public var location: String
    public var passed: Bool
    public var expected: String
    public var actual: String
    /// Set when the scenario ran as trials: how often it held, and how late.
    public var trials: TrialStatistics?

    public init(
        description: String, location: String, passed: Bool, expected: String, actual: String,
        trials: TrialStatistics? = nil
    ) {
        self.description = description
        self.location = location
        self.passed = passed
        self.expected = expected
        self.actual = actual
        self.trials = trials
    }
}

extension Expectation {
    /// Checks the expectation against a run; `tally` is what it saw of the run's events.
    public func evaluate(_ outcome: ScenarioOutcome, tally: EventTally) -> ExpectationResult {
        let (description, expected, actual, passed) = verdict(outcome, tally)
        return ExpectationResult(
            description: label ?? description, location: location, passed: passed, expected: expected, actual: actual)
    }

    /// From the start to the first event or post the expectation matched; nil when none did, or
    /// when it counts requests, orders or zones (nothing there is late or early).
    public func firstMatch(_ outcome: ScenarioOutcome, tally: EventTally) -> Seconds? {
        let first: EpochInstant? =
            switch kind {
            case .events: tally.firstFound.first?.time
            case .posts(let filter, _):
                outcome.posts.filter { filter.matches($0, origin: outcome.origin) }.map(\.time).min()
            case .order, .noLocationInZone, .requests: nil
            }
        return first.map { Seconds(outcome.origin.seconds(to: $0)) }
    }

    private func verdict(_ o: ScenarioOutcome, _ tally: EventTally) -> (String, String, String, Bool) {
        let shown = EventTally.shown
        func listed<T>(_ items: [T], _ text: (T) -> String) -> String {
            listed(items.prefix(shown), total: items.count, text)
        }
        func listed<T>(_ head: some Collection<T>, total: Int, _ text: (T) -> String) -> String {
            let shownText = head.map(text).joined(separator: "; ")
            return total > head.count ? shownText + "; … (\(total - head.count) more)" : shownText
        }
        func at(_ time: EpochInstant, _ device: String?, against window: Window = Window()) -> String {
            // With the decimals that tell it from a bound it rounds onto: an exit at 126.131 s was
            // listed "at +2:06" under "before +2:06" (a black-box hunt).
            let seconds = o.origin.seconds(to: time)
            let decimals = [window.after, window.before].compactMap { $0?.seconds }.compactMap { bound in
                seconds > bound
                    ? Offset.decimals(showing: seconds, over: bound) : Offset.decimals(showing: bound, over: seconds)
            }.max()
            return Offset.text(seconds, decimals: decimals ?? 0) + (device.map { " on \($0)" } ?? "")
        }
        switch kind {
        case .events(let filter, let count):
            var actual = "\(tally.found)"
            if tally.found > 0 {
                actual += ": at " + listed(tally.firstFound, total: tally.found) { at($0.time, $0.device) }
            } else if !count.holds(0) {
                actual +=
                    tally.sameType == 0
                    ? " (no \(filter.type) events at all)"
                    : " (\(filter.type) events seen: "
                        + listed(tally.firstSameType, total: tally.sameType) { event in
                            event.summary + " at " + at(event.time, event.device, against: filter.window)
                        } + ")"
            }
            return (
                Self.counted(count, filter.description), count.description, actual,
                count.holds(tally.found)
            )

        case .order(let filters):
            let times = tally.ordered.map { at($0.time, $0.device) }
            guard times.count == filters.count else {
                let missing = filters[times.count]
                let anywhere = tally.firstAnywhere[times.count]
                let actual =
                    (times.isEmpty ? "" : "matched " + times.joined(separator: ", ") + "; then ")
                    + "no \(missing.description)"
                    + (anywhere.map { " after that (one at \(at($0.time, $0.device)))" } ?? " at all")
                return (orderDescription(filters), "in this order", actual, false)
            }
            return (orderDescription(filters), "in this order", "in order at " + times.joined(separator: ", "), true)

        case .posts(let filter, let count):
            let found = o.posts.filter { filter.matches($0, origin: o.origin) }
            var actual = "\(found.count)"
            if !found.isEmpty && count.holds(found.count) {
                actual += ": at " + listed(found) { at($0.time, $0.device) }
            } else if !count.holds(found.count) {
                actual +=
                    o.posts.isEmpty
                    ? " (no posts at all)"
                    : " (posts: "
                        + listed(found.isEmpty ? related(to: filter, in: o.posts) : found) {
                            Self.summary($0, at($0.time, $0.device))
                        } + ")"
            }
            return (
                Self.counted(count, filter.description), count.description, actual,
                count.holds(found.count)
            )

        case .noLocationInZone(let zone):
            let description = "nothing locates the user inside privacy zone '\(zone.name)'"
            var violations: [String] = []
            for post in o.posts
            where post.carriesLocation && post.coordinate.map(zone.contains) == true {
                violations.append("\(post.network.rawValue) post at \(at(post.time, post.device)) carried location")
            }
            for entry in o.journal {
                for point in Self.points(in: entry.parameters) where zone.contains(point) {
                    violations.append(
                        "request #\(entry.sequence) \(entry.method) \(entry.path) sent \(point.latitude),\(point.longitude)"
                    )
                }
            }
            let checked = "\(o.posts.count) posts and \(o.journal.count) requests checked"
            return (
                description, "no post or request with a point inside the zone",
                violations.isEmpty ? "none (\(checked))" : listed(violations) { $0 }, violations.isEmpty
            )

        case .requests(let filter, let count):
            let found = o.journal.filter { filter.matches($0, origin: o.origin) }
            var actual = "\(found.count)"
            if !count.holds(found.count) {
                let paths = Dictionary(grouping: o.journal, by: { "\($0.method) \($0.path)" })
                    .map { "\($0.key) ×\($0.value.count)" }.sorted()
                actual += paths.isEmpty ? " (the journal is empty)" : " (journal: " + listed(paths) { $0 } + ")"
            }
            return (
                Self.counted(count, filter.description), count.description, actual,
                count.holds(found.count)
            )
        }
    }

    /// The posts a reader most wants to see when none matched: those for the same region
    /// (or network), else all of them.
    private func related(to filter: PostFilter, in posts: [AuditRecord]) -> [AuditRecord] {
        let sameRegion = posts.filter { post in filter.region.map { post.region == $0 } ?? false }
        if !sameRegion.isEmpty { return sameRegion }
        let sameNetwork = posts.filter { post in filter.network.map { post.network == $0 } ?? false }
        return sameNetwork.isEmpty ? posts : sameNetwork
    }

    private func orderDescription(_ filters: [EventFilter]) -> String {
        "in order: " + filters.map(\.description).joined(separator: ", then ")
    }

    /// "no regionExit …", "at least 1 regionEnter …".
    private static func counted(_ count: Count, _ what: String) -> String {
        "\(count == .none ? "no" : count.description) \(what)"
    }

    private static func summary(_ post: AuditRecord, _ at: String) -> String {
        var text = "\(post.network.rawValue) \(post.decision.rawValue) at \(at)"
        if let place = post.placeName { text += " '\(place)'" }
        text += post.carriesLocation ? " (\(post.precision.rawValue))" : " (no location)"
        if let gate = post.gates.first(where: { !$0.passed }) { text += " blocked by \(gate.gate.rawValue)" }
        return text
    }

    /// The points a request's parameters give away: `lat`/`long`, Graph `center` and
    /// `coordinates`.
    static func points(in parameters: [String: String]) -> [Coordinate] {
        var points: [Coordinate] = []
        if let lat = parameters["lat"].flatMap(Double.init), let lon = parameters["long"].flatMap(Double.init) {
            points.append(Coordinate(latitude: lat, longitude: lon))
        }
        if let center = parameters["center"] {
            let parts = center.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            if parts.count == 2 { points.append(Coordinate(latitude: parts[0], longitude: parts[1])) }
        }
        if let json = parameters["coordinates"]?.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any],
            let lat = (object["latitude"] as? NSNumber)?.doubleValue,
            let lon = (object["longitude"] as? NSNumber)?.doubleValue
        {
            points.append(Coordinate(latitude: lat, longitude: lon))
        }
        return points
    }
}
