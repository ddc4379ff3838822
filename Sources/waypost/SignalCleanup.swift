import Dispatch
import Foundation

/// Cleans up and exits as shells expect — 128 + the signal's number: 130 for SIGINT, 143 for
/// SIGTERM — when one of `signals` arrives, instead of dying with files left behind.
///
/// The signals are watched by dispatch sources on a queue of their own, so `cleanup` runs as
/// ordinary Swift code on an ordinary thread, not in an async-signal handler where almost nothing
/// is allowed; the queue is not the concurrency pool's, so it runs even while every pool thread
/// is busy simulating. The only process-wide state touched is what signal delivery itself
/// requires: each signal's disposition is set to ignore (else its default action kills the
/// process before the source sees it), and set back to the default by ``cancel()``. Everything
/// the cleanup needs is captured by `cleanup`, owned by the command that installed it.
struct SignalCleanup {
    private let sources: [(signal: Int32, source: any DispatchSourceSignal)]

    /// - Parameter cleanup: runs once, on the first of the signals; the process then exits.
    init(signals: [Int32] = [SIGINT, SIGTERM], cleanup: @escaping @Sendable (_ finish: () -> Never) -> Never) {
        let queue = DispatchQueue(label: "waypost.signals")
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                cleanup { _exit(128 + number) }
            }
            source.resume()
            return (number, source)
        }
    }

    /// Stops watching: the signals' default actions apply again.
    func cancel() {
        for (number, source) in sources {
            source.cancel()
            signal(number, SIG_DFL)
        }
    }
}
