import CheckinEngine
import ConfigFiles
import Foundation
import LocationEvents
import LocationSimulation
import Runs
import SimulatedTime
import SocialAPI
import SocialEmulator
import Tracks
import WaypostSupport
import WorldFiles

/// Why a scenario could not be read or run, in a user's words, with the sysexits class the
/// command line exits with.
public struct ScenarioError: Error, Sendable, Codable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Codable {
        /// Bad input data (65).
        case data
        /// A file that does not exist (66).
        case missing
        /// The emulator or the store could not be set up (69 / 73).
        case unavailable
        /// The run took longer than its time budget (1, as a failure).
        case overBudget
    }

    public var kind: Kind
    public var description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    init(_ error: ConfigFileError) {
        self.init(error.kind == .unreadable ? .missing : .data, error.description)
    }
}

/// Reads scenario files (YAML or JSON) strictly: unknown keys, wrong types, unknown names and
/// missing files are errors at their `file:line:column`. The format is in docs/scenarios.md.
public enum ScenarioFile {
    /// A million trials is hours of work; past it is a typo.
    package static let mostTrials = 1_000_000

    public static func read(contentsOf url: URL, displayName: String? = nil) throws(ScenarioError) -> Scenario {
        let name = displayName ?? url.path
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ScenarioError(.missing, "\(name): no such file")
        }
        do {
            let root = try ConfigNode.load(contentsOf: url, displayName: name)
            let reader = Reader(base: url.absoluteURL.deletingLastPathComponent())
            var scenario = try reader.scenario(root)
            scenario.inputs = [ScenarioInput(name: url.lastPathComponent, url: url)] + reader.read.inputs
            return scenario
        } catch let error as ConfigFileError {
            throw ScenarioError(error)
        } catch let error as ScenarioError {
            throw error
        } catch {
            throw ScenarioError(.data, "\(name): \(error)")
        }
    }
}

/// The reader proper; paths in a scenario are relative to its folder.
private struct Reader {
    let base: URL
    /// Every file the scenario names, in the order it names them.
    let read = ReadFiles()

    final class ReadFiles {
        var inputs: [ScenarioInput] = []
    }

    static let topKeys: Set<String> = [
        "name", "description", "seed", "device", "devices", "regions", "beacons", "privacy", "rules", "emulator",
        "places",
        "dryRun", "expect", "iosVersion", "realism", "environment", "wifi", "timeBudget", "trials", "rest",
    ]

