import Foundation
import LocationSimulation
import Store

/// Keeps the app's `CLMonitor` records in the store between replays, as iOS keeps a monitor's
/// file between launches: a replay that opens the same store finds its monitor's conditions and
/// their last events, so a device still inside a café at the start of the next run gets no second
/// `satisfied` (nor a second check-in).
struct MonitorRecordKeeping {
    var store: Store
    var monitor: String

    /// Puts the kept records back into `manager` (before the app launches and opens its monitor).
    func restore(into manager: SimulatedLocationManager) throws {
        let decoder = JSONDecoder()
        let records = try store.monitorRecords(monitor: monitor, device: nil).map { stored in
            do {
                return (stored.identifier, try decoder.decode(MonitoringRecord.self, from: Data(stored.record.utf8)))
            } catch {
                throw CommandFailure(
                    .dataError, "\(store.path): the monitor record '\(stored.identifier)' of '\(monitor)' is unreadable"
                )
            }
        }
        manager.restore(records, in: monitor)
    }

    /// Writes the monitor's records as they stand at the end of the run.
    func save(from manager: SimulatedLocationManager) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let records = try manager.records(of: monitor).map { identifier, record in
            StoredMonitorRecord(
                identifier: identifier, time: record.lastEvent.date,
                record: String(decoding: try encoder.encode(record), as: UTF8.self))
        }
        try store.saveMonitorRecords(records, monitor: monitor, device: nil)
    }
}
