import Geo
import LocationEvents
import SimulatedTime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the simulated device turns its true position into the fixes an app receives: receiver
/// noise, Wi-Fi or cell positioning for coarse `desiredAccuracy`, cell-class significant changes,
/// and approximate locations under reduced accuracy — each fix reporting, as `horizontalAccuracy`,
/// the error actually applied. A value: its noise processes are seeded, so the same seed gives the
/// same fixes.
struct FixMaker {
    let configuration: LocationManagerConfiguration
    let seed: UInt64
    /// The receiver's error (GPS class).
    var noise: NoiseProcess
    /// The error of Wi-Fi or cell positioning, when `desiredAccuracy` asks for no better.
    private(set) var coarseNoise: NoiseProcess
    /// The cell-class error of significant-change fixes.
    private var significantChangeNoise: NoiseProcess

    init(configuration: LocationManagerConfiguration, noise: NoiseModel, seed: UInt64) {
        self.configuration = configuration
        self.seed = seed
        self.noise = NoiseProcess(model: noise, seed: seed)
        self.coarseNoise = Self.coarseNoise(configuration.positioning(for: LocationAccuracy.best), seed: seed)
        self.significantChangeNoise = Self.coarseNoise(
            .init(interval: configuration.significantChangeInterval, error: configuration.significantChangeAccuracy),
            seed: seed ^ 0x94D0_49BB_1331_11EB)
    }

    /// `desiredAccuracy` changed: the coarse source's error process starts afresh for it.
    mutating func desiredAccuracyChanged(to desiredAccuracy: Double) {
        coarseNoise = Self.coarseNoise(configuration.positioning(for: desiredAccuracy), seed: seed)
    }

    private static func coarseNoise(_ source: LocationManagerConfiguration.Positioning, seed: UInt64) -> NoiseProcess {
        NoiseProcess(
            model: NoiseModel(sigma: (source.error ?? 0) / NoiseModel.radius68, correlationTime: source.interval * 3),
            seed: seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// A standard-service fix at `believed` (the receiver's position, noise included): GPS-class,
    /// or from the coarse source `desiredAccuracy` chooses, or approximate when `reduced`.
    mutating func standardFix(
        _ sample: DeviceSample, believed: Coordinate, noiseRadius: Double,
        source: LocationManagerConfiguration.Positioning,
        reduced: Bool
    ) -> Location {
        if reduced { return approximateFix(sample, near: believed) }
        guard let error = source.error else {
            // GPS: the 68 % radius of the receiver noise applied (0 for the ideal receiver, `none`).
            return makeFix(sample, at: believed, accuracy: noiseRadius)
        }
        // Wi-Fi or cell positioning: its own error, whose 68 % radius is what the fix reports.
        let offset = coarseNoise.step(at: sample.time)
        return coarseFix(
            sample, at: Self.shifted(believed, by: offset),
            accuracy: (error * error + noiseRadius * noiseRadius).squareRoot())
    }

    /// A Wi-Fi or cell fix: a position only. "The -1 for verticalAccuracy indicates that the
    /// altitude in the CLLocation is not valid. You only get altitude with a 3D GPS position"
    /// (Stack Overflow 7402503, on the 1414 m fixes of cell positioning); no Doppler gives speed
    /// or course either, so they are -1 (Apple, `CLLocation.speed`: "a negative value indicates
    /// an invalid speed").
    @inline(__always)
    func coarseFix(_ sample: DeviceSample, at coordinate: Coordinate, accuracy: Double) -> Location {
        Location(
            coordinate: coordinate, altitude: 0, horizontalAccuracy: accuracy, verticalAccuracy: -1, speed: -1,
            course: -1, timestamp: sample.time)
    }

    /// A significant-change fix: cell-class positioning, whose error (68 % radius
    /// ``LocationManagerConfiguration/significantChangeAccuracy``) is applied and reported; when
    /// `reduced`, the approximate location instead.
    mutating func significantChangeFix(_ sample: DeviceSample, reduced: Bool) -> Location {
        if reduced { return approximateFix(sample, near: sample.coordinate) }
        let offset = significantChangeNoise.step(at: sample.time)
        return coarseFix(
            sample, at: Self.shifted(sample.coordinate, by: offset), accuracy: configuration.significantChangeAccuracy)
    }

    // The reads below are inlined: called from the core's mutating steps, each call copied the
    // whole maker (489 bytes, its configuration) to pass it as `self`, up to three times a fix
    // (perf: most of the simulation's memmove).

    /// An approximate location (reduced accuracy): the grid cell's centre, with the radius of the
    /// error that coarsening makes, and nothing of the device's own motion or height — a position
    /// only, as ``coarseFix(_:at:accuracy:)`` is (the route's altitude, heading and speed gave away
    /// what the cell hides).
    @inline(__always)
    func approximateFix(_ sample: DeviceSample, near position: Coordinate) -> Location {
        coarseFix(sample, at: approximate(position), accuracy: reducedAccuracyRadius(at: position))
    }

    /// Approximate locations (reduced accuracy): the centre of the grid cell the position lies in,
    /// so the app learns the neighbourhood, never the street.
    @inline(__always)
    func approximate(_ coordinate: Coordinate) -> Coordinate {
        let cell = configuration.reducedAccuracyCell
        return Coordinate(
            latitude: ((coordinate.latitude / cell).rounded(.down) + 0.5) * cell,
            longitude: ((coordinate.longitude / cell).rounded(.down) + 0.5) * cell)
    }

    /// The 68 % radius of the error ``approximate(_:)`` makes at `coordinate`: a point uniformly
    /// placed in a cell of sides a × b lies within 0.465 √(ab) of its centre 68 % of the time.
    @inline(__always)
    func reducedAccuracyRadius(at coordinate: Coordinate) -> Double {
        let metric = LocalMetric(latitude: coordinate.latitude)
        let cell = configuration.reducedAccuracyCell
        return 0.465 * (cell * metric.metresPerDegreeLatitude * cell * metric.metresPerDegreeLongitude).squareRoot()
    }

    @inline(__always)
    func makeFix(_ sample: DeviceSample, at coordinate: Coordinate, accuracy: Double) -> Location {
        Location(
            coordinate: coordinate, altitude: sample.altitude ?? 0, horizontalAccuracy: accuracy,
            verticalAccuracy: sample.altitude == nil ? -1 : configuration.verticalAccuracy,
            speed: sample.speed ?? -1, course: sample.course ?? -1,
            timestamp: sample.time)
    }

    static func shifted(_ coordinate: Coordinate, by offset: (north: Double, east: Double, radius: Double))
        -> Coordinate
    {
        guard offset.north != 0 || offset.east != 0 else { return coordinate }
        return Coordinate(
            latitude: coordinate.latitude + offset.north / 111_132.954,
            longitude: coordinate.longitude + offset.east / (111_319.49 * cos(coordinate.latitude * .pi / 180)))
    }
}
