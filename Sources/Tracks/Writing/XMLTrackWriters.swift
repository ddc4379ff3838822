import WaypostSupport

/// GPX 1.1: KML Points become waypoints, routes stay routes, every other line becomes a track
/// (one `trkseg` per line of a multi-geometry; a polygon contributes its rings). Per-point
/// values go in each point's `extensions` as ``PointValue`` lays them out: Garmin's
/// TrackPointExtension v2 where the value is one of its fields, else the Waypost namespace.
enum GPXWriter {
    static func write<Stream: TextOutputStream>(_ track: Track, to out: inout Stream) {
        out.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        let layouts = track.features.flatMap { $0.geometry?.paths ?? [] }.filter { !$0.attributes.isEmpty }
            .map { PointValueLayout(names: $0.attributes.keys) }
        let namespaces =
            (layouts.contains { !$0.trackPointExtension.isEmpty }
                ? " xmlns:gpxtpx=\"\(PointValue.trackPointExtensionV2)\"" : "")
            + (layouts.contains { !$0.waypost.isEmpty } ? " xmlns:waypost=\"\(PointValue.waypostNamespace)\"" : "")
        out.write(
            "<gpx version=\"1.1\" creator=\"Waypost\" xmlns=\"http://www.topografix.com/GPX/1/1\"\(namespaces)>\n")
        if let name = track.name { out.write("<metadata><name>\(XMLEscaping.escape(name))</name></metadata>\n") }
        // GPX 1.1's schema fixes the order of gpx's children (metadata, wpt*, rte*, trk*), while a
        // KML document mixes points and lines freely: one pass per kind, document order within it.
        for feature in track.features {
            for point in feature.geometry?.points ?? [] { writeWaypoint(point, of: feature, to: &out) }
        }
        for feature in track.features where feature.kind == .route { writeLines(of: feature, to: &out) }
        for feature in track.features where feature.kind != .route { writeLines(of: feature, to: &out) }
        out.write("</gpx>\n")
    }

    /// A feature's lines: a route as `rte`, anything else as a `trk` with a `trkseg` per line.
    private static func writeLines<Stream: TextOutputStream>(of feature: TrackFeature, to out: inout Stream) {
        let paths = feature.geometry?.paths ?? []
        guard !paths.isEmpty else { return }
        let isRoute = feature.kind == .route
        out.write(isRoute ? "<rte>" : "<trk>")
        if let name = feature.name { out.write("<name>\(XMLEscaping.escape(name))</name>") }
        if let description = feature.description { out.write("<desc>\(XMLEscaping.escape(description))</desc>") }
        out.write("\n")
        for path in paths {
            if !isRoute { out.write("<trkseg>\n") }
            var chunk = ChunkedText()
            let (open, close) = (
                Array((isRoute ? "<rtept" : "<trkpt").utf8), Array((isRoute ? "</rtept>\n" : "</trkpt>\n").utf8)
            )
            var values = PointValueColumns(path)
            for point in path.points {
                chunk.bytes.append(contentsOf: open)
                appendPoint(point, time: point.timeIntervalSince1970, to: &chunk.bytes)
                values.appendNextGPXExtensions(to: &chunk.bytes)
                chunk.bytes.append(contentsOf: close)
                chunk.flushIfFull(to: &out)
            }
            chunk.flush(to: &out)
            if !isRoute { out.write("</trkseg>\n") }
        }
        out.write(isRoute ? "</rte>\n" : "</trk>\n")
    }

    /// ` lat="…" lon="…"><ele>…</ele><time>…</time>` of a point.
    private static func appendPoint(_ p: TrackPoint, time: Double?, to out: inout [UInt8]) {
        out.append(literal: " lat=\"")
        Format.appendDecimal(p.latitude, to: &out)
        out.append(literal: "\" lon=\"")
        Format.appendDecimal(Format.gpxLongitude(p.longitude), to: &out)
        out.append(literal: "\">")
        if let alt = p.altitude {
            out.append(literal: "<ele>")
            Format.appendDecimal(alt, to: &out)
            out.append(literal: "</ele>")
        }
        if let t = time {
            out.append(literal: "<time>")
            XSDDateTime.appendCompact(t, to: &out)
            out.append(literal: "</time>")
        }
    }

