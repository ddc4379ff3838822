import CheckinEngine
import ConfigFiles
import Foundation
import Geo

/// Reads a privacy profile (see ``PrivacyProfile``) from YAML or JSON.
public enum PrivacyProfileFile {
    private static let keys: Set<String> = [
        "optIn", "disclosureAcknowledged", "precision", "consent", "answers", "zones", "maxAge", "cooldown", "audience",
    ]

    public static func read(contentsOf url: URL, displayName: String? = nil) throws(ConfigFileError)
        -> PrivacyProfile
    {
        try profile(try ConfigNode.load(contentsOf: url, displayName: displayName))
    }

    public static func parse(_ text: String, name: String) throws(ConfigFileError) -> PrivacyProfile {
        try profile(try ConfigNode.parse(text, name: name))
    }

    public static func profile(_ node: ConfigNode) throws(ConfigFileError) -> PrivacyProfile {
        let fields = try node.mapping(allowing: keys)
        var profile = PrivacyProfile()
        if let v = fields["optIn"] { profile.optIn = try v.bool() }
        if let v = fields["disclosureAcknowledged"] { profile.disclosureAcknowledged = try v.bool() }
        if let v = fields["precision"] { profile.maximumPrecision = try v.choice(Precision.self) }
        if let v = fields["consent"] { profile.consent = try v.choice(ConsentMode.self) }
        if let v = fields["answers"] {
            profile.answers = []
            for answer in try v.list() { profile.answers.append(try answer.bool()) }
        }
        if let v = fields["zones"] {
            // A zone is kept with its run by name: two of one name would keep one circle and
            // draw the other's posts inside it.
            var seen: Set<String> = []
            for item in try v.list() {
                let zone = try zone(item)
                guard seen.insert(zone.name).inserted else {
                    throw (item["name"] ?? item).failure("privacy zone '\(zone.name)' is defined twice")
                }
                profile.zones.append(zone)
            }
        }
        if let v = fields["maxAge"] { profile.maxAge = try v.duration().duration }
        if let v = fields["cooldown"] { profile.cooldown = try v.duration().duration }
        if let v = fields["audience"] { profile.maximumAudience = try v.choice(Audience.self) }
        return profile
    }

    static func zone(_ node: ConfigNode) throws(ConfigFileError) -> PrivacyZone {
        let fields = try node.mapping(allowing: ["name", "latitude", "longitude", "radius"])
        func required(_ key: String) throws(ConfigFileError) -> ConfigNode {
            guard let value = fields[key] else { throw node.failure("missing '\(key)'") }
            return value
        }
        let center = Coordinate(
            latitude: try required("latitude").number(), longitude: try required("longitude").number())
        guard center.isValid else {
            throw try required(center.outOfRangeComponent).failure("latitude/longitude \(center) is out of range")
        }
        let radius = try required("radius").number()
        guard radius > 0 else { throw try required("radius").failure("radius must be positive metres") }
        return PrivacyZone(name: try required("name").string(), center: center, radius: radius)
    }
}
