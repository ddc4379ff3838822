import Foundation
import SimulatedTime
import WaypostSupport

/// How the engine writes a post and its audit record into the store: the JSON `Codable` would
/// write (the same keys, a nil optional left out, keys in order), written straight into bytes.
/// `JSONEncoder`'s generic path was a tenth of a trials run's CPU; reading stays `Codable`, so a
/// store reads the same whichever version wrote it. `StoredJSONTests` holds each writer to the
/// keys and values `JSONEncoder` writes and to `JSONDecoder`'s reading.
protocol StoredJSON: Codable {
    func write(to json: inout JSONWriter)
}

extension StoredJSON {
    /// The value as the store keeps it; nil when a number in it has no JSON form (NaN, infinity).
    var storedJSON: Data? {
        var json = JSONWriter()
        write(to: &json)
        return json.wroteNonFinite ? nil : json.data
    }
}

extension PostIntent {
    /// Whether every number ``write(to:)`` writes has a JSON form: a store of values
    /// (``PostValueStore``) takes only a post the JSON could hold. `StoredJSONTests` checks the
    /// list against the value's numbers.
    var numbersAreFinite: Bool {
        [time.secondsSince1970, latitude, longitude, horizontalAccuracy, searchRadius, maxAge].allSatisfy(\.isFinite)
            && (zones ?? []).allSatisfy { [$0.center.latitude, $0.center.longitude, $0.radius].allSatisfy(\.isFinite) }
    }
}

extension AuditRecord {
    /// As ``PostIntent/numbersAreFinite``, for a record.
    var numbersAreFinite: Bool {
        [time.secondsSince1970, latitude ?? 0, longitude ?? 0].allSatisfy(\.isFinite)
    }
}

extension PostIntent: StoredJSON {
    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("audience", ifPresent: audience?.rawValue)
            json.field("audienceCap", ifPresent: audienceCap?.rawValue)
            json.field("device", ifPresent: device)
            json.key("gates")
            json.array { json in for gate in gates { gate.write(to: &json) } }
            json.field("horizontalAccuracy", horizontalAccuracy)
            json.field("latitude", latitude)
            json.field("legacyLength", legacyLength)
            json.field("longitude", longitude)
            json.field("lostAnswer", ifPresent: lostAnswer)
            json.field("maxAge", maxAge)
            json.field("network", network.rawValue)
            json.key("place")
            place.write(to: &json)
            json.field("precision", precision.rawValue)
            if let refusedWireFields { json.field("refusedWireFields", refusedWireFields) }
            json.field("region", ifPresent: region)
            json.field("regionZone", ifPresent: regionZone)
            if let resolved {
                json.key("resolved")
                resolved.write(to: &json)
            }
            json.field("rule", rule)
            json.field("searchRadius", searchRadius)
            if let sentWireFields { json.field("sentWireFields", sentWireFields) }
            json.field("template", template)
            json.field("time", time.secondsSince1970)
            json.field("trigger", trigger.rawValue)
            if let zones {
                json.key("zones")
                json.array { json in for zone in zones { zone.write(to: &json) } }
            }
        }
    }
}

extension PrivacyZone: StoredJSON {
    /// `Codable`'s form: `{"center":{"latitude":…,"longitude":…},"name":…,"radius":…}`.
    func write(to json: inout JSONWriter) {
        json.object { json in
            json.key("center")
            json.object { json in
                json.field("latitude", center.latitude)
                json.field("longitude", center.longitude)
            }
            json.field("name", name)
            json.field("radius", radius)
        }
    }
}

extension PostIntent.ResolvedPlace: StoredJSON {
    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("detail", ifPresent: detail)
            json.field("id", ifPresent: id)
            json.field("lookupFields", lookupFields)
            json.field("name", ifPresent: name)
            json.field("precision", precision.rawValue)
        }
    }
}

extension PlaceChoice: StoredJSON {
    /// `Codable`'s form of an enum case: `{"first":{}}`, `{"named":{"_0":"Blue Bottle"}}`.
    func write(to json: inout JSONWriter) {
        json.object { json in
            switch self {
            case .first:
                json.key("first")
                json.object { _ in }
            case .nearest:
                json.key("nearest")
                json.object { _ in }
            case .named(let text):
                json.key("named")
                json.object { $0.field("_0", text) }
            case .category(let text):
                json.key("category")
                json.object { $0.field("_0", text) }
            }
        }
    }
}

extension GateVerdict: StoredJSON {
    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("gate", gate.rawValue)
            json.field("passed", passed)
            json.field("reason", reason)
        }
    }
}

extension AuditRecord: StoredJSON {
    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("attempts", attempts)
            json.field("audience", ifPresent: audience?.rawValue)
            json.field("carriesLocation", carriesLocation)
            json.field("decision", decision.rawValue)
            json.field("detail", ifPresent: detail)
            json.field("device", ifPresent: device)
            json.key("gates")
            json.array { json in for gate in gates { gate.write(to: &json) } }
            json.field("key", key)
            if let latitude { json.field("latitude", latitude) }
            if let longitude { json.field("longitude", longitude) }
            json.field("lookupFields", lookupFields)
            json.field("message", ifPresent: message)
            json.field("network", network.rawValue)
            json.field("placeID", ifPresent: placeID)
            json.field("placeName", ifPresent: placeName)
            json.field("precision", precision.rawValue)
            json.field("region", ifPresent: region)
            json.field("remoteID", ifPresent: remoteID)
            json.field("rule", ifPresent: rule)
            json.field("time", time.secondsSince1970)
            json.field("trigger", ifPresent: trigger?.rawValue)
            json.field("wireFields", wireFields)
        }
    }
}
