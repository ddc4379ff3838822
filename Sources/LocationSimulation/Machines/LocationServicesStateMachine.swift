import Geo
import LocationEvents
import SimulatedTime

/// The location services an app runs, as a value: the standard service with its automatic pauses,
/// the significant-change service, visits, a one-shot `requestLocation()`, and live updates
/// (`CLLocationUpdate.liveUpdates`) with their stationary state — what each has delivered and when
/// it is next due.
///
/// The machine decides *whether* and *what kind of* delivery is due at a sample; the owner
/// (``SimulatedLocationManager``) makes the fix (noise, approximate locations) and calls the app,
/// after the machine's state is settled.
///
/// ```
///  standard:      stopped ──start──▶ running ──still for the pause delay──▶ paused
///                    ▲                  │ ▲                                  │
///                    └──────stop────────┘ └────────────start (resumed)───────┘
///  one-shot:      idle ──requestLocation──▶ waiting ──fix──▶ idle   (or ──deadline──▶ idle, locationUnknown)
///  live updates:  off ──iterate──▶ moving ──still for the pause delay──▶ stationary ──moves──▶ moving
/// ```
package struct LocationServicesStateMachine: Sendable {
    /// The standard service (`startUpdatingLocation`).
    package enum Standard: Sendable, Equatable {
        case stopped
        /// Running; `stillness` is where and since when the device has stayed within the pause
        /// radius.
        case running(stillness: Stillness?)
        /// Paused automatically (`pausesLocationUpdatesAutomatically`); only the app's next start
        /// resumes it (Apple, `locationManagerDidResumeLocationUpdates(_:)`).
        case paused
    }

    package struct Stillness: Sendable, Equatable {
        package var coordinate: Coordinate
        package var since: EpochInstant
        /// Distances from `coordinate`, scaled once: every sample is measured against it.
        private let metric: LocalMetric

        /// The stillness at `coordinate`, its metric taken from `cached` (made here when nil) while
        /// the latitude stays within 0.005° of the one it was made for
        /// (``LocalMetric/near(_:cached:)``): a moving device leaves its stillness at nearly every
        /// sample, and a new metric's sine and cosine there were 2.3 % of a 10,000-device crowd's
        /// CPU (perf; 0.1 % after).
        package init(
            coordinate: Coordinate, since: EpochInstant, reusing cached: inout (latitude: Double, metric: LocalMetric)?
        ) {
            self.coordinate = coordinate
            self.since = since
            metric = LocalMetric.near(coordinate.latitude, cached: &cached)
        }

        /// Whether `point` is within `radius` of where the device stayed, as ``ShortDistance``
        /// answers it. The metric used here (no trigonometry per sample) differs from
        /// ShortDistance's, made at the two points' mean latitude, by under 10⁻³ of a distance
        /// near a radius of up to a kilometre below 80° of latitude: half the latitude difference
        /// times its tangent (under 4.5 × 10⁻⁴), and as much again for a metric made up to 0.005°
        /// away (under 5 × 10⁻⁴). A distance within 2 × 10⁻³ of the radius, or any other case, is
        /// measured again ShortDistance's way.
        package func contains(_ point: Coordinate, radius: Double) -> Bool {
            guard radius <= 1_000 && abs(coordinate.latitude) < 80 else {
                return ShortDistance.distance(coordinate, point) <= radius
            }
            let (north, east) = metric.offset(from: coordinate, to: point)
            let squared = north * north + east * east
            // Well inside or outside (beyond 2 × 10⁻³ of the radius) the square answers as the
            // distance would, without the square root a moving device waited on at every sample
            // (perf: 4 % of a 10,000-device crowd's CPU in this function).
            if radius > 0 {
                let radiusSquared = radius * radius
                if squared < 0.996 * radiusSquared { return true }
                if squared > 1.004 * radiusSquared { return false }
            }
            let distance = squared.squareRoot()
            if abs(distance - radius) > 2e-3 * radius { return distance <= radius }
            return ShortDistance.distance(coordinate, point) <= radius
        }

        package static func == (a: Stillness, b: Stillness) -> Bool {
            a.coordinate == b.coordinate && a.since == b.since
        }
    }

    /// What an automatic-pause check found.
    package enum PauseCheck: Sendable, Equatable {
        case running
        /// The pause begins now: `locationManagerDidPauseLocationUpdates`.
        case pausedNow
        case paused
    }

    /// `requestLocation()` (iOS 9): one fix, then the service stops.
    package enum OneShot: Sendable, Equatable {
        case idle
        /// Asked at `asked`; fails with `locationUnknown` at `deadline` without a fix.
        case waiting(asked: EpochInstant, deadline: EpochInstant)
    }

    /// Live updates being iterated.
    package struct Live: Sendable, Equatable {
        package var configuration: LiveConfiguration
        /// The pause delay of the configuration's activity type, looked up once, not at every fix.
        package var pauseDelay: Seconds
        package var lastUpdate: EpochInstant?
        package var stillness: Stillness?
        package var isStationary = false
        /// The diagnostics of the last update without a location (none after a location).
        package var reported: LiveUpdateDiagnostics = []
    }

    /// What live updates deliver at a sample.
    package enum LiveAction: Sendable, Equatable {
        case none
        /// An update without a location, saying what prevents them (iOS 18).
        case diagnostic(LiveUpdateDiagnostics)
        /// An update with a location; `isStationary` when the device has just come to rest.
        case update(isStationary: Bool)
    }

    package private(set) var standard = Standard.stopped
    /// When the standard service last made a fix (kept across stops: the source's rate holds).
    package private(set) var lastStandardFix: EpochInstant?
    /// Device realism: the first fix after a start comes from the cache.
    package private(set) var cachedFixOwed = false
    /// A start from stopped owes the app an initial fix, however near the last delivered one it
    /// is: "Calling stopUpdatingLocation() in between, however, does cause a new initial event to
    /// be sent the next time you call this method" (`startUpdatingLocation()`, Apple's
    /// documentation). The distance filter held it back (a library hunt).
    package private(set) var initialFixOwed = false
    package private(set) var significantChanges = false
    /// The last significant-change event: the device's true position then, and when.
    package private(set) var lastSignificant: (position: Coordinate, time: EpochInstant)?
    /// Device realism: the next significant-change wake-up without movement.
    package private(set) var nextHeartbeat: EpochInstant?
    package private(set) var visitsOn = false
    package private(set) var visits: VisitDetector
    package private(set) var oneShot = OneShot.idle
    package private(set) var live: Live?
    /// The live updates the app was iterating when it was terminated: Core Location keeps them
    /// and relaunches the app for their next update, when that update would reach it.
    package private(set) var liveAtTermination: LiveConfiguration?
    /// The metric the last stillness was measured with, for the next (``Stillness``).
    private var stillnessMetric: (latitude: Double, metric: LocalMetric)?

    package init(configuration: LocationManagerConfiguration) {
        visits = VisitDetector(configuration: configuration)
    }

    package var isUpdating: Bool { standard != .stopped }
    package var isPaused: Bool { standard == .paused }
    /// The standard or significant-change service is running (what a refusal or a signal loss
    /// reports an error to).
    package var deliversFixes: Bool { isUpdating || significantChanges }

    // MARK: Standard service

    /// `startUpdatingLocation()`: true when it resumes paused updates
    /// (`locationManagerDidResumeLocationUpdates`). Under device realism a start from stopped owes
    /// a cached first fix. A waiting `requestLocation()` ends unanswered: "Calling either of those
    /// methods will immediately cancel the location request" (`CLLocationManager.h`).
    package mutating func startUpdating(deviceRealism: Bool) -> Bool {
        oneShot = .idle
        if standard == .stopped {
            initialFixOwed = true
            if deviceRealism { cachedFixOwed = true }
        }
        let resumed = standard == .paused
        standard = .running(stillness: nil)
        return resumed
    }

    /// Also cancels a waiting `requestLocation()`: "The method stopUpdatingLocation can be used to
    /// explicitly cancel the request" (`CLLocationManager.h`).
    package mutating func stopUpdating() {
        standard = .stopped
        oneShot = .idle
    }

    /// Automatic pauses: after the device has stayed within `radius` for `delay`, updates pause.
    package mutating func checkPause(at sample: DeviceSample, radius: Double, delay: Seconds) -> PauseCheck {
        guard case .running(let stillness) = standard else { return standard == .paused ? .paused : .running }
        guard let still = stillness, still.contains(sample.coordinate, radius: radius) else {
            standard = .running(
                stillness: Stillness(coordinate: sample.coordinate, since: sample.time, reusing: &stillnessMetric))
            return .running
        }
        guard still.since.seconds(to: sample.time) >= delay.seconds - 1e-9 else { return .running }
        standard = .paused
        return .pausedNow
    }

    /// Whether a standard fix is due at `time`, at most one per `interval`; when it is, it is
    /// counted as made.
    package mutating func standardFixDue(at time: EpochInstant, interval: Seconds) -> Bool {
        if let last = lastStandardFix, last.seconds(to: time) < interval.seconds - 1e-9 { return false }
        lastStandardFix = time
        return true
    }

    /// Takes the initial fix owed, if one is: the fix made now goes to the app whatever the
    /// distance filter says.
    package mutating func takeInitialFix() -> Bool {
        defer { initialFixOwed = false }
        return initialFixOwed
    }

    /// Takes the cached first fix owed, if one is.
    package mutating func takeCachedFix() -> Bool {
        defer { cachedFixOwed = false }
        return cachedFixOwed
    }

    // MARK: Significant changes

    /// `startMonitoringSignificantLocationChanges()`: a new initial event on every start.
    package mutating func startSignificantChanges() {
        significantChanges = true
        lastSignificant = nil
    }

    package mutating func stopSignificantChanges() {
        significantChanges = false
    }

    /// Whether a significant-change event is due at `sample`: the first after a start, then only
    /// ≥ `distance` metres and ≥ `interval` seconds from the last (Apple: 500 m, 5 minutes), or at
    /// `heartbeat` (device realism's wake-ups without movement). When due, it is counted as
    /// delivered.
    package mutating func significantChangeDue(
        at sample: DeviceSample, distance: Double, interval: Seconds, heartbeat: EpochInstant?
    ) -> Bool {
        var due =
            lastSignificant.map {
                ShortDistance.distance($0.position, sample.coordinate) + LocationManagerCore.tolerance >= distance
                    && $0.time.seconds(to: sample.time) + 1e-9 >= interval.seconds
            } ?? true
        if let heartbeat {
            nextHeartbeat = heartbeat
            due = due || sample.time >= heartbeat
        }
        guard due else { return false }
        nextHeartbeat = nil
        lastSignificant = (sample.coordinate, sample.time)
        return true
    }

    // MARK: Visits

    package mutating func setVisits(_ on: Bool) {
        visitsOn = on
    }

    /// The arrival or departure the believed position completes, when visits are monitored.
    package mutating func observeVisit(_ position: Coordinate, at time: EpochInstant) -> Visit? {
        guard visitsOn else { return nil }
        return visits.observe(position, at: time)
    }

    // MARK: One-shot

    /// `requestLocation()` at `time`; it fails at `time + timeout` without a fix. A request while
    /// one waits changes nothing (iOS delivers one fix for both). Nor does one while standard
    /// updates run: the method "can not be used concurrently with startUpdatingLocation"
    /// (`CLLocationManager.h`), which Waypost reads as the running updates' fixes being all the app
    /// gets — not the same fix twice. Paused updates deliver nothing, so a request then is made.
    package mutating func requestLocation(at time: EpochInstant, timeout: Seconds) {
        guard oneShot == .idle, !isUpdating || isPaused else { return }
        oneShot = .waiting(asked: time, deadline: time.advanced(by: timeout))
    }

    /// The request waiting ends: answered with a fix or an error, or dropped.
    package mutating func endOneShot() {
        oneShot = .idle
    }

    /// The waiting request's deadline, if it has passed by `time`.
    package func oneShotDeadline(by time: EpochInstant) -> EpochInstant? {
        if case .waiting(_, let deadline) = oneShot, deadline <= time { return deadline }
        return nil
    }

    // MARK: Live updates

    package mutating func startLive(_ configuration: LiveConfiguration, pauseDelay: Seconds) {
        live = Live(configuration: configuration, pauseDelay: pauseDelay)
    }

    package mutating func stopLive() {
        live = nil
    }

    /// What live updates deliver at `sample`, given the availability's diagnostics: an update
    /// without a location when something blocks them and that changed (iOS 18 only; iOS 17 sends
    /// nothing), else a location once per `interval` while the device moves, one saying
    /// `isStationary` when it has stayed within `radius` for the configuration's pause delay, then
    /// none until it moves (Apple, WWDC 2023 "Discover streamlined location updates").
    package mutating func liveUpdate(
        at sample: DeviceSample, diagnostics: LiveUpdateDiagnostics, interval: Seconds, radius: Double, iosVersion: Int
    ) -> LiveAction {
        guard var state = live else { return .none }
        defer { live = state }
        if !diagnostics.subtracting(.accuracyLimited).isEmpty {
            state.stillness = nil
            guard diagnostics != state.reported && iosVersion >= 18 else { return .none }
            state.reported = diagnostics
            return .diagnostic(diagnostics)
        }
        state.reported = []
        if let still = state.stillness, still.contains(sample.coordinate, radius: radius) {
            if state.isStationary { return .none }
            if still.since.seconds(to: sample.time) >= state.pauseDelay.seconds - 1e-9 {
                state.isStationary = true
                state.lastUpdate = sample.time
                // Updates resume once the device moves the radius from where it came to rest,
                // not from where the still spell began (up to the radius behind it: a creep of
                // 3 m resumed them).
                state.stillness = Stillness(
                    coordinate: sample.coordinate, since: still.since, reusing: &stillnessMetric)
                return .update(isStationary: true)
            }
        } else {
            state.stillness = Stillness(coordinate: sample.coordinate, since: sample.time, reusing: &stillnessMetric)
            state.isStationary = false
        }
        if let last = state.lastUpdate, last.seconds(to: sample.time) < interval.seconds - 1e-9 { return .none }
        state.lastUpdate = sample.time
        return .update(isStationary: false)
    }

    // MARK: The app's end

    /// The app was terminated: what runs in its process ends (standard updates, a waiting
    /// request, the iteration of live updates, whose configuration is kept for a relaunch); the
    /// significant-change service and visits survive it.
    package mutating func appTerminated() {
        standard = .stopped
        oneShot = .idle
        liveAtTermination = live?.configuration
        live = nil
    }

    /// The terminated app was launched again: what it iterates now is what its launch code starts.
    package mutating func appLaunched() {
        liveAtTermination = nil
    }
}
