import Foundation

/// Runs a (synchronous) ``Simulation`` on its own thread and hands its events to async code, at
/// most `capacity` ahead, so a long route never piles up in memory.
///
/// ```swift
/// let pipe = SimulationEventPipe(simulation)
/// for await event in pipe.events {
///     pipe.consumed()
///     try await engine.handle(event)
/// }
/// ```
public struct SimulationEventPipe: Sendable {
    public let events: AsyncStream<TimedEvent>
    private let slots: DispatchSemaphore

    public init(_ simulation: Simulation, capacity: Int = 1_024) {
        let slots = DispatchSemaphore(value: capacity)
        let (stream, continuation) = AsyncStream<TimedEvent>.makeStream()
        let box = SimulationBox(simulation)
        Thread {
            var clock = VirtualClock()
            box.simulation.run(clock: &clock) { event in
                slots.wait()
                continuation.yield(event)
            }
            continuation.finish()
        }.start()
        self.events = stream
        self.slots = slots
    }

    /// Call once per event taken: lets the simulation run one further ahead.
    public func consumed() { slots.signal() }
}

/// Hands the simulation, used by one thread at a time, to the simulation's thread.
private final class SimulationBox: @unchecked Sendable {
    let simulation: Simulation
    init(_ simulation: Simulation) { self.simulation = simulation }
}
