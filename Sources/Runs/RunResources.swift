import Foundation
import SocialEmulator
import Store

/// What runs one after another in one process hand on instead of making anew: temporary stores,
/// cleared between runs, and in-process emulators, still listening, renewed for each run, all on
/// one ``LoopbackNetwork``. A scenario's trials take them from here — starting a server,
/// connecting to it and creating a store's schema cost as much as a trial's posts — and each run
/// is the run it would be alone.
///
/// Whoever makes one calls ``stop()`` once its runs are over.
///
/// ```swift
/// let resources = RunResources()
/// for trial in 1...1_000 {
///     var checkins = CheckinPlan(store: try resources.store(), …)
///     checkins.resources = resources
///     …
/// }
/// await resources.stop()
/// ```
public final class RunResources: @unchecked Sendable {
    private let lock = NSLock()
    private var stores: [Store] = []
    private var emulators: [InProcessEmulator] = []
    private var stopped = false
    /// The loop the emulators started here and their clients share.
    let network = LoopbackNetwork()

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

    /// Keeps an emulator whose run is over for the next run (after ``stop()``, which should not
    /// happen: stops it).
    func giveBack(_ emulator: InProcessEmulator) async {
        let kept = lock.withLock {
            if !stopped { emulators.append(emulator) }
            return !stopped
        }
        if !kept { await emulator.stop() }
    }

    /// Stops the idle emulators and their network, and lets go of the stores.
    public func stop() async {
        let idle = lock.withLock {
            defer { (emulators, stores, stopped) = ([], [], true) }
            return emulators
        }
        for emulator in idle { await emulator.stop() }
        await network.shutdown()
    }
}
