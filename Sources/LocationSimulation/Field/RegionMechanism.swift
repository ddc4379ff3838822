import SimulatedTime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How region monitoring behaves on a phone, as a mechanism: the OS decides from its own stream
/// of location estimates (``Surroundings/positioning``: truth + a correlated error, at a cadence
/// set by motion, each made from a measurement a few seconds stale), judged against the region as
/// the OS treats it — at least ``minimumRadius`` large, a ``cushion`` past its boundary, the
/// estimate held there ``persistence`` (20 s) — then woken and dispatched to the app. Misses,
/// false alarms near small fences, early entries, late exits and how far from the centre a
/// notification comes all follow from these few numbers and the geometry; nothing here is a
/// notified fraction or a latency typed in.
///
/// `field` and `device` (``RealismProfile``) are two parameter sets of it, fitted by
/// `waypost calibrate` (docs/field-calibration.md): `field` to what phones were measured doing,
/// `device` to what Apple documents.
public struct RegionMechanism: Sendable, Equatable {
    /// Regions smaller than this are monitored as if this large, metres. K. McMahon's notes of a
    /// WWDC 2012 Core Location lab: "The minimum region radius size is 100m"; Home Assistant's iOS
    /// app: "iOS will automatically bump any ranges up to 100m". Sourced, not fitted.
    public var minimumRadius = 100.0
    /// How far past the (effective) boundary an estimate must lie, metres (Apple: "the boundary
    /// plus a system-defined cushion distance"). Fitted.
    public var cushion: Double
    /// An entry needs the estimate at most this fraction of the effective radius inside: the
    /// cushion cannot exceed the region. Waypost's choice, as the exact rule's cap.
    public var inwardCapFraction = 0.5
    /// How sure an estimate must be, in its 68 % radii (`horizontalAccuracy`): it counts as past a
    /// threshold only when still past it moved this far back, and as short of it only when still
    /// short moved this far on; between, it neither starts nor stops a transition's timer (and,
    /// near a boundary, satellite positioning is powered up: ``proximityFactor``). Apple: "To
    /// prevent spurious notifications, iOS doesn't deliver region notifications until certain
    /// threshold conditions are met" (Location and Maps Programming Guide); "the system applies
    /// heuristics to ensure that the boundary crossing represents a deliberate event and is not
    /// the result of spurious location data" (UNLocationNotificationTrigger). Waypost's choice:
    /// 1, the accuracy the OS itself reports. Judged on an estimate's centre, a cell estimate put
    /// a walker in the middle of a fence outside it in most walks with Wi-Fi off; sure of exits
    /// only, a coarse entry on the way in was undone by the next estimate as often.
    public var doubt = 1.0
    /// How long the OS's position must stay past the threshold (Apple: "remain at that minimum
    /// distance for at least 20 seconds"). Sourced.
    public var persistence = Seconds(20)
    /// Mean seconds between estimates of a still device. Sourced: Apple's Energy Efficiency
    /// Guide, significant-change wake-ups "once every 15 minutes, at minimum" bound it; Waypost
    /// takes 2 minutes.
    public var idleInterval = Seconds(120)
    /// The fewest seconds between two estimates, however fast the device moves: background
    /// scans are rate-limited. Fitted.
    public var minimumInterval: Seconds
    /// Multiplies each surroundings' re-estimation distance: a lower-power estimator re-estimates
    /// less often. Fitted.
    public var cadenceScale: Double
    /// Waking the app and handing it the event: log-normal median and σ (Apple: a suspended app
    /// "is woken up and given a short amount of time (around 10 seconds)"; Waypost takes a 5 s
    /// median). Sourced.
    public var dispatchMedian: Seconds
    public var dispatchSigma = 0.5
    /// The oldest measurement an estimate is made from, seconds.
    public var maximumStaleness = Seconds(60)
    /// Seconds from powering satellite positioning up to its first fix. Fitted, within its
    /// sources' range: Apple, "it can take several seconds to obtain a rough location fix"; a
    /// receiver's hot start takes "22 seconds (or only a few seconds)", a warm start "45 seconds
    /// (or shorter)" (Wikipedia, *Time to first fix*, after the GPS equipment guide); assistance
    /// over the network shortens both. Inside a moving car it is what lets a coarse estimate
    /// decide a small fence the device is already leaving.
    public var satelliteAcquisition: Seconds
    /// A coarse estimate this many times its accuracy (68 % radius) from a monitored boundary,
    /// or nearer, powers satellite positioning up until an estimate is farther again. Waypost's
    /// choice: 2 (≈ 95 % of a Gaussian's mass).
    public var proximityFactor = 2.0

    public init(
        cushion: Double, minimumInterval: Seconds, cadenceScale: Double, satelliteAcquisition: Seconds,
        dispatchMedian: Seconds = Seconds(5)
    ) {
        (self.cushion, self.minimumInterval, self.cadenceScale) = (cushion, minimumInterval, cadenceScale)
        (self.satelliteAcquisition, self.dispatchMedian) = (satelliteAcquisition, dispatchMedian)
    }

    /// The radius the OS monitors for a region of `radius` metres.
    public func effectiveRadius(_ radius: Double) -> Double { max(radius, minimumRadius) }

    /// The distance from the centre an estimate must be within for an entry.
    public func entryThreshold(radius: Double) -> Double {
        let effective = effectiveRadius(radius)
        return effective - min(cushion, effective * inwardCapFraction)
    }

    /// The distance from the centre an estimate must be beyond for an exit.
    public func exitThreshold(radius: Double) -> Double { effectiveRadius(radius) + cushion }

    /// How long a device resting after its route waits for every event still on its way: an exit
    /// needs an estimate (idle cadence) that has held (persistence), then its dispatch, nearly
    /// always within this; rounded up to the minute by scenarios.
    public var latencyTail: Seconds {
        idleInterval * 6 + persistence + maximumStaleness + dispatchMedian * exp(dispatchSigma * 3.29)
    }
}