    func scenario(_ root: ConfigNode) throws -> Scenario {
        let fields = try root.mapping(allowing: Self.topKeys)
        func required(_ key: String) throws(ConfigFileError) -> ConfigNode {
            guard let value = fields[key] else { throw root.failure("missing '\(key)'") }
            return value
        }
        let seed = try fields["seed"].map { node throws(ConfigFileError) in try unsigned(node) } ?? 0
        guard (fields["device"] == nil) != (fields["devices"] == nil) else {
            throw root.failure("give the route under 'device' (one) or 'devices' (a list), not both or neither")
        }
        var devices: [DeviceScript] = []
        var groups: [String: Int] = [:]
        let ios = try fields["iosVersion"].map { node throws(ConfigFileError) in try iosVersion(node) }
        let entries = try fields["devices"]?.list() ?? [fields["device"]].compactMap({ $0 })
        var names: Set<String> = []
        // The crowd is weighed before any device is made: its memory is spent only when it fits.
        var planned = 0
        for node in entries { planned += try DeviceGenerator.plannedCount(of: node) }
        try DeviceGenerator.checkMemory(for: planned, at: fields["devices"] ?? root)
        for node in entries {
            var script = try device(node, seed: seed, iosVersion: ios)
            if script.realism == nil { script.realism = try fields["realism"]?.choice(RealismProfile.self) }
            if script.environment == nil {
                script.environment = try fields["environment"]?.choice(Surroundings.Environment.self)
            }
            if script.wifi == nil, let node = fields["wifi"] { script.wifi = try Self.wifi(node) }
            if script.realism ?? .exact == .exact, let (key, setting) = Self.surroundings(in: { node[$0] }) {
                throw setting.failure(Self.exactIgnores(key))
            }
            let generator = try DeviceGenerator(node)
            if let generator {
                guard let name = script.name else { throw node.failure("a device with 'count' needs a 'name'") }
                guard groups.updateValue(generator.count, forKey: name) == nil, !names.contains(name) else {
                    throw node.failure("device '\(name)' is named twice")
                }
                let generated = generator.devices(from: script, seed: seed &+ UInt64(devices.count))
                for member in generated where !names.insert(member.name ?? "").inserted {
                    throw node.failure("device '\(member.name ?? "")' is named twice")
                }
                devices.append(contentsOf: generated)
            } else {
                if entries.count > 1 {
                    guard let name = script.name else { throw node.failure("with several devices each needs a 'name'") }
                    guard names.insert(name).inserted, groups[name] == nil else {
                        throw node.failure("device '\(name)' is named twice")
                    }
                    // Two phones are two noises: without a seed of its own, the scenario's mixed with its name.
                    if node["seed"] == nil { script.seed = DeviceGenerator.seed(seed, name: name) }
                }
                devices.append(script)
            }
        }
        if devices.allSatisfy({ $0.realism ?? .exact == .exact }),
            let (key, setting) = Self.surroundings(in: { fields[$0] })
        {
            throw setting.failure(Self.exactIgnores(key))
        }
        var regions: [CircularRegion] = []
        if let node = fields["regions"] {
            if node.isScalar {
                let (url, display) = try file(node)
                do {
                    regions = try RegionFile.read(contentsOf: url, displayName: display)
                } catch {
                    throw ScenarioError(.data, error.description)
                }
            } else {
                regions = try inlineRegions(node)
            }
        }
        var beacons: [PlacedBeacon] = []
        if let node = fields["beacons"] {
            let (url, display) = try file(node)
            do {
                beacons = try BeaconFile.read(contentsOf: url, displayName: display)
            } catch {
                throw ScenarioError(.data, error.description)
            }
            if let clash = BeaconFile.clash(beacons, with: regions) { throw node.failure(clash) }
        }
        var privacy = PrivacyProfile()
        if let node = fields["privacy"] {
            privacy = try included(node) { n throws(ConfigFileError) in try PrivacyProfileFile.profile(n) }
        }
        var rules: [CheckinRule] = []
        if let node = fields["rules"] {
            let named = Set(regions.map(\.identifier) + beacons.map(\.identifier))
            rules = try included(node) { n throws(ConfigFileError) in
                // A scenario knows all its regions: with none, a rule naming one is a typo too
                // (it was accepted, and the rule never fired).
                try CheckinRuleFile.rules(n, regions: named)
            }
        }
        var emulator = EmulatorSetup()
        if let node = fields["emulator"] { emulator = try self.emulator(node) }
        var places: EmulatorFixtures?
        if let node = fields["places"] {
            let (url, _) = try file(node, orFolder: true)
            do {
                places = try EmulatorFixtures.load(from: url)
            } catch {
                throw node.failure("places: \(error)")
            }
        }
        let context = Context(
            regions: Set(regions.map(\.identifier) + beacons.map(\.identifier)),
            devices: Set(devices.compactMap(\.name)), groups: groups,
            rules: Set(rules.map(\.id)), zones: privacy.zones)
        var expectations: [Expectation] = []
        for node in try required("expect").list() { expectations.append(try expectation(node, context)) }
        guard !expectations.isEmpty else { throw root.failure("'expect' needs at least one expectation") }
        var scenario = Scenario(
            name: try required("name").string(), file: root.file, description: try fields["description"]?.string(),
            seed: seed, devices: devices, regions: regions, rules: rules, privacy: privacy, emulator: emulator,
            places: places, dryRun: try fields["dryRun"]?.bool() ?? false, expectations: expectations)
        scenario.beacons = beacons
        if let v = fields["trials"] {
            scenario.trials = try whole(v, minimum: 1, maximum: ScenarioFile.mostTrials)
            if scenario.trials ?? 1 > 1, let problem = ScenarioRunner.trialsProblem(scenario) {
                throw v.failure(problem)
            }
        }
        if let v = fields["rest"] { scenario.rest = try v.duration() }
        if let v = fields["timeBudget"] {
            let budget = try v.duration()
            guard budget > .zero else { throw v.failure("'timeBudget' must be longer than zero") }
            scenario.timeBudget = budget.duration
        }
        return scenario
    }

    // MARK: - Parts

    /// `wifi: on | off` (YAML's booleans too).
    static func wifi(_ node: ConfigNode) throws(ConfigFileError) -> Bool {
        switch node.scalarText {
        case "on"?, "true"?: return true
        case "off"?, "false"?: return false
        default: throw node.failure("'wifi' is on or off")
        }
    }

