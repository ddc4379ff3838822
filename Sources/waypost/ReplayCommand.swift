import ArgumentParser
import CheckinEngine
import ConfigFiles
import Foundation
import Geo
import LocationEvents
import LocationSimulation
import Runs
import SimulatedTime
import Store
import Tracks
import WaypostSupport
import WorldFiles

/// `waypost replay TRACK`: a route through the simulated location manager, as events — and,
/// with `--checkins`, through the check-in engine to the networks.
struct Replay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay a route through a simulated CoreLocation manager and print its events.",
        discussion: """
            The simulated app asks for authorization (answered by --auth), monitors the --regions, \
            and starts the standard service (or the significant-change service with \
            --mode significant-change). Timed tracks keep their own times; untimed geometry is \
            timed at --speed and sampled every --sample-interval along it, as a receiver reports fixes.

            With --checkins, region enters and exits, significant changes and visits become posts, \
            gated by the --privacy profile (safe defaults without one: nothing shared), written to \
            the outbox in --db, sent to the in-process emulator (or --twitter-base-url and \
            --facebook-base-url), and reported as `post` events; `waypost audit` shows them after.

            Examples:
              waypost replay tracks/cupertino-walk.kml
              waypost replay tracks/sunnyvale-commute.kml --format jsonl \\
                --regions fixtures/regions/commute-cafes.yaml
              waypost replay tracks/i280-drive.kml --speed 29 --summary \\
                --mode significant-change
              waypost replay tracks/cupertino-walk.kml --noise urban --seed 7 \\
                --signal-loss 600-900
              waypost replay tracks/sunnyvale-commute.kml \\
                --regions fixtures/regions/commute-cafes.yaml --api delegate,monitor
              waypost replay tracks/cafe-stop.kml --api live-updates \\
                --live-configuration fitness
              waypost replay tracks/sunnyvale-commute.kml \\
                --regions fixtures/regions/commute-cafes.yaml \\
                --checkins fixtures/rules/coffee.yaml --privacy fixtures/privacy/demo.yaml
            """
    )

    @Argument(
        help: "A KML, KMZ, GPX or NMEA 0183 file, or - for standard input.",
        completion: .file(extensions: trackExtensions))
    var track: String

    @Option(help: "text (readable lines) or jsonl (one event object per line).")
    var format: EventStreamEncoder.Format = .text

    @Option(help: "standard, significant-change, or none (regions and visits only).")
    var mode: AppScript.Mode = .standard

    @Option(
        parsing: .unconditional,
        help: "Metres from the last delivered fix before the next is delivered (-1: every fix).")
    var distanceFilter: Double = LocationAccuracy.distanceFilterNone

    @Option(
        parsing: .unconditional,
        help:
            "desiredAccuracy: best-for-navigation, best, ten-meters, hundred-meters, kilometer, three-kilometers, reduced (iOS 14+: approximate locations under full accuracy), or metres."
    )
    var accuracy: String = "best"

    @Option(
        help: "Regions to monitor: a YAML, JSON or GeoJSON file (format: waypost help regions).",
        completion: .file(extensions: ["yaml", "yml", "json", "geojson"]))
    var regions: String?

    @Option(
        help:
            "The Core Location API the app uses: delegate (CLLocationManager), monitor (CLMonitor, iOS 17+) or live-updates (CLLocationUpdate.liveUpdates, iOS 17+); several, comma-separated, run side by side."
    )
    var api: [String] = ["delegate"]

    @Option(
        help:
            "With --api live-updates: default (the default), automotiveNavigation, otherNavigation, fitness or airborne."
    )
    var liveConfiguration: LiveConfiguration?

    @Option(
        help: "iBeacons in the world: a YAML or JSON file (format: waypost help beacons); --api monitor watches each.",
        completion: .file(extensions: configExtensions))
    var beacons: String?

    @Option(
        help:
            "iOS 18+: the app holds a CLServiceSession from launch requiring none, whenInUse or always authorization; the session asks the user, and while the app is not in use it keeps live updates and monitor events coming to an Always app."
    )
    var serviceSession: ServiceSessionRequirement?

    @Option(help: "With --service-session: the purpose key under which the session asks for temporary full accuracy.")
    var fullAccuracyPurposeKey: String?

    @Flag(
        help:
            "iOS 17+: the app holds a CLBackgroundActivitySession from launch, which keeps a When In Use app in use in the background."
    )
    var backgroundActivitySession = false

    @Flag(
        help:
            "iOS 18+: NSLocationRequireExplicitServiceSession is in the app's Info.plist: no implicit session; without --service-session, live updates and monitor events report serviceSessionRequired."
    )
    var requiresExplicitServiceSession = false

    @Option(help: "Fix noise: none, open-sky, urban or indoor.")
    var noise: NoiseModel.Preset = .none

    @Option(
        parsing: .unconditional, help: "Seed for the noise: the same seed gives the same output.",
        transform: OptionRange.seed)
    var seed: UInt64 = 0

    @Option(
        parsing: .unconditionalSingleValue,
        help: "A signal gap FROM-TO in seconds from the start, e.g. 600-720 (repeatable).")
    var signalLoss: [String] = []

    @Option(
        help: ArgumentHelp(
            "How and when the user answers the location prompt: ANSWER[@SECONDS].",
            discussion:
                "ANSWER is always, when-in-use, once (Allow Once, iOS 13+), denied, or ask (nobody answers); SECONDS after the app asks (default at once). From iOS 13 the app's Always request gets provisional Always, settled at the first use in the background: always accepts the upgrade, when-in-use keeps While Using.",
            valueName: "answer"))
    var auth = PromptScript(answer: .allowAlways)

    @Option(
        help: ArgumentHelp(
            "The user changes the app's permission in Settings to STATUS at SECONDS from the start: notDetermined, restricted, denied, authorizedAlways or authorizedWhenInUse (repeatable).",
            valueName: "status@seconds"))
    var authorizationChange: [String] = []

    @Flag(help: "Location Services are off for the whole device: every app reads denied.")
    var servicesDisabled = false

    @Option(help: "full, or reduced (iOS 14+: approximate positions a few times an hour, no regions).")
    var accuracyAuthorization: AccuracyAuthorization.Setting = .full

    @Option(
        parsing: .unconditional,
        help:
            "With reduced accuracy: the app asks for temporary full accuracy SECONDS from the start (granted in the foreground)."
    )
    var temporaryFullAccuracyAt: Double?

    @Option(
        parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "The app calls requestLocation() SECONDS from the start: one fix, or locationUnknown after 10 s without one (repeatable); it adds nothing while standard updates run (--mode standard).",
            valueName: "seconds"))
    var requestLocation: [Double] = []

    @Option(
        help: ArgumentHelp(
            "The app moves to STATE at SECONDS from the start: foreground, background, suspended, terminated (repeatable, in time order).",
            valueName: "state@seconds"))
    var appState: [String] = []

    @Flag(help: "allowsBackgroundLocationUpdates: standard updates go on in the background.")
    var backgroundUpdates = false

    @Flag(inversion: .prefixedNo, help: "pausesLocationUpdatesAutomatically: pause updates when the device is still.")
    var pausesAutomatically = true

    @Option(help: "activityType: other, automotiveNavigation, fitness, otherNavigation or airborne (iOS 12+).")
    var activityType: ActivityType = .other

    @Flag(help: "Also report visits (a stay of 5 min within 100 m).")
    var visits = false

    @Option(
        parsing: .unconditional,
        help:
            "The iOS release whose rules apply: up to 12, region monitoring needs Always; from 13, When In Use allows it (default: 26, the current release)."
    )
    var iosVersion = LocationManagerConfiguration().iosVersion

    @Option(
        help:
            "exact (Apple's rules to the millisecond), field (region monitoring by the OS's own positioning, fitted to measured phones), or device (the same mechanism fitted to Apple's documented figures); both add significant-change wake-ups and cached first fixes (docs/field-calibration.md)."
    )
    var realism: RealismProfile = .exact

    @Option(help: "Under field or device: urban, suburban (the default) or rural, for the OS's own positioning.")
    var environment: Surroundings.Environment?

    @Option(help: "Under field or device: on (the default) or off (cell-level positioning).")
    var wifi: WifiSetting?

    @Flag(help: "Lift CoreLocation's 20-region limit, for load-style runs.")
    var unlimitedRegions = false

    @Option(parsing: .unconditional, help: "Travel speed for untimed geometry, m/s (default: walking, 1.4).")
    var speed: Double = RouteTiming.walkingSpeed

    @Option(parsing: .unconditional, help: "Seconds between samples of untimed geometry (one clock along it).")
    var sampleInterval: Double = 1

    @Option(
        parsing: .unconditional,
        help:
            "Seconds the device rests at the route's last position afterwards, so events still on their way arrive (a scenario's 'rest'; default 0)."
    )
    var rest: Double = 0

    @Option(help: "Start time for untimed geometry, e.g. 2025-06-01T08:00:00Z.")
    var start: String?

    /// 9900-01-01T00:00:00Z: a century before the last time the event stream's four-digit years write.
    static let latestStart = 250_246_627_200.0

    @Option(help: "A track point earlier than the one before it: strict (refuse the file), drop it, or sort the track.")
    var timeOrder: TimeOrder = .strict

    @Option(
        parsing: .unconditional,
        help:
            "Most fixes a route may make, its timed gaps filled one every --sample-interval; more is refused up front.")
    var maxFixes = RouteTiming.defaultMaximumSamples

    @Option(
        parsing: .unconditional, help: "Replay only the N-th path (track, line or route) of the file, counting from 1.")
    var path: Int?

    @Flag(
        help: ArgumentHelp(
            "Pace the run on the wall clock instead of as fast as possible (not with --checkins: a check-in run's "
                + "delivery, retries and emulator keep virtual time)."))
    var realtime = false

    @Option(parsing: .unconditional, help: "With --realtime: how many times faster than real time.")
    var rate: Double = 1

    @Flag(help: "After the events, print counts of fixes, region events and failures.")
    var summary = false

    @Option(
        help: "Check-in rules (YAML/JSON): which events become posts on which networks (format: waypost help rules).",
        completion: .file(extensions: configExtensions))
    var checkins: String?

    @Option(
        help:
            "Privacy profile (YAML/JSON; format: waypost help privacy). Without one the safe defaults hold: nothing is shared.",
        completion: .file(extensions: configExtensions))
    var privacy: String?

    @Flag(help: "With --checkins: evaluate the gates and record the audit, send nothing.")
    var dryRun = false

    @Option(
        help: ArgumentHelp(
            "With --checkins: the run's name in the store (default: the track's file name); the same name resumes it "
                + "(posts already made are not made again; fixes and events are recorded afresh).")
    )
    var run: String?

    @OptionGroup var storage: StoreOptions
    @OptionGroup var network: NetworkOptions
    @OptionGroup(title: "NMEA 0183 out") var nmea: NMEAOptions

    /// The longest virtual time an option names: a century of seconds.
    static let century = 3_155_760_000.0

    func validate() throws {
        let fromStandardInput = [track, regions, beacons, checkins, privacy].filter { $0 == "-" }
        if fromStandardInput.count > 1 {
            throw ValidationError("only one input can be read from standard input (-)")
        }
        // Slower than a centimetre a second, a short line would become billions of fixes.
        try OptionRange.check("--speed", speed, 0.01...1_000, " m/s")
        let releases = LocationManagerConfiguration.iosVersions
        try OptionRange.check("--ios-version", iosVersion, releases)
        try OptionRange.check("--max-fixes", maxFixes, 1...Int.max)
        try OptionRange.check("--sample-interval", sampleInterval, 0.01...3_600, " seconds")
        try OptionRange.check("--rest", rest, 0...86_400, " seconds (a day)")
        if distanceFilter != LocationAccuracy.distanceFilterNone {
            try OptionRange.check(
                "--distance-filter", distanceFilter, 0...40_075_017, " metres", or: "-1 (every fix)")
        }
        if let start {
            guard let seconds = XSDDateTime.parse(start) else {
                throw ValidationError("--start '\(start)' is not an ISO-8601 time such as 2025-06-01T08:00:00Z")
            }
            // Times are written with four-digit years, and a run's scripted times reach a century
            // past its start: 9999-12-31T23:59Z gave events at "10000-01-01T00:08:57.517Z".
            if seconds >= Self.latestStart {
                throw ValidationError("--start '\(start)' is out of range: it must be before 9900-01-01T00:00:00Z")
            }
        }
        if let path { try OptionRange.check("--path", path, 1...Int.max) }
        // Each event's wait is virtual seconds over the rate: a tiny rate made waits past what
        // the wall clock can count (SIGILL at 1e-12); past a million, pacing is no pacing.
        try OptionRange.check("--rate", rate, 0.001...1_000_000, " times real time")
        if !realtime && rate != 1 { throw ValidationError("--rate needs --realtime") }
        _ = try desiredAccuracy()
        _ = try gaps()
        for at in requestLocation {
            try OptionRange.check("--request-location", at, 0...Self.century, " seconds from the start")
        }
        if let at = temporaryFullAccuracyAt {
            try OptionRange.check("--temporary-full-accuracy-at", at, 0...Self.century, " seconds from the start")
        }
        let app = try app(regions: [])
        if let problem = app.problem(iosVersion: iosVersion) {
            switch problem.setting {
            case .prompt: throw ValidationError("--auth \(auth): \(problem.message)")
            case .accuracyAuthorization: throw ValidationError("--accuracy-authorization reduced: \(problem.message)")
            case .desiredAccuracy: throw ValidationError("--accuracy \(accuracy): \(problem.message)")
            case .activityType: throw ValidationError("--activity-type \(activityType): \(problem.message)")
            case .api: throw ValidationError("--api \(api.joined(separator: ",")): \(problem.message)")
            case .serviceSession:
                let flag =
                    serviceSession != nil
                    ? "--service-session"
                    : fullAccuracyPurposeKey != nil
                        ? "--full-accuracy-purpose-key" : "--requires-explicit-service-session"
                throw ValidationError("\(flag): \(problem.message)")
            case .backgroundActivitySession:
                throw ValidationError("--background-activity-session: \(problem.message)")
            case .requestLocation: throw ValidationError("--request-location: \(problem.message)")
            case .appState(let index): throw ValidationError("--app-state \(appState[index]): \(problem.message)")
            }
        }
        // An option that would change nothing is refused, as --rate without --realtime is.
        if realism == .exact, let flag = environment != nil ? "--environment" : wifi != nil ? "--wifi" : nil {
            throw ValidationError(
                "\(flag) is for --realism field or device: the exact rules use no positioning of the OS's own")
        }
        if liveConfiguration != nil, !app.apis.contains(.liveUpdates) {
            throw ValidationError("--live-configuration is for --api live-updates")
        }
        if temporaryFullAccuracyAt != nil, accuracyAuthorization == .full {
            throw ValidationError(
                "--temporary-full-accuracy-at is for --accuracy-authorization reduced: with full accuracy there is none to ask for"
            )
        }
        let forPosts = [("--privacy", privacy != nil), ("--dry-run", dryRun), ("--run", run != nil)]
        let given = forPosts.filter(\.1).map(\.0) + network.given + (storage.db != nil ? ["--db"] : [])
        if checkins == nil, let option = given.first {
            throw ValidationError("\(option) needs --checkins: nothing is posted without rules")
        }
        if realtime && checkins != nil { throw ValidationError("--realtime cannot be combined with --checkins") }
        try nmea.check(track: track, realtime: realtime, checkins: checkins != nil, summary: summary)
    }

    func desiredAccuracy() throws -> Double {
        guard let value = LocationAccuracy.named(accuracy) else {
            // A number that is no accuracy is a range error, as other numeric options' are.
            if Double(accuracy) != nil {
                throw ValidationError(
                    "--accuracy \(accuracy) is out of range: more than 0 metres, or a name (best, ten-meters, …)")
            }
            throw ValidationError("--accuracy '\(accuracy)' is not a CoreLocation accuracy name or a number of metres")
        }
        return value
    }

    /// The simulated app as the options describe it.
    func app(regions: [CircularRegion], beacons: [PlacedBeacon] = []) throws -> AppScript {
        var app = AppScript(regions: regions)
        app.beacons = beacons
        app.apis = []
        for name in api.flatMap({ $0.split(separator: ",") }) {
            guard let value = AppScript.API(rawValue: String(name)) else {
                throw ValidationError(
                    "--api '\(name)' is not one of \(AppScript.API.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            app.apis.insert(value)
        }
        app.liveConfiguration = liveConfiguration ?? .default
        app.serviceSession = serviceSession
        app.fullAccuracyPurposeKey = fullAccuracyPurposeKey
        app.backgroundActivitySession = backgroundActivitySession
        app.requiresExplicitServiceSession = requiresExplicitServiceSession
        app.mode = mode
        app.desiredAccuracy = try desiredAccuracy()
        app.distanceFilter = distanceFilter
        app.visits = visits
        app.prompt = auth
        app.locationServicesEnabled = !servicesDisabled
        app.accuracyAuthorization = accuracyAuthorization.authorization
        app.backgroundUpdates = backgroundUpdates
        app.pausesAutomatically = pausesAutomatically
        app.activityType = activityType
        app.temporaryFullAccuracyAt = temporaryFullAccuracyAt.map(Seconds.init)
        app.authorizationChanges = try authorizationChange.map { text in
            try Self.timed(
                text, flag: "--authorization-change", what: "STATUS", example: "denied@600",
                AuthorizationStatus.allCases.map { ($0.description, $0) })
        }
        app.requestLocationAt = requestLocation.map(Seconds.init)
        app.appStates = try appState.map { text in
            try Self.timed(
                text, flag: "--app-state", what: "STATE", example: "background@600",
                AppState.allCases.map { ($0.rawValue, $0) })
        }
        return app
    }

    /// `NAME@SECONDS` (`--app-state`, `--authorization-change`): one of `choices` at seconds from
    /// the start, within a century.
    static func timed<Value>(
        _ text: String, flag: String, what: String, example: String, _ choices: [(name: String, value: Value)]
    ) throws -> (Seconds, Value) {
        let parts = text.split(separator: "@")
        guard parts.count == 2, let choice = choices.first(where: { $0.name == parts[0] }), let at = Double(parts[1]),
            at >= 0, at <= century
        else {
            throw ValidationError(
                "\(flag) '\(text)' is not \(what)@SECONDS with \(what) one of "
                    + choices.map(\.name).joined(separator: ", ") + ", e.g. \(example)")
        }
        return (Seconds(at), choice.value)
    }

    /// `--signal-loss` ranges, as offsets from the run's start.
    func gaps() throws -> [ClosedRange<Seconds>] {
        try signalLoss.map { text in
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, let from = Double(parts[0]), let to = Double(parts[1]), from >= 0, to >= from,
                to <= Self.century
            else {
                throw ValidationError(
                    "--signal-loss '\(text)' is not FROM-TO in seconds from the start, e.g. 600-720, "
                        + "each 0…\(Int(Self.century)) (a century)")
            }
            return Seconds(from)...Seconds(to)
        }
    }

    func run() async throws {
        try await reportingFailures {
            let input = RouteInput(argument: track)
            var spec = RouteSpec(
                source: input.isStandardInput ? .standardInput : .file(URL(fileURLWithPath: track)),
                displayName: input.displayName)
            spec.timeOrder = timeOrder
            spec.path = path
            spec.speed = speed
            spec.sampleInterval = Seconds(sampleInterval)
            spec.start = start.flatMap(XSDDateTime.parse).map { EpochInstant(secondsSince1970: $0) }
            spec.maxFixes = maxFixes
            let parsed = try spec.read()
            parsed.reportWarnings(file: input.displayName)
            let route: RouteTimeline
            do {
                route = try spec.time(parsed)
            } catch let error as RunSessionError {
                throw CommandFailure(.dataError, error.description)
            }
            // Every file is read before the first event is printed: a bad one leaves no output.
            let rules = try checkins.map { path in
                try readConfig(path) { url, name throws(ConfigFileError) in
                    try CheckinRuleFile.read(contentsOf: url, displayName: name)
                }
            }
            let profile =
                try privacy.map { path in
                    try readConfig(path) { url, name throws(ConfigFileError) in
                        try PrivacyProfileFile.read(contentsOf: url, displayName: name)
                    }
                } ?? PrivacyProfile()
            let credentials = try checkins == nil || dryRun ? nil : network.serverCredentials()
            let monitored =
                try regions.map { path in
                    try readConfig(path) { url, name throws(ConfigFileError) in
                        try RegionFile.read(contentsOf: url, displayName: name)
                    }
                } ?? []
            let placedBeacons =
                try beacons.map { path in
                    try readConfig(path) { url, name throws(ConfigFileError) in
                        try BeaconFile.read(contentsOf: url, displayName: name)
                    }
                } ?? []

            if let clash = BeaconFile.clash(placedBeacons, with: monitored) {
                throw CommandFailure(.dataError, "\(beacons ?? ""): \(clash)")
            }
            // A rule naming a region the --regions and --beacons files do not define never fires
            // there: likely a typo. (Without either file, a shared rules file is not questioned.)
            let named = Set(monitored.map(\.identifier) + placedBeacons.map(\.identifier))
            for rule in named.isEmpty ? [] : rules ?? [] {
                for name in (rule.regions ?? []).subtracting(named).sorted() {
                    let line =
                        "rule '\(rule.id)' names region '\(name)', which no --regions or --beacons file defines: it never fires there"
                    FileHandle.standardError.write(Data("waypost: warning: \(DisplayEscaping.escape(line))\n".utf8))
                }
            }
            var device = DevicePlan(route: route, app: try app(regions: monitored, beacons: placedBeacons))
            device.configuration.updateInterval = Seconds(sampleInterval)
            if unlimitedRegions { device.configuration.regionLimit = nil }
            device.configuration.iosVersion = iosVersion
            realism.apply(to: &device.configuration)
            device.configuration.surroundings = Surroundings(environment ?? .suburban, wifi: wifi != .off)
            device.noise = NoiseModel(noise)
            device.seed = seed
            device.signalLoss = try gaps()
            device.rest = Seconds(rest)
            var plan = RunPlan(devices: [device], regions: monitored, beacons: placedBeacons)
            if let credentials { try network.requireCredentials(credentials) }
            for network in Network.allCases where !dryRun {
                if let rule = rules?.first(where: { $0.networks.contains(network) }) {
                    try self.network.requireServer(for: network, "rule '\(DisplayEscaping.escape(rule.id))' posts")
                }
            }
            if let rules {
                // The places are read before the store is opened: a bad --fixtures creates no store.
                let destination = dryRun ? nil : try network.destination(credentials: credentials, seed: seed)
                let store = try storage.open()
                try store.applyRetention(now: WallClock().now, forgettingPostPositions: AuditRecord.forgettingPosition)
                var checkins = CheckinPlan(
                    store: store, runName: run ?? input.runName, track: track, rules: rules, network: destination)
                checkins.profile = profile
                checkins.seed = seed
                checkins.twitterAPI = network.twitterAPI
                // The app has a store: its monitor's records live there between runs.
                checkins.keepsMonitorRecords = true
                plan.checkins = checkins
            }

            let out = BufferedOutput()
            var counts = EventCounts()
            let format = self.format
            let nmeaSink = try nmea.makeSink(interval: sampleInterval, realtime: realtime)
            // `--nmea -`: standard output carries the sentences alone.
            let printsEvents = !nmea.takesStandardOutput
            var pacing: (any Pacing)?
            let bar = ProgressBar(enabled: realtime && isatty(STDERR_FILENO) != 0)
            if realtime, let span = route.span {
                pacing = RealTimePacing(rate: rate, span: span) { fraction in
                    out.flush()
                    bar.show(fraction)
                }
            }
            if let nmeaSink { pacing = NMEAPacing(inner: pacing, sink: nmeaSink) }
            let outcome: RunOutcome
            do {
                try nmeaSink?.waitForFirstClient()
                outcome = try await RunSession(plan).run(pacing: pacing) { timed in
                    counts.add(timed.event)
                    if printsEvents { out.write { EventStreamEncoder.append(timed, as: format, to: &$0) } }
                    nmeaSink?.record(timed)
                } onPost: { record, time in
                    let post = record.postEvent(at: time)
                    out.write((format == .jsonl ? PostEventFormat.json(post) : PostEventFormat.text(post)) + "\n")
                }
            } catch {
                out.flush()
                switch error {
                case RunSessionError.emulatorUnavailable: throw CommandFailure(.unavailable, "\(error)")
                case RunSessionError.unreadableMonitorRecord: throw CommandFailure(.dataError, "\(error)")
                default: throw error
                }
            }
            bar.finish()
            try nmeaSink?.finish()
            try out.finish()
            if outcome.stillQueued > 0 {
                let count = "\(outcome.stillQueued) \(outcome.stillQueued == 1 ? "post" : "posts")"
                // The flush must open this run's store.
                let flush = network.flushCommand + (storage.db.map { " --db " + DisplayEscaping.escape($0) } ?? "")
                let refused = outcome.credentialsRefused.sorted { $0.key < $1.key }.map {
                    "the \($0.key.rawValue) credentials were refused (\(DisplayEscaping.escape($0.value)))"
                }
                let line =
                    refused.isEmpty
                    ? "waypost: \(count) still queued; `\(flush)` sends them\n"
                    : "waypost: \(count) still queued: \(refused.joined(separator: "; ")); once they are mended, "
                        + "`\(flush)` sends them\n"
                FileHandle.standardError.write(Data(line.utf8))
            }
            if summary {
                let line = counts.description + "\n"
                if format == .jsonl {
                    FileHandle.standardError.write(Data(line.utf8))
                } else {
                    out.write(line)
                    try out.finish()
                }
            }
        }
    }
}

extension NoiseModel.Preset: ExpressibleByArgument {}
extension LiveConfiguration: ExpressibleByArgument {}
extension ServiceSessionRequirement: ExpressibleByArgument {}
extension AccuracyAuthorization.Setting: ExpressibleByArgument {}

extension PromptScript: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

extension AppScript.Mode: ExpressibleByArgument {}
extension RealismProfile: ExpressibleByArgument {}
extension Surroundings.Environment: ExpressibleByArgument {}

/// `--wifi on|off`.
enum WifiSetting: String, ExpressibleByArgument, CaseIterable {
    case on, off
}
extension TimeOrder: ExpressibleByArgument {}
extension ActivityType: ExpressibleByArgument {}
extension EventStreamEncoder.Format: ExpressibleByArgument {}

/// What `--summary` reports.
struct EventCounts: CustomStringConvertible {
    var fixes = 0
    var significantChanges = 0
    var enters = 0
    var exits = 0
    var monitoringFailures = 0
    var errors = 0
    var visits = 0
    var pauses = 0
    var launches = 0

    mutating func add(_ event: LocationEvent) {
        switch event {
        case .locationUpdated(_, let service): if service == .standard { fixes += 1 } else { significantChanges += 1 }
        case .enteredRegion: enters += 1
        case .exitedRegion: exits += 1
        case .monitoringFailed: monitoringFailures += 1
        case .failed: errors += 1
        case .visited(let visit): if visit.isInProgress { visits += 1 }
        case .locationUpdatesPaused: pauses += 1
        case .appLaunched: launches += 1
        default: break
        }
    }

    var description: String {
        "summary: \(fixes) fixes, \(significantChanges) significant changes, \(enters) enters, \(exits) exits, "
            + "\(monitoringFailures) monitoring failures, \(errors) errors, \(visits) visits"
            + (pauses > 0 ? ", \(pauses) pauses" : "") + (launches > 0 ? ", \(launches) relaunches" : "")
    }
}

/// A one-line progress bar on standard error, for `--realtime` runs on a terminal.
final class ProgressBar {
    private let enabled: Bool
    private var shown = -1

    init(enabled: Bool) {
        self.enabled = enabled
    }

    func show(_ fraction: Double) {
        guard enabled else { return }
        let percent = Int(fraction * 100)
        guard percent != shown else { return }
        shown = percent
        let filled = percent * 30 / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: 30 - filled)
        FileHandle.standardError.write(Data("\r[\(bar)] \(percent)%".utf8))
    }

    func finish() {
        if enabled && shown >= 0 { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
