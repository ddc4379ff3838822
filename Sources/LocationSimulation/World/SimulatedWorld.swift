import LocationEvents
import SimulatedTime

/// One simulated device and the app on it, for app code written against today's asynchronous
/// Core Location API: ``SimulatedMonitor`` (`CLMonitor`), ``liveUpdates(_:)``
/// (`CLLocationUpdate.liveUpdates`), ``SimulatedServiceSession`` (`CLServiceSession`) and
/// ``SimulatedBackgroundActivitySession`` (`CLBackgroundActivitySession`) — on the same route,
/// clock, authorization and lifecycle as the delegate API of its ``manager(_:)``.
///
/// The world moves only when an app's sequence asks for its next element: each `next()` runs the
/// device along its route until an event for that sequence comes, and the route's end ends every
/// sequence. Events for other sequences wait in theirs, so a run is deterministic however the
/// app's tasks interleave.
///
/// ```swift
/// let manager = SimulatedLocationManager(status: .authorizedAlways, startTime: start)
/// let world = SimulatedWorld(SimulatedDevice(route: timeline, manager: manager))
/// let monitor = await SimulatedMonitor(named: "cafes", in: world)
/// await monitor.add(CircularGeographicCondition(center: cafe, radius: 100), identifier: "cafe")
/// for await event in monitor.events {
///     print(event.identifier, event.state)  // cafe unsatisfied, then cafe satisfied …
/// }
/// ```
public actor SimulatedWorld {
    /// What a subscriber's sequence receives.
    enum Topic: Hashable {
        case monitor(String)
        case liveUpdates
        case session(SessionID)
    }

    private struct Subscription {
        var topic: Topic
        var queue: [TimedEvent] = []
        var readIndex = 0
        /// The sequence's owner: once it is gone (an iterator left its loop, a session released),
        /// the subscription ends at the next step.
        weak var owner: AnyObject?
        let hasOwner: Bool
    }

    private let manager: SimulatedLocationManager
    private var events: SimulationEvents
    private var subscriptions: [Int: Subscription] = [:]
    private var nextID = 0
    private var finished = false

    /// Takes the device (its manager, route and script) into the world; drive its manager through
    /// ``manager(_:)`` from then on.
    public init(_ device: sending SimulatedDevice) {
        manager = device.manager
        events = Simulation(devices: [device]).events()
    }

    /// The virtual time: the last instant the device has reached.
    public var now: EpochInstant { manager.now }

    /// Runs `body` with the device's location manager — the delegate API — between two steps.
    public func manager<T: Sendable>(_ body: (SimulatedLocationManager) throws -> T) rethrows -> T {
        try body(manager)
    }

    /// `CLLocationUpdate.liveUpdates(_:)`: updates start when iteration begins and stop when the
    /// iterator is released.
    public nonisolated func liveUpdates(_ configuration: LiveConfiguration = .default) -> LiveUpdates {
        LiveUpdates(world: self, configuration: configuration)
    }

    /// Runs the route to its end, or through the samples stamped up to `time`, queueing each
    /// sequence's events for it.
    public func run(through time: EpochInstant = .distantFuture) {
        while step(through: time) {}
    }

    // MARK: - For the API types

    private func subscribe(_ topic: Topic, owner: (any AnyObject & Sendable)?) -> Int {
        nextID += 1
        subscriptions[nextID] = Subscription(topic: topic, owner: owner, hasOwner: owner != nil)
        return nextID
    }

    /// Hands a subscription to its real owner once that exists.
    func adopt(_ id: Int, owner: any AnyObject & Sendable) {
        subscriptions[id]?.owner = owner
    }

    func unsubscribe(_ id: Int) {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return }
        ended(subscription.topic)
    }

    /// The subscription's next event, running the world until one comes; nil once the route has
    /// ended and its queue is empty.
    func next(_ id: Int) -> TimedEvent? {
        while let subscription = subscriptions[id], subscription.readIndex == subscription.queue.count {
            guard step() else { return nil }
        }
        guard var subscription = subscriptions[id] else { return nil }
        let event = subscription.queue[subscription.readIndex]
        subscription.readIndex += 1
        if subscription.readIndex == subscription.queue.count {
            subscription.queue.removeAll(keepingCapacity: true)
            subscription.readIndex = 0
        }
        subscriptions[id] = subscription
        return event
    }

    func startLiveUpdates(_ configuration: LiveConfiguration, owner: any AnyObject & Sendable) -> Int {
        let id = subscribe(.liveUpdates, owner: owner)
        manager.startLiveUpdates(configuration)
        return id
    }

    func openMonitor(_ name: String) -> Int { subscribe(.monitor(name), owner: nil) }

    func beginSession(
        _ requirement: ServiceSessionRequirement?, fullAccuracyPurposeKey: String?, owner: any AnyObject & Sendable
    ) -> (SessionID, Int) {
        let session =
            requirement.map { manager.beginServiceSession($0, fullAccuracyPurposeKey: fullAccuracyPurposeKey) }
            ?? manager.beginBackgroundActivitySession()
        return (session, subscribe(.session(session), owner: owner))
    }

    // MARK: - Stepping

    /// Moves the world by one event and hands it to its subscribers; false at the route's end
    /// (or when nothing more happens by `horizon`).
    private func step(through horizon: EpochInstant = .distantFuture) -> Bool {
        releaseAbandoned()
        guard !finished else { return false }
        guard let event = horizon == .distantFuture ? events.next() : events.next(through: horizon) else {
            if horizon == .distantFuture { finished = true }
            return false
        }
        for (id, subscription) in subscriptions where Self.topics(of: event).contains(subscription.topic) {
            subscriptions[id]?.queue.append(event)
        }
        return true
    }

    /// Ends the subscriptions whose owner is gone, as iOS ends what the app released.
    private func releaseAbandoned() {
        for (id, subscription) in subscriptions where subscription.hasOwner && subscription.owner == nil {
            unsubscribe(id)
        }
    }

    private func ended(_ topic: Topic) {
        switch topic {
        case .liveUpdates:
            if !subscriptions.values.contains(where: { $0.topic == .liveUpdates }) { manager.stopLiveUpdates() }
        case .session(let session): manager.invalidateSession(session)
        case .monitor: break
        }
    }

    private static func topics(of event: TimedEvent) -> [Topic] {
        switch event.event {
        case .monitorEvent(let monitorEvent, _): [.monitor(monitorEvent.monitor)]
        case .liveUpdate: [.liveUpdates]
        case .sessionDiagnostic(let diagnostic): [.session(diagnostic.session)]
        default: []
        }
    }
}

