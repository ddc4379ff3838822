import Geo
import LocationEvents
import SimulatedTime
import WaypostSupport

/// The field mechanism's answer for one geofence (`waypost sweep`): synthetic straight crossings
/// of a circular region by a device with Always authorization whose app is suspended, many
/// seeded trials per cell, each event's first notification measured against the geometry.
///
/// A trial's route passes `offset` metres from the centre (0: through it) at `speed`, stops
/// `dwell` seconds at the closest point, starts radius + 2 km from the centre — or six times the
/// surroundings' median positioning error, when that is farther — and ends as far after it, or
/// farther: at least ten minutes at speed after the exit; then rests until nothing is pending
/// (30 minutes at most; later counts as not notified).
public enum FieldSweep {
    /// One cell of the sweep: a geofence, a way past it, and the surroundings.
    public struct Cell: Sendable, Hashable {
        public var radius: Double
        public var speed: Double
        public var dwell: Double
        public var offset: Double
        public var surroundings: Surroundings

        public init(
            radius: Double, speed: Double, dwell: Double = 0, offset: Double = 0, surroundings: Surroundings = .standard
        ) {
            (self.radius, self.speed, self.dwell, self.offset, self.surroundings) = (
                radius, speed, dwell, offset, surroundings
            )
        }

        /// This cell's seed from a run's: stable across processes and versions (from the cell's
        /// numbers, not its hash).
        public func seed(_ seed: UInt64) -> UInt64 {
            var mixed = seed
            for value in [radius, speed, dwell, offset] { mixed = SplitMix64.derived(mixed ^ value.bitPattern, 1) }
            let place = UInt64(Surroundings.Environment.allCases.firstIndex(of: surroundings.environment) ?? 0)
            return SplitMix64.derived(mixed ^ (place << 1 | (surroundings.wifi ? 1 : 0)), 1)
        }

        /// Whether the route never enters the region: any notification is a false alarm.
        public var isPassBy: Bool { offset >= radius }
    }

    /// One event's first notification in one trial (an exit's, from the true entry on): seconds
    /// after the true crossing (negative: early; for a pass-by, after the closest approach) and
    /// the true distance from the centre then.
    public struct Notification: Sendable, Equatable {
        public var lateness: Double
        public var distanceFromCentre: Double
    }

    /// What one trial saw.
    public struct Trial: Sendable, Equatable {
        public var entry: Notification?
        public var exit: Notification?
    }

    /// p5, p50 and p95 of one measure over the trials that were notified.
    public struct Spread: Sendable, Equatable, Codable {
        public var p5: Double
        public var p50: Double
        public var p95: Double

        init?(_ values: [Double]) {
            guard !values.isEmpty else { return nil }
            let sorted = values.sorted()
            (p5, p50, p95) = (
                Proportions.percentile(sorted, 0.05), Proportions.percentile(sorted, 0.5),
                Proportions.percentile(sorted, 0.95)
            )
        }
    }

    /// One event (entry or exit) over a cell's trials.
    public struct EventSummary: Sendable, Equatable {
        public var notified: Int
        public var trials: Int
        public var wilson: ClosedRange<Double>
        public var lateSeconds: Spread?
        public var distanceFromCentre: Spread?

        init(_ notifications: [Notification?]) {
            let seen = notifications.compactMap { $0 }
            (notified, trials) = (seen.count, notifications.count)
            wilson = Proportions.wilson(seen.count, of: notifications.count)
            lateSeconds = Spread(seen.map(\.lateness))
            distanceFromCentre = Spread(seen.map(\.distanceFromCentre))
        }

        public var fraction: Double { trials == 0 ? 0 : Double(notified) / Double(trials) }
    }

    public struct CellSummary: Sendable, Equatable {
        public var cell: Cell
        public var entry: EventSummary
        public var exit: EventSummary
    }

    /// Runs `trials` trials of `cell` under `mechanism`, trial k seeded from `seed`, the cell and k.
    public static func run(_ cell: Cell, mechanism: RegionMechanism, trials: Int, seed: UInt64) -> CellSummary {
        let runs = self.trials(cell, mechanism: mechanism, trials: trials, seed: seed)
        return CellSummary(cell: cell, entry: EventSummary(runs.map(\.entry)), exit: EventSummary(runs.map(\.exit)))
    }

    /// The trials of `cell`: trial k seeded from `seed`, the cell and k.
    public static func trials(_ cell: Cell, mechanism: RegionMechanism, trials: Int, seed: UInt64) -> [Trial] {
        let cellSeed = cell.seed(seed)
        return (1...max(1, trials)).map { trial(cell, mechanism: mechanism, seed: SplitMix64.derived(cellSeed, $0)) }
    }

    /// The region's centre: any point does (the mechanism is local); this one is in Cupertino.
    static let centre = Coordinate(latitude: 37.3318, longitude: -122.0312)
    static let start = EpochInstant(secondsSince1970: 1_748_937_600)  // 2025-06-03T08:00:00Z
    static let restLimit = 1_800.0
    /// Seconds the route goes on at speed after the exit (after the closest point, passing by), at
    /// least: the field mechanism's notifications come within a few minutes.
    static let movingAfterExit = 600.0

