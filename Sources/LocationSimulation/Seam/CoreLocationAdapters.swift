import LocationEvents
import SimulatedTime

// Thin adapters from Core Location to the seam (LocationAPIs.swift), for Apple platforms only.
// They translate types and nothing else: the behaviour is the device's. On Linux `make test`
// type-checks them against a shim of exactly the Core Location API they use, with Apple's
// signatures (scripts/typecheck-apple-adapters.sh, Tests/AppleAdapters/); keep them this small.
#if canImport(CoreLocation)
    import CoreLocation
    import Geo

    /// `CLMonitor` behind ``ConditionMonitoring``.
    @available(iOS 17.0, macOS 14.0, watchOS 10.0, *)
    public actor CoreLocationMonitor: ConditionMonitoring {
        public nonisolated let name: String
        private let monitor: CLMonitor

        public init(named name: String) async {
            self.name = name
            self.monitor = await CLMonitor(name)
        }

        public func add(_ condition: MonitoringCondition, identifier: String, assuming state: MonitoringState) async {
            await monitor.add(condition.coreLocation, identifier: identifier, assuming: state.coreLocation)
        }

        public func remove(_ identifier: String) async { await monitor.remove(identifier) }

        public var identifiers: [String] {
            get async { await monitor.identifiers }
        }

        public func record(for identifier: String) async -> MonitoringRecord? {
            guard let record = await monitor.record(for: identifier),
                let condition = MonitoringCondition(record.condition)
            else { return nil }
            return MonitoringRecord(
                condition: condition, lastEvent: MonitoringEvent(record.lastEvent, monitor: name, condition: condition))
        }

        public nonisolated var events: AsyncThrowingStream<MonitoringEvent, any Error> {
            let (stream, continuation) = AsyncThrowingStream<MonitoringEvent, any Error>.makeStream()
            let task = Task {
                do {
                    for try await event in await monitor.events {
                        continuation.yield(MonitoringEvent(event, monitor: name, condition: nil))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
            return stream
        }
    }

    /// `CLLocationUpdate.liveUpdates(_:)` behind ``LiveLocationUpdating``.
    @available(iOS 17.0, macOS 14.0, watchOS 10.0, *)
    public struct CoreLocationLiveUpdates: LiveLocationUpdating {
        public init() {}

        public func liveUpdates(_ configuration: LiveConfiguration) -> AsyncThrowingStream<LocationUpdate, any Error> {
            let (stream, continuation) = AsyncThrowingStream<LocationUpdate, any Error>.makeStream()
            let task = Task {
                do {
                    for try await update in CLLocationUpdate.liveUpdates(configuration.coreLocation) {
                        continuation.yield(
                            LocationUpdate(
                                location: update.location.map { Location($0) }, isStationary: update.isStationary))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
            return stream
        }
    }

    /// `CLLocationManager` and its delegate behind ``LocationManaging``: the delegate's callbacks
    /// become ``LocationEvent`` values on ``events``.
    public final class CoreLocationManager: NSObject, LocationManaging, CLLocationManagerDelegate {
        private let manager = CLLocationManager()
        private var continuation: AsyncStream<TimedEvent>.Continuation?

        public override init() {
            super.init()
            manager.delegate = self
        }

        public var authorizationStatus: AuthorizationStatus {
            AuthorizationStatus(rawValue: manager.authorizationStatus.rawValue) ?? .notDetermined
        }
        public var desiredAccuracy: Double {
            get { manager.desiredAccuracy }
            set { manager.desiredAccuracy = newValue }
        }
        public var distanceFilter: Double {
            get { manager.distanceFilter }
            set { manager.distanceFilter = newValue }
        }

        public func requestWhenInUseAuthorization() { manager.requestWhenInUseAuthorization() }
        public func requestAlwaysAuthorization() { manager.requestAlwaysAuthorization() }
        public func startUpdatingLocation() { manager.startUpdatingLocation() }
        public func stopUpdatingLocation() { manager.stopUpdatingLocation() }
        public func startMonitoringSignificantLocationChanges() { manager.startMonitoringSignificantLocationChanges() }
        public func stopMonitoringSignificantLocationChanges() { manager.stopMonitoringSignificantLocationChanges() }
        public func startMonitoring(for region: CircularRegion) { manager.startMonitoring(for: region.coreLocation) }
        public func stopMonitoring(for region: CircularRegion) { manager.stopMonitoring(for: region.coreLocation) }
        public func requestState(for region: CircularRegion) { manager.requestState(for: region.coreLocation) }
        #if os(iOS)
            public func startMonitoringVisits() { manager.startMonitoringVisits() }
            public func stopMonitoringVisits() { manager.stopMonitoringVisits() }
        #else
            public func startMonitoringVisits() {}
            public func stopMonitoringVisits() {}
        #endif

        public var events: AsyncStream<TimedEvent> {
            let (stream, continuation) = AsyncStream<TimedEvent>.makeStream()
            self.continuation = continuation
            return stream
        }

        private func emit(_ event: LocationEvent) {
            continuation?.yield(TimedEvent(time: WallClock().now, event: event))
        }

        public func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
            emit(.authorizationChanged(authorizationStatus))
        }
        public func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
            for location in locations { emit(.locationUpdated(Location(location), service: .standard)) }
        }
        public func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
            let code = LocationError.Code(rawValue: (error as? CLError)?.code.rawValue ?? 0) ?? .locationUnknown
            emit(.failed(LocationError(code, error.localizedDescription)))
        }
        public func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
            guard let region = CircularRegion(region) else { return }
            emit(.enteredRegion(region, at: manager.location.map { Location($0).coordinate } ?? region.center))
        }
        public func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
            guard let region = CircularRegion(region) else { return }
            emit(.exitedRegion(region, at: manager.location.map { Location($0).coordinate } ?? region.center))
        }
        public func locationManager(
            _ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion
        ) {
            guard let region = CircularRegion(region) else { return }
            emit(.determinedState(RegionState(rawValue: state.rawValue) ?? .unknown, for: region))
        }
        public func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion) {
            guard let region = CircularRegion(region) else { return }
            emit(.startedMonitoring(region))
        }
        public func locationManager(
            _ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error
        ) {
            let code = LocationError.Code(rawValue: (error as? CLError)?.code.rawValue ?? 5) ?? .regionMonitoringFailure
            emit(
                .monitoringFailed(region.flatMap(CircularRegion.init), LocationError(code, error.localizedDescription)))
        }
        #if os(iOS)
            public func locationManager(_ manager: CLLocationManager, didVisit visit: CLVisit) {
                emit(
                    .visited(
                        Visit(
                            coordinate: Coordinate(visit.coordinate), horizontalAccuracy: visit.horizontalAccuracy,
                            arrival: EpochInstant(secondsSince1970: visit.arrivalDate.timeIntervalSince1970),
                            departure: EpochInstant(secondsSince1970: visit.departureDate.timeIntervalSince1970))))
            }
            public func locationManagerDidPauseLocationUpdates(_ manager: CLLocationManager) {
                emit(.locationUpdatesPaused)
            }
            public func locationManagerDidResumeLocationUpdates(_ manager: CLLocationManager) {
                emit(.locationUpdatesResumed)
            }
        #endif
    }

    // MARK: - Conversions

    extension Coordinate {
        init(_ coordinate: CLLocationCoordinate2D) {
            self.init(latitude: coordinate.latitude, longitude: coordinate.longitude)
        }
        var coreLocation: CLLocationCoordinate2D { CLLocationCoordinate2D(latitude: latitude, longitude: longitude) }
    }

    extension Location {
        init(_ location: CLLocation) {
            self.init(
                coordinate: Coordinate(location.coordinate), altitude: location.altitude,
                horizontalAccuracy: location.horizontalAccuracy, verticalAccuracy: location.verticalAccuracy,
                speed: location.speed, course: location.course,
                timestamp: EpochInstant(secondsSince1970: location.timestamp.timeIntervalSince1970))
        }
    }

    extension CircularRegion {
        init?(_ region: CLRegion) {
            guard let circle = region as? CLCircularRegion else { return nil }
            self.init(
                identifier: circle.identifier, center: Coordinate(circle.center), radius: circle.radius,
                notifyOnEntry: circle.notifyOnEntry, notifyOnExit: circle.notifyOnExit)
        }
        var coreLocation: CLCircularRegion {
            let region = CLCircularRegion(center: center.coreLocation, radius: radius, identifier: identifier)
            region.notifyOnEntry = notifyOnEntry
            region.notifyOnExit = notifyOnExit
            return region
        }
    }

    @available(iOS 17.0, macOS 14.0, watchOS 10.0, *)
    extension LiveConfiguration {
        var coreLocation: CLLocationUpdate.LiveConfiguration {
            switch self {
            case .default: .default
            case .automotiveNavigation: .automotiveNavigation
            case .otherNavigation: .otherNavigation
            case .fitness: .fitness
            case .airborne: .airborne
            }
        }
    }

    @available(iOS 17.0, macOS 14.0, watchOS 10.0, *)
    extension MonitoringState {
        var coreLocation: CLMonitor.Event.State {
            switch self {
            case .unknown: .unknown
            case .satisfied: .satisfied
            case .unsatisfied: .unsatisfied
            case .unmonitored: .unmonitored
            }
        }
        init(_ state: CLMonitor.Event.State) {
            switch state {
            case .satisfied: self = .satisfied
            case .unsatisfied: self = .unsatisfied
            case .unmonitored: self = .unmonitored
            default: self = .unknown
            }
        }
    }

    @available(iOS 17.0, macOS 14.0, watchOS 10.0, *)
    extension MonitoringCondition {
        var coreLocation: any CLCondition {
            switch self {
            case .circularGeographic(let circle):
                CLMonitor.CircularGeographicCondition(center: circle.center.coreLocation, radius: circle.radius)
            case .beaconIdentity(let beacon):
                if let major = beacon.major, let minor = beacon.minor {
                    CLMonitor.BeaconIdentityCondition(uuid: beacon.uuid, major: major, minor: minor)
                } else if let major = beacon.major {
                    CLMonitor.BeaconIdentityCondition(uuid: beacon.uuid, major: major)
                } else {
                    CLMonitor.BeaconIdentityCondition(uuid: beacon.uuid)
                }
            }
        }
        init?(_ condition: any CLCondition) {
            if let circle = condition as? CLMonitor.CircularGeographicCondition {
                self = .circularGeographic(.init(center: Coordinate(circle.center), radius: circle.radius))
            } else if let beacon = condition as? CLMonitor.BeaconIdentityCondition {
                self = .beaconIdentity(.init(uuid: beacon.uuid, major: beacon.major, minor: beacon.minor))
            } else {
                return nil
            }
        }
    }

    @available(iOS 17.0, macOS 14.0, watchOS 10.0, *)
    extension MonitoringEvent {
        init(_ event: CLMonitor.Event, monitor: String, condition: MonitoringCondition?) {
            self.init(
                monitor: monitor, identifier: event.identifier, state: MonitoringState(event.state),
                date: EpochInstant(secondsSince1970: event.date.timeIntervalSince1970), condition: condition)
        }
    }
#endif
