import Geo
import LocationEvents
import LocationSimulation
import SimulatedTime
import Testing

/// The manager as a value (`LocationManagerCore`): its steps, driven without a manager or an app,
/// in the manner of AsyncHTTPClient's connection-pool state machine tests — an input in, the
/// events in the log and an action out.
@Suite struct LocationManagerCoreTests {
    static let start = EpochInstant(secondsSince1970: 1_748_937_600)
    static let centre = Coordinate(latitude: 37.3318, longitude: -122.0312)
    static let fence = CircularRegion(identifier: "fence", center: centre, radius: 100)

    /// A core under the field mechanism (`realism: field`), authorized Always, monitoring a 100 m
    /// fence with the device 1 km south of it.
    func fieldCore(seed: UInt64 = 1) -> LocationManagerCore {
        var configuration = LocationManagerConfiguration()
        configuration.realism = .device
        configuration.regionMechanism = .field
        var core = LocationManagerCore(
            status: .authorizedAlways, authorizationAnswer: nil, answerDelay: .zero,
            accuracyAuthorization: .fullAccuracy, noise: NoiseModel(.none), seed: seed, startTime: Self.start,
            configuration: configuration)
        core.regions.register(Self.fence, deviceAt: Self.at(north: -1_000), time: Self.start)
        return core
    }

    static func at(north metres: Double) -> Coordinate {
        Coordinate(latitude: centre.latitude + metres / 111_195, longitude: centre.longitude)
    }

    /// Walks the core north at 1.4 m/s from 1 km south of the fence to its centre and stays there
    /// two minutes, a sample a second, the OS estimating at each; returns the region changes as
    /// they fall due. (The stay: an entry is notified up to a minute or two after the crossing,
    /// 72 s before the centre — seed 1's came later once the satellite fix's phase varied.)
    func walkIn(_ core: inout LocationManagerCore) -> [(taken: EpochInstant, change: RegionMonitor.Change)] {
        var taken: [(EpochInstant, RegionMonitor.Change)] = []
        for second in 0...835 {
            let time = Self.start.advanced(bySeconds: Double(second))
            for change in core.takeDelayed(through: time) { taken.append((time, change)) }
            let north = min(0, -1_000 + 1.4 * Double(second))
            let sample = DeviceSample(time: time, coordinate: Self.at(north: north))
            _ = core.locate(sample)
            core.estimateForRegions(sample)
        }
        return taken
    }

    /// A confirmed crossing waits out its dispatch in the core and is handed out once, when due,
    /// stamped with its due time; an exit is owed while the device is inside, and once it has
    /// been handed out nothing is on its way: a resting device may stop.
    @Test func aConfirmedCrossingWaitsOutItsDispatchAndIsTakenOnce() throws {
        var core = fieldCore()
        var taken = walkIn(&core)
        let entry = try #require(taken.first, "walking into a 100 m fence at 1.4 m/s is notified")
        guard case .crossed(let region, let state, let time, _) = entry.change else {
            Issue.record("a field core's change is a crossing, got \(entry.change)")
            return
        }
        #expect(region == Self.fence && state == .inside)
        #expect(time <= entry.taken, "handed out when due, stamped with its due time")
        let settledInside = core.fieldIsSettled
        #expect(!settledInside, "inside, an exit is owed")
        // Back out the way it came, then rest 1 km away.
        for second in 836...2_151 {
            let time = Self.start.advanced(bySeconds: Double(second))
            for change in core.takeDelayed(through: time) { taken.append((time, change)) }
            let north = max(-1_000, 1.4 * Double(835 - second))
            let sample = DeviceSample(time: time, coordinate: Self.at(north: north))
            _ = core.locate(sample)
            core.estimateForRegions(sample)
        }
        let states = taken.compactMap { if case .crossed(_, let state, _, _) = $0.change { state } else { nil } }
        #expect(states == [.inside, .outside], "one entry, one exit: \(taken.map(\.change))")
        #expect(core.takeDelayed(through: .distantFuture).isEmpty, "each taken once")
        let settledAway = core.fieldIsSettled
        #expect(settledAway)
    }

    /// A core is a value: a copy is a snapshot that the original's later steps leave alone, and
    /// two copies stepped alike give the same changes (the seed is in the value).
    @Test func aCopyIsASnapshotAndStepsAlike() {
        var original = fieldCore(seed: 7)
        let snapshot = original
        let first = walkIn(&original)
        #expect(snapshot.delayed.isEmpty && snapshot.believedPosition == nil)
        var again = snapshot
        let second = walkIn(&again)
        #expect(first.map(\.taken) == second.map(\.taken))
        #expect(first.map(\.change) == second.map(\.change))
        var other = fieldCore(seed: 8)
        #expect(walkIn(&other).map(\.taken) != first.map(\.taken), "another seed, other draws")
    }