    /// A waypoint: the point, timed by its feature when it has no time of its own, with the
    /// feature's name and description.
    private static func writeWaypoint(_ p: TrackPoint, of feature: TrackFeature, to out: inout some TextOutputStream) {
        var bytes = Array("<wpt".utf8)
        appendPoint(p, time: p.timeIntervalSince1970 ?? feature.timeSpan?.begin?.timeIntervalSince1970, to: &bytes)
        out.write(String(decoding: bytes, as: UTF8.self))
        if let name = feature.name { out.write("<name>\(XMLEscaping.escape(name))</name>") }
        if let description = feature.description { out.write("<desc>\(XMLEscaping.escape(description))</desc>") }
        out.write("</wpt>\n")
    }
}

/// KML 2.2 with Google's gx extension: timed lines become `gx:Track` (`when` + `gx:coord`), lines
/// not timed at every point `LineString` (a one-point line a `Point`), several lines
/// `MultiGeometry` (or `gx:MultiTrack` when every one is timed).
enum KMLWriter {
    static func write(_ track: Track, to out: inout some TextOutputStream) {
        out.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        out.write(
            "<kml xmlns=\"http://www.opengis.net/kml/2.2\" xmlns:gx=\"http://www.google.com/kml/ext/2.2\">\n<Document>\n"
        )
        if let name = track.name { out.write("<name>\(XMLEscaping.escape(name))</name>\n") }
        writeSchema(for: track, to: &out)
        for feature in track.features {
            out.write("<Placemark>\n")
            if let name = feature.name { out.write("<name>\(XMLEscaping.escape(name))</name>\n") }
            if let description = feature.description {
                out.write("<description>\(XMLEscaping.escape(description))</description>\n")
            }
            if let span = feature.timeSpan {
                if span.begin == span.end, let at = span.begin {
                    out.write(
                        "<TimeStamp><when>\(XSDDateTime.formatCompact(at.timeIntervalSince1970))</when></TimeStamp>\n")
                } else {
                    out.write("<TimeSpan>")
                    if let b = span.begin {
                        out.write("<begin>\(XSDDateTime.formatCompact(b.timeIntervalSince1970))</begin>")
                    }
                    if let e = span.end {
                        out.write("<end>\(XSDDateTime.formatCompact(e.timeIntervalSince1970))</end>")
                    }
                    out.write("</TimeSpan>\n")
                }
            }
            if !feature.properties.isEmpty {
                out.write("<ExtendedData>")
                for key in feature.properties.keys.sorted() {
                    out.write(
                        "<Data name=\"\(XMLEscaping.escape(key, attribute: true))\"><value>\(XMLEscaping.escape(feature.properties[key] ?? ""))</value></Data>"
                    )
                }
                out.write("</ExtendedData>\n")
            }
            // KML has no routes; a GPX route's point times are creation stamps, not a timeline.
            if let geometry = feature.geometry { writeGeometry(geometry, timed: feature.kind != .route, to: &out) }
            out.write("</Placemark>\n")
        }
        out.write("</Document>\n</kml>\n")
    }

    /// The id of the Schema that declares the per-point arrays (gpsbabel calls its own `schema`).
    static let schemaID = "point-values"

    /// `<Schema>` declaring a `gx:SimpleArrayField` for every per-point array a timed path of
    /// `track` carries, as Google Earth and gpsbabel declare them; nothing when none does.
    private static func writeSchema(for track: Track, to out: inout some TextOutputStream) {
        var fields: [String: PointValue?] = [:]
        for feature in track.features where feature.kind != .route {
            for path in feature.geometry?.paths ?? [] where !path.attributes.isEmpty && path.isTimed {
                for entry in PointValueLayout(names: path.attributes.keys).kml where fields[entry.arrayName] == nil {
                    fields.updateValue(entry.meaning, forKey: entry.arrayName)
                }
            }
        }
        guard !fields.isEmpty else { return }
        out.write("<Schema id=\"\(schemaID)\">\n")
        for name in fields.keys.sorted() {
            let (type, displayName) = fields[name].flatMap { $0?.kmlField } ?? ("float", name)
            out.write(
                "<gx:SimpleArrayField name=\"\(XMLEscaping.escape(name, attribute: true))\" type=\"\(type)\">"
                    + "<displayName>\(XMLEscaping.escape(displayName))</displayName></gx:SimpleArrayField>\n")
        }
        out.write("</Schema>\n")
    }

