import CheckinEngine
import Foundation
import SimulatedTime
import Store

/// Where a run writes and what it reads back: SQLite's ``Store/Store`` for a run a user keeps
/// (`--db`, `waypost replay --checkins`), ``CheckinEngine/InMemoryStore`` for runs nobody keeps
/// (trials, sweeps, crowds and scenarios without `--db`), which the run-path parity test holds
/// byte-identical to the durable path.
public protocol RunStore: CheckinStore, OutboxStore {
    /// The run named `name`, created when new; an existing one is resumed.
    func beginRun(name: String, track: String, at time: EpochInstant, dryRun: Bool) throws(StoreError) -> RunRecord
    func finishRun(_ id: Int64, at time: EpochInstant) throws(StoreError)
    /// Posts in the given states (all when nil), oldest first.
    func outbox(states: Set<OutboxState>?, run: Int64?) throws(StoreError) -> [OutboxEntry]
    func monitorRecords(monitor: String, device: String?) throws(StoreError) -> [StoredMonitorRecord]
    func saveMonitorRecords(_ records: [StoredMonitorRecord], monitor: String, device: String?) throws(StoreError)
}

extension Store: RunStore {}
extension InMemoryStore: RunStore {}
