import CheckinEngine
import Foundation
import LocationEvents
import LocationSimulation
import Runs
import SimulatedTime
import SocialEmulator
import Tracks

/// A scripted run: devices on routes, the regions they monitor, the user's privacy choices, the
/// check-in rules, how the emulated networks behave — and what must happen.
///
/// Read one with ``ScenarioFile``; run it with ``ScenarioRunner``. Times in a scenario are
/// offsets from its start (the earliest route start), written `90s`, `12m`, `1h` or seconds.
public struct Scenario: Sendable {
    /// Also the run's name in the store.
    public var name: String
    /// The file it came from, as given.
    public var file: String
    public var description: String?
    /// Seeds the noise, the emulator's faults and the retry jitter.
    public var seed: UInt64 = 0
    public var devices: [DeviceScript]
    public var regions: [CircularRegion] = []
    /// iBeacons in the world (`beacons`, a beacons file).
    public var beacons: [PlacedBeacon] = []
    public var rules: [CheckinRule] = []
    public var privacy = PrivacyProfile()
    public var emulator = EmulatorSetup()
    /// The emulator's places (`places: DIR`, relative to the scenario); nil: the runner's.
    public var places: EmulatorFixtures?
    /// Evaluate the gates and record the audit, send nothing.
    public var dryRun = false
    public var expectations: [Expectation]
    /// Wall-clock time the run may take (`timeBudget`); nil: the runner's.
    public var timeBudget: Duration?
    /// Run as this many trials, each with its own seed (`trials`); nil: one plain run.
    public var trials: Int?
    /// Seconds each device rests at its last position after its route (`rest`); nil: long
    /// enough for its realism's latency tail (none for `exact`).
    public var rest: Seconds?
    /// The scenario file and every file or folder it names (routes, regions, beacons, rules,
    /// privacy, places), in reading order: what a run's identity is digested from.
    public var inputs: [ScenarioInput] = []
}

/// A file a scenario was read from, by the name the scenario gives it.
public struct ScenarioInput: Sendable, Equatable {
    public var name: String
    public var url: URL

    public init(name: String, url: URL) { (self.name, self.url) = (name, url) }
}

/// One simulated phone: its route and the script of what its user and its radio do.
public struct DeviceScript: Sendable {
    /// Needed when a scenario has several devices; events carry it.
    public var name: String?
    /// A KML, KMZ or GPX file, resolved against the scenario file's folder.
    public var route: URL
    public var routeDisplayName: String
    /// A track point earlier than the one before it: refuse the file, drop it, or sort.
    public var timeOrder = TimeOrder.strict
    /// Most samples the route may make (untimed geometry sampled at ``RouteSpec/sampleInterval``).
    public var maxFixes = RouteTiming.defaultMaximumSamples
    /// Which path of the file, counting from 1.
    public var path: Int?
    /// For untimed geometry, m/s.
    public var speed = 1.4
    public var sampleInterval = Seconds(1)
    /// For untimed geometry.
    public var start: EpochInstant?
    /// Seconds added to the route's times, so devices can share a route staggered.
    public var startAfter = Seconds.zero
    /// Metres the route is moved, north and east, so devices can share a route side by side.
    public var displacement = (north: 0.0, east: 0.0)
    /// What the app does and what happens to it (its regions are the scenario's).
    public var app = AppScript()
    public var noise = NoiseModel.Preset.none
    /// Defaults to the scenario's seed.
    public var seed: UInt64?
    /// Signal gaps (tunnels), offsets from the scenario's start.
    public var signalLoss: [ClosedRange<Seconds>] = []
    /// The iOS release whose rules the device follows (`iosVersion`, on the device or for all);
    /// nil: ``LocationManagerConfiguration``'s default, the current release.
    public var iosVersion: Int?
    /// `exact`, `field` or `device` (`realism`, on the device or for all); nil: exact.
    public var realism: RealismProfile?
    /// `environment:` and `wifi:` (on the device or for all): where the OS's own positioning
    /// works, for region monitoring under a non-exact realism; nil: suburban, Wi-Fi on.
    public var environment: Surroundings.Environment?
    public var wifi: Bool?

    /// The route as a run reads it.
    public var routeSpec: RouteSpec {
        var spec = RouteSpec(source: .file(route), displayName: routeDisplayName)
        spec.timeOrder = timeOrder
        spec.path = path
        spec.speed = speed
        spec.sampleInterval = sampleInterval
        spec.start = start
        spec.maxFixes = maxFixes
        return spec
    }
}
