import Foundation
import Runs
import SimulatedTime
import SocialAPI
import SocialEmulator

/// The emulator in this process as one run's networks (``Runs/VirtualTimeNetworks``): started on
/// the run's clock — over loopback HTTP, or in memory for a run nobody keeps (``RunPath``) — with
/// the set-up's faults timed from the run's start and its account changes applied as the run's
/// time passes. Its ``journal`` is what it received, read once the run is over.
///
/// ```swift
/// let networks = EmulatorNetworks(fixtures: places, setup: scenario.emulator, seed: 7, path: .inMemory)
/// var checkins = CheckinPlan(store: InMemoryStore(), runName: "walk", track: "walk.kml", rules: rules,
///                            network: .simulated(networks))
/// …
/// let requests = await networks.journal
/// ```
public actor EmulatorNetworks: VirtualTimeNetworks {
    private let fixtures: EmulatorFixtures
    private let setup: EmulatorSetup
    private let seed: UInt64
    private let path: RunPath
    /// Where a durable run takes its emulator from and gives it back to; nil: its own.
    private let resources: RunResources?
    private var emulator: InProcessEmulator?
    private var origin = EpochInstant(secondsSince1970: 0)
    private var changes: ArraySlice<EmulatorSetup.Change> = []
    /// What the emulator received, kept when the run finished.
    public private(set) var journal: [JournalEntry] = []

    public init(
        fixtures: EmulatorFixtures, setup: EmulatorSetup, seed: UInt64, path: RunPath = .durable,
        resources: RunResources? = nil
    ) {
        (self.fixtures, self.setup, self.seed, self.path) = (fixtures, setup, seed, path)
        // A fault may leave a request hanging on the server past the run: such runs start and
        // stop their own. In memory there is nothing to start: each run makes its own.
        self.resources = setup.faults.isEmpty && path == .durable ? resources : nil
    }

    public func start(on clock: SimulatedClock) async throws -> SocialClients {
        origin = clock.now
        changes = setup.changes[...]
        let emulator: InProcessEmulator
        let configuration = setup.configuration
        if path == .inMemory {
            emulator = .inMemory(
                fixtures: fixtures, configuration: configuration, seed: seed, twitterAPI: setup.twitterAPI,
                clock: clock)
        } else if let idle = resources?.takeEmulator() {
            emulator = await idle.renewed(
                fixtures: fixtures, configuration: configuration, seed: seed, twitterAPI: setup.twitterAPI,
                clock: clock)
        } else {
            do {
                emulator = try await InProcessEmulator.start(
                    fixtures: fixtures, configuration: configuration, seed: seed, twitterAPI: setup.twitterAPI,
                    network: resources?.nextNetwork(), clock: clock)
            } catch {
                throw RunSessionError.emulatorUnavailable("\(error)")
            }
        }
        for timed in setup.faults {
            var fault = timed.fault
            fault.from = timed.from.map { origin.advanced(by: $0) }
            fault.until = timed.until.map { origin.advanced(by: $0) }
            _ = await emulator.core.addFault(fault)
        }
        self.emulator = emulator
        return emulator.clients
    }

    public func advance(through time: EpochInstant) async -> EpochInstant? {
        while let change = changes.first, origin.advanced(by: change.at) <= time {
            changes.removeFirst()
            await emulator?.apply(change)
        }
        return changes.first.map { origin.advanced(by: $0.at) }
    }

    public func finish(completed: Bool) async {
        guard let emulator else { return }
        self.emulator = nil
        guard completed else { return await emulator.stop() }
        journal = await emulator.core.journal
        if let resources { await resources.giveBack(emulator) } else { await emulator.stop() }
    }
}
