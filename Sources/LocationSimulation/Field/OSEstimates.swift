import DequeModule
import Geo
import SimulatedTime
import WaypostSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One location estimate the OS made for itself: where it believes the device is, and how sure.
public struct OSEstimate: Sendable, Equatable {
    public var time: EpochInstant
    public var coordinate: Coordinate
    /// The 68 % radius of the estimate's error, metres, as `horizontalAccuracy` reports it.
    public var horizontalAccuracy: Double
}

/// The OS's own positioning for region monitoring, for one device: fed the true samples, it
/// makes an estimate whenever one is due — after the device has moved its surroundings'
/// re-estimation distance, or after a still spell — from a measurement taken a little earlier
/// (staleness), with an error that drifts with time and with distance moved (the noise model's
/// Gauss–Markov process). Seeded: the same samples and seed give the same estimates.
struct OSEstimator {
    let positioning: Surroundings.Positioning
    let mechanism: RegionMechanism
    private var random: SplitMix64
    /// The satellite receiver's first-fix times, a stream of their own: a device that never
    /// comes near a boundary draws what it drew before they varied.
    private var acquisitionRandom: SplitMix64
    private var error: NoiseProcess
    private var satelliteError: NoiseProcess
    /// While satellite positioning is powered (a coarse estimate came near a boundary): when
    /// its first fix comes.
    private var satelliteFirstFix: EpochInstant?
    /// Recent true positions, oldest first, back to the oldest a stale measurement may come from.
    /// A ring: as an array, dropping the oldest moved the whole minute of them at every sample
    /// (perf: ~1 % of a field trial in `memmove`).
    private var history: Deque<(time: EpochInstant, coordinate: Coordinate)> = []
    private var last: (time: EpochInstant, coordinate: Coordinate)?
    /// Metres moved since the last estimate, and the thresholds the next one is due at.
    private var moved = 0.0
    private var next: (earliest: EpochInstant, after: EpochInstant, distance: Double)?

    init(surroundings: Surroundings, mechanism: RegionMechanism, seed: UInt64) {
        self.positioning = surroundings.positioning
        self.mechanism = mechanism
        self.random = SplitMix64(seed: seed)
        self.acquisitionRandom = SplitMix64(seed: seed ^ 0x3C6E_F372_FE94_F82B)
        // Still, an estimate keeps its error for about an idle interval's worth of re-scans.
        let model = NoiseModel(sigma: positioning.sigma, correlationTime: mechanism.idleInterval * 4)
        self.error = NoiseProcess(model: model, seed: seed ^ 0x5DEE_CE66_D1CE_4E5B)
        self.satelliteError = NoiseProcess(
            model: NoiseModel(sigma: Surroundings.satellite.sigma, correlationTime: Seconds(60)),
            seed: seed ^ 0x9FB2_1C65_1E98_DF25)
    }

    /// Whether the OS wants precise estimates now: set after each estimate from how near it came
    /// to a monitored boundary.
    ///
    /// The first fix comes the acquisition time later, give or take half a scan interval (uniform;
    /// never before satellites are powered): a receiver's time to first fix varies, and the fixes
    /// after it keep its phase. At a fixed
    /// acquisition time a route that powered satellites at its first estimate put every trial's
    /// fixes at the same instants — the same places along it, whatever the seed.
    mutating func wantsSatellite(_ wanted: Bool, at time: EpochInstant) {
        if !wanted {
            satelliteFirstFix = nil
        } else if satelliteFirstFix == nil {
            let acquisition = mechanism.satelliteAcquisition.seconds
            let halfWidth = min(mechanism.minimumInterval.seconds / 2, acquisition)
            let jitter = (2 * acquisitionRandom.unit() - 1) * halfWidth
            satelliteFirstFix = time.advanced(bySeconds: acquisition + jitter)
        }
    }

    /// The device is truly at `coordinate` at `time`: the estimate made now, if one is due.
    mutating func observe(_ coordinate: Coordinate, at time: EpochInstant) -> OSEstimate? {
        // A device at rest (the rest after a route is a good part of a trial's samples) moves
        // nothing: the distance, exactly 0 there, costs a sine and a cosine to compute.
        if let last, last.coordinate != coordinate { moved += ShortDistance.distance(last.coordinate, coordinate) }
        last = (time, coordinate)
        history.append((time, coordinate))
        let oldest = time.advanced(bySeconds: -mechanism.maximumStaleness.seconds)
        if history.count > 1, history[1].time <= oldest {
            history.removeFirst(max(0, history.prefix { $0.time < oldest }.count - 1))
        }
        if let firstFix = satelliteFirstFix {
            // Satellite positioning: a fresh fix at the scan rate, once acquired.
            guard time >= firstFix, time >= next?.earliest ?? time else {
                return nil
            }
            next = (time.advanced(by: mechanism.minimumInterval), time, 0)
            let offset = satelliteError.step(at: time)
            moved = 0
            return OSEstimate(
                time: time, coordinate: FixMaker.shifted(coordinate, by: offset), horizontalAccuracy: offset.radius)
        }
        if let next, time < next.earliest || (time < next.after && moved < next.distance) { return nil }
        // Competing clocks: a still spell (exponential, mean the idle interval) or the distance
        // to the next access point or cell (exponential, mean the re-estimation distance).
        let scale = positioning.changeDistance * mechanism.cadenceScale
        self.next = (
            time.advanced(by: mechanism.minimumInterval),
            time.advanced(bySeconds: exponential(mechanism.idleInterval.seconds)), exponential(scale)
        )
        let stale = min(exponential(positioning.staleness.seconds), mechanism.maximumStaleness.seconds)
        let measured = position(at: time.advanced(bySeconds: -stale))
        let offset = error.step(at: time, decorrelatedBy: moved / scale)
        moved = 0
        return OSEstimate(
            time: time, coordinate: FixMaker.shifted(measured, by: offset), horizontalAccuracy: offset.radius)
    }

    /// Where the device was at `time`: the last sample at or before it (the first kept, if none).
    private func position(at time: EpochInstant) -> Coordinate {
        (history.last { $0.time <= time } ?? history[0]).coordinate
    }

    private mutating func exponential(_ mean: Double) -> Double {
        -mean * log(1 - random.unit())
    }

    /// A log-normal draw with this median and σ, for the dispatch to the app.
    mutating func logNormal(median: Seconds, sigma: Double) -> Seconds {
        median * exp(sigma * random.gaussian())
    }
}
