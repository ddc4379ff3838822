/// Every number the simulated location manager uses, each a named default from Apple's
/// documentation (or, where Apple gives none, Waypost's documented choice) that a run can override.
public struct LocationManagerConfiguration: Sendable, Equatable {
    /// Significant-change service: minimum distance from the last delivered event, metres (Apple: 500 m).
    public var significantChangeDistance = 500.0
    /// Significant-change service: minimum time since the last delivered event, seconds (Apple: 5 min).
    public var significantChangeInterval = 300.0
    /// Accuracy of significant-change fixes (cell/Wi-Fi class), metres.
    public var significantChangeAccuracy = 500.0

    /// Region monitoring: distance the device must move past a boundary before a transition is
    /// reported, metres (Apple: "about 200 m" for testing).
    public var regionHysteresis = 200.0
    /// Cap for small regions: an entry needs the device at most this fraction of the radius
    /// inside (the inward distance cannot exceed the region). With the defaults a 100 m region
    /// needs 50 m inside; a 1 km region the full 200 m.
    public var regionInwardCapFraction = 0.5
    /// Region monitoring: how long the device must stay past the threshold, seconds (Apple: 20 s).
    public var regionDwell = 20.0
    /// Regions per app (Apple: 20); nil lifts the limit for load-style runs.
    public var regionLimit: Int? = 20
    /// Largest radius accepted by `startMonitoring(for:)`, metres. Apple's value is per device;
    /// this is Waypost's default.
    public var maximumRegionMonitoringDistance = 400_000.0

    /// Visits: the device must stay within this radius, metres…
    public var visitRadius = 100.0
    /// …for at least this long, seconds, to make a visit.
    public var visitMinimumDuration = 300.0

    /// Longest gap between fixes of the standard service, seconds (Apple: about 1 Hz); longer
    /// gaps between route points are filled by interpolation.
    public var updateInterval = 1.0
    /// Vertical accuracy reported when the route has altitude, metres.
    public var verticalAccuracy = 3.0

    /// The iOS release whose rules apply (`--ios-version`, scenario `iosVersion`). Up to iOS 12,
    /// region monitoring needs Always, and When In Use gets `regionMonitoringDenied` (4). From
    /// iOS 13, When In Use allows every location service, region monitoring included, with events
    /// delivered while the app is in use (Apple, "Choosing the Location Services Authorization to
    /// Request"; `CLAuthorizationStatus.authorizedWhenInUse`). Default: 26, the release current
    /// when this was written; the rules modelled here are the same from 13 on.
    public var iosVersion = 26

    /// The releases the profiles cover: iOS 8 introduced the Always / When In Use split.
    public static let iosVersions = 8...26

    public init() {}

    /// Whether `status` lets the app monitor regions under this release's rules.
    public func allowsRegionMonitoring(_ status: AuthorizationStatus) -> Bool {
        status == .authorizedAlways || (iosVersion >= 13 && status == .authorizedWhenInUse)
    }

    /// The inward distance an entry needs for a region of `radius` metres.
    public func inwardThreshold(radius: Double) -> Double {
        min(regionHysteresis, radius * regionInwardCapFraction)
    }
}
