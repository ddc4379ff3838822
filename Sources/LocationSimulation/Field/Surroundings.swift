import SimulatedTime

/// Where a device is, as far as the OS's own positioning cares: the built-up density (how many
/// Wi-Fi access points and how small the cells) and whether Wi-Fi is on. Only region monitoring
/// under a non-exact realism reads it; the fixes an app receives follow `noise:`, whose `urban`
/// preset is a GNSS error model, not these surroundings.
public struct Surroundings: Sendable, Hashable, CustomStringConvertible {
    public enum Environment: String, Sendable, CaseIterable, Comparable {
        case urban, suburban, rural

        public static func < (a: Self, b: Self) -> Bool {
            allCases.firstIndex(of: a) ?? 0 < allCases.firstIndex(of: b) ?? 0
        }
    }

    public var environment: Environment
    /// Wi-Fi off: the OS falls back to cell-level estimates (Apple: "if Wi-Fi is disabled, region
    /// monitoring is significantly less accurate").
    public var wifi: Bool

    public init(_ environment: Environment = .suburban, wifi: Bool = true) {
        (self.environment, self.wifi) = (environment, wifi)
    }

    /// `suburban`, Wi-Fi on: what a scenario without `environment:`/`wifi:` and `waypost sweep`
    /// assume.
    public static let standard = Surroundings()

    public var description: String { "\(environment.rawValue), Wi-Fi \(wifi ? "on" : "off")" }

    /// What the OS positions by here: Wi-Fi, or cells where Wi-Fi is off or access points are few.
    public var technology: String {
        switch (environment, wifi) {
        case (.rural, true): "cell (few access points)"
        case (_, true): "Wi-Fi"
        case (_, false): "cell"
        }
    }

    /// The OS's positioning here: the technology it falls back to and that technology's error,
    /// its correlation, and how often a new estimate comes. Sourced defaults, not fitted (`waypost
    /// calibrate` writes this table and its sources into docs/field-calibration.md):
    ///
    /// | surroundings | source | median error | re-estimated every | stale by (mean) |
    /// |---|---|---|---|---|
    /// | urban, Wi-Fi | Wi-Fi | 30 m | 40 m moved | 10 s |
    /// | suburban, Wi-Fi | Wi-Fi | 55 m | 80 m moved | 10 s |
    /// | rural, Wi-Fi | cell (few access points) | 370 m | 2,500 m moved | 5 s |
    /// | urban, no Wi-Fi | cell | 250 m | 750 m moved | 5 s |
    /// | suburban, no Wi-Fi | cell | 450 m | 1,500 m moved | 5 s |
    /// | rural, no Wi-Fi | cell | 900 m | 2,500 m moved | 5 s |
    ///
    /// Wi-Fi: Cheng et al., MobiSys 2005 (median 13–40 m "depending upon the characteristics of
    /// the environment"); Zandbergen, J. Location Based Services 6:35 (2012, medians 43–92 m in
    /// three cities); Zandbergen, Transactions in GIS 13:5 (2009, iPhone Wi-Fi median 74 m).
    /// Cell: Zandbergen 2009 (iPhone cellular median 600 m); Abdel Meniem et al., IJCSI 9:188
    /// (2012, mean 120 m urban, 394 m rural); Mozilla Location Service's accuracy notes (rural
    /// cells tens of kilometres). Re-estimation: an access point's reach (~40–100 m) for Wi-Fi;
    /// for cells the significant-change service's measured triggers (750 m moved: half the time,
    /// 2,500 m: 95 %; T. Stokes, 2010). Staleness: a Wi-Fi scan is "tens of seconds" old when
    /// reported (Mozilla Location Service).
    public var positioning: Positioning {
        switch (environment, wifi) {
        case (.urban, true): Positioning(medianError: 30, changeDistance: 40, staleness: Seconds(10))
        case (.suburban, true): Positioning(medianError: 55, changeDistance: 80, staleness: Seconds(10))
        case (.rural, true): Positioning(medianError: 370, changeDistance: 2_500, staleness: Seconds(5))
        case (.urban, false): Positioning(medianError: 250, changeDistance: 750, staleness: Seconds(5))
        case (.suburban, false): Positioning(medianError: 450, changeDistance: 1_500, staleness: Seconds(5))
        case (.rural, false): Positioning(medianError: 900, changeDistance: 2_500, staleness: Seconds(5))
        }
    }

    /// Satellite positioning, which the OS powers up once a coarse estimate puts the device near
    /// a monitored boundary: A-GPS on an iPhone, median error 8 m (Zandbergen 2009), fresh, and
    /// re-estimated as often as the scan rate allows (its change distance is never the limit).
    public static let satellite = Positioning(medianError: 8, changeDistance: 1, staleness: .zero)

    /// One positioning technology's behaviour, as the OS's estimator sees it.
    public struct Positioning: Sendable, Equatable {
        /// Median distance between an estimate and the truth, metres.
        public var medianError: Double
        /// Metres moved per new estimate (a new access point or cell in view); the error
        /// decorrelates over the same distance.
        public var changeDistance: Double
        /// Mean age of the measurement an estimate is made from: the device was there then.
        public var staleness: Seconds

        /// The per-axis standard deviation of a circular Gaussian with this median radial error.
        public var sigma: Double { medianError / 1.177_410_022_515_474_5 }
    }
}
