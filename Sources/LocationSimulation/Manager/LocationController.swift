import Geo

/// The seed book's façade over the location manager, so its sample apps drive the simulator
/// unchanged: start with or without power saving, stop, register a region.
///
/// ```swift
/// let controller = LocationController(manager: manager)
/// controller.start(powerSaving: true)   // significant-change service only
/// controller.registerRegion(center: cafe, radius: 150, identifier: "cafe")
/// ```
public final class LocationController {
    public let manager: SimulatedLocationManager

    public init(manager: SimulatedLocationManager) {
        self.manager = manager
    }

    /// Asks for Always authorization, then starts the significant-change service when
    /// `powerSaving`, or the standard service at best accuracy otherwise.
    public func start(powerSaving: Bool) {
        manager.requestAlwaysAuthorization()
        if powerSaving {
            manager.stopUpdatingLocation()
            manager.startMonitoringSignificantLocationChanges()
        } else {
            manager.stopMonitoringSignificantLocationChanges()
            manager.desiredAccuracy = LocationAccuracy.best
            manager.startUpdatingLocation()
        }
    }

    /// Stops both location services (region monitoring goes on, as on a device).
    public func stop() {
        manager.stopUpdatingLocation()
        manager.stopMonitoringSignificantLocationChanges()
    }

    /// Starts monitoring a circular region, notifying on entry and exit.
    public func registerRegion(center: Coordinate, radius: Double, identifier: String) {
        manager.startMonitoring(for: CircularRegion(identifier: identifier, center: center, radius: radius))
    }
}
