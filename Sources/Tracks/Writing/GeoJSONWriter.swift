import Foundation
import Geo
import WaypostSupport

/// GeoJSON in the shape placemark/togeojson produces, so its users can swap tools:
/// positions as `[lon, lat, alt]`, per-point times in `properties.coordinateProperties.times`
/// (an array per line for multi-line geometries), GPX tracks with several segments as
/// MultiLineString, KML MultiGeometry and MultiTrack as GeometryCollection (of one: that geometry).
///
/// A line has two or more positions (RFC 7946 §3.1.4): as togeojson does, a GPX track's
/// one-point segments are left out of its lines (``TrackWriter/lost(_:as:)`` says so), one line
/// left is a LineString; a line with one position, or a track with no line of two, is a Point
/// (MultiPoint for several) — togeojson drops those, but a position is worth keeping.
///
/// Three rules togeojson does not apply, so that every output is valid RFC 7946:
/// - A line that crosses the antimeridian is cut there (§3.1.9): two lines that meet on it, a
///   MultiLineString (or one more line of one), with the crossing's time in each line's `times`
///   — readers draw a step from 179.99° to −179.99° around the world otherwise. (Not a member of
///   a GeometryCollection, whose `times` have no place for a member cut in two; nor polygons.)
/// - Polygon rings are wound as §3.1.6 requires — the exterior counter-clockwise, holes
///   clockwise — by reversing a ring wound the other way (KML does not fix a winding, and
///   writers differ). A ring of fewer than four positions is none: an exterior of three (two
///   places, closed) is written as its line, a hole of three is left out
///   (``TrackWriter/lost(_:as:)`` says so).
/// - One geometry's positions all have the same dimension: `[lon, lat, alt]` only when every
///   position of that geometry has an altitude, otherwise `[lon, lat]` throughout — an altitude
///   is never invented. A geometry is a GeoJSON geometry object: a Polygon's rings or a
///   MultiLineString's lines decide together; each member of a GeometryCollection on its own.
enum GeoJSONWriter {
    static func write(_ track: Track, to out: inout some TextOutputStream) {
        out.write("{\"type\":\"FeatureCollection\",\"features\":[")
        for (index, feature) in track.features.enumerated() {
            if index > 0 { out.write(",") }
            out.write("\n{\"type\":\"Feature\",\"geometry\":")
            if let geometry = feature.geometry {
                writeGeometry(geometry, multiLine: feature.kind == .track, to: &out)
            } else {
                out.write("null")
            }
            out.write(",\"properties\":{")
            var first = true
            func property(_ key: String, _ json: String) {
                out.write((first ? "" : ",") + Format.jsonString(key) + ":" + json)
                first = false
            }
            if let name = feature.name { property("name", Format.jsonString(name)) }
            if let description = feature.description { property("description", Format.jsonString(description)) }
            if let span = feature.timeSpan {
                if span.begin == span.end, let at = span.begin {
                    property("timestamp", Format.jsonString(XSDDateTime.formatCompact(at.timeIntervalSince1970)))
                } else {
                    var parts: [String] = []
                    if let b = span.begin {
                        parts.append(
                            "\"begin\":" + Format.jsonString(XSDDateTime.formatCompact(b.timeIntervalSince1970)))
                    }
                    if let e = span.end {
                        parts.append("\"end\":" + Format.jsonString(XSDDateTime.formatCompact(e.timeIntervalSince1970)))
                    }
                    property("timespan", "{" + parts.joined(separator: ",") + "}")
                }
            }
            for key in feature.properties.keys.sorted() {
                property(key, Format.jsonString(feature.properties[key] ?? ""))
            }
            // Route point times are creation stamps, not passage times: togeojson leaves them out too.
            if feature.kind != .route, let geometry = feature.geometry {
                writeCoordinateProperties(geometry, multiLine: feature.kind == .track, first: first, to: &out)
            }
            out.write("}}")
        }
        out.write("\n]}\n")
    }

