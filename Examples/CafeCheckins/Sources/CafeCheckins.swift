import LocationEvents
import LocationSimulation
import SimulatedTime

/// An app's check-in logic, written once against ``ConditionMonitoring``: it watches a list of
/// cafés with a `CLMonitor` and checks in when the user arrives at one — at most once per café
/// within a cool-down. On a device it runs on `CoreLocationMonitor`; in its tests
/// (`CafeCheckinsTests`) on Waypost's `SimulatedMonitor`, along a simulated walk.
public actor CafeCheckins<Monitor: ConditionMonitoring> {
    public struct Cafe: Sendable {
        public var name: String
        public var area: CircularGeographicCondition

        public init(name: String, area: CircularGeographicCondition) {
            self.name = name
            self.area = area
        }
    }

    public struct CheckIn: Sendable, Equatable {
        public var cafe: String
        /// When the monitor stamped the event.
        public var date: EpochInstant
    }

    private let monitor: Monitor
    private let cooldown: Duration
    public private(set) var checkIns: [CheckIn] = []

    /// Adds a condition for each café the monitor does not know yet: a monitor reopened after a
    /// relaunch keeps its conditions, and adding them again would reset their state.
    public init(monitor: Monitor, cafes: [Cafe], cooldown: Duration = .seconds(2 * 3_600)) async {
        self.monitor = monitor
        self.cooldown = cooldown
        for cafe in cafes where await monitor.record(for: cafe.name) == nil {
            await monitor.add(.circularGeographic(cafe.area), identifier: cafe.name, assuming: .unsatisfied)
        }
    }

    /// Handles the monitor's events until they end.
    public func run() async throws {
        for try await event in monitor.events where event.state == .satisfied {
            let recent = checkIns.last { $0.cafe == event.identifier }
            if let recent, recent.date.duration(to: event.date) < cooldown { continue }
            checkIns.append(CheckIn(cafe: event.identifier, date: event.date))
        }
    }
}
