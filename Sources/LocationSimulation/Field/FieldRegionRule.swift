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
    }

    let mechanism: RegionMechanism
    /// By identifier; kept in step with the monitored regions at each estimate.
    private var slots: [String: Slot] = [:]

    init(mechanism: RegionMechanism) { self.mechanism = mechanism }

    /// Nothing on its way: no timer running, and the OS believes the device inside no region
    /// (an exit would be).
    var isSettled: Bool { slots.values.allSatisfy { $0.pending == nil && $0.state != .inside } }

    /// Transitions whose timers ran out by `time` with nothing contradicting them, in time order
    /// (ties by identifier); `isMonitored` drops those of regions no longer monitored.
    mutating func confirmations(through time: EpochInstant, isMonitored: (CircularRegion) -> Bool) -> [Confirmation] {
        var confirmed: [Confirmation] = []
        for (identifier, slot) in slots {
            guard let pending = slot.pending else { continue }
            let due = pending.since.advanced(by: mechanism.persistence)
            guard due <= time else { continue }
            slots[identifier]?.pending = nil
            guard isMonitored(slot.region) else { continue }
            slots[identifier]?.state = pending.state
            confirmed.append(
                Confirmation(region: slot.region, state: pending.state, time: due, believed: pending.believed))
        }
        return confirmed.sorted { ($0.time, $0.region.identifier) < ($1.time, $1.region.identifier) }
    }

    /// Weighs a new estimate against every monitored region (call ``confirmations(through:isMonitored:)``
    /// for its time first: a timer that ran out before it is not undone by it).
    mutating func evaluate(_ estimate: OSEstimate, regions: [CircularRegion]) {
        var kept: [String: Slot] = [:]
        kept.reserveCapacity(regions.count)
        for region in regions {
            var slot = slots[region.identifier].flatMap { $0.region == region ? $0 : nil } ?? Slot(region: region)
            let distance = ShortDistance.distance(region.center, estimate.coordinate)
            switch slot.state {
            case .unknown:
                slot.state = distance <= mechanism.effectiveRadius(region.radius) ? .inside : .outside
            case .outside where distance <= mechanism.entryThreshold(radius: region.radius),
                .inside where distance >= mechanism.exitThreshold(radius: region.radius):
                let target: RegionState = slot.state == .inside ? .outside : .inside
                if slot.pending == nil { slot.pending = (target, estimate.time, estimate.coordinate) }
            default:
                slot.pending = nil
            }
            kept[region.identifier] = slot
        }
        slots = kept
    }
}