    /// A gx:Track's per-point values: `ExtendedData/SchemaData/gx:SimpleArrayData`, one
    /// `gx:value` per point (empty where the point has none).
    private static func writeArrays<Stream: TextOutputStream>(_ path: TrackPath, to out: inout Stream) {
        guard !path.attributes.isEmpty else { return }
        out.write("<ExtendedData><SchemaData schemaUrl=\"#\(schemaID)\">\n")
        var chunk = ChunkedText()
        for entry in PointValueLayout(names: path.attributes.keys).kml {
            chunk.bytes.append(
                contentsOf: Array(
                    "<gx:SimpleArrayData name=\"\(XMLEscaping.escape(entry.arrayName, attribute: true))\">\n".utf8))
            var values = path.attributes[entry.name, default: []].makeIterator()
            for _ in 0..<path.points.count {
                if let value = values.next(), !value.isNaN {
                    chunk.bytes.append(literal: "<gx:value>")
                    Format.appendDecimal(value, to: &chunk.bytes)
                    chunk.bytes.append(literal: "</gx:value>\n")
                } else {
                    chunk.bytes.append(literal: "<gx:value/>\n")
                }
                chunk.flushIfFull(to: &out)
            }
            chunk.bytes.append(literal: "</gx:SimpleArrayData>\n")
        }
        chunk.flush(to: &out)
        out.write("</SchemaData></ExtendedData>\n")
    }

