import LocationEvents
import SimulatedTime

/// The delegate API's services and regions: what the app asks for (the façade's
/// `startUpdatingLocation()`, `startMonitoring(for:)`…). What they deliver as the device moves is
/// in `LocationManagerCore+World.swift`.
extension LocationManagerCore {
    // MARK: - Standard service

    /// After an automatic pause this is what resumes updates, as iOS never resumes them by itself.
    mutating func startUpdatingLocation() {
        if services.startUpdating(deviceRealism: configuration.realism == .device) {
            emit(.locationUpdatesResumed)
        }
        if delegateAvailability(hasSignal: true).isRefusal {
            emit(.failed(LocationError(.denied, "location access is \(authorizationStatus)")))
        }
    }

    /// `startMonitoringSignificantLocationChanges()`: a new initial event on every start. An app
    /// refused location is told at once, as the standard service's start tells it: "If the user
    /// denies your app's use of the location service, this method reports a CLError.Code.denied
    /// error" (`locationManager(_:didFailWithError:)`); it started silently (a library hunt).
    mutating func startSignificantChanges() {
        services.startSignificantChanges()
        if delegateAvailability(hasSignal: true).isRefusal {
            emit(.failed(LocationError(.denied, "location access is \(authorizationStatus)")))
        }
    }

    /// `requestLocation()`: an app refused location gets `kCLErrorDenied` at once; otherwise the
    /// fix (or the timeout) comes with a later sample. Not made while the app is suspended or
    /// terminated (its code does not run).
    mutating func requestLocation(at time: EpochInstant?) {
        advanceClock(to: time)
        // A suspended or terminated app runs no code: a call scheduled then is never made.
        guard appState != .suspended && appState != .terminated else { return }
        if delegateAvailability(hasSignal: true).isRefusal {
            return emit(.failed(LocationError(.denied, "location access is \(authorizationStatus)")))
        }
        services.requestLocation(at: now, timeout: configuration.requestLocationTimeout)
    }

    // MARK: - Region monitoring

    @inline(__always) var monitoringDenied: LocationError {
        if configuration.allowsRegionMonitoring(authorizationStatus) {
            return LocationError(.regionMonitoringDenied, "region monitoring needs full accuracy")
        }
        return LocationError(
            .regionMonitoringDenied,
            configuration.iosVersion >= 13
                ? "region monitoring needs authorizedWhenInUse or authorizedAlways"
                : "region monitoring needs authorizedAlways (iOS \(configuration.iosVersion))")
    }

    /// Registers `region`: kept unstarted before the user has answered the prompt, failed when
    /// authorization refuses it or it is out of bounds, else begun.
    mutating func startMonitoring(_ region: CircularRegion) {
        if authorizationStatus != .notDetermined && !regionMonitoringAllowed {
            return emit(.monitoringFailed(region, monitoringDenied))
        }
        let maximum = configuration.maximumRegionMonitoringDistance
        guard region.center.isValid else {
            return emit(
                .monitoringFailed(
                    region,
                    LocationError(.regionMonitoringFailure, "the centre \(region.center) is no place on the Earth")))
        }
        guard region.radius > 0, region.radius <= maximum else {
            return emit(
                .monitoringFailed(
                    region,
                    LocationError(.regionMonitoringFailure, "radius \(region.radius) m is outside (0, \(maximum)] m")))
        }
        if let limit = configuration.regionLimit, regions.count >= limit, !regions.contains(region.identifier) {
            return emit(
                .monitoringFailed(
                    region, LocationError(.regionMonitoringFailure, "an app can monitor at most \(limit) regions")))
        }
        if authorizationStatus == .notDetermined {
            // Kept, unstarted, until the prompt is answered.
            regions.register(region, deviceAt: nil, time: now)
            if awaitingStart.updateValue(region, forKey: region.identifier) == nil {
                awaitingOrder.append(region.identifier)
            }
            return
        }
        begin(region)
    }

    /// `didStartMonitoringFor`, then — once a fix is known — the region's state, never an entry
    /// or exit for where the device already is.
    mutating func begin(_ region: CircularRegion) {
        let position = device.flatMap { $0.hasSignal ? $0.coordinate : nil }
        let state = regions.register(region, deviceAt: position, time: device?.time ?? now)
        emit(.startedMonitoring(region))
        if state != .unknown && configuration.reportsInitialRegionState
            && admission(.region, relaunch: false) != .refused
        {
            emit(.determinedState(state, for: region))
        }
    }

    package mutating func stopMonitoring(_ identifier: String) {
        regions.remove(identifier)
        awaitingStart.removeValue(forKey: identifier)
    }
}