    /// A path relative to the scenario, which must name a file (or a folder, where one is asked
    /// for: `places:`).
    func file(_ node: ConfigNode, orFolder: Bool = false) throws(ConfigFileError) -> (URL, String) {
        let path = try node.string()
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appendingPathComponent(path).standardized
        // Shown relative to the working directory when it is inside it, as a user would type it.
        let cwd = FileManager.default.currentDirectoryPath + "/"
        let display = url.path.hasPrefix(cwd) ? String(url.path.dropFirst(cwd.count)) : url.path
        var directory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &directory) else {
            throw node.failure("'\(path)' does not exist (looked for \(display))")
        }
        guard orFolder || !directory.boolValue else {
            throw node.failure("'\(path)' is a directory (\(display.isEmpty ? "." : display)), not a file")
        }
        read.inputs.append(ScenarioInput(name: path, url: url))
        return (url, display)
    }

    /// Regions written in the scenario, with a regions file's fields.
    func inlineRegions(_ node: ConfigNode) throws(ConfigFileError) -> [CircularRegion] {
        var regions: [CircularRegion] = []
        var seen: Set<String> = []
        for item in try node.list() {
            let f = try item.mapping(allowing: RegionFile.keys)
            guard let identifier = f["identifier"], let latitude = f["latitude"], let longitude = f["longitude"],
                let radius = f["radius"]
            else { throw item.failure("a region needs identifier, latitude, longitude and radius") }
            let name = try identifier.string()
            guard seen.insert(name).inserted else { throw identifier.failure("region '\(name)' is defined twice") }
            let (lat, lon, metres) = (try latitude.number(), try longitude.number(), try radius.number())
            let onEntry = try f["notifyOnEntry"]?.bool() ?? true
            let onExit = try f["notifyOnExit"]?.bool() ?? true
            do {
                regions.append(
                    try RegionFile.region(
                        identifier: name, latitude: lat, longitude: lon, radius: metres, notifyOnEntry: onEntry,
                        notifyOnExit: onExit))
            } catch {
                throw (error.field == "radius" ? radius : latitude).failure(error.message)
            }
        }
        return regions
    }

    /// A section written inline, or a path to a file holding it.
    func included<T>(_ node: ConfigNode, _ read: (ConfigNode) throws(ConfigFileError) -> T) throws(ConfigFileError)
        -> T
    {
        guard node.isScalar else { return try read(node) }
        let (url, display) = try file(node)
        return try read(try ConfigNode.load(contentsOf: url, displayName: display))
    }

    /// A seed. Numbers are read as Doubles, so the range stops where they stop being exact enough.
    func unsigned(_ node: ConfigNode) throws(ConfigFileError) -> UInt64 {
        let value = try node.number()
        // Digits are read as an integer: through a Double, 9007199254740993 was read as
        // 9007199254740992 — two seeds, one run (a black-box hunt). Other spellings of a number
        // are taken where a Double holds them exactly.
        let exact = node.scalarText.flatMap { UInt64($0) }
        guard let seed = exact ?? (value >= 0 && value == value.rounded() && value <= 0x1p53 ? UInt64(value) : nil),
            seed <= Self.largestSeed
        else {
            throw node.failure("expected a whole number from 0 to \(Self.largestSeed), not \(node.shownText)")
        }
        return seed
    }

    static let largestSeed: UInt64 = 999_999_999_999_999_999

    /// A count or limit. The message gives the real range: "≥ 1" was wrong for 2147483647,
    /// which is refused as past the largest.
    func whole(_ node: ConfigNode, minimum: Int = 0, maximum: Int = Self.largestWhole) throws(ConfigFileError) -> Int {
        let value = try node.number()
        guard value >= Double(minimum), value == value.rounded(), value <= Double(maximum) else {
            throw node.failure("expected a whole number from \(minimum) to \(maximum), not \(node.shownText)")
        }
        return Int(value)
    }

    static let largestWhole = 999_999_999

    /// The surroundings a mapping sets (`environment`, else `wifi`), which only the OS's own
    /// positioning — realism field or device — uses.
    static func surroundings(in field: (String) -> ConfigNode?) -> (String, ConfigNode)? {
        for key in ["environment", "wifi"] { if let node = field(key) { return (key, node) } }
        return nil
    }

    /// Surroundings under the exact rules would change nothing: an error, not a setting that seems to hold.
    static func exactIgnores(_ key: String) -> String {
        "'\(key)' is for realism field or device: the exact rules use no positioning of the OS's own"
    }

    /// One device; `iosVersion` is the scenario's, which the device's own overrides.
    func device(_ node: ConfigNode, seed: UInt64, iosVersion scenarioVersion: Int?) throws -> DeviceScript {
        let fields = try node.mapping(allowing: [
            "name", "route", "path", "speed", "sampleInterval", "start", "startAfter", "mode", "accuracy",
            "distanceFilter", "noise", "seed", "authorization", "authorizationChanges", "signalLoss", "visits",
            "iosVersion", "appStates", "accuracyAuthorization", "locationServices", "backgroundUpdates",
            "pausesAutomatically", "activityType", "temporaryFullAccuracyAt", "realism", "timeOrder", "maxFixes",
            "api", "liveConfiguration", "serviceSession", "fullAccuracyPurposeKey", "backgroundActivitySession",
            "requiresExplicitServiceSession", "count", "spread", "requestLocation", "environment", "wifi",
        ])
        guard let routeNode = fields["route"] else { throw node.failure("missing 'route'") }
        let (route, display) = try file(routeNode)
        var device = DeviceScript(name: try fields["name"]?.string(), route: route, routeDisplayName: display)
        if let v = fields["path"] { device.path = try whole(v, minimum: 1) }
        if let v = fields["timeOrder"] { device.timeOrder = try v.choice(TimeOrder.self) }
        if let v = fields["maxFixes"] { device.maxFixes = try whole(v, minimum: 1) }
        if let v = fields["speed"] {
            device.speed = try v.number()
            guard device.speed >= 0.01, device.speed <= 1_000 else {
                throw v.failure("'speed' must be 0.01…1000 m/s (untimed geometry is timed at it)")
            }
        }
        if let v = fields["sampleInterval"] {
            device.sampleInterval = try v.duration()
            guard device.sampleInterval >= Seconds(0.01), device.sampleInterval <= Seconds(3_600) else {
                throw v.failure("'sampleInterval' must be 0.01s…1h")
            }
        }
        if let v = fields["start"] {
            guard let start = XSDDateTime.parse(try v.string()) else {
                throw v.failure("'start' must be an ISO-8601 time such as 2025-06-01T08:00:00Z")
            }
            device.start = EpochInstant(secondsSince1970: start)
        }
        if let v = fields["startAfter"] { device.startAfter = try v.duration() }
        if let v = fields["mode"] { device.app.mode = try v.choice(AppScript.Mode.self) }
        if let v = fields["accuracy"] { device.app.desiredAccuracy = try accuracy(v) }
        if let v = fields["distanceFilter"] {
            device.app.distanceFilter = try v.number()
            guard device.app.distanceFilter >= 0 || device.app.distanceFilter == -1 else {
                throw v.failure("'distanceFilter' is metres ≥ 0, or -1 for every fix")
            }
        }
        if let v = fields["noise"] { device.noise = try v.choice(NoiseModel.Preset.self) }
        device.seed = try fields["seed"].map { n throws(ConfigFileError) in try unsigned(n) } ?? seed
        if let v = fields["authorization"] {
            let text = try v.string()
            guard let prompt = PromptScript(text) else {
                throw v.failure(
                    "'\(ConfigNode.excerpt(text))' is not ANSWER[@SECONDS]: one of "
                        + AuthorizationPrompt.allCases.map(\.rawValue).joined(separator: ", ")
                        + ", answered SECONDS (0…86400) after the app asks, e.g. when-in-use@60")
            }
            device.app.prompt = prompt
        }
        for change in try fields["authorizationChanges"]?.list() ?? [] {
            let f = try change.mapping(allowing: ["at", "status"])
            guard let at = f["at"], let status = f["status"] else { throw change.failure("needs 'at' and 'status'") }
            let text = try status.string()
            guard let value = AuthorizationStatus.allCases.first(where: { $0.description == text }) else {
                throw status.failure(
                    "'\(ConfigNode.excerpt(text))' is not one of \(AuthorizationStatus.allCases.map(\.description).joined(separator: ", "))"
                )
            }
            device.app.authorizationChanges.append((try at.duration(), value))
        }
        let stateNodes = try fields["appStates"]?.list() ?? []
        for item in stateNodes {
            let f = try item.mapping(allowing: ["at", "state"])
            guard let at = f["at"], let state = f["state"] else { throw item.failure("needs 'at' and 'state'") }
            device.app.appStates.append((try at.duration(), try state.choice(AppState.self)))
        }
        if let v = fields["accuracyAuthorization"] {
            device.app.accuracyAuthorization = try v.choice(AccuracyAuthorization.Setting.self).authorization
        }
        if let v = fields["locationServices"] { device.app.locationServicesEnabled = try v.bool() }
        if let v = fields["backgroundUpdates"] { device.app.backgroundUpdates = try v.bool() }
        if let v = fields["pausesAutomatically"] { device.app.pausesAutomatically = try v.bool() }
        if let v = fields["activityType"] { device.app.activityType = try v.choice(ActivityType.self) }
        if let v = fields["temporaryFullAccuracyAt"] { device.app.temporaryFullAccuracyAt = try v.duration() }
        if let v = fields["requestLocation"] {
            // One time, or a list of them, from the start.
            device.app.requestLocationAt = try v.listOrOne().map { item throws(ConfigFileError) in try item.duration() }
        }
        if let v = fields["realism"] { device.realism = try v.choice(RealismProfile.self) }
        if let v = fields["environment"] { device.environment = try v.choice(Surroundings.Environment.self) }
        if let v = fields["wifi"] { device.wifi = try Self.wifi(v) }
        for gap in try fields["signalLoss"]?.list() ?? [] {
            let f = try gap.mapping(allowing: ["from", "to"])
            guard let from = f["from"], let to = f["to"] else { throw gap.failure("needs 'from' and 'to'") }
            let (a, b) = (try from.duration(), try to.duration())
            guard b >= a else { throw to.failure("'to' comes before 'from'") }
            device.signalLoss.append(a...b)
        }
        if let v = fields["visits"] { device.app.visits = try v.bool() }
        if let v = fields["api"] {
            let items = try v.isScalar ? [v] : v.list()
            guard !items.isEmpty else { throw v.failure("'api' names at least one of delegate, monitor, live-updates") }
            device.app.apis = []
            for item in items { device.app.apis.insert(try item.choice(AppScript.API.self)) }
        }
        if let v = fields["liveConfiguration"] { device.app.liveConfiguration = try v.choice(LiveConfiguration.self) }
        if let v = fields["serviceSession"] { device.app.serviceSession = try v.choice(ServiceSessionRequirement.self) }
        if let v = fields["fullAccuracyPurposeKey"] { device.app.fullAccuracyPurposeKey = try v.string() }
        if let v = fields["backgroundActivitySession"] { device.app.backgroundActivitySession = try v.bool() }
        if let v = fields["requiresExplicitServiceSession"] { device.app.requiresExplicitServiceSession = try v.bool() }
        device.iosVersion =
            try fields["iosVersion"].map { v throws(ConfigFileError) in try iosVersion(v) } ?? scenarioVersion
        if let problem = device.app.problem(iosVersion: device.iosVersion ?? LocationManagerConfiguration().iosVersion)
        {
            let culprit: ConfigNode? =
                switch problem.setting {
                case .prompt: fields["authorization"]
                case .accuracyAuthorization: fields["accuracyAuthorization"]
                case .desiredAccuracy: fields["accuracy"]
                case .activityType: fields["activityType"]
                case .api: fields["api"]
                case .serviceSession:
                    fields["serviceSession"] ?? fields["fullAccuracyPurposeKey"]
                        ?? fields["requiresExplicitServiceSession"]
                case .backgroundActivitySession: fields["backgroundActivitySession"]
                case .requestLocation: fields["requestLocation"]
                case .appState(let index): stateNodes[index]
                }
            throw (culprit ?? node).failure(problem.message)
        }
        return device
    }

    /// An iOS release the behaviour profiles cover (`LocationManagerConfiguration.iosVersions`).
    func iosVersion(_ node: ConfigNode) throws(ConfigFileError) -> Int {
        let range = LocationManagerConfiguration.iosVersions
        let value = try node.number()
        guard value == value.rounded(), Double(range.lowerBound)...Double(range.upperBound) ~= value else {
            throw node.failure("iosVersion must be a release from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(value)
    }

    func accuracy(_ node: ConfigNode) throws(ConfigFileError) -> Double {
        let text = try node.string()
        guard let value = LocationAccuracy.named(text) else {
            throw node.failure(
                "'\(ConfigNode.excerpt(text))' is not one of \(LocationAccuracy.names.map(\.key).joined(separator: ", ")), or positive metres"
            )
        }
        return value
    }

    func emulator(_ node: ConfigNode) throws(ConfigFileError) -> EmulatorSetup {
        let fields = try node.mapping(allowing: [
            "geoEnabled", "permissions", "geoRateLimit", "faults", "changes", "twitterAPI", "protected",
            "facebookAudience",
        ])
        var setup = EmulatorSetup()
        if let v = fields["geoEnabled"] { setup.geoEnabled = try v.bool() }
        if let v = fields["twitterAPI"] { setup.twitterAPI = try v.choice(TwitterAPIVersion.self) }
        if let v = fields["protected"] { setup.protected = try v.bool() }
        if let v = fields["facebookAudience"] { setup.facebookAudience = try graphAudience(v) }
        if let v = fields["permissions"] { setup.permissions = try permissions(v) }
        if let v = fields["geoRateLimit"] { setup.geoRateLimit = try whole(v, minimum: 1) }
        for item in try fields["faults"]?.list() ?? [] { setup.faults.append(try fault(item)) }
        for item in try fields["changes"]?.list() ?? [] {
            let f = try item.mapping(allowing: ["at", "geoEnabled", "permissions", "graphToken", "protected"])
            guard let at = f["at"] else { throw item.failure("missing 'at'") }
            guard f.count > 1 else {
                throw item.failure("a change needs 'geoEnabled', 'permissions', 'graphToken' or 'protected'")
            }
            var graphToken: String?
            if let v = f["graphToken"] {
                let name = try v.string()
                let names = EmulatorCore.graphTokenStates
                guard names.contains(name) else {
                    throw v.failure("'\(name)' is not one of \(names.joined(separator: ", "))")
                }
                graphToken = name
            }
            setup.changes.append(
                EmulatorSetup.Change(
                    at: try at.duration(), geoEnabled: try f["geoEnabled"]?.bool(),
                    permissions: try f["permissions"].map { n throws(ConfigFileError) in try permissions(n) },
                    graphToken: graphToken, protected: try f["protected"]?.bool()))
        }
        setup.changes.sort { $0.at < $1.at }
        return setup
    }

    /// The Facebook app's default audience, a Graph privacy value.
    func graphAudience(_ node: ConfigNode) throws(ConfigFileError) -> String {
        let value = try node.string()
        let allowed = GraphPrivacy.values.filter { $0 != "CUSTOM" }
        guard allowed.contains(value) else {
            throw node.failure("'\(value)' is not one of \(allowed.joined(separator: ", "))")
        }
        return value
    }

    func strings(_ node: ConfigNode) throws(ConfigFileError) -> Set<String> {
        var out: Set<String> = []
        for item in try node.list() { out.insert(try item.string()) }
        return out
    }

    /// Graph permissions the token has. A name spelt like one of Graph's (`publish_chekins`) is
    /// an error: granted as written, it granted nothing, and the check-in was refused as if the
    /// user had declined.
    func permissions(_ node: ConfigNode) throws(ConfigFileError) -> Set<String> {
        var out: Set<String> = []
        for item in try node.list() {
            let name = try item.string()
            if !Self.graphPermissions.contains(name),
                let near = NearSpelling.nearest(to: name, among: Array(Self.graphPermissions))
            {
                throw item.failure("'\(name)' is not a Graph permission; did you mean '\(near)'?")
            }
            out.insert(name)
        }
        return out
    }

    /// Graph's permission names (Facebook's Permissions Reference, with the retired ones a
    /// check-in app asked for: publish_actions, publish_checkins, user_checkins).
    static let graphPermissions: Set<String> = [
        "public_profile", "email", "user_friends", "user_posts", "user_photos", "user_videos", "user_likes",
        "user_location", "user_hometown", "user_birthday", "user_age_range", "user_gender", "user_link",
        "user_tagged_places", "user_checkins", "user_status", "publish_actions", "publish_checkins",
        "publish_to_groups", "publish_video", "pages_show_list", "pages_manage_posts", "pages_read_engagement",
        "pages_manage_metadata", "read_insights", "business_management", "ads_read", "ads_management",
        "instagram_basic", "read_stream", "manage_pages", "publish_pages",
    ]

    /// A fault, read by the emulator's own reader (``Fault/parse(_:)``) with the control plane's
    /// field names, but for `from` and `until`: durations (`5m`) from the scenario's start, which
    /// the run places on the emulator's clock.
    func fault(_ node: ConfigNode) throws(ConfigFileError) -> EmulatorSetup.TimedFault {
        let fields = try node.mapping(allowing: Fault.fields)
        var values: [String: String] = [:]
        for (key, value) in fields where key != "from" && key != "until" { values[key] = try value.string() }
        switch Fault.parse(values) {
        case .success(let fault):
            let (from, until) = (try fields["from"]?.duration(), try fields["until"]?.duration())
            if let from, let until, let node = fields["until"], until <= from {
                throw node.failure("'until' is not after 'from': the fault would never act")
            }
            return EmulatorSetup.TimedFault(fault, from: from, until: until)
        case .failure(let error): throw (fields[error.field] ?? node).failure(error.message)
        }
    }

    // MARK: - Expectations

    /// Names an expectation may refer to, so a typo is an error rather than a silent "0 found".
    struct Context {
        var regions: Set<String>
        var devices: Set<String>
        /// Generated device groups (`count`), with how many each made: an expectation naming one
        /// matches any member.
        var groups: [String: Int]
        var rules: Set<String>
        var zones: [PrivacyZone]
    }

    static let eventTypes = LocationEvent.Kind.allCases.map(\.rawValue)
    static let countKeys: Set<String> = ["count", "atLeast", "atMost"]
    static let windowKeys: Set<String> = ["after", "before"]
    /// `status` (authorization), `state` (regionState, appState), `error`, `accuracy`
    /// (accuracyAuthorization: fullAccuracy, reducedAccuracy), `reason` (appLaunch), `kind`
    /// (visit: arrival, departure; liveUpdate: location, stationary, or the diagnostic of an update
    /// without a location), `service` (location: standard, significantChange), `state` also for
    /// monitorEvent (satisfied, unsatisfied, unknown, unmonitored).
    static let detailKeys = ["status", "state", "error", "accuracy", "reason", "kind", "service"]
    static let eventKeys = Set(["region", "device"] + detailKeys)
    static let postKeys: Set<String> = [
        "region", "place", "decision", "carriesLocation", "precision", "blockedBy", "device", "rule", "audience",
    ]
    static let requestKeys: Set<String> = ["method", "status", "with", "without", "params"]

    func expectation(_ node: ConfigNode, _ context: Context) throws(ConfigFileError) -> Expectation {
        let kinds = [
            "event", "noEvent", "order", "post", "noPost", "noLocationInZone", "noPublicLocation", "request",
            "noRequest",
        ]
        guard node.isMapping else { throw node.failure("expected a mapping") }
        let present = kinds.filter { node[$0] != nil }
        guard present.count == 1, let kind = present.first else {
            throw node.failure("an expectation has exactly one of \(kinds.joined(separator: ", "))")
        }
        var allowed: Set<String> = [kind, "name"]
        switch kind {
        case "event", "noEvent": allowed.formUnion(Self.eventKeys.union(Self.windowKeys))
        case "post", "noPost": allowed.formUnion(Self.postKeys.union(Self.windowKeys))
        case "request", "noRequest": allowed.formUnion(Self.requestKeys.union(Self.windowKeys))
        default: break
        }
        if kind == "event" || kind == "post" || kind == "request" { allowed.formUnion(Self.countKeys) }
        allowed.insert("rate")
        if kind == "event" || kind == "post" { allowed.insert("lateBy") }
        let fields = try node.mapping(allowing: allowed)
        let value = fields[kind] ?? node
        let location = "\(node.file):\(node.line):\(node.column)"
        let label = try fields["name"]?.string()
        var defaultLabel: String?
        let expected: Expectation.Kind
        switch kind {
        case "event", "noEvent":
            expected = .events(
                try eventFilter(type: value, fields, context), kind == "noEvent" ? .none : try count(fields))
        case "order":
            var filters: [EventFilter] = []
            for item in try value.list() {
                let f = try item.mapping(allowing: Self.eventKeys.union(Self.windowKeys).union(["event"]))
                guard let type = f["event"] else { throw item.failure("missing 'event'") }
                filters.append(try eventFilter(type: type, f, context))
            }
            guard filters.count >= 2 else { throw value.failure("'order' needs at least two events") }
            expected = .order(filters)
        case "post", "noPost":
            expected = .posts(
                try postFilter(network: value, fields, context), kind == "noPost" ? .none : try count(fields))
        case "noLocationInZone":
            let name = try value.string()
            guard let zone = context.zones.first(where: { $0.name == name }) else {
                throw value.failure(
                    "no privacy zone '\(name)' in the scenario's privacy profile"
                        + (context.zones.isEmpty
                            ? "" : " (zones: \(context.zones.map(\.name).joined(separator: ", ")))"))
            }
            expected = .noLocationInZone(zone)
        case "noPublicLocation":
            // No post that went out carrying location could be seen by anyone: each was seen by
            // followers, friends or the user only, or carried no location.
            var filter = try postFilter(network: value, [:], context)
            filter.carriesLocation = true
            filter.audience = .public
            expected = .posts(filter, .none)
            // Its `rate` is read below like any other's (it returned before, and ignored it).
            defaultLabel =
                "nothing locating the user went out publicly" + (filter.network.map { " on \($0.rawValue)" } ?? "")
        default:
            expected = .requests(
                try requestFilter(path: value, fields), kind == "noRequest" ? .none : try count(fields))
        }
        var expectation = Expectation(kind: expected, label: label ?? defaultLabel, location: location)
        if let v = fields["rate"] {
            let text = try v.string()
            guard let rate = RateBound(text) else {
                throw v.failure(
                    "'rate' is a comparison with a fraction from 0 to 1, e.g. \">= 0.8\", not '\(ConfigNode.excerpt(text))'"
                )
            }
            switch (rate.relation, rate.value) {
            case (.above, 1), (.below, 0):
                throw v.failure("'rate: \(text)' can never hold: no rate is above 100 % or below 0 %")
            case (.atLeast, 1):
                // Wilson's interval of n of n trials ends below 1 for every n.
                throw v.failure(
                    "'rate: \(text)' can never be shown at 95 % confidence, however many trials run; "
                        + "leave 'rate' out: an expectation without it must hold in every trial")
            case (.atMost, 0):
                throw v.failure(
                    "'rate: \(text)' can never be shown at 95 % confidence, however many trials run; "
                        + "leave 'rate' out and expect it in no trial (noEvent, noPost, noRequest)")
            default: break
            }
            expectation.rate = rate
        }
        if let v = fields["lateBy"] {
            let f = try v.mapping(allowing: ["p50", "p95", "max"])
            guard !f.isEmpty else { throw v.failure("'lateBy' needs p50, p95 or max") }
            let bounds = [
                ("p50", try f["p50"]?.duration()), ("p95", try f["p95"]?.duration()), ("max", try f["max"]?.duration()),
            ]
            // A median later than the 95th percentile (or either past the largest) is no distribution's.
            for (index, (name, bound)) in bounds.enumerated() {
                guard let bound, let node = f[name] else { continue }
                for case (let later, let limit?) in bounds[(index + 1)...] where limit < bound {
                    throw node.failure(
                        "\(name) \(ConfigNode.describe(bound)) is later than \(later) \(ConfigNode.describe(limit)): "
                            + "no lateness distribution has both")
                }
            }
            expectation.lateBy = LateBy(p50: bounds[0].1, p95: bounds[1].1, max: bounds[2].1)
        }
        return expectation
    }

    func count(_ fields: [String: ConfigNode]) throws(ConfigFileError) -> Count {
        if let exact = fields["count"] {
            if let other = fields["atLeast"] ?? fields["atMost"] {
                throw other.failure("'count' cannot be combined with 'atLeast'/'atMost'")
            }
            return .exactly(try whole(exact))
        }
        var count = Count()
        if let v = fields["atLeast"] { count.atLeast = try whole(v) }
        if let v = fields["atMost"] {
            count.atMost = try whole(v)
            if fields["atLeast"] == nil { count.atLeast = 0 }
            guard count.atLeast <= count.atMost ?? 0 else { throw v.failure("'atMost' is below 'atLeast'") }
        }
        return count
    }

    func window(_ fields: [String: ConfigNode]) throws(ConfigFileError) -> Window {
        let window = Window(after: try fields["after"]?.duration(), before: try fields["before"]?.duration())
        if let a = window.after, let b = window.before, b < a, let node = fields["before"] {
            throw node.failure("'before' comes earlier than 'after'")
        }
        return window
    }

    func known(_ node: ConfigNode?, in names: Set<String>, what: String) throws(ConfigFileError) -> String? {
        guard let node else { return nil }
        let name = try node.string()
        guard names.contains(name) else {
            throw node.failure(
                "no \(what) '\(name)' in this scenario"
                    + (names.isEmpty ? "" : " (\(what)s: \(names.sorted().joined(separator: ", ")))"))
        }
        return name
    }

    /// A device an expectation names: one device, or a generated group (any of its members).
    func device(_ node: ConfigNode?, _ context: Context) throws(ConfigFileError) -> DeviceSelector? {
        guard let node else { return nil }
        let name = try node.string()
        if let members = context.groups[name] { return DeviceSelector(name: name, members: members) }
        guard context.devices.contains(name) else {
            // Generated devices are listed by their group.
            let groups = context.groups.map { DeviceSelector(name: $0.key, members: $0.value) }
            let names = context.devices.filter { device in !groups.contains { $0.matches(device) } }
                .union(context.groups.keys)
            throw node.failure(
                "no device '\(name)' in this scenario"
                    + (names.isEmpty ? "" : " (devices: \(names.sorted().joined(separator: ", ")))"))
        }
        return DeviceSelector(name: name)
    }

    func eventFilter(type node: ConfigNode, _ fields: [String: ConfigNode], _ context: Context) throws(ConfigFileError)
        -> EventFilter
    {
        let type = try node.string()
        guard let kind = LocationEvent.Kind(rawValue: type) else {
            throw node.failure("'\(type)' is not an event type (\(Self.eventTypes.joined(separator: ", ")))")
        }
        if let region = fields["region"], !kind.namesRegion {
            throw region.failure(
                "'\(type)' events name no region: 'region' would match none of them (regions: "
                    + "\(LocationEvent.Kind.allCases.filter(\.namesRegion).map(\.rawValue).joined(separator: ", ")))")
        }
        let details = Self.detailKeys.compactMap { key in fields[key].map { (key, $0) } }
        guard details.count <= 1 else {
            throw details[1].1.failure("give one of \(Self.detailKeys.map { "'\($0)'" }.joined(separator: ", "))")
        }
        return EventFilter(
            type: type, region: try known(fields["region"], in: context.regions, what: "region"),
            device: try device(fields["device"], context),
            detail: try details.first.map { (key, node) throws(ConfigFileError) in try detail(key, node, of: kind) },
            window: try window(fields))
    }

    /// A filter's status, state, error, … checked against what events of `kind` carry: a value no
    /// such event has (`state: insde`, `state` on `regionEnter`) would match nothing, and a
    /// `noEvent` with it would pass untested. Any of the detail keys names it, as it always has
    /// (scenarios say `status: significantChange`); the message names the documented one.
    func detail(_ key: String, _ node: ConfigNode, of kind: LocationEvent.Kind) throws(ConfigFileError) -> String {
        let value = try node.string()
        guard let detail = kind.detail else {
            throw node.failure(
                "'\(kind.rawValue)' events carry no '\(key)': they are matched by region, device and time")
        }
        guard detail.values.contains(value) else {
            let near = detail.values.first { $0.lowercased() == value.lowercased() }
            throw node.failure(
                "'\(value)' is not a \(detail.key) of \(kind.rawValue) events"
                    + (near.map { "; did you mean '\($0)'?" } ?? " (\(detail.values.joined(separator: ", ")))"))
        }
        return value
    }

    func postFilter(network node: ConfigNode, _ fields: [String: ConfigNode], _ context: Context)
        throws(ConfigFileError) -> PostFilter
    {
        let network = try node.string()
        var filter = PostFilter()
        if network != "any" {
            guard let value = Network(rawValue: network) else {
                throw node.failure("'\(network)' is not one of twitter, facebook, any")
            }
            filter.network = value
        }
        filter.region = try known(fields["region"], in: context.regions, what: "region")
        filter.place = try fields["place"]?.string()
        filter.decision = try fields["decision"]?.choice(PostDecision.self)
        filter.carriesLocation = try fields["carriesLocation"]?.bool()
        filter.precision = try fields["precision"]?.choice(Precision.self)
        filter.audience = try fields["audience"]?.choice(Audience.self)
        filter.blockedBy = try fields["blockedBy"]?.choice(PrivacyGate.self)
        filter.device = try device(fields["device"], context)
        filter.rule = try known(fields["rule"], in: context.rules, what: "rule")
        filter.window = try window(fields)
        return filter
    }

    func requestFilter(path node: ConfigNode, _ fields: [String: ConfigNode]) throws(ConfigFileError)
        -> RequestFilter
    {
        let path = try node.string()
        var filter = RequestFilter(path: path == "any" ? "" : path)
        if let v = fields["method"] {
            filter.method = try v.string().uppercased()
            guard ["GET", "POST", "DELETE"].contains(filter.method ?? "") else {
                throw v.failure("'method' is GET, POST or DELETE")
            }
        }
        if let v = fields["status"] { filter.status = try whole(v, minimum: 100, maximum: 599) }
        filter.with = try fields["with"].map { n throws(ConfigFileError) in try strings(n).sorted() } ?? []
        filter.without = try fields["without"].map { n throws(ConfigFileError) in try strings(n).sorted() } ?? []
        filter.window = try window(fields)
        if let v = fields["params"] {
            guard v.isMapping else { throw v.failure("'params' maps parameter names to values") }
            for (key, value) in v.entries {
                guard let name = key.scalarText, let text = value.scalarText else {
                    throw v.failure("'params' maps parameter names to string values")
                }
                filter.parameters[name] = text
            }
        }
        try Self.check(filter, path: node, fields)
        return filter
    }

    /// A request filter that could match no request the emulator answers (a path, a method or
    /// a parameter name none of its endpoints has) is an error at its line: a `noRequest` with
    /// it would pass without testing anything.
    static func check(_ filter: RequestFilter, path node: ConfigNode, _ fields: [String: ConfigNode])
        throws(ConfigFileError)
    {
        var endpoints = EmulatorEndpoint.all.filter { filter.path.isEmpty || $0.admits(filter.path) }
        guard !endpoints.isEmpty else {
            var message = "no request the emulator answers has a path containing '\(filter.path)'"
            let names = EmulatorEndpoint.all.map(\.name).filter { !$0.isEmpty && !$0.hasPrefix("{") }
            if let near = NearSpelling.nearest(to: filter.path, among: names) { message += "; did you mean '\(near)'?" }
            throw node.failure(
                message + " (paths such as statuses/update, geo/reverse_geocode, 2/tweets, me/checkins, search; "
                    + "any for every request)")
        }
        let what = filter.path.isEmpty ? "no request" : "no request to '\(filter.path)'"
        if let method = filter.method, let v = fields["method"] {
            let taking = endpoints.filter { $0.methods.contains(method) }
            guard !taking.isEmpty else {
                let methods = Set(endpoints.flatMap(\.methods)).sorted().joined(separator: " or ")
                throw v.failure("\(what) is made with \(method): the emulator takes it with \(methods) only")
            }
            endpoints = taking
        }
        let parameters = endpoints.reduce(into: Set<String>()) { $0.formUnion($1.parameters) }
        var named: [ConfigNode] = []
        for key in ["with", "without"] { named += try fields[key]?.list() ?? [] }
        named += fields["params"]?.entries.map(\.key) ?? []
        for item in named {
            let name = try item.string()
            guard !parameters.contains(name) else { continue }
            var message = "\(what) carries a parameter '\(name)'"
            if let near = NearSpelling.nearest(to: name, among: Array(parameters)) {
                message += "; did you mean '\(near)'?"
            }
            let own = parameters.filter { !$0.hasPrefix("oauth_") }.sorted()
            if endpoints.count <= 2 && !own.isEmpty { message += " (its parameters: \(own.joined(separator: ", ")))" }
            throw item.failure(message)
        }
    }
}
