import Dispatch
import SimulatedTime
import Store

/// Renews a sender's claims every third of its lease until stopped, on a queue of its own: a
/// task on the cooperative pool waits behind whatever keeps the pool busy (scenarios run in
/// parallel, a test suite's cases), and a renewal later than the lease lets another sender take
/// a post still being sent.
final class ClaimHeartbeat {
    private let timer: any DispatchSourceTimer

    init(store: any OutboxStore, lease: OutboxLease) {
        let interval = DispatchTimeInterval.nanoseconds(Int(lease.duration.inSeconds / 3 * 1e9))
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "waypost.outbox.claims"))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        // Weakly: a cancelled timer lets go of its handler later, on its queue — a flush that
        // exited before then never closed its store, and left its writes in the -wal file
        // alone (a black-box hunt: a reader of the .db file saw every post still pending).
        timer.setEventHandler { [weak store] in try? store?.renewClaims(lease) }
        timer.resume()
    }

    func stop() { timer.cancel() }
}
