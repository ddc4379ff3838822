import Geo
import HeapModule
import LocationEvents
import SimulatedTime

/// Apple's region-monitoring rule over a set of circular regions, as a value: register regions,
/// feed it where the device believes it is at each fix, and it returns the transitions that rule
/// confirms. Authorization, limits and delivery are the manager's business, not this type's.
///
/// The rule (Apple, "Monitoring the user's proximity to geographic regions"): a transition is
/// reported when the device has crossed the boundary, moved a minimum distance past it
/// (``LocationManagerConfiguration/regionHysteresis``, "about 200 m" when testing) and stayed
/// there for ``LocationManagerConfiguration/regionDwell`` (20 s). Only fixes that arrived count:
/// across a signal gap the path is unknown, so nothing is stamped inside the gap.
///
/// ```swift
/// var monitor = RegionMonitor(configuration: LocationManagerConfiguration())
/// monitor.register(cafe, deviceAt: here, time: t0)          // .outside: no event
/// let changes = monitor.evaluate(at: fix.coordinate, time: fix.timestamp)
/// // [.crossed(cafe, into: .inside, time: …, position: …)] once the rule is met
/// ```
package struct RegionMonitor {
    /// What a fix changed for one region.
    package enum Change: Sendable, Equatable {
        /// The region's state became known (its first fix): no entry or exit is reported for it.
        case determined(CircularRegion, RegionState, time: EpochInstant)
        /// The rule confirmed an entry (`.inside`) or an exit (`.outside`) at `time` — the threshold
        /// crossing (interpolated between two received fixes) plus the dwell — reported with the
        /// believed `position` of the fix that confirmed it.
        case crossed(CircularRegion, into: RegionState, time: EpochInstant, position: Coordinate)

        package var region: CircularRegion {
            switch self {
            case .determined(let region, _, _), .crossed(let region, _, _, _): region
            }
        }
    }

    private struct Slot {
        var region: CircularRegion
        var state: RegionState = .unknown
        /// The state being confirmed and since when it has held.
        var pending: (state: RegionState, since: EpochInstant)?
        /// The device's distance and the time when the region was registered, if a fix was known:
        /// until the next fix, the evidence a crossing is interpolated from.
        var registration: Evidence?
        /// The number of fixes evaluated before the region was registered.
        var registeredAfterFix = 0
        /// Evaluated on every fix, wherever the device is: inside, pending or undetermined.
        var isActive = true
        /// False once the slot's region stopped being monitored (slots are reused).
        var isLive = true
    }

    /// Where the device was known to be before the fix being evaluated, for one region.
    private enum Evidence {
        case registration(distance: Double, time: EpochInstant)
        case fix(position: Coordinate, time: EpochInstant, metric: LocalMetric)

        var time: EpochInstant {
            switch self {
            case .registration(_, let time), .fix(_, let time, _): time
            }
        }

        /// Computed only where a crossing is interpolated; with the metric of that fix, so it is
        /// the distance that fix measured.
        func distance(from center: Coordinate) -> Double {
            switch self {
            case .registration(let distance, _): distance
            case .fix(let position, _, let metric): metric.distance(center, position)
            }
        }
    }

    package let configuration: LocationManagerConfiguration
    /// The rule's numbers, taken out of ``configuration`` once: copying the configuration for each
    /// fix retained and released its references.
    private let rule: Rule

    /// Apple's rule for one region: how far past the boundary, and for how long.
    private struct Rule {
        var hysteresis: Double
        var inwardCapFraction: Double
        var dwell: Seconds

        /// ``LocationManagerConfiguration/inwardThreshold(radius:)``.
        func inwardThreshold(radius: Double) -> Double {
            LocationManagerConfiguration.inwardThreshold(
                radius: radius, hysteresis: hysteresis, capFraction: inwardCapFraction)
        }
    }
    /// Slots are reused; identifiers map to them.
    private var slots: [Slot] = []
    private var slotOf: [String: Int] = [:]
    private var freeSlots: [Int] = []
    private var index: CircleIndex<Int>
    /// The grid cell of the last fix (consecutive fixes mostly share one; forgotten whenever the
    /// index changes) and its candidates that are not active, by when they wake: a fix takes
    /// those awake from the top and leaves the sleeping untouched.
    private var grid: (cell: CircleIndex<Int>.Cell?, waking: Heap<Wake>) = (nil, [])
    /// Per slot, the number of the cell it was last a candidate of (see ``gridNumber``).
    private var inGrid: [Int] = []
    /// Counts the cells ``grid`` has held.
    private var gridNumber = 0
    /// Slots evaluated at every fix wherever the device is (inside, pending or undetermined):
    /// registering or settling one costs the same with 10 regions or 100,000, and so does
    /// visiting them (a `Set` visits every bucket it ever grew to: 100,000 regions registered
    /// undetermined left a fix scanning 100,000 empty buckets for the handful still active).
    private var active = SlotSet()
    /// Reused for each fix's slots to evaluate, so evaluating regions allocates nothing.
    private var scratch: [Int] = []
    /// Fixes evaluated so far.
    private var fixNumber = 0
    private var metric: (latitude: Double, metric: LocalMetric)?
    /// The last fix evaluated: a crossing is interpolated between it and the next.
    private var previousFix: (position: Coordinate, time: EpochInstant, metric: LocalMetric)?
    /// Metres the device has moved, fix to fix, since the first fix.
    private var odometer = 0.0
    /// Per slot, the odometer reading before which its region cannot be entered: a region outside,
    /// confirming nothing, at distance d beyond its entry threshold needs the device to move d
    /// metres first. It is evaluated again after half that (slack for the local metric's error),
    /// so the regions a fix weighs are the few near enough to matter, not all those filed in its
    /// grid cell. Slots evaluated at every fix (``active``) are never asleep.
    private var asleepUntil: [Double] = []
    /// When the signal last came back after a gap: a crossing is never placed before it.
    private var signalResumed = EpochInstant.distantPast

    /// A sleeping candidate of the grid cell: its slot and when it wakes.
    private struct Wake: Comparable {
        var odometer: Double
        var slot: Int

        static func < (a: Wake, b: Wake) -> Bool { (a.odometer, a.slot) < (b.odometer, b.slot) }
    }

    package init(configuration: LocationManagerConfiguration) {
        self.configuration = configuration
        self.rule = Rule(
            hysteresis: configuration.regionHysteresis, inwardCapFraction: configuration.regionInwardCapFraction,
            dwell: configuration.regionDwell)
        self.index = CircleIndex<Int>(margin: configuration.regionHysteresis)
    }

    /// Counts the changes to the set of regions monitored (each ``register(_:deviceAt:time:)``
    /// and each ``remove(_:)`` of a monitored one): equal revisions of one monitor, equal sets.
    package private(set) var revision = 0

    /// Number of regions monitored.
    package var count: Int { slotOf.count }
    package var isEmpty: Bool { slotOf.isEmpty }

    /// The regions monitored, in identifier order.
    package var regions: [CircularRegion] {
        slotOf.values.map { slots[$0].region }.sorted { $0.identifier < $1.identifier }
    }

    package func contains(_ identifier: String) -> Bool { slotOf[identifier] != nil }

    /// Makes room for `additional` more regions in the tables keyed by identifier and by slot:
    /// an app starting to monitor a list of 100,000 rehashed every key each time one doubled
    /// (perf: growing them was 8 % of reading and registering the list). The slot arrays are left
    /// to grow: reserved as well, they cost a 10,000-device crowd with five regions each 5 MB at
    /// its peak, for no time saved.
    package mutating func reserveCapacity(forAdditional additional: Int) {
        slotOf.reserveCapacity(slotOf.count + additional)
        index.reserveCapacity(index.count + additional)
    }

    /// The region's state as the rule last determined it; `.unknown` before the first fix or for
    /// a region not monitored.
    package func state(of identifier: String) -> RegionState {
        slotOf[identifier].map { slots[$0].state } ?? .unknown
    }

    /// Starts monitoring `region` (the same identifier replaces the region). The initial state is
    /// where the device is now, if a fix is known; no transition is reported for it.
    @discardableResult
    package mutating func register(_ region: CircularRegion, deviceAt position: Coordinate?, time: EpochInstant)
        -> RegionState
    {
        revision += 1
        var slot = Slot(region: region, registeredAfterFix: fixNumber)
        if let position {
            let distance = ShortDistance.distance(region.center, position)
            slot.state = distance <= region.radius ? .inside : .outside
            slot.registration = .registration(distance: distance, time: time)
            slot.isActive = slot.state == .inside
        }
        // One lookup for the common case, a new identifier: it takes a free slot or a new one.
        var number = freeSlots.last ?? slots.count
        if let existing = slotOf.updateValue(number, forKey: region.identifier) {
            slotOf[region.identifier] = existing
            number = existing
        } else if number < slots.count {
            freeSlots.removeLast()
        }
        let (state, isActive) = (slot.state, slot.isActive)
        // The slot stored once, its last use: stored and then read, it was copied (perf: ~4 % of
        // registering 100,000 regions).
        if number == slots.count { slots.append(slot) } else { slots[number] = slot }
        grid = (nil, [])
        index.insert(region.circle, for: number)
        if inGrid.count < slots.count {
            inGrid.append(contentsOf: repeatElement(0, count: slots.count - inGrid.count))
            asleepUntil.append(contentsOf: repeatElement(-.infinity, count: slots.count - asleepUntil.count))
        }
        asleepUntil[number] = -.infinity
        if isActive { active.insert(number) } else { active.remove(number) }
        return state
    }

    /// Stops monitoring the region with `identifier`.
    package mutating func remove(_ identifier: String) {
        guard let number = slotOf.removeValue(forKey: identifier) else { return }
        revision += 1
        slots[number].isLive = false
        freeSlots.append(number)
        grid = (nil, [])
        index.remove(number)
        active.remove(number)
    }

    /// The signal came back at `time` after a gap: evidence from before it no longer counts.
    package mutating func signalResumed(at time: EpochInstant) {
        signalResumed = time
    }

    /// Evaluates every region near `position` (the believed position of a fix at `time`) and
    /// returns what changed, in a fixed (slot) order.
    package mutating func evaluate(at position: Coordinate, time: EpochInstant) -> [Change] {
        let metric = LocalMetric.near(position.latitude, cached: &metric)
        if let previousFix {
            // A jump beyond any slot's sleep (≤ 5 km) wakes them all, whatever the metric's error there.
            let moved = metric.distance(previousFix.position, position)
            odometer += moved <= 1_000 ? moved : moved + 10_000
        }
        scratch.removeAll(keepingCapacity: true)
        fixNumber += 1
        // The awake candidates of the cell, then the active slots (never in the cell's queue).
        let cell = index.cell(containing: position)
        if cell != grid.cell {
            gridNumber += 1
            var sleeping: [Wake] = []
            for number in index.candidates(in: cell) {
                inGrid[number] = gridNumber
                if !slots[number].isActive { sleeping.append(Wake(odometer: asleepUntil[number], slot: number)) }
            }
            grid = (cell, Heap(sleeping))
        }
        while let next = grid.waking.min, next.odometer <= odometer {
            grid.waking.removeMin()
            scratch.append(next.slot)
        }
        // Read in place, by index: appending the list whole (or looping over `scratch` itself
        // below) retained and released its storage at every fix where any slot is active, 2.5 %
        // of a crowd's CPU (perf, 10,000 devices), 1.5 % of a field trial's simulation.
        for place in active.members.indices { scratch.append(active.members[place]) }
        // Changes come in slot order, whatever order the slots woke in.
        if zip(scratch, scratch.dropFirst()).contains(where: { $0 > $1 }) { scratch.sort() }
        // The rule reads these, not `self`: a method of `self` called with `&slots[n]` would copy
        // the whole monitor, and then every slot, at each fix.
        let (rule, signalResumed) = (self.rule, self.signalResumed)
        let previous = previousFix.map { Evidence.fix(position: $0.position, time: $0.time, metric: $0.metric) }
        var changes: [Change] = []
        for place in scratch.indices {
            let number = scratch[place]
            guard slots[number].isLive else { continue }
            let distance = metric.distance(slots[number].region.center, position)
            if slots[number].state == .unknown {
                slots[number].state = distance <= slots[number].region.radius ? .inside : .outside
                changes.append(.determined(slots[number].region, slots[number].state, time: time))
            } else if let (state, at) = Self.step(
                &slots[number], distance: distance, time: time,
                evidence: slots[number].registeredAfterFix == fixNumber - 1 ? slots[number].registration : previous,
                rule: rule, signalResumed: signalResumed)
            {
                changes.append(.crossed(slots[number].region, into: state, time: at, position: position))
            }
            let keep = slots[number].state != .outside || slots[number].pending != nil
            if keep != slots[number].isActive {
                slots[number].isActive = keep
                if keep { active.insert(number) } else { active.remove(number) }
            }
            if keep {
                asleepUntil[number] = -.infinity
            } else {
                let radius = slots[number].region.radius
                let beyond = distance - (radius - rule.inwardThreshold(radius: radius))
                asleepUntil[number] = odometer + min(beyond * 0.5, 5_000)
                if inGrid[number] == gridNumber {
                    grid.waking.insert(Wake(odometer: asleepUntil[number], slot: number))
                }
            }
        }
        previousFix = (position, time, metric)
        return changes
    }

    /// One region's rule at one fix: cross the boundary, get the hysteresis distance past it, stay
    /// there for the dwell. The threshold crossing is interpolated between two received fixes, so
    /// the reported time is exact to the route, not to the sampling.
    private static func step(
        _ slot: inout Slot, distance: Double, time: EpochInstant, evidence: Evidence?,
        rule: Rule, signalResumed: EpochInstant
    ) -> (state: RegionState, time: EpochInstant)? {
        let (radius, center) = (slot.region.radius, slot.region.center)
        // The first fix after a signal gap: a dwell begun before the gap is not evidence.
        if (evidence?.time ?? .distantFuture) < signalResumed { slot.pending = nil }
        let target: RegionState = slot.state == .inside ? .outside : .inside
        let threshold =
            target == .inside
            ? radius - rule.inwardThreshold(radius: radius)
            : radius + rule.hysteresis
        guard target == .inside ? distance <= threshold : distance >= threshold else {
            slot.pending = nil
            return nil
        }
        if slot.pending == nil {
            var since = time
            // Across a signal gap the crossing counts from the first fix after it.
            if let evidence, evidence.time >= signalResumed {
                let d0 = evidence.distance(from: center)
                let fraction = (threshold - d0) / (distance - d0)
                if d0 != distance, fraction > 0 && fraction <= 1 {
                    since = evidence.time.advanced(bySeconds: evidence.time.seconds(to: time) * fraction)
                }
            }
            slot.pending = (target, since)
        }
        guard let pending = slot.pending, pending.since.seconds(to: time) >= rule.dwell.seconds - 1e-9
        else { return nil }
        slot.state = target
        slot.pending = nil
        return (target, pending.since.advanced(by: rule.dwell))
    }
}

/// A set of slot numbers whose members are visited in time proportional to their count:
/// a list of the members and, per slot, its place in the list (swap-removal keeps it dense).
private struct SlotSet {
    private(set) var members: [Int] = []
    private var place: [Int] = []

    mutating func insert(_ slot: Int) {
        if place.count <= slot { place.append(contentsOf: repeatElement(-1, count: slot + 1 - place.count)) }
        guard place[slot] < 0 else { return }
        place[slot] = members.count
        members.append(slot)
    }

    mutating func remove(_ slot: Int) {
        guard slot < place.count, place[slot] >= 0 else { return }
        let last = members.removeLast()
        if last != slot {
            members[place[slot]] = last
            place[last] = place[slot]
        }
        place[slot] = -1
    }
}
