import Foundation
import SocialEmulator
import Store

/// What runs one after another in one process hand on instead of making anew: temporary stores,
/// cleared between runs, and in-process emulators, still listening, renewed for each run, spread
/// over one ``LoopbackNetwork`` for each of NIO's loops. A scenario's trials take them from here —
/// starting a server, connecting to it and creating a store's schema cost as much as a trial's
/// posts — and each run is the run it would be alone.
///
/// Whoever makes one calls ``stop()`` once its runs are over.
///
/// Only the durable path hands things on (``RunPath``): in memory each run makes its own, at no
/// cost worth saving.
///
/// ```swift
/// let resources = RunResources()
/// for trial in 1...1_000 {
///     let networks = EmulatorNetworks(fixtures: places, setup: setup, seed: trial, path: .durable, resources: resources)
///     …
/// }
/// await resources.stop()
/// ```
public final class RunResources: @unchecked Sendable {
    private let lock = NSLock()
    private var stores: [Store] = []
    private var emulators: [InProcessEmulator] = []
    private var stopped = false
    /// The loops emulators started here run on with their clients, one for each of NIO's;
    /// emulators are spread over them in turn.
    private let networks = LoopbackNetwork.oneForEachLoop()
    private var started = 0

    public init() {}

    /// A temporary store nobody else is using: an idle one, or a new one.
    public func store() throws(StoreError) -> Store {
        if let idle = lock.withLock({ stores.popLast() }) { return idle }
        return try Store.temporary()
    }

    /// Hands a store from ``store()`` back, cleared; one that cannot be cleared is dropped.
    public func giveBack(_ store: Store) {
        guard (try? store.clear()) != nil else { return }
        lock.withLock { stores.append(store) }
    }

    /// An idle emulator, renewed by its taker; nil: start one.
    func takeEmulator() -> InProcessEmulator? {
        lock.withLock { emulators.popLast() }
    }

    /// The network to start the next new emulator on.
    func nextNetwork() -> LoopbackNetwork {
        lock.withLock {
            started += 1
            return networks[started % networks.count]
        }
    }

    /// Keeps an emulator whose run is over for the next run (after ``stop()``, which should not
    /// happen: stops it).
    func giveBack(_ emulator: InProcessEmulator) async {
        let kept = lock.withLock {
            if !stopped { emulators.append(emulator) }
            return !stopped
        }
        if !kept { await emulator.stop() }
    }

    /// Stops the idle emulators, closes their networks' connections, and lets go of the stores.
    public func stop() async {
        let idle = lock.withLock {
            defer { (emulators, stores, stopped) = ([], [], true) }
            return emulators
        }
        for emulator in idle { await emulator.stop() }
        for network in networks { await network.shutdown() }
    }
}
