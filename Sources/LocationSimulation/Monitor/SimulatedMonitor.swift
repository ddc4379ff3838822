import LocationEvents

/// `CLMonitor` (iOS 17) in a ``SimulatedWorld``: an actor created by name, holding conditions
/// and reporting their events as an asynchronous sequence. Names, methods and behaviour mirror
/// Apple's; the rules are ``ConditionMonitor``'s, on the device's manager, so the monitor and the
/// delegate API see the same transitions at the same instants.
///
/// | `CLMonitor` | `SimulatedMonitor` |
/// |---|---|
/// | `await CLMonitor("cafes")` | `await SimulatedMonitor(named: "cafes", in: world)` |
/// | `add(_:identifier:assuming:)` | ``add(_:identifier:assuming:)`` |
/// | `remove(_:)` | ``remove(_:)`` |
/// | `identifiers` | ``identifiers`` |
/// | `record(for:)` | ``record(for:)`` |
/// | `events` | ``events`` |
///
/// Conditions and records belong to the name, not to the instance: a monitor opened again by the
/// same name finds them, across the app's termination and relaunch, as iOS keeps them ("Conditions
/// you add to an instance of CLMonitor persist until you remove them from monitoring", Apple,
/// `CLMonitor` configuration). Its events are those from when it was opened. Apple allows one open
/// instance per name at a time (`CLMonitor.h`); the simulator does not enforce it, and each
/// instance receives the name's events.
///
/// ```swift
/// let monitor = await SimulatedMonitor(named: "cafes", in: world)
/// await monitor.add(CircularGeographicCondition(center: cafe, radius: 100), identifier: "cafe", assuming: .unsatisfied)
/// for await event in monitor.events where event.state == .satisfied { checkIn(at: event.identifier) }
/// ```
public actor SimulatedMonitor {
    /// The name the monitor was opened with (Apple: alphanumeric, not starting with "_").
    public nonisolated let name: String
    private let world: SimulatedWorld
    private let subscription: Int

    /// `CLMonitor.init(_:)`: opens the monitor named `name` in `world`.
    public init(named name: String, in world: SimulatedWorld) async {
        self.name = name
        self.world = world
        self.subscription = await world.openMonitor(name)
    }

    /// `add(_:identifier:assuming:)`: adds (or replaces) a condition. Apple, `add(_:identifier:)`:
    /// "The initial state is CLRegionState.unknown"; with `assuming:` the state you specify.
    public func add(_ condition: MonitoringCondition, identifier: String, assuming state: MonitoringState = .unknown)
        async
    {
        let name = name
        await world.manager { $0.add(condition, identifier: identifier, to: name, assuming: state) }
    }

    /// `add(_:identifier:assuming:)` with a `CircularGeographicCondition`.
    public func add(
        _ condition: CircularGeographicCondition, identifier: String, assuming state: MonitoringState = .unknown
    ) async {
        await add(.circularGeographic(condition), identifier: identifier, assuming: state)
    }

    /// `add(_:identifier:assuming:)` with a `BeaconIdentityCondition`.
    public func add(
        _ condition: BeaconIdentityCondition, identifier: String, assuming state: MonitoringState = .unknown
    ) async {
        await add(.beaconIdentity(condition), identifier: identifier, assuming: state)
    }

    /// `remove(_:)`: the condition is no longer monitored and its record is gone.
    public func remove(_ identifier: String) async {
        let name = name
        await world.manager { $0.remove(identifier, from: name) }
    }

    /// `identifiers`: the conditions monitored, in the order added.
    public var identifiers: [String] {
        get async {
            let name = name
            return await world.manager { $0.identifiers(of: name) }
        }
    }

    /// `record(for:)`: the condition and the last event about it.
    public func record(for identifier: String) async -> MonitoringRecord? {
        let name = name
        return await world.manager { $0.record(for: identifier, in: name) }
    }

    /// `events`: the monitor's events, in virtual-time order, as the world produces them; the
    /// sequence ends with the route.
    public nonisolated var events: WorldEvents<MonitoringEvent> {
        let subscription = subscription
        return WorldEvents(world: world, start: { _, _ in subscription }) {
            if case .monitorEvent(let event, _) = $0.event { return event }
            return nil
        }
    }
}
