import Foundation
import WaypostSupport

/// Builds a ``Track`` from KML 2.1–2.3 events (opengis.net and earth.google.com namespaces,
/// Google's gx extensions, or no namespace at all).
/// Driven by one ``SAXSession`` on one thread: its state is `@exclusivity(unchecked)` for speed.
final class KMLHandler: XMLEventHandler {
    @exclusivity(unchecked) private(set) var track = Track(format: .kml)

    /// A geometry element being read.
    private struct Node {
        var tag: Tag
        var position: SourcePosition
        /// A gx:Track's `<gx:coord>`s are its points and its `<when>`s their `times`, paired by
        /// position when the Track ends: Google Earth writes every `<when>` first.
        var path: PathBuilder
        var outer: TrackPath?
        var inner: [TrackPath] = []
        var children: [Geometry] = []
        var lastTime = -Double.infinity
        /// `<when>`s earlier than the one before them, by point index: an error only if both
        /// points keep a position (a pair with an empty `gx:coord` is dropped, time and all).
        var backwardWhens: [(index: Int, position: SourcePosition)] = []
    }

    @exclusivity(unchecked) private var open: [ElementName] = []
    @exclusivity(unchecked) private var containers: [String?] = []
    @exclusivity(unchecked) private var feature: TrackFeature?
    /// Where each feature of ``track`` starts (its `<Placemark>`), for warnings about it.
    @exclusivity(unchecked) private var featureStarts: [SourcePosition] = []
    @exclusivity(unchecked) private var featureStart = SourcePosition(line: 0, column: 0)
    @exclusivity(unchecked) private var nodes: [Node] = []
    @exclusivity(unchecked) private var text: TextBuffer
    @exclusivity(unchecked) private var scanner: CoordinateScanner?
    @exclusivity(unchecked) private var dataName: String?
    @exclusivity(unchecked) private var arrayName: String?
    @exclusivity(unchecked) private var arrayValues: SpillColumn<Double>
    /// Where long paths' columns go.
    private let file: SpillFile

    /// Whether the feature being read has geometry read through a wrapper no KML defines.
    private var wrappedGeometry = false
    /// The first track point that went back in time (see ``TimeOrder``).
    private(set) var backwards: ReadFailure?

    init(limits: ReaderLimits, spillingTo file: SpillFile) {
        text = TextBuffer(limit: limits.maximumTextBytes)
        self.file = file
        arrayValues = SpillColumn(spillingTo: file)
    }

    private static func isKML(_ name: ElementName) -> Bool {
        name.namespace == .kml || name.namespace == .none || name.namespace == .gx
    }

    private var parent: Tag? {
        guard let last = open.last, Self.isKML(last) else { return nil }
        return last.tag
    }

    /// KML 2.2 elements Waypost does not read: geometry inside them (a Point in a Url, in an
    /// Update) is schema-invalid and skipped, as libkml skips it.
    private static let otherKMLElements: Set<String> = [
        "Link", "Url", "Icon", "Region", "LatLonAltBox", "Lod", "LookAt", "Camera", "Style", "StyleMap", "Pair",
        "Snippet", "Model", "Location", "Orientation", "Scale", "ResourceMap", "Alias", "NetworkLink",
        "NetworkLinkControl", "GroundOverlay", "ScreenOverlay", "PhotoOverlay", "LatLonBox", "LatLonQuad",
        "ViewVolume", "ImagePyramid", "Update", "Create", "Delete", "Change", "BalloonStyle", "IconStyle",
        "LabelStyle", "LineStyle", "PolyStyle", "ListStyle", "Schema", "SimpleField", "Tour", "Playlist",
        "FlyTo", "Wait", "AnimatedUpdate", "TourControl", "SoundCue", "ItemIcon", "hotSpot", "overlayXY",
        "screenXY", "rotationXY", "size", "address", "phoneNumber", "Metadata", "open", "visibility",
    ]

    /// The innermost run of elements no KML defines directly around the current position, when
    /// the element holding them is a Placemark or MultiGeometry: what it is called, and that holder.
    private var foreignWrapper: (local: String, holder: Tag)? {
        var index = open.count - 1
        var innermost: String?
        while index >= 0, open[index].tag == .unknown || !Self.isKML(open[index]) {
            if Self.otherKMLElements.contains(open[index].local) && Self.isKML(open[index]) { return nil }
            innermost = innermost ?? open[index].local
            index -= 1
        }
        guard let innermost, index >= 0, [.Placemark, .MultiGeometry].contains(open[index].tag) else { return nil }
        return (innermost, open[index].tag)
    }