    private static func position(_ p: TrackPoint) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        Format.appendPosition(p, separator: UInt8(ascii: ","), to: &bytes)
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `paths` (one geometry's) are written with altitudes: every position has one.
    private static func threeDimensional(_ paths: [TrackPath]) -> Bool {
        paths.allSatisfy { $0.points.allSatisfy { !$0.storedAltitude.isNaN } }
    }

    /// The positions of `path`, in reverse order when `reversed` (a ring rewound).
    private static func line<Stream: TextOutputStream>(
        _ path: TrackPath, altitude: Bool, reversed: Bool = false, to out: inout Stream
    ) {
        var chunk = ChunkedText()
        chunk.bytes.append(UInt8(ascii: "["))
        func append(_ p: TrackPoint, first: Bool) {
            if !first { chunk.bytes.append(UInt8(ascii: ",")) }
            chunk.bytes.append(UInt8(ascii: "["))
            if altitude {
                Format.appendPosition(p, separator: UInt8(ascii: ","), to: &chunk.bytes)
            } else {
                Format.appendNumber(p.longitude, to: &chunk.bytes)
                chunk.bytes.append(UInt8(ascii: ","))
                Format.appendNumber(p.latitude, to: &chunk.bytes)
            }
            chunk.bytes.append(UInt8(ascii: "]"))
            chunk.flushIfFull(to: &out)
        }
        if reversed {
            for (i, p) in path.points.reversed().enumerated() { append(p, first: i == 0) }
        } else {
            for (i, p) in path.points.enumerated() { append(p, first: i == 0) }
        }
        chunk.bytes.append(UInt8(ascii: "]"))
        chunk.flush(to: &out)
    }

    /// The ring's orientation from the sign of its area in the longitude–latitude plane (the
    /// shoelace formula, relative to its first vertex for precision): what RFC 7946 §3.1.6
    /// readers and validators compute. Nil for a ring with no area, which has no winding.
    static func isCounterClockwise(_ ring: TrackPath) -> Bool? {
        guard let origin = ring.points.first else { return nil }
        var twiceArea = 0.0
        var previous = origin
        for p in ring.points.dropFirst() {
            twiceArea +=
                (previous.longitude - origin.longitude) * (p.latitude - origin.latitude)
                - (p.longitude - origin.longitude) * (previous.latitude - origin.latitude)
            previous = p
        }
        return twiceArea == 0 || !twiceArea.isFinite ? nil : twiceArea > 0
    }

    /// `cut`: lines cut at the antimeridian — not a GeometryCollection's, whose
    /// `coordinateProperties` are an array per member with no place for a member cut in two.
    private static func writeGeometry(
        _ geometry: Geometry, multiLine: Bool, cut: Bool = true, to out: inout some TextOutputStream
    ) {
        switch geometry {
        case .point(let p):
            out.write("{\"type\":\"Point\",\"coordinates\":" + position(p) + "}")
        case .lineString(let path), .track(let path):
            writeLines(LineShape([path], cut: cut), to: &out)
        case .polygon(let outer, _) where !outer.isLinearRing:
            // No ring (§3.1.6: four or more positions): its positions as a line or a point.
            writeLines(LineShape([outer], cut: cut), to: &out)
        case .polygon(let outer, let inner):
            out.write("{\"type\":\"Polygon\",\"coordinates\":[")
            let rings = [outer] + inner.filter(\.isLinearRing)
            let altitude = threeDimensional(rings)
            for (i, ring) in rings.enumerated() {
                if i > 0 { out.write(",") }
                // The exterior counter-clockwise, holes clockwise (§3.1.6).
                let reversed = isCounterClockwise(ring).map { $0 != (i == 0) } ?? false
                line(ring, altitude: altitude, reversed: reversed, to: &out)
            }
            out.write("]}")
        case .collection(let parts) where multiLine:
            writeLines(LineShape(parts.flatMap(\.paths), cut: cut), to: &out)
        case .collection(let parts) where parts.count == 1:
            // As togeojson: a MultiGeometry or MultiTrack of one is that geometry.
            writeGeometry(parts[0], multiLine: false, cut: cut, to: &out)
        case .collection(let parts):
            out.write("{\"type\":\"GeometryCollection\",\"geometries\":[")
            for (i, part) in parts.enumerated() {
                if i > 0 { out.write(",") }
                writeGeometry(part, multiLine: false, cut: false, to: &out)
            }
            out.write("]}")
        }
    }

    /// A line geometry as GeoJSON, per ``LineShape``.
    private static func writeLines(_ shape: LineShape, to out: inout some TextOutputStream) {
        switch shape {
        case .lines(let paths) where paths.count == 1:
            out.write("{\"type\":\"LineString\",\"coordinates\":")
            line(paths[0], altitude: threeDimensional(paths), to: &out)
            out.write("}")
        case .lines(let paths):
            out.write("{\"type\":\"MultiLineString\",\"coordinates\":[")
            let altitude = threeDimensional(paths)
            for (i, path) in paths.enumerated() {
                if i > 0 { out.write(",") }
                line(path, altitude: altitude, to: &out)
            }
            out.write("]}")
        case .points(let path) where path.points.isEmpty:
            out.write("null")
        case .points(let path) where path.points.count == 1:
            out.write("{\"type\":\"Point\",\"coordinates\":" + position(path.points[0]) + "}")
        case .points(let path):
            // A MultiPoint's positions are written as a line's are.
            out.write("{\"type\":\"MultiPoint\",\"coordinates\":")
            line(path, altitude: threeDimensional([path]), to: &out)
            out.write("}")
        }
    }

    /// `"coordinateProperties":{"times": […], "<attribute>": […]}` for timed or attributed lines,
    /// written value by value (a million-point track's times are tens of megabytes as one string).
    private static func writeCoordinateProperties<Stream: TextOutputStream>(
        _ geometry: Geometry, multiLine: Bool, first: Bool, to out: inout Stream
    ) {
        let paths: [TrackPath]
        let nested: Bool
        switch geometry {
        case .lineString(let path), .track(let path):
            (paths, nested) = LineShape([path]).coordinatePaths
        case .collection(let parts) where multiLine:
            (paths, nested) = LineShape(parts.flatMap(\.paths)).coordinatePaths
        case .collection(let parts) where parts.count == 1:
            return writeCoordinateProperties(parts[0], multiLine: false, first: first, to: &out)
        case .collection:
            paths = geometry.paths
            nested = true
        case .point, .polygon:
            return
        }
        // The times (when any point is timed), then each attribute by name; null where a point has
        // none, so that a partly timed line keeps the times it has, each beside its position.
        let timed = paths.contains { $0.points.contains { $0.timeIntervalSince1970 != nil } }
        let keys = (timed ? ["times"] : []) + Set(paths.flatMap(\.attributes.keys)).sorted()
        guard !keys.isEmpty else { return }
        out.write((first ? "" : ",") + "\"coordinateProperties\":{")
        for (c, key) in keys.enumerated() {
            out.write((c > 0 ? "," : "") + Format.jsonString(key) + ":")
            if nested { out.write("[") }
            for (p, path) in paths.enumerated() {
                var chunk = ChunkedText()
                chunk.bytes.append(literal: p > 0 ? ",[" : "[")
                // Two loops over concrete column types: a loop generic over the element would be
                // run unspecialized (the writer is generic over its stream), a metadata lookup a value.
                var index = 0
                func separate() {
                    if index > 0 { chunk.bytes.append(UInt8(ascii: ",")) }
                    index += 1
                    chunk.flushIfFull(to: &out)
                }
                if timed && c == 0 {
                    for point in path.points {
                        separate()
                        if let time = point.timeIntervalSince1970 {
                            chunk.bytes.append(UInt8(ascii: "\""))  // a time needs no JSON escaping
                            XSDDateTime.appendCompact(time, to: &chunk.bytes)
                            chunk.bytes.append(UInt8(ascii: "\""))
                        } else {
                            chunk.bytes.append(literal: "null")
                        }
                    }
                } else {
                    var values = (path.attributes[key] ?? []).makeIterator()
                    for _ in 0..<path.points.count {
                        separate()
                        if let value = values.next(), !value.isNaN {
                            Format.appendNumber(value, to: &chunk.bytes)
                        } else {
                            chunk.bytes.append(literal: "null")
                        }
                    }
                }
                chunk.bytes.append(UInt8(ascii: "]"))
                chunk.flush(to: &out)
            }
            if nested { out.write("]") }
        }
        out.write("}")
    }
}

/// What a line geometry (a line, or a GPX track's segments) becomes in GeoJSON, where a line has
/// two or more positions (RFC 7946 §3.1.4).
enum LineShape {
    /// Its lines of two or more points: a LineString, or a MultiLineString when several.
    case lines([TrackPath])
    /// No line of two points: its positions as a Point, a MultiPoint when several, or null.
    case points(TrackPath)

