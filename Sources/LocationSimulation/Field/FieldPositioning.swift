import Geo
import LocationEvents
import SimulatedTime

/// Under a non-exact realism, the OS's own positioning (``OSEstimator``) and Apple's region rule
/// judged on it (``FieldRegionRule``): one value the core steps in place at every sample. What
/// the step reads of the core (its region monitor) and writes (the changes waiting out their
/// dispatch) are parameters, so the core neither copies this value out and back (440 bytes,
/// moved several times a sample: 3 % of a field trial's profile) nor its monitor.
struct FieldPositioning {
    var estimator: OSEstimator
    var rule: FieldRegionRule
    /// The ``RegionMonitor/revision`` of the regions the rule was last aligned to: the core's one
    /// monitor is all this value is ever stepped with, so an unchanged revision is an unchanged set
    /// (taking the monitor's sorted regions at every estimate was 2 % of a field trial).
    private var alignedTo: Int?

    init(estimator: OSEstimator, rule: FieldRegionRule) {
        self.estimator = estimator
        self.rule = rule
    }

    /// One sample: a new estimate (the estimator keeps its history whether or not regions are
    /// monitored); while `monitoring`, timers that held confirm their transitions, the estimate
    /// is weighed against `regions`, and each confirmed transition is appended to `delayed`
    /// once its wake and dispatch are over, a region's events in order.
    ///
    /// `regions` is only read, but taken `inout`: by value, the core copied its monitor (592
    /// bytes, its arrays retained) to pass it, at every sample.
    mutating func step(
        _ sample: DeviceSample, monitoring: Bool, regions: inout RegionMonitor, mechanism: RegionMechanism,
        delayed: inout [(due: EpochInstant, change: RegionMonitor.Change)]
    ) {
        let estimate = estimator.observe(sample.coordinate, at: sample.time)
        guard monitoring else { return }
        // While the monitor's regions are those the rule was aligned to, every slot's region is
        // monitored: the closure that asks the monitor (and copies it) is made only when not.
        let aligned = alignedTo == regions.revision
        let confirmed =
            aligned
            ? rule.confirmations(through: sample.time) { _ in true }
            : rule.confirmations(through: sample.time) { regions.contains($0.identifier) }
        if let estimate {
            if !aligned {
                rule.align(to: regions.regions)
                alignedTo = regions.revision
            }
            rule.evaluate(estimate)
            // Near a boundary, for what this estimate knows, the OS powers satellite positioning up.
            let margin = mechanism.proximityFactor * estimate.horizontalAccuracy + mechanism.cushion
            estimator.wantsSatellite(rule.isNearBoundary(margin: margin), at: estimate.time)
        }
        for confirmation in confirmed {
            let region = confirmation.region
            let dispatch = estimator.logNormal(median: mechanism.dispatchMedian, sigma: mechanism.dispatchSigma)
            // Seen at this sample (the simulation's resolution), never stamped before it.
            let earliest = delayed.last { $0.change.region == region }?.due ?? sample.time
            let due = max(earliest, sample.time, confirmation.time.advanced(by: dispatch))
            delayed.append(
                (due, .crossed(region, into: confirmation.state, time: due, position: confirmation.believed)))
        }
    }
}
