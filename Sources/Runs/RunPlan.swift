import CheckinEngine
import Foundation
import LocationEvents
import LocationSimulation
import SimulatedTime
import SocialAPI
import Store
import Tracks

/// Everything one run is made of: its devices, the world they move through, and — when the run
/// checks in — the rules, the store and where posts go. `waypost replay` builds one from its
/// options, `waypost test` from a scenario; ``RunSession`` carries either out the same way.
public struct RunPlan {
    public var devices: [DevicePlan]
    /// Regions every device's app monitors.
    public var regions: [CircularRegion] = []
    /// iBeacons in the world.
    public var beacons: [PlacedBeacon] = []
    /// nil: the events only, no engine, no store.
    public var checkins: CheckinPlan?

    public init(devices: [DevicePlan], regions: [CircularRegion] = [], beacons: [PlacedBeacon] = []) {
        self.devices = devices
        self.regions = regions
        self.beacons = beacons
    }

    /// The run's start: the earliest device's; nil without devices.
    public var origin: EpochInstant? { devices.map(\.start).min() }
}

/// One simulated phone: its timed route, its app, and what its radio and user do.
public struct DevicePlan {
    /// Needed when a run has several devices; their events carry it.
    public var name: String?
    public var route: RouteTimeline
    /// The app (its regions and beacons are the run's).
    public var app: AppScript
    public var configuration = LocationManagerConfiguration()
    public var noise = NoiseModel(.none)
    public var seed: UInt64 = 0
    /// Added to the route's times, so devices can share a route staggered. ``Seconds``, not a
    /// `Duration`: a spread draws them at random, and a `Duration`'s attoseconds would round them.
    public var startAfter = Seconds.zero
    /// Metres the route is moved, north and east, so devices can share a route side by side.
    public var displacement = (north: 0.0, east: 0.0)
    /// Signal gaps (tunnels), as offsets from the run's start.
    public var signalLoss: [ClosedRange<Seconds>] = []
    /// How long the device rests at its last position after its route (``SimulatedDevice/rest``).
    public var rest = Seconds.zero

    public init(name: String? = nil, route: RouteTimeline, app: AppScript) {
        self.name = name
        self.route = route
        self.app = app
    }

    /// When the device starts: its route's first instant, plus ``startAfter``.
    public var start: EpochInstant {
        (route.span?.lowerBound ?? EpochInstant(secondsSince1970: 0)).advanced(by: startAfter)
    }
}

/// The check-in half of a run: events through the engine, posts through the outbox.
public struct CheckinPlan {
    public var store: any RunStore
    /// The run's name in the store (a run of the same name resumes where it stopped).
    public var runName: String
    /// The route(s), as the store shows them.
    public var track: String
    public var rules: [CheckinRule]
    public var profile = PrivacyProfile()
    /// Seeds the emulator's faults and the retry jitter.
    public var seed: UInt64 = 0
    /// Where posts go; nil: a dry run, which evaluates the gates and records the audit but
    /// sends nothing.
    public var network: PostDestination?
    /// Which API tweets go through (the engine's precision gate follows it even in a dry run).
    public var twitterAPI = TwitterAPIVersion.v1_1
    /// Keep each app's `CLMonitor` records in the store between runs, as iOS keeps a monitor's
    /// file between launches (``MonitorRecordKeeping``).
    public var keepsMonitorRecords = false
    /// Record the fixes, events, regions and zones `waypost report` draws; a run nobody will
    /// draw (a trial) records only its audit and outbox.
    public var keepsHistory = true

    public init(store: any RunStore, runName: String, track: String, rules: [CheckinRule], network: PostDestination?) {
        self.store = store
        self.network = network
        self.runName = runName
        self.track = track
        self.rules = rules
    }

    public var dryRun: Bool { network == nil }
}

/// Where a run's posts go.
public enum PostDestination {
    /// Networks on the run's virtual time: the emulator in this process, as the scenario layer
    /// and the CLI wire it in (`EmulatorNetworks`).
    case simulated(any VirtualTimeNetworks)
    /// Other servers, on the wall clock: the clients (signed on `clock`), and the longest wait
    /// for a retry before leaving posts queued.
    case servers(SocialClients, clock: any EpochClock, maxWait: Duration)
}

/// The networks a run posts to on its virtual time, as the run sees them: clients to post
/// through, what is scripted to change as its time passes, and an end. Whoever wires them in
/// keeps them, and reads what they received once the run is over.
public protocol VirtualTimeNetworks: Sendable {
    /// The run starts at `clock.now`: the clients to post through, signed on `clock`.
    func start(on clock: SimulatedClock) async throws -> SocialClients
    /// Applies what is scripted to happen by `time` (account changes); returns when the next
    /// change is due (nil: none is left).
    func advance(through time: EpochInstant) async -> EpochInstant?
    /// The run is over: `completed` is false when it failed or was stopped.
    func finish(completed: Bool) async
}
