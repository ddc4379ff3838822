import LocationEvents

/// CoreLocation's delegate callbacks (`CLLocationManagerDelegate`), all optional.
///
/// Authorization, as each iOS release calls it:
/// - iOS 14 and later: ``locationManagerDidChangeAuthorization(_:)`` when the manager is created
///   and on every change of `authorizationStatus` or `accuracyAuthorization` (Apple: it "tells the
///   delegate when the app creates the location manager and when the authorization status
///   changes"; WWDC20 "What's new in location": "invoked when either authorization status or
///   accuracy changes"). A delegate that does not implement it gets the deprecated
///   `locationManager(_:didChangeAuthorization:)` for status changes instead, as Core Location
///   calls only the optional methods a delegate responds to. A delegate with both gets only the
///   new one: Apple documents the old one as replaced ("Use locationManagerDidChangeAuthorization(_:)
///   instead"); that a device then skips the old one is our reading, not a documented sentence.
/// - iOS 13 and earlier: only `locationManager(_:didChangeAuthorization:)`, at creation and on
///   every status change.
public protocol SimulatedLocationManagerDelegate: AnyObject {
    func locationManager(_ manager: SimulatedLocationManager, didUpdateLocations locations: [Location])
    func locationManager(_ manager: SimulatedLocationManager, didFailWithError error: LocationError)
    func locationManager(_ manager: SimulatedLocationManager, didEnterRegion region: CircularRegion)
    func locationManager(_ manager: SimulatedLocationManager, didExitRegion region: CircularRegion)
    func locationManager(
        _ manager: SimulatedLocationManager, didDetermineState state: RegionState, for region: CircularRegion)
    func locationManager(
        _ manager: SimulatedLocationManager, monitoringDidFailFor region: CircularRegion?,
        withError error: LocationError)
    func locationManager(_ manager: SimulatedLocationManager, didChangeAuthorization status: AuthorizationStatus)
    func locationManager(_ manager: SimulatedLocationManager, didVisit visit: Visit)
    func locationManager(_ manager: SimulatedLocationManager, didStartMonitoringFor region: CircularRegion)
    func locationManagerDidChangeAuthorization(_ manager: SimulatedLocationManager)
    func locationManagerDidPauseLocationUpdates(_ manager: SimulatedLocationManager)
    func locationManagerDidResumeLocationUpdates(_ manager: SimulatedLocationManager)
}

extension SimulatedLocationManagerDelegate {
    public func locationManager(_ manager: SimulatedLocationManager, didUpdateLocations locations: [Location]) {}
    public func locationManager(_ manager: SimulatedLocationManager, didFailWithError error: LocationError) {}
    public func locationManager(_ manager: SimulatedLocationManager, didEnterRegion region: CircularRegion) {}
    public func locationManager(_ manager: SimulatedLocationManager, didExitRegion region: CircularRegion) {}
    public func locationManager(
        _ manager: SimulatedLocationManager, didDetermineState state: RegionState, for region: CircularRegion
    ) {}
    public func locationManager(
        _ manager: SimulatedLocationManager, monitoringDidFailFor region: CircularRegion?,
        withError error: LocationError
    ) {}
    public func locationManager(_ manager: SimulatedLocationManager, didChangeAuthorization status: AuthorizationStatus)
    {}
    public func locationManager(_ manager: SimulatedLocationManager, didVisit visit: Visit) {}
    public func locationManager(_ manager: SimulatedLocationManager, didStartMonitoringFor region: CircularRegion) {}
    /// Not implemented by the delegate: a status change reaches the deprecated callback.
    public func locationManagerDidChangeAuthorization(_ manager: SimulatedLocationManager) {
        guard let status = manager.statusForDeprecatedCallback else { return }
        locationManager(manager, didChangeAuthorization: status)
    }
    public func locationManagerDidPauseLocationUpdates(_ manager: SimulatedLocationManager) {}
    public func locationManagerDidResumeLocationUpdates(_ manager: SimulatedLocationManager) {}
}
