import Geo

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
public struct RegionMonitor {
    /// What a fix changed for one region.
    public enum Change: Sendable, Equatable {
        /// The region's state became known (its first fix): no entry or exit is reported for it.
        case determined(CircularRegion, RegionState, time: Double)
        /// The rule confirmed an entry (`.inside`) or an exit (`.outside`) at `time` — the threshold
        /// crossing (interpolated between two received fixes) plus the dwell — reported with the
        /// believed `position` of the fix that confirmed it.
        case crossed(CircularRegion, into: RegionState, time: Double, position: Coordinate)

        public var region: CircularRegion {
            switch self {
            case .determined(let region, _, _), .crossed(let region, _, _, _): region
            }
        }
    }

    private struct Slot {
        var region: CircularRegion
        var state: RegionState = .unknown
        /// The state being confirmed and since when it has held.
        var pending: (state: RegionState, since: Double)?
        var lastDistance: Double?
        var lastTime: Double?
        /// Evaluated on every fix, wherever the device is: inside, pending or undetermined.
        var isActive = true
        /// False once the slot's region stopped being monitored (slots are reused).
        var isLive = true
    }

    public let configuration: LocationManagerConfiguration
    /// Slots are reused; identifiers map to them.
    private var slots: [Slot] = []
    private var slotOf: [String: Int] = [:]
    private var freeSlots: [Int] = []
    private var index: CircleIndex<Int>
    /// Slots evaluated at every fix wherever the device is (inside, pending or undetermined):
    /// registering or settling one costs the same with 10 regions or 100,000, and so does
    /// visiting them (a `Set` visits every bucket it ever grew to: 100,000 regions registered
    /// undetermined left a fix scanning 100,000 empty buckets for the handful still active).
    private var active = SlotSet()
    /// Reused for each fix's candidates, so evaluating regions allocates nothing.
    private var scratch: [Int] = []
    /// Per slot, the fix at which it was last taken as a candidate: duplicates are skipped in O(1).
    private var seen: [UInt32] = []
    private var fixNumber: UInt32 = 0
    private var metric: (latitude: Double, metric: LocalMetric)?
    /// When the signal last came back after a gap: a crossing is never placed before it.
    private var signalResumed = -Double.infinity

    public init(configuration: LocationManagerConfiguration) {
        self.configuration = configuration
        self.index = CircleIndex<Int>(margin: configuration.regionHysteresis)
    }

    /// Number of regions monitored.
    public var count: Int { slotOf.count }
    public var isEmpty: Bool { slotOf.isEmpty }

    /// The regions monitored, in identifier order.
    public var regions: [CircularRegion] {
        slotOf.values.map { slots[$0].region }.sorted { $0.identifier < $1.identifier }
    }

    public func contains(_ identifier: String) -> Bool { slotOf[identifier] != nil }

    /// The region's state as the rule last determined it; `.unknown` before the first fix or for
    /// a region not monitored.
    public func state(of identifier: String) -> RegionState {
        slotOf[identifier].map { slots[$0].state } ?? .unknown
    }

    /// Starts monitoring `region` (the same identifier replaces the region). The initial state is
    /// where the device is now, if a fix is known; no transition is reported for it.
    @discardableResult
    public mutating func register(_ region: CircularRegion, deviceAt position: Coordinate?, time: Double)
        -> RegionState
    {
        var slot = Slot(region: region)
        if let position {
            let distance = ShortDistance.distance(region.center, position)
            slot.state = distance <= region.radius ? .inside : .outside
            slot.lastDistance = distance
            slot.lastTime = time
            slot.isActive = slot.state == .inside
        }
        let number: Int
        if let existing = slotOf[region.identifier] {
            number = existing
        } else if let free = freeSlots.popLast() {
            number = free
        } else {
            number = slots.count
            slots.append(slot)
        }
        slots[number] = slot
        slotOf[region.identifier] = number
        index.insert(region.circle, for: number)
        if seen.count < slots.count { seen.append(contentsOf: repeatElement(0, count: slots.count - seen.count)) }
        if slot.isActive { active.insert(number) } else { active.remove(number) }
        return slot.state
    }

