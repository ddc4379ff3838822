/// The simulated app and what happens to it during a run: what the app does when it launches
/// (ask for Always, set its accuracy, monitor its regions, start its services), how the user
/// answers, and the script of Settings changes and lifecycle moves. `waypost replay` and scenario
/// files both describe a device this way.
///
/// ```swift
/// var app = AppScript(regions: [cafe])
/// app.prompt = PromptScript("when-in-use@60")!
/// app.appStates = [(at: 600, state: .background), (at: 1_200, state: .terminated)]
/// try app.validate(iosVersion: 26)
/// let manager = app.makeManager(startTime: t0)
/// app.launch(manager)
/// let device = SimulatedDevice(route: route, manager: manager, script: app.script(from: t0))
/// ```
public struct AppScript: Sendable {
    /// The location service the app starts.
    public enum Mode: String, Sendable, CaseIterable {
        case standard, significantChange = "significant-change", none
    }

    public var mode = Mode.standard
    public var desiredAccuracy = LocationAccuracy.best
    public var distanceFilter = LocationAccuracy.distanceFilterNone
    public var visits = false
    public var regions: [CircularRegion] = []
    /// `allowsBackgroundLocationUpdates` (with the location background mode).
    public var backgroundUpdates = false
    public var pausesAutomatically = true
    public var activityType = ActivityType.other

    /// The user's answer to the prompt, and when.
    public var prompt = PromptScript(answer: .allowAlways)
    public var accuracyAuthorization = AccuracyAuthorization.fullAccuracy
    public var locationServicesEnabled = true
    /// Settings changes, at seconds from the run's start.
    public var authorizationChanges: [(at: Double, status: AuthorizationStatus)] = []
    /// Lifecycle moves, at seconds from the run's start; the app starts in the foreground.
    public var appStates: [(at: Double, state: AppState)] = []
    /// Seconds from the start at which the app asks for temporary full accuracy (granted).
    public var temporaryFullAccuracyAt: Double?

    public init(regions: [CircularRegion] = []) {
        self.regions = regions
    }

    /// A setting iOS cannot honour, or a lifecycle script iOS has no path for.
    public struct Problem: Error, Sendable, Equatable {
        public enum Setting: Sendable, Equatable {
            case prompt, accuracyAuthorization
            /// The app-state change at this index.
            case appState(Int)
        }
        public var setting: Setting
        public var message: String
    }

    /// The first problem with this script on iOS `iosVersion`, nil when it is sound.
    public func problem(iosVersion: Int) -> Problem? {
        if prompt.answer == .allowOnce && iosVersion < 13 {
            return Problem(
                setting: .prompt,
                message: "the 'once' answer (Allow Once) exists from iOS 13; this device runs iOS \(iosVersion)")
        }
        if accuracyAuthorization == .reducedAccuracy && iosVersion < 14 {
            return Problem(
                setting: .accuracyAuthorization,
                message: "reduced accuracy exists from iOS 14; this device runs iOS \(iosVersion)")
        }
        var state = AppState.foreground
        var last = -Double.infinity
        for (index, (at, next)) in appStates.enumerated() {
            if at < last {
                return Problem(setting: .appState(index), message: "app states must be in time order")
            }
            if !state.canChange(to: next) {
                return Problem(
                    setting: .appState(index),
                    message: "the app cannot go from \(state) to \(next)"
                        + (state == .terminated ? " (only iOS relaunches a terminated app into the background)" : ""))
            }
            (state, last) = (next, at)
        }
        return nil
    }

    /// A manager for this app, created at `startTime` with the user's answers.
    public func makeManager(
        configuration: LocationManagerConfiguration = LocationManagerConfiguration(),
        noise: NoiseModel = NoiseModel(.none), seed: UInt64 = 0, startTime: Double
    ) -> SimulatedLocationManager {
        let manager = SimulatedLocationManager(
            status: .notDetermined, authorizationAnswer: prompt.answer, answerDelay: prompt.delay,
            accuracyAuthorization: accuracyAuthorization, locationServicesEnabled: locationServicesEnabled,
            noise: noise, seed: seed, startTime: startTime, configuration: configuration)
        manager.allowsBackgroundLocationUpdates = backgroundUpdates
        manager.pausesLocationUpdatesAutomatically = pausesAutomatically
        manager.activityType = activityType
        manager.lifecycleHandler = { manager, previous in
            guard manager.appState == .foreground else { return }
            if previous == .terminated {
                launch(manager)
            } else if mode == .standard {
                // Back in use: restart updates an automatic pause stopped (iOS never resumes them).
                manager.startUpdatingLocation()
            }
        }
        return manager
    }

    /// The app's start-up: report the authorization, ask for Always, then monitor its regions and
    /// start its services (iOS keeps what is asked before the answer and starts it when allowed).
    public func launch(_ manager: SimulatedLocationManager) {
        manager.reportInitialAuthorization()
        manager.requestAlwaysAuthorization()
        manager.desiredAccuracy = desiredAccuracy
        manager.distanceFilter = distanceFilter
        for region in regions { manager.startMonitoring(for: region) }
        switch mode {
        case .standard: manager.startUpdatingLocation()
        case .significantChange: manager.startMonitoringSignificantLocationChanges()
        case .none: break
        }
        if visits { manager.startMonitoringVisits() }
    }

    /// The scripted changes as absolute virtual times, for ``SimulatedDevice/script``.
    public func script(from origin: Double) -> [(time: Double, change: ScriptedChange)] {
        authorizationChanges.map { (origin + $0.at, .authorization($0.status)) }
            + appStates.map { (origin + $0.at, .appState($0.state)) }
            + (temporaryFullAccuracyAt.map { [(origin + $0, .temporaryFullAccuracy(purposeKey: "Waypost"))] } ?? [])
    }
}
