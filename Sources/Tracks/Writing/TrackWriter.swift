import WaypostSupport

/// The formats ``TrackWriter`` writes.
public enum ExportFormat: String, Sendable, CaseIterable {
    case geojson, gpx, kml
}

/// Writes a ``Track`` as GeoJSON (togeojson-compatible), GPX 1.1 or KML 2.2, streaming into
/// any `TextOutputStream`.
///
/// ```swift
/// var out = ""
/// TrackWriter.write(track, as: .geojson, to: &out)
/// ```
///
/// Points, altitudes and times round-trip through every format. GeoJSON also carries names,
/// descriptions, ExtendedData properties and per-point attributes (as togeojson's
/// `coordinateProperties`); GPX and KML carry names, descriptions and times.
public enum TrackWriter {
    public static func write(_ track: Track, as format: ExportFormat, to out: inout some TextOutputStream) {
        switch format {
        case .geojson: GeoJSONWriter.write(track, to: &out)
        case .gpx: GPXWriter.write(track, to: &out)
        case .kml: KMLWriter.write(track, to: &out)
        }
    }

    /// What writing `track` as `format` leaves out because the format has no valid place for it,
    /// one sentence per cause, none when nothing is: a KML line timed at some points and not
    /// others (a LineString, its times dropped), a GeoJSON track's one-point segments.
    public static func lost(_ track: Track, as format: ExportFormat) -> [String] {
        switch format {
        case .gpx: []
        case .kml: partlyTimedLines(track).map { [$0] } ?? []
        case .geojson: [onePointSegments(track), degenerateRings(track)].compactMap { $0 }
        }
    }

    /// Names the lines (routes aside: KML gets no route times) timed at some points only.
    private static func partlyTimedLines(_ track: Track) -> String? {
        var lines: [String] = []
        var perPointValues = false
        for feature in track.features where feature.kind != .route {
            for path in feature.geometry?.paths ?? [] {
                let timed = path.points.reduce(0) { $0 + ($1.timeIntervalSince1970 == nil ? 0 : 1) }
                guard timed > 0, timed < path.points.count else { continue }
                lines.append("\(quoted(feature.name)): \(timed) of \(path.points.count) points")
                perPointValues = perPointValues || !path.attributes.isEmpty
            }
        }
        guard !lines.isEmpty else { return nil }
        return "kml: \(lines.count == 1 ? "a line is" : "\(lines.count) lines are") timed at some points only ("
            + listed(lines) + "): a gx:Track needs a time at every point, so "
            + (lines.count == 1 ? "it is" : "each is") + " written as a LineString, without its times"
            + (perPointValues ? " and per-point values" : "")
    }

    /// Names the polygons with a ring of fewer than four positions, which GeoJSON has no ring for.
    private static func degenerateRings(_ track: Track) -> String? {
        func polygons(_ geometry: Geometry?) -> [(outer: TrackPath, inner: [TrackPath])] {
            switch geometry {
            case .polygon(let outer, let inner): [(outer, inner)]
            case .collection(let parts): parts.flatMap { polygons($0) }
            default: []
            }
        }
        let names = track.features.filter { feature in
            polygons(feature.geometry).contains { !$0.outer.isLinearRing || $0.inner.contains { !$0.isLinearRing } }
        }.map { quoted($0.name) }
        guard !names.isEmpty else { return nil }
        return "geojson: \(names.count == 1 ? "a polygon has" : "\(names.count) polygons have") a ring of fewer than "
            + "four positions (" + listed(names) + "): a GeoJSON ring needs four or more (RFC 7946 §3.1.6), so "
            + "an exterior is written as its line and a hole is left out"
    }

    /// Names the GPX tracks whose one-point segments the GeoJSON leaves out (``LineShape``).
    private static func onePointSegments(_ track: Track) -> String? {
        var dropped = 0
        var names: [String] = []
        for feature in track.features where feature.kind == .track {
            guard case .collection(let parts) = feature.geometry else { continue }
            let count = LineShape.droppedSegments(parts.flatMap(\.paths))
            guard count > 0 else { continue }
            dropped += count
            names.append(quoted(feature.name))
        }
        guard dropped > 0 else { return nil }
        return "geojson: \(dropped == 1 ? "a track segment" : "\(dropped) track segments") of one point left out ("
            + listed(names) + "): a GeoJSON line needs two or more positions (RFC 7946 §3.1.4)"
    }

    private static func quoted(_ name: String?) -> String { name.map { "'\($0)'" } ?? "unnamed" }

    /// The first three, then how many more.
    private static func listed(_ items: [String]) -> String {
        items.prefix(3).joined(separator: "; ") + (items.count > 3 ? "; and \(items.count - 3) more" : "")
    }
}

/// Number and text formatting shared by the writers.
enum Format {
    /// A longitude as GPX takes it: its `longitudeType` is −180 ≤ lon < 180, so 180 (KML's and
    /// GeoJSON's edge, the same meridian) is written −180.
    static func gpxLongitude(_ longitude: Double) -> Double {
        longitude >= 180 ? longitude - 360 : longitude
    }

    /// Shortest text that reads back as the same Double (`156.0` prints as `156`).
    static func number(_ value: Double) -> String {
        var bytes: [UInt8] = []
        appendNumber(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``number(_:)`` appended as UTF-8 (a Double's text is a small string: no allocation).
    static func appendNumber(_ value: Double, to out: inout [UInt8]) {
        ShortestDecimal.append(value, wholeNumbersBare: true, to: &out)
    }

    /// ``number(_:)`` without an exponent, for XML: GPX's coordinates and elevation are XML
    /// Schema's `decimal`, which has none (`9.1697e-05` fails the GPX 1.1 schema).
    static func appendDecimal(_ value: Double, to out: inout [UInt8]) {
        ShortestDecimal.append(value, wholeNumbersBare: true, plain: true, to: &out)
    }

    /// `longitude SEP latitude [SEP altitude]`, GeoJSON's and KML's order.
    static func appendPosition(_ p: TrackPoint, separator: UInt8, to out: inout [UInt8]) {
        appendNumber(p.longitude, to: &out)
        out.append(separator)
        appendNumber(p.latitude, to: &out)
        if let alt = p.altitude {
            out.append(separator)
            appendNumber(alt, to: &out)
        }
    }

    static func jsonString(_ text: String) -> String { JSONEscaping.quoted(text) }
}

/// A text stream that takes UTF-8 bytes as they are: the writers hand it each chunk without
/// making a `String` of it (which checks and copies the bytes). A class, so that the bytes
/// reach the stream a writer was given, not a copy of it.
public protocol ByteOutputStream: AnyObject, TextOutputStream {
    /// Writes `bytes`, which are valid UTF-8.
    func write(bytes: UnsafeRawBufferPointer)
}

/// Bytes gathered for a `TextOutputStream` and handed over 64 KB at a time: the writers' inner
/// loops append digits here rather than making a string per number. Not generic over the
/// stream: the writers run unspecialized (they are generic over it), and a generic buffer type
/// had its metadata looked up on every use.
struct ChunkedText {
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(1 << 16 + 256) }

    mutating func flushIfFull(to out: inout some TextOutputStream) {
        if bytes.count >= 1 << 16 { flush(to: &out) }
    }

    mutating func flush(to out: inout some TextOutputStream) {
        guard !bytes.isEmpty else { return }
        if let sink = out as? any ByteOutputStream {
            bytes.withUnsafeBytes { sink.write(bytes: $0) }
        } else {
            out.write(String(decoding: bytes, as: UTF8.self))
        }
        bytes.removeAll(keepingCapacity: true)
    }
}