    func startElement(_ name: ElementName, attributes: XMLAttributes, at position: SourcePosition) throws(ReadFailure) {
        defer { open.append(name) }
        guard Self.isKML(name) else { return }
        switch name.tag {
        case .Document, .Folder:
            containers.append(nil)
        // Schema-invalid placements (a Placemark inside a TimeStamp, a Point inside a Url) are
        // skipped, as libkml does, rather than clobbering the feature being read.
        case .Placemark where feature == nil && (open.isEmpty || [.kml, .Document, .Folder].contains(parent)):
            feature = TrackFeature(kind: .placemark, folders: containers.compactMap { $0 })
            featureStart = position
            wrappedGeometry = false
        case .Point, .LineString, .LinearRing, .Polygon, .MultiGeometry, .Track, .MultiTrack:
            guard feature != nil else { break }
            if Self.canHold(parent, name.tag) {
                nodes.append(Node(tag: name.tag, position: position, path: PathBuilder(spillingTo: file)))
            } else if let wrapper = foreignWrapper, Self.canHold(wrapper.holder, name.tag) {
                // Wrappers no KML defines (GDAL's GML-style <MultiPolygon><polygonMember>) are
                // read through, not left to swallow the geometry silently; the reader says so.
                nodes.append(Node(tag: name.tag, position: position, path: PathBuilder(spillingTo: file)))
                wrappedGeometry = true
                track.warnings.append(
                    "\(position.line):\(position.column): <\(wrapper.local)> is not a KML element; the <\(name.local)> inside it is read as if it were not there"
                )
            }
        case .coordinates where !nodes.isEmpty:
            scanner = CoordinateScanner(line: position.line, column: position.afterTag.column)
        case .name where [.Placemark, .Document, .Folder].contains(parent),
            .description where parent == .Placemark,
            // A Track's when/coord only while that Track is being read: one outside a Placemark,
            // or inside an unknown element, is skipped as its Track is.
            .when where parent == .TimeStamp || (parent == .Track && nodes.last?.tag == .Track),
            .begin where parent == .TimeSpan, .end where parent == .TimeSpan,
            .altitudeMode where !nodes.isEmpty,
            .coord where parent == .Track && nodes.last?.tag == .Track,
            .value where parent == .Data || parent == .SimpleArrayData,
            .SimpleData:
            text.begin(at: position.afterTag, depth: open.count)
            if name.tag == .SimpleData { dataName = attributes.string("name") }
        case .Data:
            dataName = attributes.string("name")
        case .SimpleArrayData where nodes.last?.tag == .Track:
            arrayName = attributes.string("name")
            arrayValues = SpillColumn(spillingTo: file)
        default:
            break
        }
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>, at position: SourcePosition) throws(ReadFailure) {
        if scanner != nil {
            try scanCoordinates { (scanner, emit) throws(CoordinateScanner.Failure) in
                try scanner.consume(bytes, emit: emit)
            }
        } else if text.isActive {
            try text.append(bytes, element: open.last?.local ?? "")
        }
    }

