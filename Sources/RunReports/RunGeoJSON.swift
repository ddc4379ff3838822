import CheckinEngine
import Foundation
import Geo
import WaypostSupport

/// A run as a GeoJSON FeatureCollection (RFC 7946) for geojson.io, QGIS and friends: the route
/// per device (a MultiLineString where the signal was lost), privacy zones and regions as circle
/// polygons wound counter-clockwise (§3.1.6), events and posts as points; lines and circles that
/// cross the antimeridian cut there in two (§3.1.9). Every feature has
/// `kind` (route, privacyZone, region, event, post); zones and regions carry simplestyle
/// `stroke`/`fill` and posts `marker-color` in the SVG and HTML maps' colours.
public enum RunGeoJSON {
    public static func render(_ run: RunSnapshot) -> String {
        var features: [Feature] = []
        for device in run.devices {
            let lines = run.stretches(of: device).flatMap {
                Antimeridian.cut($0.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude) })
            }.map { $0.map { [$0.longitude, $0.latitude] } }
            guard !lines.isEmpty else { continue }
            let fixes = run.fixes(of: device)
            var properties: [String: JSONValue] = ["kind": "route", "fixes": .number(Double(fixes.count))]
            if let device { properties["device"] = .string(device) }
            if let first = fixes.first, let last = fixes.last {
                properties["start"] = .string(XSDDateTime.formatCompact(first.time.secondsSince1970))
                properties["end"] = .string(XSDDateTime.formatCompact(last.time.secondsSince1970))
            }
            features.append(
                Feature(
                    geometry: lines.count == 1
                        ? .lineString(lines[0]) : .multiLineString(lines), properties: properties))
        }
        // Privacy zones first, as the maps draw them beneath the regions.
        for zone in run.zones {
            let kept = run.posts(blockedBy: zone.name).count
            features.append(
                Feature(
                    geometry: circle(latitude: zone.latitude, longitude: zone.longitude, radius: zone.radius),
                    properties: [
                        "kind": "privacyZone", "name": .string(zone.name), "radius": .number(zone.radius),
                        "center": .array([.number(zone.longitude), .number(zone.latitude)]),
                        "keptOut": .number(Double(kept)),
                        "title": .string("privacy zone \(zone.name): nothing locates the user here"),
                    ].merging(Style.zone) { own, _ in own }))
        }
        for region in run.regions {
            features.append(
                Feature(
                    geometry: circle(latitude: region.latitude, longitude: region.longitude, radius: region.radius),
                    properties: [
                        "kind": "region", "identifier": .string(region.identifier), "radius": .number(region.radius),
                        "center": .array([.number(region.longitude), .number(region.latitude)]),
                        "title": .string(region.identifier),
                    ].merging(Style.region) { own, _ in own }))
        }
        for event in run.events {
            guard let lat = event.latitude, let lon = event.longitude else { continue }
            var properties: [String: JSONValue] = [
                "kind": "event", "type": .string(event.type),
                "time": .string(XSDDateTime.formatCompact(event.time.secondsSince1970)),
            ]
            if let region = event.region { properties["region"] = .string(region) }
            if let device = event.device { properties["device"] = .string(device) }
            if let detail = event.detail { properties["detail"] = .string(detail) }
            features.append(Feature(geometry: .point([lon, lat]), properties: properties))
        }
        // A post with no position (an outbox entry that could not be read) is not a feature.
        for post in run.posts {
            guard let lat = post.latitude, let lon = post.longitude, let rule = post.rule else { continue }
            var properties: [String: JSONValue] = [
                "kind": "post", "network": .string(post.network.rawValue), "decision": .string(post.decision.rawValue),
                "carriesLocation": .bool(post.carriesLocation), "precision": .string(post.precision.rawValue),
                "time": .string(XSDDateTime.formatCompact(post.time.secondsSince1970)), "rule": .string(rule),
                "wireFields": .object(post.wireFields.mapValues(JSONValue.string)),
                "marker-color": .string(SVGMap.color(post.carriesLocation ? post.precision : nil)),
            ]
            if let place = post.placeName { properties["place"] = .string(place) }
            if let audience = post.audience { properties["audience"] = .string(audience.rawValue) }
            if let id = post.placeID { properties["placeId"] = .string(id) }
            if let region = post.region { properties["region"] = .string(region) }
            if let device = post.device { properties["device"] = .string(device) }
            if let gate = post.gates.first(where: { !$0.passed }) {
                properties["blockedBy"] = .string(gate.gate.rawValue)
                properties["reason"] = .string(gate.reason)
            }
            features.append(Feature(geometry: .point([lon, lat]), properties: properties))
        }
        let collection = FeatureCollection(
            features: features, properties: ["run": .string(run.run.name), "track": .string(run.run.track)])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(collection)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// A circle of `radius` metres as a polygon: a closed ring of 64 geodesic points,
    /// counter-clockwise as RFC 7946 §3.1.6 winds exterior rings (azimuths grow clockwise, so they
    /// are reversed); two polygons where it crosses the antimeridian.
    private static func circle(latitude: Double, longitude: Double, radius: Double) -> Geometry {
        let rings = AntimeridianCut.ring(ring(latitude: latitude, longitude: longitude, radius: radius))
        return rings.count == 1 ? .polygon(rings) : .multiPolygon(rings.map { [$0] })
    }

    private static func ring(latitude: Double, longitude: Double, radius: Double) -> [[Double]] {
        let center = Coordinate(latitude: latitude, longitude: longitude)
        var ring: [[Double]] = stride(from: 0.0, to: 360, by: 360.0 / 64).map { azimuth in
            let p = Geodesic.wgs84.direct(from: center, azimuth: azimuth, distance: radius).coordinate
            return [p.longitude, p.latitude]
        }
        ring.reverse()
        ring.append(ring[0])
        return ring
    }

    /// simplestyle-spec 1.1.0 properties (github.com/mapbox/simplestyle-spec), which geojson.io,
    /// GitHub's map view and Mapbox tools draw: regions and privacy zones in the SVG/HTML maps'
    /// colours, so the GeoJSON looks like the map it was made with.
    enum Style {
        static let region: [String: JSONValue] = [
            "stroke": .string(SVGMap.regionColor), "stroke-width": .number(1.5), "stroke-opacity": .number(1),
            "fill": .string(SVGMap.regionColor), "fill-opacity": .number(0.12),
        ]
        /// The maps hatch a zone in its colour at 35 % opacity; simplestyle has no hatching: a light fill.
        static let zone: [String: JSONValue] = [
            "stroke": .string(SVGMap.zoneColor), "stroke-width": .number(1.5), "stroke-opacity": .number(1),
            "fill": .string(SVGMap.zoneColor), "fill-opacity": .number(0.2),
        ]
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
    case multiPolygon([[[[Double]]]])

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
        case .multiPolygon(let polygons):
            try c.encode("MultiPolygon", forKey: .type)
            try c.encode(polygons.map { $0.map { $0.map { $0.map(Self.rounded) } } }, forKey: .coordinates)
        }
    }

    /// RFC 7946 §11.2: six decimals (about 10 cm) is plenty.
    static func rounded(_ value: Double) -> Double { (value * 1e6).rounded() / 1e6 }
}

/// A JSON value for feature properties.
enum JSONValue: Encodable, Sendable, ExpressibleByStringLiteral {
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
