import Foundation

/// Bounds how long a test waits for a program it started: a hung child is killed (SIGKILL) when
/// `limit` passes, so the suite fails instead of waiting forever. Make it right after
/// `process.run()`, and wait through it.
public struct ProcessBound {
    private final class Expiry: @unchecked Sendable {
        let lock = NSLock()
        var fired = false
    }
    private let work: DispatchWorkItem
    private let expiry = Expiry()

    public init(_ process: Process, limit: Duration = .seconds(900)) {
        let (expiry, pid) = (self.expiry, process.processIdentifier)
        work = DispatchWorkItem {
            expiry.lock.withLock { expiry.fired = true }
            kill(pid, SIGKILL)
        }
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: work)
    }

    /// Waits for the process to exit; true when it exited before the bound, false when the
    /// bound killed it.
    public func wait(for process: Process) -> Bool {
        process.waitUntilExit()
        work.cancel()
        return !expiry.lock.withLock { expiry.fired }
    }
}