    func endElement(_ name: ElementName, at position: SourcePosition) throws(ReadFailure) {
        open.removeLast()
        guard Self.isKML(name) else { return }
        let ownsText = text.isActive(at: open.count)
        switch name.tag {
        case .Document, .Folder:
            containers.removeLast()
        case .Placemark
        where feature != nil && nodes.isEmpty && (open.isEmpty || [.kml, .Document, .Folder].contains(parent)):
            if let feature {
                track.features.append(feature)
                featureStarts.append(featureStart)
            }
            feature = nil
        case .coordinates where scanner != nil:
            try scanCoordinates { (scanner, emit) throws(CoordinateScanner.Failure) in try scanner.finish(emit: emit) }
            scanner = nil
        case .Point, .LineString, .LinearRing, .Polygon, .MultiGeometry, .Track, .MultiTrack:
            if nodes.last?.tag == name.tag && feature != nil
                && (Self.canHold(parent, name.tag) || foreignWrapper.map { Self.canHold($0.holder, name.tag) } == true)
            {
                try finishGeometry()
            }
        case .name where ownsText:
            let value = text.end()
            if parent == .Placemark {
                feature?.name = value
            } else if !containers.isEmpty {
                containers[containers.count - 1] = value
                if track.name == nil && parent == .Document { track.name = value }
            }
        case .description where ownsText:
            feature?.description = text.end()
        case .when where ownsText:
            if parent == .Track && text.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
                // An empty <when/> (gpsbabel writes them) keeps its slot: that point is untimed.
                _ = text.end()
                addTrackTime(nil)
                break
            }
            let time = try parseTime(name)
            if parent == .Track {
                try checkOrder(time, at: text.start)
                addTrackTime(time)
            } else {
                feature?.timeSpan = TimeSpan(
                    begin: Date(timeIntervalSince1970: time), end: Date(timeIntervalSince1970: time))
            }
        case .begin where ownsText, .end where ownsText:
            let time = Date(timeIntervalSince1970: try parseTime(name))
            var span = feature?.timeSpan ?? TimeSpan(begin: nil, end: nil)
            if name.tag == .begin { span.begin = time } else { span.end = time }
            feature?.timeSpan = span
        case .altitudeMode where ownsText:
            let value = text.end()
            guard let mode = AltitudeMode(rawValue: value) else {
                throw ReadFailure(
                    kind: .invalid, position: text.start,
                    message:
                        "unknown altitudeMode '\(value)' (expected one of \(AltitudeMode.allCases.map(\.rawValue).joined(separator: ", ")))"
                )
            }
            nodes[nodes.count - 1].path.altitudeMode = mode
        case .coord where ownsText:
            try addTrackCoordinate()
        case .value where ownsText:
            if parent == .SimpleArrayData {
                let start = text.start
                let value = text.end { DecimalParser.parse($0) }
                if let arrayName, let value, let problem = PointValue.problem(named: arrayName, value) {
                    throw ReadFailure(kind: .invalid, position: start, message: "\(arrayName) \(problem)")
                }
                arrayValues.append(value ?? .nan)  // non-numeric per-point values are kept as missing
            } else if let dataName {
                feature?.properties[dataName] = text.end()
            }
        case .SimpleData where ownsText:
            let value = text.end()
            if let dataName { feature?.properties[dataName] = value }
        case .SimpleArrayData where arrayName != nil:
            if let arrayName, !nodes.isEmpty, !arrayValues.isEmpty {
                let k = nodes.count - 1
                if nodes[k].path.attributes[arrayName] == nil {
                    nodes[k].path.attributes[arrayName] = arrayValues
                } else {
                    for (index, value) in arrayValues.enumerated() { nodes[k].path.set(arrayName, value, at: index) }
                }
            }
            arrayName = nil
        default:
            break
        }
    }

    func finish() throws(ReadFailure) {
        TimedPointPairing.apply(to: &track, positions: featureStarts)
    }

    /// Runs `step` on the active coordinate scanner, appending the tuples it completes to the
    /// innermost geometry, and turns its failures into read failures.
    private func scanCoordinates(
        _ step: (inout CoordinateScanner, (Double, Double, Double) -> Void) throws(CoordinateScanner.Failure) -> Void
    ) throws(ReadFailure) {
        guard var active = scanner else { return }
        scanner = nil  // moved out, so the scanner's buffer is not copied on write
        defer { scanner = active }
        do {
            try step(&active) { lon, lat, alt in
                nodes[nodes.count - 1].path.append(TrackPoint(latitude: lat, longitude: lon, altitude: alt))
            }
        } catch {
            throw ReadFailure(
                kind: .invalid, position: SourcePosition(line: error.line, column: error.column), message: error.message
            )
        }
    }

    // MARK: Geometry

    /// Whether KML allows geometry `child` directly inside `parent`.
    private static func canHold(_ parent: Tag?, _ child: Tag) -> Bool {
        switch (parent, child) {
        case (.Placemark, _), (.MultiGeometry, _): true
        case (.MultiTrack, .Track): true
        case (.outerBoundaryIs, .LinearRing), (.innerBoundaryIs, .LinearRing): true
        default: false
        }
    }

    private func finishGeometry() throws(ReadFailure) {
        let node = nodes.removeLast()
        var geometry: Geometry?
        switch node.tag {
        case .Point:
            switch node.path.points.count {
            case 0: geometry = nil
            case 1: geometry = .point(node.path.points[0])
            case let n:
                throw ReadFailure(
                    kind: .invalid, position: node.position, message: "a Point has \(n) coordinates; it takes one")
            }
        case .LineString, .LinearRing:
            var path = node.path.build()
            // A LinearRing is closed by definition (KML 2.2 §10.9): close one written open.
            if node.tag == .LinearRing, let first = path.points.first, path.points.count > 1, path.points.last != first
            {
                path.points.append(first)
                path.attributes = path.attributes.mapValues { column in
                    var closed = column
                    closed.append(column.first ?? .nan)
                    return closed
                }
            }
            geometry = path.points.isEmpty ? nil : .lineString(path)
        case .Polygon:
            geometry = node.outer.map { .polygon(outer: $0, inner: node.inner) }
        case .MultiGeometry, .MultiTrack:
            geometry = node.children.isEmpty ? nil : .collection(node.children)
        case .Track:
            let (whenCount, coordCount) = (node.path.times.count, node.path.points.count)
            if whenCount > 0 && coordCount > 0 && whenCount != coordCount {
                throw ReadFailure(
                    kind: .invalid, position: node.position,
                    message: "a Track has \(whenCount) <when> and \(coordCount) <coord> elements; they pair one to one"
                )
            }
            if !node.backwardWhens.isEmpty && backwards == nil { backwards = orderFailure(of: node) }
            let pieces = node.path.segments()
            geometry = pieces.count > 1 ? .collection(pieces.map { .track($0) }) : pieces.first.map { .track($0) }
        default:
            geometry = nil
        }
        guard let geometry else { return }
        if nodes.isEmpty {
            if feature?.geometry == nil {
                feature?.geometry = geometry
            } else if wrappedGeometry, let first = feature?.geometry {
                // Several geometries read through a wrapper (the members of a <MultiPolygon>).
                if case .collection(let parts) = first {
                    feature?.geometry = .collection(parts + [geometry])
                } else {
                    feature?.geometry = .collection([first, geometry])
                }
            }
            return
        }
        let boundary = open.last?.tag
        switch (nodes[nodes.count - 1].tag, geometry) {
        case (.Polygon, .lineString(let ring)):
            if boundary == .innerBoundaryIs {
                nodes[nodes.count - 1].inner.append(ring)
            } else if nodes[nodes.count - 1].outer == nil {
                nodes[nodes.count - 1].outer = ring
            }
        default:
            nodes[nodes.count - 1].children.append(geometry)
        }
    }

    private func parseTime(_ name: ElementName) throws(ReadFailure) -> Double {
        let start = text.start
        let parsed = text.end { XSDDateTime.parse($0) }
        guard let parsed else {
            let shown = String(decoding: text.bytes.prefix(64), as: UTF8.self)
            throw ReadFailure(
                kind: .invalid, position: start,
                message: "<\(name.local)> '\(shown)' is not an xsd:dateTime (e.g. 2010-05-28T02:02:09Z)")
        }
        return parsed
    }

    /// Notes a `<when>` earlier than the one before it; whether it is an error is known only
    /// once the coordinates are read (``checkOrder(of:)``).
    private func checkOrder(_ time: Double, at position: SourcePosition) throws(ReadFailure) {
        let k = nodes.count - 1
        if time < nodes[k].lastTime { nodes[k].backwardWhens.append((nodes[k].path.times.count, position)) }
        nodes[k].lastTime = time
    }

    /// The first point, of those that keep a position, earlier than the one before it; the error
    /// points at the `<when>` that went backwards at or before it.
    private func orderFailure(of node: Node) -> ReadFailure? {
        var last = -Double.infinity
        // Without any coordinates the times alone are the track, and all of them count.
        let positioned = !node.path.points.isEmpty
        var points = node.path.points.makeIterator()
        for (index, time) in node.path.times.enumerated() {
            let latitude = positioned ? points.next()?.latitude ?? .nan : 0
            guard !latitude.isNaN, !time.isNaN else { continue }
            if time < last {
                let position = node.backwardWhens.last { $0.index <= index }?.position ?? node.position
                return ReadFailure.timeGoesBackwards(time, after: last, at: position)
            }
            last = time
        }
        return nil
    }

    private func addTrackTime(_ time: Double?) {
        nodes[nodes.count - 1].path.times.append(time ?? .nan)
    }

    private func addTrackCoordinate() throws(ReadFailure) {
        let start = text.start
        var values = (Double.nan, Double.nan, Double.nan)
        let count = text.end { NumberList.parse($0, into: &values) }
        guard let count, count == 0 || count >= 2 else {
            let shown = String(decoding: text.bytes.prefix(64), as: UTF8.self)
            throw ReadFailure(
                kind: .invalid, position: start,
                message: "<coord> '\(shown)' is not 'longitude latitude [altitude]'")
        }
        let k = nodes.count - 1
        if count > 0 && PathBuilder.isLegacyMarker(latitude: values.1) {
            // A pause/resume marker cuts the track; its slot stays (unpositioned) so later
            // coordinates pair with the right <when>.
            nodes[k].path.breaks.append(nodes[k].path.points.count)
            values = (.nan, .nan, .nan)
        } else if count > 0 {
            guard values.1 >= -90 && values.1 <= 90 else {
                throw ReadFailure(kind: .invalid, position: start, message: "latitude \(values.1) is outside [-90, 90]")
            }
            guard values.0 >= -180 && values.0 <= 180 else {
                throw ReadFailure(
                    kind: .invalid, position: start, message: "longitude \(values.0) is outside [-180, 180]")
            }
        }
        // An empty <coord/> keeps its slot (so later ones pair with the right <when>) and is dropped at the end.
        var point = TrackPoint(latitude: values.1, longitude: values.0)
        point.storedAltitude = values.2
        nodes[k].path.appendPairingTime(point)
    }
}
