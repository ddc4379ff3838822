import Geo
import SimulatedTime
import WaypostSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How far fixes stray from the true route: seeded, temporally correlated (first-order
/// Gauss–Markov) offsets north and east, as GNSS errors are, with `horizontalAccuracy`
/// reporting the 68 % radius of the error applied — so `none`, the ideal receiver whose fixes lie
/// exactly on the route, reports 0 (a valid `CLLocation` accuracy: only negative values mean invalid).
///
/// | preset | σ per axis | correlation time | typical `horizontalAccuracy` |
/// |---|---|---|---|
/// | `none` (default) | 0 | — | 0 |
/// | `openSky` | 3.3 m | 30 s | ≈ 5 m (what iPhones report under open sky) |
/// | `urban` | 10 m | 60 s | ≈ 15 m |
/// | `indoor` | 30 m | 120 s | ≈ 45 m |
public struct NoiseModel: Sendable, Equatable {
    public enum Preset: String, Sendable, CaseIterable {
        case none, openSky = "open-sky", urban, indoor
    }

    /// Standard deviation of the offset on each axis, metres.
    public var sigma: Double
    /// Correlation time of the offset.
    public var correlationTime: Seconds

    public init(sigma: Double, correlationTime: Seconds) {
        self.sigma = sigma
        self.correlationTime = correlationTime
    }

    public init(_ preset: Preset) {
        switch preset {
        case .none: self.init(sigma: 0, correlationTime: Seconds(1))
        case .openSky: self.init(sigma: 3.3, correlationTime: Seconds(30))
        case .urban: self.init(sigma: 10, correlationTime: Seconds(60))
        case .indoor: self.init(sigma: 30, correlationTime: Seconds(120))
        }
    }

    /// 68 % of a circular 2-D Gaussian lies within 1.515 σ.
    static let radius68 = 1.515
}

/// The running state of a ``NoiseModel`` for one device.
struct NoiseProcess {
    let model: NoiseModel
    private var random: SplitMix64
    private var north = 0.0
    private var east = 0.0
    private var lastTime: EpochInstant?

    init(model: NoiseModel, seed: UInt64) {
        self.model = model
        self.random = SplitMix64(seed: seed)
    }

    /// The offset at `time` (north, east metres) and the 68 % radius to report.
    mutating func step(at time: EpochInstant) -> (north: Double, east: Double, radius: Double) {
        step(at: time, decorrelatedBy: 0)
    }

    /// The same, for an error that decorrelates with distance too (the OS's Wi-Fi and cell
    /// estimates change with the access points and cells in view): `decorrelatedBy` adds the
    /// metres moved over the correlation distance to the elapsed correlation times.
    mutating func step(at time: EpochInstant, decorrelatedBy moved: Double) -> (
        north: Double, east: Double, radius: Double
    ) {
        guard model.sigma > 0 else { return (0, 0, 0) }
        if let lastTime {
            let phi = exp(-max(0, lastTime.seconds(to: time)) / model.correlationTime.seconds - moved)
            let drive = model.sigma * (1 - phi * phi).squareRoot()
            north = phi * north + drive * random.gaussian()
            east = phi * east + drive * random.gaussian()
        } else {
            north = model.sigma * random.gaussian()
            east = model.sigma * random.gaussian()
        }
        lastTime = time
        // The reported radius wanders a little around the model's 68 % radius, as real ones do.
        let radius = NoiseModel.radius68 * model.sigma * (1 + 0.15 * random.gaussian()).clamped(0.6, 1.6)
        return (north, east, radius)
    }
}

extension Double {
    fileprivate func clamped(_ low: Double, _ high: Double) -> Double { Swift.min(high, Swift.max(low, self)) }
}
