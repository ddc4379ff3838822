import Foundation
import LocationEvents
import LocationSimulation
import SimulatedTime
import Store

/// Keeps an app's `CLMonitor` records in the store between runs, as iOS keeps a monitor's file
/// between launches: a run that opens the same store finds its monitor's conditions and their
/// last events, so a device still inside a café at the start of the next run gets no second
/// `satisfied` (nor a second check-in).
public struct MonitorRecordKeeping {
    public var store: any RunStore
    public var monitor: String
    /// The device the records belong to (nil: a single-device run).
    public var device: String?

    public init(store: any RunStore, monitor: String, device: String?) {
        self.store = store
        self.monitor = monitor
        self.device = device
    }

    /// Puts the kept records back into `manager` (before the app launches and opens its monitor).
    public func restore(into manager: SimulatedLocationManager) throws {
        let decoder = JSONDecoder()
        let records = try store.monitorRecords(monitor: monitor, device: device).map { stored in
            do {
                return (stored.identifier, try decoder.decode(MonitoringRecord.self, from: Data(stored.record.utf8)))
            } catch {
                throw RunSessionError.unreadableMonitorRecord(
                    store: store.path, monitor: monitor, identifier: stored.identifier)
            }
        }
        manager.restore(records, in: monitor)
    }

    /// Writes the monitor's records as they stand at the end of the run.
    public func save(from manager: SimulatedLocationManager) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let records = try manager.records(of: monitor).map { identifier, record in
            StoredMonitorRecord(
                identifier: identifier, time: record.lastEvent.date,
                record: String(decoding: try encoder.encode(record), as: UTF8.self))
        }
        try store.saveMonitorRecords(records, monitor: monitor, device: device)
    }
}
