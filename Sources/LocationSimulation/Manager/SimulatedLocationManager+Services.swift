import LocationEvents
import SimulatedTime

/// The delegate API's services and regions: what the app asks for. What they deliver as the
/// device moves is in `SimulatedLocationManager+World.swift`.
extension SimulatedLocationManager {
    // MARK: - Standard and significant-change services

    /// Starts the standard service; after an automatic pause this is what resumes it, as iOS
    /// never resumes updates by itself.
    public func startUpdatingLocation() {
        if core.services.startUpdating(deviceRealism: configuration.realism == .device) {
            emit(.locationUpdatesResumed)
        }
        let availability = delegateAvailability(hasSignal: true)
        if availability.isRefusal {
            emit(.failed(LocationError(.denied, "location access is \(authorizationStatus)")))
        }
    }

    public func stopUpdatingLocation() {
        core.services.stopUpdating()
    }

    public func startMonitoringSignificantLocationChanges() {
        core.services.startSignificantChanges()
    }

    public func stopMonitoringSignificantLocationChanges() {
        core.services.stopSignificantChanges()
    }

    public func startMonitoringVisits() {
        core.services.setVisits(true)
    }

    public func stopMonitoringVisits() {
        core.services.setVisits(false)
    }

    /// `requestLocation()` (iOS 9), now or at a later virtual `time`: "Only one location fix is
    /// reported to the delegate, after which location services are stopped" — the fix comes at the
    /// next instant the device has one (at the desired accuracy, approximate under reduced
    /// accuracy); if none comes within ``LocationManagerConfiguration/requestLocationTimeout``,
    /// `didFailWithError` with `kCLErrorLocationUnknown` ("If a location fix cannot be determined in
    /// a timely manner, the location manager calls the delegate's locationManager(_:didFailWithError:)
    /// method instead", Apple, `requestLocation()`). An app refused location gets
    /// `kCLErrorDenied` at once.
    public func requestLocation(at time: EpochInstant? = nil) {
        if let time { core.now = max(now, time) }
        if delegateAvailability(hasSignal: true).isRefusal {
            return emit(.failed(LocationError(.denied, "location access is \(authorizationStatus)")))
        }
        core.services.requestLocation(at: now, timeout: configuration.requestLocationTimeout)
    }

    // MARK: - Region monitoring

    /// Whether the status and accuracy allow region monitoring (``LocationManagerCore/regionMonitoringAllowed``).
    var regionMonitoringAllowed: Bool { core.regionMonitoringAllowed }

    var monitoringDenied: LocationError {
        if configuration.allowsRegionMonitoring(authorizationStatus) {
            return LocationError(.regionMonitoringDenied, "region monitoring needs full accuracy")
        }
        return LocationError(
            .regionMonitoringDenied,
            configuration.iosVersion >= 13
                ? "region monitoring needs authorizedWhenInUse or authorizedAlways"
                : "region monitoring needs authorizedAlways (iOS \(configuration.iosVersion))")
    }

    /// Registers `region`. Before the user has answered the prompt the region is kept, and
    /// monitored once authorization allows it, as iOS does; refused authorization fails it.
    /// Monitoring begins with `didStartMonitoringFor` and, once a fix is known, the region's
    /// state through `didDetermineState` — never an entry or exit for where the device already is.
    public func startMonitoring(for region: CircularRegion) {
        if authorizationStatus != .notDetermined && !regionMonitoringAllowed {
            return emit(.monitoringFailed(region, monitoringDenied))
        }
        guard region.radius > 0, region.radius <= maximumRegionMonitoringDistance, region.center.isValid else {
            return emit(
                .monitoringFailed(
                    region,
                    LocationError(
                        .regionMonitoringFailure,
                        "radius \(region.radius) m is outside (0, \(maximumRegionMonitoringDistance)] m")))
        }
        if let limit = configuration.regionLimit, core.regions.count >= limit, !core.regions.contains(region.identifier)
        {
            return emit(
                .monitoringFailed(
                    region, LocationError(.regionMonitoringFailure, "an app can monitor at most \(limit) regions")))
        }
        if authorizationStatus == .notDetermined {
            // Kept, unstarted, until the prompt is answered.
            core.regions.register(region, deviceAt: nil, time: now)
            if core.awaitingStart.updateValue(region, forKey: region.identifier) == nil {
                core.awaitingOrder.append(region.identifier)
            }
            return
        }
        begin(region)
    }

    func begin(_ region: CircularRegion) {
        let position = core.device.flatMap { $0.hasSignal ? $0.coordinate : nil }
        let state = core.regions.register(region, deviceAt: position, time: core.device?.time ?? now)
        emit(.startedMonitoring(region))
        if state != .unknown && configuration.reportsInitialRegionState
            && deliversInBackground(.region, relaunch: false)
        {
            emit(.determinedState(state, for: region))
        }
    }

    public func stopMonitoring(for region: CircularRegion) {
        core.regions.remove(region.identifier)
        core.awaitingStart.removeValue(forKey: region.identifier)
    }

    /// Asks for a region's state; the answer comes through `didDetermineState` at the next
    /// instant, not during this call.
    public func requestState(for region: CircularRegion) {
        core.stateRequests.append((region, now))
    }
}
