import Foundation
import Geo
import LocationEvents
import SimulatedTime

/// `CLMonitor`'s rule over every monitor of an app, as a value: add conditions under a monitor's
/// name, feed it where the device is at each fix, and it returns the events that rule produces.
/// Authorization and delivery are the manager's business, not this type's.
///
/// - Geographic conditions follow region monitoring's rule exactly (``RegionMonitor``: threshold,
///   dwell, nothing stamped inside a signal gap), so the delegate API and the monitor report the
///   same transitions at the same instants.
/// - Beacon conditions are satisfied at the first fix within range of a matching beacon and
///   unsatisfied after ``LocationManagerConfiguration/beaconExitDelay`` out of range.
/// - The first event after `add` follows `assuming:` (Apple, `add(_:identifier:assuming:)`): the
///   condition starts in the assumed state (`unknown` when none is given) and an event comes only
///   when the monitor determines a different one.
///
/// ```swift
/// var monitor = ConditionMonitor(configuration: LocationManagerConfiguration())
/// monitor.add(.circularGeographic(.init(center: cafe, radius: 150)), identifier: "cafe", monitor: "visits",
///             assuming: .unsatisfied, time: t0)
/// let events = monitor.evaluate(believed: fix.coordinate, actual: truth, time: fix.timestamp)
/// ```
package struct ConditionMonitor {
    private struct Key: Hashable {
        var monitor: String
        var identifier: String
        /// The identifier of the condition's region in ``RegionMonitor``, unique across monitors.
        var region: String { monitor + "\u{1F}" + identifier }
    }

    private struct Entry {
        var condition: MonitoringCondition
        var lastEvent: MonitoringEvent
        /// A beacon condition's last fix in range of a matching beacon.
        var lastHeard: EpochInstant?
        /// Evaluated (false when over the limit or unsupported).
        var isMonitored: Bool
        /// When it was added, among every condition added: events come out in that order.
        var sequence: Int

        /// A beacon condition that a fix out of range of its beacons leaves as it is: settled
        /// unsatisfied (no exit delay running, nothing to report).
        var isSettled: Bool { lastEvent.state == .unsatisfied && lastEvent.diagnostics.isEmpty }
    }

    /// What a beacon condition names (`BeaconIdentityCondition`'s fields as given), to find the
    /// conditions a beacon heard matches without trying every one.
    fileprivate struct BeaconName: Hashable {
        var uuid: UUID
        var major: UInt16?
        var minor: UInt16?
    }

    package let configuration: LocationManagerConfiguration
    /// The beacons in the world.
    package var beacons: [Beacon] {
        didSet { beaconIndex = Self.index(beacons) }
    }
    /// ``beacons`` by where they are heard (their positions in the list), so that a fix looks at
    /// the few near it — looking at every one, 10,000 beacons in the world made a replay of the
    /// walk with 20 beacon conditions take 1.2 s, 1,000 conditions 8.8 s — and the beacons the
    /// index cannot file (not a valid place, or a range not within 0–10 km), looked at every fix.
    private var beaconIndex: (near: CircleIndex<Int>, elsewhere: [Int])
    private var geographic: RegionMonitor
    private var entries: [Key: Entry] = [:]
    /// Conditions added so far, for the next entry's ``Entry/sequence``.
    private var added = 0
    /// The monitored conditions; the beacon ones among them by what they name, and those not
    /// settled (evaluated at every fix; a settled one when a beacon it names is heard, a
    /// geographic one when its region changes): kept as conditions come and go, so that an add
    /// and a fix do not walk every condition (replaying the walk with 10,000 geographic ones took
    /// 7.9 s, the delegate API's regions 0.08 s; with 10,000 beacon ones 15 s).
    private var monitored = 0
    /// The beacon conditions among ``monitored``: the limit is per type of condition.
    private var monitoredBeacons = 0
    /// (A list a name: nearly always one, and a list costs no hash to add to.)
    private var beaconKeys: [BeaconName: [Key]] = [:]
    private var unsettled: Set<Key> = []

    package init(configuration: LocationManagerConfiguration, beacons: [Beacon] = []) {
        self.configuration = configuration
        self.beacons = beacons
        self.beaconIndex = Self.index(beacons)
        self.geographic = RegionMonitor(configuration: configuration)
    }

    /// Number of conditions monitored, across every monitor of the app.
    package var count: Int { monitored }

    /// The monitored conditions of `condition`'s type, geographic or beacon: the limit is per
    /// type ("monitoring too many other conditions of this type", Apple,
    /// `CLMonitor.Event.conditionLimitExceeded`); beacon conditions took the geographic ones' room.
    private func monitored(like condition: MonitoringCondition) -> Int {
        if case .beaconIdentity = condition { return monitoredBeacons }
        return monitored - monitoredBeacons
    }

    /// Whether any condition is monitored: asked at every fix.
    /// Inlined: read at every sample, a call passed a copy of the whole monitor.
    @inline(__always) package var isMonitoring: Bool { monitored > 0 }

    /// The identifiers a monitor has conditions for (`CLMonitor.identifiers`), in the order added.
    package func identifiers(of monitor: String) -> [String] {
        inAddOrder.filter { $0.key.monitor == monitor }.map(\.key.identifier)
    }

    /// Every condition, in the order added (kept as a sequence number, not a list: a removal does
    /// not search).
    private var inAddOrder: [(key: Key, value: Entry)] {
        entries.sorted { $0.value.sequence < $1.value.sequence }
    }

    /// `CLMonitor.record(for:)`: the condition and its last event.
    package func record(for identifier: String, in monitor: String) -> MonitoringRecord? {
        entries[Key(monitor: monitor, identifier: identifier)].map {
            MonitoringRecord(condition: $0.condition, lastEvent: $0.lastEvent)
        }
    }

    /// Adds (or replaces) a condition at `time`, the device at `believed` (its last fix) and
    /// `actual`, when known. Returns the events iOS gives at once: `unmonitored` with its reason
    /// for a condition beyond the limit or that cannot be monitored, else the state determined
    /// from the device's position when it differs from the one assumed.
    package mutating func add(
        _ condition: MonitoringCondition, identifier: String, monitor: String, assuming: MonitoringState = .unknown,
        believed: Coordinate?, actual: Coordinate?, time: EpochInstant
    ) -> [MonitoringEvent] {
        let key = Key(monitor: monitor, identifier: identifier)
        remove(identifier, from: monitor)
        var diagnostics: MonitoringDiagnostics = []
        if case .circularGeographic(let circle) = condition,
            !(circle.radius > 0 && circle.radius <= configuration.maximumRegionMonitoringDistance
                && circle.center.isValid)
        {
            diagnostics = .conditionUnsupported
        } else if let limit = configuration.regionLimit, monitored(like: condition) >= limit {
            diagnostics = .conditionLimitExceeded
        }
        var entry = Entry(
            condition: condition,
            lastEvent: MonitoringEvent(
                monitor: monitor, identifier: identifier, state: diagnostics.isEmpty ? assuming : .unmonitored,
                date: time, condition: condition, diagnostics: diagnostics),
            isMonitored: diagnostics.isEmpty, sequence: added)
        append(key, entry)
        guard diagnostics.isEmpty else { return [entry.lastEvent] }
        var state: MonitoringState?
        switch condition {
        case .circularGeographic(let circle):
            let region = geographic.register(
                CircularRegion(identifier: key.region, center: circle.center, radius: circle.radius),
                deviceAt: believed, time: time)
            state = region == .unknown ? nil : region == .inside ? .satisfied : .unsatisfied
        case .beaconIdentity(let beacon):
            if let actual { state = beaconState(beacon, entry: &entry, heard: heard(at: actual), time: time)?.0 }
        }
        var events: [MonitoringEvent] = []
        if let state, state != assuming {
            entry.lastEvent = MonitoringEvent(
                monitor: monitor, identifier: identifier, state: state, date: time,
                condition: condition)
            events.append(entry.lastEvent)
        }
        store(entry, at: key)
        return events
    }

    /// Puts back a record kept from an earlier launch: no event now; the condition's state is
    /// determined afresh at the next fix and reported only where it differs from the record's.
    package mutating func restore(_ record: MonitoringRecord, identifier: String, monitor: String) {
        let key = Key(monitor: monitor, identifier: identifier)
        remove(identifier, from: monitor)
        let monitored = record.lastEvent.state != .unmonitored
        append(
            key,
            Entry(condition: record.condition, lastEvent: record.lastEvent, isMonitored: monitored, sequence: added))
        if monitored, case .circularGeographic(let circle) = record.condition {
            geographic.register(
                CircularRegion(identifier: key.region, center: circle.center, radius: circle.radius), deviceAt: nil,
                time: record.lastEvent.date)
        }
    }

    /// `CLMonitor.remove(_:)`.
    package mutating func remove(_ identifier: String, from monitor: String) {
        let key = Key(monitor: monitor, identifier: identifier)
        guard let removed = entries.removeValue(forKey: key) else { return }
        if removed.isMonitored { monitored -= 1 }
        if case .beaconIdentity(let condition) = removed.condition {
            if removed.isMonitored { monitoredBeacons -= 1 }
            let name = BeaconName(condition)
            beaconKeys[name]?.removeAll { $0 == key }
            if beaconKeys[name]?.isEmpty == true { beaconKeys[name] = nil }
            unsettled.remove(key)
        }
        geographic.remove(key.region)
    }

    /// Makes room for `additional` more conditions, `beacons` of them beacon ones, for an app
    /// about to add a whole list (as ``RegionMonitor/reserveCapacity(forAdditional:)`` does for
    /// the delegate's regions).
    package mutating func reserveCapacity(forAdditional additional: Int, beacons: Int = 0) {
        entries.reserveCapacity(entries.count + additional)
        geographic.reserveCapacity(forAdditional: additional - beacons)
        beaconKeys.reserveCapacity(beaconKeys.count + beacons)
        unsettled.reserveCapacity(unsettled.count + beacons)
    }

    /// A new condition's entry, the last added.
    private mutating func append(_ key: Key, _ entry: Entry) {
        added += 1
        if entry.isMonitored {
            monitored += 1
            if case .beaconIdentity(let condition) = entry.condition {
                monitoredBeacons += 1
                beaconKeys[BeaconName(condition), default: []].append(key)
            }
        }
        store(entry, at: key)
    }

    /// Keeps `entry` at `key`, and whether a fix must look at it though no beacon it names is heard.
    private mutating func store(_ entry: Entry, at key: Key) {
        entries[key] = entry
        guard entry.isMonitored, case .beaconIdentity = entry.condition else { return }
        if entry.isSettled { unsettled.remove(key) } else { unsettled.insert(key) }
    }

    /// The monitored beacon conditions that name one of `beacons`.
    private func naming(_ beacons: [Beacon]) -> Set<Key> {
        var keys: Set<Key> = []
        for beacon in beacons {
            for (major, minor) in [(nil, nil), (beacon.major, nil), (beacon.major, beacon.minor), (nil, beacon.minor)] {
                keys.formUnion(beaconKeys[BeaconName(uuid: beacon.uuid, major: major, minor: minor)] ?? [])
            }
        }
        return keys
    }

    /// The signal came back at `time` after a gap.
    package mutating func signalResumed(at time: EpochInstant) {
        geographic.signalResumed(at: time)
    }

    /// Every monitored condition becomes `unknown` with `diagnostics` (authorization lost, say):
    /// one event each whose last event is not already that; evaluation starts afresh afterwards.
    package mutating func suspend(_ diagnostics: MonitoringDiagnostics, time: EpochInstant) -> [MonitoringEvent] {
        var events: [MonitoringEvent] = []
        for (key, var entry) in inAddOrder {
            guard entry.isMonitored else { continue }
            if entry.lastEvent.state == .unknown && entry.lastEvent.diagnostics == diagnostics { continue }
            entry.lastEvent = MonitoringEvent(
                monitor: key.monitor, identifier: key.identifier, state: .unknown,
                date: time,
                condition: entry.condition, diagnostics: diagnostics)
            entry.lastHeard = nil
            store(entry, at: key)
            events.append(entry.lastEvent)
            if case .circularGeographic(let circle) = entry.condition {
                geographic.register(
                    CircularRegion(identifier: key.region, center: circle.center, radius: circle.radius),
                    deviceAt: nil, time: time)
            }
        }
        return events
    }

    /// Evaluates every condition at a fix: geographic ones at the `believed` position (the fix,
    /// noise included), beacon ones at the `actual` position (Bluetooth does not share GPS's
    /// error). Returns the events, in the order conditions were added.
    package mutating func evaluate(believed: Coordinate, actual: Coordinate, time: EpochInstant) -> [MonitoringEvent] {
        var changed: [Key: (MonitoringState, EpochInstant)] = [:]
        for change in geographic.evaluate(at: believed, time: time) {
            switch change {
            case .determined(let region, let state, let at), .crossed(let region, let state, let at, _):
                changed[keyOf(region: region.identifier)] = (state == .inside ? .satisfied : .unsatisfied, at)
            }
        }
        // The conditions that may change — those whose regions changed, the beacon ones not
        // settled and those naming a beacon heard (at the first fix, every one) — in the order
        // they were added.
        let beaconsHeard = beaconKeys.isEmpty ? [] : heard(at: actual)
        let beaconCandidates = unsettled.union(naming(beaconsHeard))
        let keys = (Array(changed.keys) + beaconCandidates).map { (entries[$0]?.sequence ?? 0, $0) }
            .sorted { $0.0 < $1.0 }.map(\.1)
        var events: [MonitoringEvent] = []
        for key in keys {
            guard var entry = entries[key], entry.isMonitored else { continue }
            var next = changed[key]
            if case .beaconIdentity(let condition) = entry.condition {
                next = beaconState(condition, entry: &entry, heard: beaconsHeard, time: time)
            }
            guard let (state, at) = next, state != entry.lastEvent.state || !entry.lastEvent.diagnostics.isEmpty
            else {
                store(entry, at: key)
                continue
            }
            entry.lastEvent = MonitoringEvent(
                monitor: key.monitor, identifier: key.identifier, state: state,
                date: at, condition: entry.condition)
            store(entry, at: key)
            events.append(entry.lastEvent)
        }
        return events.sorted { $0.date < $1.date }  // stable: same-instant events keep their order
    }

    private func keyOf(region: String) -> Key {
        let parts = region.split(separator: "\u{1F}", maxSplits: 1, omittingEmptySubsequences: false)
        return Key(monitor: String(parts[0]), identifier: parts.count > 1 ? String(parts[1]) : "")
    }

    /// The beacons heard at `position`: within their range of it.
    private func heard(at position: Coordinate) -> [Beacon] {
        (beaconIndex.near.candidates(near: position) + beaconIndex.elsewhere).map { beacons[$0] }.filter {
            ShortDistance.distance($0.coordinate, position) <= $0.range
        }
    }

    /// ``beaconIndex`` for `beacons`. The index's margin (10 m) keeps every beacon heard among the
    /// candidates, whatever its rounding of metres to degrees.
    private static func index(_ beacons: [Beacon]) -> (near: CircleIndex<Int>, elsewhere: [Int]) {
        var index = (near: CircleIndex<Int>(margin: 10), elsewhere: [Int]())
        for (position, beacon) in beacons.enumerated() {
            if beacon.coordinate.isValid && (0...10_000).contains(beacon.range) {
                index.near.insert(Circle(center: beacon.coordinate, radius: beacon.range), for: position)
            } else {
                index.elsewhere.append(position)
            }
        }
        return index
    }

    /// A beacon condition at a fix, with the beacons `heard` there: in range of a matching beacon
    /// is satisfied at once; out of range for the exit delay is unsatisfied (at the instant the
    /// delay ran out); the first fix decides an unknown state either way.
    private func beaconState(
        _ condition: BeaconIdentityCondition, entry: inout Entry, heard: [Beacon], time: EpochInstant
    )
        -> (MonitoringState, EpochInstant)?
    {
        if heard.contains(where: condition.matches) {
            entry.lastHeard = time
            return (.satisfied, time)
        }
        guard entry.lastEvent.state == .satisfied, entry.lastEvent.diagnostics.isEmpty else {
            return (.unsatisfied, time)
        }
        let since = entry.lastHeard ?? entry.lastEvent.date
        guard since.seconds(to: time) >= configuration.beaconExitDelay.seconds - 1e-9 else { return nil }
        return (.unsatisfied, since.advanced(by: configuration.beaconExitDelay))
    }
}

extension ConditionMonitor.BeaconName {
    init(_ condition: BeaconIdentityCondition) {
        self.init(uuid: condition.uuid, major: condition.major, minor: condition.minor)
    }
}
