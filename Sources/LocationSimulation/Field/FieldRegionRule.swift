import Geo
import LocationEvents
import SimulatedTime

/// Apple's region rule applied to the OS's own estimates (``OSEstimate``), as a value: an
/// estimate past a region's threshold (``RegionMechanism``) starts a timer; if no estimate
/// contradicts it for the persistence (the OS's position is held between estimates), the
/// transition is confirmed when the timer runs out. The first estimate after a region is
/// registered only determines its state, as a registration does.
struct FieldRegionRule {
    /// A transition the OS confirmed, when, and where it believed the device was.
    struct Confirmation: Equatable {
        var region: CircularRegion
        var state: RegionState
        var time: EpochInstant
        var believed: Coordinate
    }

    private struct Slot {
        var region: CircularRegion
        var state = RegionState.unknown
        var pending: (state: RegionState, since: EpochInstant, believed: Coordinate)?
        /// The last estimate's distance from the centre, metres (infinite before the first).
        var distance = Double.infinity
    }

    let mechanism: RegionMechanism
    /// One a monitored region, in the order of the last estimate's regions (one an identifier):
    /// kept in step with the monitored regions at each estimate. An array, not a dictionary by
    /// identifier: the regions are nearly always the same ones in the same order, and hashing
    /// each identifier twice an estimate was a percent of a trial's time.
    private var slots: [Slot] = []

    init(mechanism: RegionMechanism) { self.mechanism = mechanism }

    /// Nothing on its way: no timer running, and the OS believes the device inside no region
    /// (an exit would be).
    var isSettled: Bool { slots.allSatisfy { $0.pending == nil && $0.state != .inside } }

    /// Transitions whose timers ran out by `time` with nothing contradicting them, in time order
    /// (ties by identifier); `isMonitored` drops those of regions no longer monitored.
    mutating func confirmations(through time: EpochInstant, isMonitored: (CircularRegion) -> Bool) -> [Confirmation] {
        var confirmed: [Confirmation] = []
        for index in slots.indices {
            guard let pending = slots[index].pending else { continue }
            let due = pending.since.advanced(by: mechanism.persistence)
            guard due <= time else { continue }
            slots[index].pending = nil
            let region = slots[index].region
            guard isMonitored(region) else { continue }
            slots[index].state = pending.state
            confirmed.append(Confirmation(region: region, state: pending.state, time: due, believed: pending.believed))
        }
        guard confirmed.count > 1 else { return confirmed }
        return confirmed.sorted { ($0.time, $0.region.identifier) < ($1.time, $1.region.identifier) }
    }

    /// Weighs a new estimate against every monitored region (call ``confirmations(through:isMonitored:)``
    /// for its time first: a timer that ran out before it is not undone by it).
    mutating func evaluate(_ estimate: OSEstimate, regions: [CircularRegion]) {
        align(to: regions)
        evaluate(estimate)
    }

    /// Weighs a new estimate against the regions it was last aligned to (``align(to:)``).
    mutating func evaluate(_ estimate: OSEstimate) {
        // A static step given the mechanism: a method of `self` called with `&slots[index]` had
        // `self` copied for the call, so the slots were shared and each estimate copied them all
        // (perf: ~1 % of a field trial, with the identifiers' retains).
        let mechanism = self.mechanism
        for index in slots.indices {
            Self.weigh(estimate, in: &slots[index], mechanism: mechanism)
        }
    }

    /// Keeps the slots in step with the monitored `regions`.
    mutating func align(to regions: [CircularRegion]) {
        if !slots.elementsEqual(regions, by: { $0.region == $1 }) { realign(to: regions) }
    }

    /// Whether the estimate last weighed (``evaluate(_:)``) lies within `margin` of a region's
    /// effective boundary (the OS then wants satellite positioning). Its distances are the ones
    /// weighing it measured: measured again here, they cost a sine and a cosine a region.
    func isNearBoundary(margin: Double) -> Bool {
        // By index: iterating the slots would copy each one out, its region's identifier retained.
        slots.indices.contains { index in
            abs(slots[index].distance - mechanism.effectiveRadius(slots[index].region.radius)) <= margin
        }
    }

    /// The slots for `regions`, one an identifier (the last region of an identifier wins, as
    /// monitoring a region again replaces it): a region kept as it was keeps its state and
    /// timer; a new or changed one starts unknown.
    private mutating func realign(to regions: [CircularRegion]) {
        var old: [String: Slot] = [:]
        for slot in slots { old[slot.region.identifier] = slot }
        var position: [String: Int] = [:]
        var realigned: [Slot] = []
        for region in regions {
            let slot = old[region.identifier].flatMap { $0.region == region ? $0 : nil } ?? Slot(region: region)
            if let index = position[region.identifier] {
                realigned[index] = slot
            } else {
                position[region.identifier] = realigned.count
                realigned.append(slot)
            }
        }
        slots = realigned
    }

    /// An estimate past the threshold by more than its doubt (``RegionMechanism/doubt``) starts
    /// the timer; one short of it by more than its doubt stops it; one within its doubt of the
    /// threshold leaves the timer as it is.
    private static func weigh(_ estimate: OSEstimate, in slot: inout Slot, mechanism: RegionMechanism) {
        let radius = slot.region.radius
        let distance = ShortDistance.distance(slot.region.center, estimate.coordinate)
        slot.distance = distance
        let doubt = mechanism.doubt * estimate.horizontalAccuracy
        // How far past the threshold, toward the other state, the estimate lies.
        let past: Double
        switch slot.state {
        case .unknown:
            slot.state = distance <= mechanism.effectiveRadius(radius) ? .inside : .outside
            return
        case .outside: past = mechanism.entryThreshold(radius: radius) - distance
        case .inside: past = distance - mechanism.exitThreshold(radius: radius)
        }
        if past >= doubt {
            let target: RegionState = slot.state == .inside ? .outside : .inside
            if slot.pending == nil { slot.pending = (target, estimate.time, estimate.coordinate) }
        } else if past < -doubt {
            slot.pending = nil
        }
    }
}
