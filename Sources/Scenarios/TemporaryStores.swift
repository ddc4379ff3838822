import Foundation

/// The temporary stores (`$TMPDIR/waypost-scenario-*`) of the runs a command has going, so that
/// the command can remove them when a signal ends it: a `defer` does not run when the process is
/// killed, and SIGINT or SIGTERM used to leave every running scenario's store behind.
///
/// One registry belongs to one command (``ScenarioRunner/temporaryStores``); it is a class with a
/// lock because the runs register from their tasks while a signal handler empties it from its
/// own queue.
public final class TemporaryStores: @unchecked Sendable {
    private let lock = NSLock()
    private var paths: Set<String> = []

    public init() {}

    /// Registers a store's folder before it is created, so no moment exists when it is on disk
    /// and unknown here. Blocks while ``removeAll(then:)`` runs: a run starting then never
    /// creates its folder.
    func add(_ url: URL) {
        lock.withLock { _ = paths.insert(url.path) }
    }

    /// Removes a store's folder that its run is done with, and forgets it.
    func remove(_ url: URL) {
        lock.withLock {
            try? FileManager.default.removeItem(at: url)
            _ = paths.remove(url.path)
        }
    }

    /// The folders registered now (tests).
    public var registered: Set<String> { lock.withLock { paths } }

    /// Removes every registered folder, then runs `finish` (which ends the process) still holding
    /// the lock: a run that starts between the removal and the exit waits in ``add(_:)`` instead
    /// of creating a folder nobody would remove.
    public func removeAll(then finish: () -> Never) -> Never {
        lock.lock()
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
        paths.removeAll()
        finish()
    }
}