/// A sequence of one kind of a world's events, pulled from the world: ``SimulatedMonitor/events``,
/// ``LiveUpdates``, a session's diagnostics. Iterating it moves the
/// world; releasing the iterator ends what the iteration started (live updates, say).
public struct WorldEvents<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = Never
    let world: SimulatedWorld
    /// Subscribes, at the first `next()`; the owner lives as long as the iterator.
    let start: @Sendable (SimulatedWorld, any AnyObject & Sendable) async -> Int
    let element: @Sendable (TimedEvent) -> Element?

    init(
        world: SimulatedWorld, start: @escaping @Sendable (SimulatedWorld, any AnyObject & Sendable) async -> Int,
        element: @escaping @Sendable (TimedEvent) -> Element?
    ) {
        self.world = world
        self.start = start
        self.element = element
    }

    public func makeAsyncIterator() -> Iterator { Iterator(sequence: self) }

    public struct Iterator: AsyncIteratorProtocol, Sendable {
        /// Lives as long as the iterator: the world ends the subscription once it is released.
        private final class Token: Sendable {}

        let sequence: WorldEvents
        private let token = Token()
        private var id: Int?

        init(sequence: WorldEvents) { self.sequence = sequence }

        public mutating func next() async -> Element? {
            let world = sequence.world
            let id: Int
            if let known = self.id {
                id = known
            } else {
                id = await sequence.start(world, token)
                self.id = id
            }
            while let event = await world.next(id) {
                if let element = sequence.element(event) { return element }
            }
            return nil
        }
    }
}