    /// `cut`: each line cut where it crosses the antimeridian (``TrackPath/cutAtAntimeridian()``).
    init(_ paths: [TrackPath], cut: Bool = true) {
        let lines = (cut ? paths.flatMap { $0.cutAtAntimeridian() } : paths).filter { $0.points.count >= 2 }
        self = lines.isEmpty ? .points(Self.joined(paths)) : .lines(lines)
    }

    /// How many one-point segments are left out: those beside a line of two or more points.
    static func droppedSegments(_ paths: [TrackPath]) -> Int {
        guard case .lines = LineShape(paths) else { return 0 }
        return paths.filter { $0.points.count == 1 }.count
    }

    /// The paths `coordinateProperties` lists, and whether as an array per line.
    var coordinatePaths: (paths: [TrackPath], nested: Bool) {
        switch self {
        case .lines(let lines): (lines, lines.count > 1)
        case .points(let path): ([path], false)
        }
    }

    /// Paths of at most one point each, as one path in memory, their values padded with NaN.
    private static func joined(_ paths: [TrackPath]) -> TrackPath {
        guard paths.count != 1 else { return paths[0] }
        let names = Set(paths.flatMap(\.attributes.keys))
        var values: [String: [Double]] = [:]
        for name in names {
            values[name] = paths.flatMap { path in
                let column = path.attributes[name].map { Array($0) } ?? []
                return path.points.indices.map { column.indices.contains($0) ? column[$0] : .nan }
            }
        }
        return TrackPath(
            points: paths.flatMap { Array($0.points) }, attributes: values, altitudeMode: paths.first?.altitudeMode)
    }
}

extension TrackPath {
    /// Whether GeoJSON takes it as a polygon's ring: four or more positions (RFC 7946 §3.1.6; a
    /// KML ring is closed as it is read, so the last is the first).
    var isLinearRing: Bool { points.count >= 4 }

