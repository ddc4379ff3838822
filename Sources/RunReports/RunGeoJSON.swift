import CheckinEngine
import Foundation
import Geo
import WaypostSupport

/// A run as a GeoJSON FeatureCollection (RFC 7946) for geojson.io, QGIS and friends: the route
/// per device (a MultiLineString where the signal was lost), regions as circle polygons, events
/// and posts as points. Every feature has `kind`; posts carry simplestyle `marker-color` in
/// the map's precision colours.
public enum RunGeoJSON {
    public static func render(_ run: RunSnapshot) -> String {
        var features: [Feature] = []
        for device in run.devices {
            let lines = run.stretches(of: device).map { $0.map { [$0.longitude, $0.latitude] } }.filter { $0.count > 1 }
            guard !lines.isEmpty else { continue }
            let fixes = run.fixes(of: device)
            var properties: [String: JSONValue] = ["kind": "route", "fixes": .number(Double(fixes.count))]
            if let device { properties["device"] = .string(device) }
            if let first = fixes.first, let last = fixes.last {
                properties["start"] = .string(XSDDateTime.formatCompact(first.time))
                properties["end"] = .string(XSDDateTime.formatCompact(last.time))
            }
            features.append(
                Feature(
                    geometry: lines.count == 1
                        ? .lineString(lines[0]) : .multiLineString(lines), properties: properties))
        }
        for region in run.regions {
            let center = Coordinate(latitude: region.latitude, longitude: region.longitude)
            var ring: [[Double]] = stride(from: 0.0, to: 360, by: 360.0 / 64).map { azimuth in
                let p = Geodesic.wgs84.direct(from: center, azimuth: azimuth, distance: region.radius).coordinate
                return [p.longitude, p.latitude]
            }
            ring.reverse()  // RFC 7946: exterior rings counter-clockwise
            ring.append(ring[0])
            features.append(
                Feature(
                    geometry: .polygon([ring]),
                    properties: [
                        "kind": "region", "identifier": .string(region.identifier), "radius": .number(region.radius),
                        "center": .array([.number(region.longitude), .number(region.latitude)]),
                    ]))
        }
        for event in run.events {
            guard let lat = event.latitude, let lon = event.longitude else { continue }
            var properties: [String: JSONValue] = [
                "kind": "event", "type": .string(event.type), "time": .string(XSDDateTime.formatCompact(event.time)),
            ]
            if let region = event.region { properties["region"] = .string(region) }
            if let device = event.device { properties["device"] = .string(device) }
            if let detail = event.detail { properties["detail"] = .string(detail) }
            features.append(Feature(geometry: .point([lon, lat]), properties: properties))
        }
        for post in run.posts {
            var properties: [String: JSONValue] = [
                "kind": "post", "network": .string(post.network.rawValue), "decision": .string(post.decision.rawValue),
                "carriesLocation": .bool(post.carriesLocation), "precision": .string(post.precision.rawValue),
                "time": .string(XSDDateTime.formatCompact(post.time)), "rule": .string(post.rule),
                "wireFields": .object(post.wireFields.mapValues(JSONValue.string)),
                "marker-color": .string(SVGMap.color(post.carriesLocation ? post.precision : nil)),
            ]
            if let place = post.placeName { properties["place"] = .string(place) }
            if let id = post.placeID { properties["placeId"] = .string(id) }
            if let region = post.region { properties["region"] = .string(region) }
            if let device = post.device { properties["device"] = .string(device) }
            if let gate = post.gates.first(where: { !$0.passed }) {
                properties["blockedBy"] = .string(gate.gate.rawValue)
                properties["reason"] = .string(gate.reason)
            }
            features.append(Feature(geometry: .point([post.longitude, post.latitude]), properties: properties))
        }
        let collection = FeatureCollection(
            features: features, properties: ["run": .string(run.run.name), "track": .string(run.run.track)])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(collection)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}

private struct FeatureCollection: Encodable {
    var type = "FeatureCollection"
    var features: [Feature]
    /// Foreign member (RFC 7946 §6.1): which run this is.
    var properties: [String: JSONValue]
}

private struct Feature: Encodable {
    var type = "Feature"
    var geometry: Geometry
    var properties: [String: JSONValue]
}

private enum Geometry: Encodable {
    case point([Double])
    case lineString([[Double]])
    case multiLineString([[[Double]]])
    case polygon([[[Double]]])

    private enum Keys: String, CodingKey { case type, coordinates }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        switch self {
        case .point(let p):
            try c.encode("Point", forKey: .type)
            try c.encode(p.map(Self.rounded), forKey: .coordinates)
        case .lineString(let line):
            try c.encode("LineString", forKey: .type)
            try c.encode(line.map { $0.map(Self.rounded) }, forKey: .coordinates)
        case .multiLineString(let lines):
            try c.encode("MultiLineString", forKey: .type)
            try c.encode(lines.map { $0.map { $0.map(Self.rounded) } }, forKey: .coordinates)
        case .polygon(let rings):
            try c.encode("Polygon", forKey: .type)
            try c.encode(rings.map { $0.map { $0.map(Self.rounded) } }, forKey: .coordinates)
        }
    }

    /// RFC 7946 §11.2: six decimals (about 10 cm) is plenty.
    static func rounded(_ value: Double) -> Double { (value * 1e6).rounded() / 1e6 }
}

/// A JSON value for feature properties.
enum JSONValue: Encodable, ExpressibleByStringLiteral {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])

    init(stringLiteral value: String) { self = .string(value) }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .number(let n): try c.encode(n)
        case .bool(let b): try c.encode(b)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}
