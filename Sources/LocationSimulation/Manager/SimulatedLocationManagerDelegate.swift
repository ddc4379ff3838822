import LocationEvents

/// CoreLocation's delegate callbacks (`CLLocationManagerDelegate`), all optional.
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
    public func locationManagerDidChangeAuthorization(_ manager: SimulatedLocationManager) {}
    public func locationManagerDidPauseLocationUpdates(_ manager: SimulatedLocationManager) {}
    public func locationManagerDidResumeLocationUpdates(_ manager: SimulatedLocationManager) {}
}