    /// The path in pieces that do not cross 180° (``Geo/Antimeridian``; RFC 7946 §3.1.9), the
    /// point where it crosses on both — its time and altitude interpolated where both ends have
    /// one, no other values (null in `coordinateProperties`). Itself when it does not cross.
    func cutAtAntimeridian() -> [TrackPath] {
        guard Antimeridian.crosses(points.lazy.map(\.longitude)) else { return [self] }
        typealias Position = (point: TrackPoint, index: Int?)
        let positions = points.enumerated().map { Position(point: $0.element, index: $0.offset) }
        let pieces = Antimeridian.cut(positions, longitude: \.point.longitude) { a, b, f, meridian in
            if f == 1 {  // along the meridian: b, on the piece's side
                var point = b.point
                point.longitude = meridian
                return Position(point: point, index: b.index)
            }
            func between(_ x: Double?, _ y: Double?) -> Double? { x.flatMap { x in y.map { x + ($0 - x) * f } } }
            let point = TrackPoint(
                latitude: a.point.latitude + (b.point.latitude - a.point.latitude) * f, longitude: meridian,
                altitude: between(a.point.altitude, b.point.altitude),
                // To the millisecond: a fraction's float noise is no time a receiver wrote.
                time: between(a.point.timeIntervalSince1970, b.point.timeIntervalSince1970).map {
                    Date(timeIntervalSince1970: ($0 * 1_000).rounded() / 1_000)
                })
            return Position(point: point, index: nil)
        }
        let columns = attributes.mapValues { Array($0) }
        return pieces.map { piece in
            TrackPath(
                points: piece.map(\.point),
                attributes: columns.mapValues { column in
                    piece.map { $0.index.flatMap { column.indices.contains($0) ? column[$0] : nil } ?? .nan }
                }, altitudeMode: altitudeMode)
        }
    }
}
