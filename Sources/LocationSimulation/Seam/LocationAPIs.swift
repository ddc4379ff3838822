import LocationEvents

/// The seam an app's location logic is written against once: the simulator conforms here, and
/// on Apple platforms thin adapters over Core Location conform too (``CoreLocationMonitor``,
/// ``CoreLocationLiveUpdates``, ``CoreLocationManager``), so the same code runs in a Waypost test
/// and on a device.
///
/// ```swift
/// func watchCafes<M: ConditionMonitoring>(_ monitor: M, cafes: [String: CircularGeographicCondition]) async {
///     for (id, circle) in cafes where await monitor.record(for: id) == nil {
///         await monitor.add(.circularGeographic(circle), identifier: id, assuming: .unsatisfied)
///     }
/// }
/// ```

/// What app code needs of `CLMonitor` (iOS 17): ``SimulatedMonitor`` in tests,
/// ``CoreLocationMonitor`` on a device.
public protocol ConditionMonitoring: Actor {
    associatedtype Events: AsyncSequence & Sendable where Events.Element == MonitoringEvent
    /// The name the monitor was opened with; its records persist under it.
    nonisolated var name: String { get }
    func add(_ condition: MonitoringCondition, identifier: String, assuming state: MonitoringState) async
    func remove(_ identifier: String) async
    var identifiers: [String] { get async }
    func record(for identifier: String) async -> MonitoringRecord?
    /// The monitor's events; iterate with `for try await` (Core Location's sequence throws).
    nonisolated var events: Events { get }
}

/// What app code needs of `CLLocationUpdate.liveUpdates(_:)` (iOS 17): ``SimulatedWorld`` in
/// tests, ``CoreLocationLiveUpdates`` on a device.
public protocol LiveLocationUpdating: Sendable {
    associatedtype Updates: AsyncSequence & Sendable where Updates.Element == LocationUpdate
    func liveUpdates(_ configuration: LiveConfiguration) -> Updates
}

/// What app code needs of `CLLocationManager` and its delegate: the requests and services, with
/// the delegate's callbacks as values (``LocationEvent``). ``SimulatedLocationManager`` in tests,
/// ``CoreLocationManager`` on a device.
public protocol LocationManaging: AnyObject {
    var authorizationStatus: AuthorizationStatus { get }
    var desiredAccuracy: Double { get set }
    var distanceFilter: Double { get set }
    func requestWhenInUseAuthorization()
    func requestAlwaysAuthorization()
    func startUpdatingLocation()
    func stopUpdatingLocation()
    func startMonitoringSignificantLocationChanges()
    func stopMonitoringSignificantLocationChanges()
    func startMonitoring(for region: CircularRegion)
    func stopMonitoring(for region: CircularRegion)
    func requestState(for region: CircularRegion)
    func startMonitoringVisits()
    func stopMonitoringVisits()
    /// Every event from now on, stamped with its time (virtual in the simulator, the wall clock
    /// on a device).
    var events: AsyncStream<TimedEvent> { get }
}

extension SimulatedMonitor: ConditionMonitoring {}
extension SimulatedWorld: LiveLocationUpdating {}
extension SimulatedLocationManager: LocationManaging {}