    /// One trial: the route sampled every second while moving or stopped, every 5 s resting.
    public static func trial(_ cell: Cell, mechanism: RegionMechanism, seed: UInt64) -> Trial {
        var configuration = LocationManagerConfiguration()
        configuration.realism = .device
        configuration.regionMechanism = mechanism
        configuration.surroundings = cell.surroundings
        let manager = SimulatedLocationManager(
            status: .authorizedAlways, seed: seed, startTime: start, configuration: configuration)
        let geometry = Geometry(cell)
        // An exit notified before the device reached the region (the OS had it inside from a
        // wild first estimate) is a false alarm on the way in, not this crossing's exit.
        let exitsFrom = start.advanced(bySeconds: geometry.entry ?? 0)
        var firstEntry: EpochInstant?
        var firstExit: EpochInstant?
        manager.observer = { event in
            switch event.event {
            case .enteredRegion: if firstEntry == nil { firstEntry = event.time }
            case .exitedRegion: if firstExit == nil, event.time >= exitsFrom { firstExit = event.time }
            default: break
            }
        }
        manager.changeAppState(to: .background, at: start)
        manager.changeAppState(to: .suspended, at: start)
        manager.startMonitoring(for: CircularRegion(identifier: "fence", center: centre, radius: cell.radius))
        var t = 0.0
        while t <= geometry.end {
            manager.move(to: DeviceSample(time: start.advanced(bySeconds: t), coordinate: geometry.position(at: t)))
            t += 1
        }
        let rested = geometry.end + restLimit
        var resting = geometry.end
        while resting < rested && !manager.fieldIsSettled {
            resting = min(rested, resting + 5)
            manager.move(
                to: DeviceSample(time: start.advanced(bySeconds: resting), coordinate: geometry.position(at: resting)))
        }
        func notification(_ time: EpochInstant?, after reference: Double) -> Notification? {
            guard let time else { return nil }
            let seconds = start.seconds(to: time)
            return Notification(lateness: seconds - reference, distanceFromCentre: geometry.distance(at: seconds))
        }
        return Trial(
            entry: notification(firstEntry, after: geometry.entry ?? geometry.closest),
            exit: notification(firstExit, after: geometry.exit ?? geometry.closest))
    }

    /// The straight route of a cell, in metres east and north of the centre, against time.
    struct Geometry {
        let cell: Cell
        /// From the start to the closest point.
        let half: Double
        /// From the closest point to the end: `half`, or farther at speed (``movingAfterExit``).
        let after: Double
        /// Seconds: reaching the closest point, leaving it, reaching the end.
        let closest: Double
        let leave: Double
        let end: Double
        /// Seconds of the true entry and exit; nil for a pass-by.
        let entry: Double?
        let exit: Double?
        /// The route's latitude, `offset` metres north of the centre, and the plane it is measured
        /// on: the mean latitude's, which depends on it (a few steps settle it to the last digits).
        let latitude: Double
        let metric: LocalMetric

        init(_ cell: Cell) {
            self.cell = cell
            let centre = FieldSweep.centre.latitude
            var latitude = centre
            for _ in 0..<4 {
                latitude =
                    centre + cell.offset / LocalMetric(latitude: (centre + latitude) * 0.5).metresPerDegreeLatitude
            }
            self.latitude = latitude
            metric = LocalMetric(latitude: (centre + latitude) * 0.5)
            // Beyond the reach of the OS's "near a boundary" (a coarse estimate within twice its
            // accuracy powers satellites): a route begun within it, 2 km out where Wi-Fi is off,
            // had satellites on from its first estimate, their fixes on one lattice from its start,
            // so the start decided what was notified — a 50 m fence at 28 m/s 4.8 %, at 29 m/s 47 %,
            // fences below 100 m (all monitored as 100 m) 50 % to 15 % as it moved 40 m (a
            // black-box hunt of `sweep`).
            let far = cell.radius + max(2_000, 6 * cell.surroundings.positioning.medianError)
            half = (far * far - cell.offset * cell.offset).squareRoot()
            closest = half / cell.speed
            leave = closest + cell.dwell
            let chord = cell.isPassBy ? 0 : (cell.radius * cell.radius - cell.offset * cell.offset).squareRoot()
            // On at speed for the mechanism's latency tail after the exit: a route that ended
            // 2 km past the fence parked a car at 100 m/s 20 s after its exit, and what came
            // later was measured there (distance capped at radius + 2 km, a still device's lateness).
            after = max(half, chord + cell.speed * FieldSweep.movingAfterExit)
            end = leave + after / cell.speed
            if cell.isPassBy {
                (entry, exit) = (nil, nil)
            } else {
                (entry, exit) = ((half - chord) / cell.speed, leave + chord / cell.speed)
            }
        }

        /// Metres east of the centre at `t` (north is the offset).
        func east(at t: Double) -> Double {
            if t <= closest { return -half + cell.speed * t }
            if t <= leave { return 0 }
            return min(after, cell.speed * (t - leave))
        }

        /// Placed as the OS's region rule measures (``ShortDistance``: on the plane at the mean
        /// latitude of the centre and the route): placed on a sphere, a route measured 0.12 %
        /// longer east–west, and a 400 km region's crossings came 490 m late.
        func position(at t: Double) -> Coordinate {
            Coordinate(
                latitude: latitude,
                longitude: FieldSweep.centre.longitude + east(at: t) / metric.metresPerDegreeLongitude)
        }

        func distance(at t: Double) -> Double {
            let e = east(at: t)
            return (e * e + cell.offset * cell.offset).squareRoot()
        }
    }
}
