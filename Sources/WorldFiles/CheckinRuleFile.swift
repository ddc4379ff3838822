import CheckinEngine
import ConfigFiles
import Foundation

/// Reads check-in rules from YAML or JSON (see ``CheckinRule``).
public enum CheckinRuleFile {
    private static let keys: Set<String> = [
        "id", "on", "regions", "networks", "message", "place", "precision", "consent", "cooldown", "maxAge",
        "searchRadius", "legacyLength", "audience",
    ]

    public static func read(contentsOf url: URL, displayName: String? = nil) throws(ConfigFileError) -> [CheckinRule] {
        try rules(try ConfigNode.load(contentsOf: url, displayName: displayName))
    }

    public static func parse(_ text: String, name: String) throws(ConfigFileError) -> [CheckinRule] {
        try rules(try ConfigNode.parse(text, name: name))
    }

    /// The rules of a `rules:` mapping or a bare list (also used by scenario files). With
    /// `regions`, a rule that names a region not among them is an error at the name: it would
    /// never fire there (a scenario knows all its regions and beacons).
    public static func rules(_ root: ConfigNode, regions: Set<String>? = nil) throws(ConfigFileError) -> [CheckinRule] {
        let list: ConfigNode
        if root.isMapping {
            guard let rules = try root.mapping(allowing: ["rules"])["rules"] else {
                throw root.failure("missing 'rules'")
            }
            list = rules
        } else {
            list = root
        }
        var out: [CheckinRule] = []
        var seen: Set<String> = []
        for item in try list.list() {
            let rule = try self.rule(item, regions: regions)
            guard seen.insert(rule.id).inserted else { throw item.failure("rule '\(rule.id)' is defined twice") }
            out.append(rule)
        }
        return out
    }

    static func rule(_ node: ConfigNode, regions known: Set<String>? = nil) throws(ConfigFileError) -> CheckinRule {
        let fields = try node.mapping(allowing: keys)
        func required(_ key: String) throws(ConfigFileError) -> ConfigNode {
            guard let value = fields[key] else { throw node.failure("missing '\(key)'") }
            return value
        }
        var triggers: Set<Trigger> = []
        let on = try required("on")
        for item in on.listOrOne() { triggers.insert(try item.choice(Trigger.self)) }
        // An empty list would make a rule that never fires, silently.
        if triggers.isEmpty {
            throw on.failure(
                "'on' needs at least one of \(Trigger.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var rule = CheckinRule(id: try required("id").string(), triggers: triggers)
        if let regions = fields["regions"] {
            var names: Set<String> = []
            for item in regions.listOrOne() {
                let name = try item.string()
                if let known, !known.contains(name) {
                    throw item.failure(
                        "no region '\(name)' to check in at"
                            + (known.isEmpty
                                ? " (no regions are monitored)"
                                : " (regions: \(known.sorted().joined(separator: ", ")))"))
                }
                names.insert(name)
            }
            if names.isEmpty {
                throw regions.failure("'regions' needs at least one region (leave it out for every region)")
            }
            rule.regions = names
        }
        if let networks = fields["networks"] {
            rule.networks = []
            for item in networks.listOrOne() {
                let network = try item.choice(Network.self)
                if !rule.networks.contains(network) { rule.networks.append(network) }
            }
            if rule.networks.isEmpty { throw networks.failure("'networks' needs at least one of twitter, facebook") }
        }
        if let message = fields["message"] {
            rule.message = try message.string()
            // A typo would be posted as written: `{plcae}` and `at {place` are errors at the message.
            if let problem = MessageTemplate.problem(in: rule.message) {
                throw message.failure("'message': \(problem)")
            }
        }
        if let place = fields["place"] { rule.place = try placeChoice(place) }
        if let precision = fields["precision"] { rule.precision = try precision.choice(Precision.self) }
        if let consent = fields["consent"] { rule.consent = try consent.choice(ConsentMode.self) }
        if let cooldown = fields["cooldown"] { rule.cooldown = try cooldown.duration().duration }
        if let maxAge = fields["maxAge"] { rule.maxAge = try maxAge.duration().duration }
        if let radius = fields["searchRadius"] {
            rule.searchRadius = try radius.number()
            guard rule.searchRadius > 0 else { throw radius.failure("'searchRadius' must be positive metres") }
            let maximum = Int(CheckinRule.maximumSearchRadius)
            guard rule.searchRadius <= CheckinRule.maximumSearchRadius else {
                throw radius.failure(
                    "'searchRadius' must be at most \(maximum) metres: Graph searches places within \(maximum / 1000) km"
                )
            }
        }
        if let legacy = fields["legacyLength"] { rule.legacyLength = try legacy.bool() }
        if let audience = fields["audience"] { rule.audience = try audience.choice(Audience.self) }
        return rule
    }

    static func placeChoice(_ node: ConfigNode) throws(ConfigFileError) -> PlaceChoice {
        if node.isMapping {
            let fields = try node.mapping(allowing: ["name", "category"])
            guard fields.count == 1 else { throw node.failure("'place' takes one of name or category") }
            if let name = fields["name"] { return .named(try name.string()) }
            if let category = fields["category"] { return .category(try category.string()) }
        }
        switch try node.string() {
        case "first": return .first
        case "nearest": return .nearest
        case let other: throw node.failure("'place' is first, nearest, {name: …} or {category: …}, not '\(other)'")
        }
    }
}