    /// Without noise the believed position is the true one; `requestState(for:)` calls wait in the
    /// core until taken, once.
    @Test func locatingAndStateRequests() {
        var core = fieldCore()
        let sample = DeviceSample(time: Self.start, coordinate: Self.at(north: -50))
        let (believed, radius) = core.locate(sample)
        #expect(believed == sample.coordinate && radius == 0 && core.believedPosition == believed)
        core.stateRequests.append((Self.fence, Self.start))
        #expect(core.takeStateRequests().map(\.region) == [Self.fence])
        #expect(core.takeStateRequests().isEmpty)
    }

    /// The log is the manager's one output channel: drained in order, named for the device,
    /// emptied.
    @Test func theLogIsDrainedInOrderAndNamed() {
        var core = fieldCore()
        core.emitted = [
            TimedEvent(time: Self.start, event: .startedMonitoring(Self.fence)),
            TimedEvent(time: Self.start.advanced(bySeconds: 1), event: .appStateChanged(.background)),
        ]
        var buffer: [TimedEvent] = []
        core.drainEmitted(into: &buffer, device: "alice")
        #expect(buffer.map(\.device) == ["alice", "alice"])
        #expect(buffer.map(\.time) == [Self.start, Self.start.advanced(bySeconds: 1)])
        #expect(core.emitted.isEmpty)
    }

    /// A core authorized Always, exact realism, monitoring `fence` with the device 1 km south.
    func exactCore() -> LocationManagerCore {
        var core = LocationManagerCore(
            status: .authorizedAlways, authorizationAnswer: nil, answerDelay: .zero,
            accuracyAuthorization: .fullAccuracy, noise: NoiseModel(.none), seed: 1, startTime: Self.start,
            configuration: LocationManagerConfiguration())
        let south = DeviceSample(time: Self.start, coordinate: Self.at(north: -1_000))
        #expect(core.step(.move(south)) == .done)
        #expect(core.step(.startMonitoring(Self.fence)) == .done)
        return core
    }

    func types(_ events: some Sequence<TimedEvent>) -> [String] { events.map(\.event.type) }

    /// iOS launches a terminated app for a region entry and runs its launch code before the entry
    /// is delivered (Apple, `UIApplication.LaunchOptionsKey.location`: "the app was launched to
    /// handle an incoming location event … use the presence of this key as a signal to create a
    /// CLLocationManager object and start location services again. Location data is delivered only
    /// to the location manager delegate"). The step stops there, the app's calls are steps of their
    /// own, and on resuming what the launch code started counts at the same sample: here, standard
    /// updates give a fix.
    @Test func aStepStopsForTheLaunchCodeAndGoesOnAfterIt() {
        var core = exactCore()
        #expect(types(core.emitted) == ["authorization", "monitoringStarted", "regionState"])
        core.emitted.removeAll()
        #expect(core.step(.changeAppState(.terminated, at: nil)) == .runLifecycleHandler(previous: .foreground))
        #expect(core.step(.resume) == .done, "nothing was stopped")
        core.emitted.removeAll()

        let inside = DeviceSample(time: Self.start.advanced(bySeconds: 700), coordinate: Self.centre)
        var withoutApp = core
        #expect(core.step(.move(inside)) == .runLifecycleHandler(previous: .terminated))
        #expect(types(core.emitted) == ["appLaunch"], "the entry waits for the launch code")
        #expect(core.appState == .background)
        // The launch code: background updates on, then start them.
        core.allowsBackgroundLocationUpdates = true
        #expect(core.step(.startUpdatingLocation) == .done)
        #expect(core.step(.resume) == .done)
        #expect(types(core.emitted) == ["appLaunch", "regionEnter", "regionState", "location"])
        #expect(core.emitted.allSatisfy { $0.time <= inside.time })
        #expect(core.step(.resume) == .done, "a step resumes once")

        // Resumed without any launch code, the same step gives the entry and no fix.
        #expect(withoutApp.step(.move(inside)) == .runLifecycleHandler(previous: .terminated))
        #expect(withoutApp.step(.resume) == .done)
        #expect(types(withoutApp.emitted) == ["appLaunch", "regionEnter", "regionState"])
        #expect(Array(withoutApp.emitted) == Array(core.emitted.prefix(3)), "a copy steps alike")
    }

    /// A step the app is not launched in runs whole: the log holds its events in iOS's order and
    /// the action is `done`. An app in use gets the entry without a launch.
    @Test func aStepRunsWholeWhenNoLaunchIsNeeded() {
        var core = exactCore()
        core.emitted.removeAll()
        #expect(core.step(.startUpdatingLocation) == .done)
        let inside = DeviceSample(time: Self.start.advanced(bySeconds: 700), coordinate: Self.centre)
        #expect(core.step(.move(inside)) == .done)
        #expect(types(core.emitted) == ["regionEnter", "regionState", "location"])
    }
}