    /// `longitude,latitude[,altitude]`, a KML coordinates tuple.
    private static func tuple(_ p: TrackPoint) -> String {
        var bytes: [UInt8] = []
        Format.appendPosition(p, separator: UInt8(ascii: ","), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// OGC KML 2.2's `altitudeMode` takes clampToGround, relativeToGround and absolute only; the
    /// sea-floor modes are Google's and go in `gx:altitudeMode` (the gx schema's substitute for it).
    private static func altitudeMode(_ path: TrackPath) -> String {
        guard let mode = path.altitudeMode else { return "" }
        switch mode {
        case .clampToGround, .relativeToGround, .absolute: return "<altitudeMode>\(mode.rawValue)</altitudeMode>"
        case .clampToSeaFloor, .relativeToSeaFloor: return "<gx:altitudeMode>\(mode.rawValue)</gx:altitudeMode>"
        }
    }

    /// `<coordinates>lon,lat[,alt] …</coordinates>`, written a chunk at a time.
    private static func writeCoordinates<Stream: TextOutputStream>(_ path: TrackPath, to out: inout Stream) {
        var chunk = ChunkedText()
        chunk.bytes.append(literal: "<coordinates>")
        for (i, point) in path.points.enumerated() {
            if i > 0 { chunk.bytes.append(UInt8(ascii: " ")) }
            Format.appendPosition(point, separator: UInt8(ascii: ","), to: &chunk.bytes)
            chunk.flushIfFull(to: &out)
        }
        chunk.bytes.append(literal: "</coordinates>")
        chunk.flush(to: &out)
    }

    private static func writeGeometry<Stream: TextOutputStream>(
        _ geometry: Geometry, timed: Bool, to out: inout Stream
    ) {
        switch geometry {
        case .point(let p):
            out.write("<Point><coordinates>\(tuple(p))</coordinates></Point>\n")
        case .lineString(let path), .track(let path):
            // A gx:Track's `when` is an xsd:dateTime for every coord: a partly timed line has no
            // gx:Track, and is a LineString (``TrackWriter/lost(_:as:)`` says so).
            if timed && path.isTimed {
                out.write("<gx:Track>" + altitudeMode(path) + "\n")
                var chunk = ChunkedText()
                for p in path.points {
                    chunk.bytes.append(literal: "<when>")
                    XSDDateTime.appendCompact(p.storedTime, to: &chunk.bytes)  // a number: the path is timed
                    chunk.bytes.append(literal: "</when>\n")
                    chunk.flushIfFull(to: &out)
                }
                for p in path.points {
                    chunk.bytes.append(literal: "<gx:coord>")
                    Format.appendPosition(p, separator: UInt8(ascii: " "), to: &chunk.bytes)
                    chunk.bytes.append(literal: "</gx:coord>\n")
                    chunk.flushIfFull(to: &out)
                }
                chunk.flush(to: &out)
                writeArrays(path, to: &out)
                out.write("</gx:Track>\n")
            } else if path.points.count == 1, let point = path.points.first {
                // A LineString has two or more coordinates (OGC KML 2.2, 07-147r2 §10.7.3.4): one is a Point.
                out.write("<Point>" + altitudeMode(path) + "<coordinates>\(tuple(point))</coordinates></Point>\n")
            } else {
                out.write("<LineString>" + altitudeMode(path))
                writeCoordinates(path, to: &out)
                out.write("</LineString>\n")
            }
        case .polygon(let outer, let inner):
            out.write("<Polygon>" + altitudeMode(outer))
            out.write("<outerBoundaryIs><LinearRing>")
            writeCoordinates(outer, to: &out)
            out.write("</LinearRing></outerBoundaryIs>")
            for ring in inner {
                out.write("<innerBoundaryIs><LinearRing>")
                writeCoordinates(ring, to: &out)
                out.write("</LinearRing></innerBoundaryIs>")
            }
            out.write("</Polygon>\n")
        case .collection(let parts):
            let allTimed =
                timed
                && parts.allSatisfy { part in
                    if case .track(let path) = part { return path.isTimed }
                    return false
                }
            out.write(allTimed ? "<gx:MultiTrack>\n" : "<MultiGeometry>\n")
            for part in parts { writeGeometry(part, timed: timed, to: &out) }
            out.write(allTimed ? "</gx:MultiTrack>\n" : "</MultiGeometry>\n")
        }
    }
}

/// A path's attribute columns read along with its points, for the GPX writer.
struct PointValueColumns {
    private let layout: PointValueLayout
    private var extensionValues: [SpillColumn<Double>.Iterator]
    private var waypostValues: [SpillColumn<Double>.Iterator]
    /// `<gpxtpx:hr>` and `</gpxtpx:hr>` of each TrackPointExtension column, made once.
    private let extensionTags: [(open: [UInt8], close: [UInt8])]
    private let waypostTags: [(open: [UInt8], close: [UInt8])]

    init(_ path: TrackPath) {
        layout = PointValueLayout(names: path.attributes.keys)
        extensionValues = layout.trackPointExtension.map { path.attributes[$0.name, default: []].makeIterator() }
        waypostValues = layout.waypost.map { path.attributes[$0, default: []].makeIterator() }
        extensionTags = layout.trackPointExtension.map {
            (Array("<gpxtpx:\($0.field)>".utf8), Array("</gpxtpx:\($0.field)>".utf8))
        }
        waypostTags = layout.waypost.map { name in
            PointValue.isXMLName(name)
                ? (Array("<waypost:\(name)>".utf8), Array("</waypost:\(name)>".utf8))
                : (
                    Array("<waypost:value name=\"\(XMLEscaping.escape(name, attribute: true))\">".utf8),
                    Array("</waypost:value>".utf8)
                )
        }
    }

    /// The next point's `<extensions>…</extensions>`, nothing when it has no value.
    mutating func appendNextGPXExtensions(to out: inout [UInt8]) {
        guard !extensionValues.isEmpty || !waypostValues.isEmpty else { return }
        let standard = extensionValues.indices.map { extensionValues[$0].next() ?? .nan }
        let own = waypostValues.indices.map { waypostValues[$0].next() ?? .nan }
        guard standard.contains(where: { !$0.isNaN }) || own.contains(where: { !$0.isNaN }) else { return }
        out.append(literal: "<extensions>")
        if standard.contains(where: { !$0.isNaN }) {
            out.append(literal: "<gpxtpx:TrackPointExtension>")
            for (value, tags) in zip(standard, extensionTags) where !value.isNaN {
                out.append(contentsOf: tags.open)
                Format.appendDecimal(value, to: &out)
                out.append(contentsOf: tags.close)
            }
            out.append(literal: "</gpxtpx:TrackPointExtension>")
        }
        for (value, tags) in zip(own, waypostTags) where !value.isNaN {
            out.append(contentsOf: tags.open)
            Format.appendDecimal(value, to: &out)
            out.append(contentsOf: tags.close)
        }
        out.append(literal: "</extensions>")
    }
}