    /// Stops monitoring the region with `identifier`.
    public mutating func remove(_ identifier: String) {
        guard let number = slotOf.removeValue(forKey: identifier) else { return }
        slots[number].isLive = false
        freeSlots.append(number)
        index.remove(number)
        active.remove(number)
    }

    /// The signal came back at `time` after a gap: evidence from before it no longer counts.
    public mutating func signalResumed(at time: Double) {
        signalResumed = time
    }

    /// Evaluates every region near `position` (the believed position of a fix at `time`) and
    /// returns what changed, in a fixed (slot) order.
    public mutating func evaluate(at position: Coordinate, time: Double) -> [Change] {
        let metric = LocalMetric.near(position.latitude, cached: &metric)
        scratch.removeAll(keepingCapacity: true)
        fixNumber &+= 1
        if fixNumber == 0 {
            for i in seen.indices { seen[i] = 0 }
            fixNumber = 1
        }
        for number in index.candidates(near: position) where seen[number] != fixNumber {
            seen[number] = fixNumber
            scratch.append(number)
        }
        for number in active.members where seen[number] != fixNumber {
            seen[number] = fixNumber
            scratch.append(number)
        }
        // A cell files its regions in the order they were registered: sorted already, as a rule.
        if zip(scratch, scratch.dropFirst()).contains(where: { $0 > $1 }) { scratch.sort() }
        // The rule reads these, not `self`: a method of `self` called with `&slots[n]` would copy
        // the whole monitor, and then every slot, at each fix.
        let (configuration, signalResumed) = (self.configuration, self.signalResumed)
        var changes: [Change] = []
        for number in scratch where slots[number].isLive {
            let distance = metric.distance(slots[number].region.center, position)
            if slots[number].state == .unknown {
                slots[number].state = distance <= slots[number].region.radius ? .inside : .outside
                changes.append(.determined(slots[number].region, slots[number].state, time: time))
            } else if let (state, at) = Self.step(
                &slots[number], distance: distance, time: time, configuration: configuration,
                signalResumed: signalResumed)
            {
                changes.append(.crossed(slots[number].region, into: state, time: at, position: position))
            }
            slots[number].lastDistance = distance
            slots[number].lastTime = time
            let keep = slots[number].state != .outside || slots[number].pending != nil
            if keep != slots[number].isActive {
                slots[number].isActive = keep
                if keep { active.insert(number) } else { active.remove(number) }
            }
        }
        return changes
    }

    /// One region's rule at one fix: cross the boundary, get the hysteresis distance past it, stay
    /// there for the dwell. The threshold crossing is interpolated between two received fixes, so
    /// the reported time is exact to the route, not to the sampling.
    private static func step(
        _ slot: inout Slot, distance: Double, time: Double, configuration: LocationManagerConfiguration,
        signalResumed: Double
    ) -> (state: RegionState, time: Double)? {
        let region = slot.region
        // The first fix after a signal gap: a dwell begun before the gap is not evidence.
        if (slot.lastTime ?? .infinity) < signalResumed { slot.pending = nil }
        let target: RegionState = slot.state == .inside ? .outside : .inside
        let threshold =
            target == .inside
            ? region.radius - configuration.inwardThreshold(radius: region.radius)
            : region.radius + configuration.regionHysteresis
        guard target == .inside ? distance <= threshold : distance >= threshold else {
            slot.pending = nil
            return nil
        }
        if slot.pending == nil {
            var since = time
            // Across a signal gap the crossing counts from the first fix after it.
            if let d0 = slot.lastDistance, let t0 = slot.lastTime, d0 != distance, t0 >= signalResumed {
                let fraction = (threshold - d0) / (distance - d0)
                if fraction > 0 && fraction <= 1 { since = t0 + (time - t0) * fraction }
            }
            slot.pending = (target, since)
        }
        guard let pending = slot.pending, time - pending.since >= configuration.regionDwell - 1e-9 else { return nil }
        slot.state = target
        slot.pending = nil
        return (target, pending.since + configuration.regionDwell)
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
