import Foundation
import WaypostSupport

/// Builds a ``Track`` from GPX 1.0 and 1.1 events: `wpt`, `rte`/`rtept` and
/// `trk`/`trkseg`/`trkpt`, with `ele`, `time`, `course` and `speed`. Numeric leaf values inside a
/// point's `extensions` (Garmin's `hr`, `cad`, `atemp`…) become per-point attributes named by their
/// local name (`<waypost:value name="N">` by N); other extension content is skipped.
/// Driven by one ``SAXSession`` on one thread: its state is `@exclusivity(unchecked)` for speed.
final class GPXHandler: XMLEventHandler {
    @exclusivity(unchecked) private(set) var track = Track(format: .gpx)

    @exclusivity(unchecked) private var open: [ElementName] = []
    @exclusivity(unchecked) private var feature: TrackFeature?
    @exclusivity(unchecked) private var segments: [TrackPath] = []
    @exclusivity(unchecked) private var path: PathBuilder
    @exclusivity(unchecked) private var lastTime = -Double.infinity
    @exclusivity(unchecked) private(set) var backwards: ReadFailure?
    @exclusivity(unchecked) private var point: TrackPoint?
    @exclusivity(unchecked) private var pointPosition = SourcePosition(line: 0, column: 0)
    @exclusivity(unchecked) private var pointValues: [(String, Double)] = []
    @exclusivity(unchecked) private var extensionDepth = 0
    /// The `name` attribute of the extension leaf being read, when it is a `value`.
    @exclusivity(unchecked) private var valueName: String?
    @exclusivity(unchecked) private var text: TextBuffer

    /// Where long paths' columns go.
    private let file: SpillFile

    init(limits: ReaderLimits, spillingTo file: SpillFile) {
        text = TextBuffer(limit: limits.maximumTextBytes)
        self.file = file
        path = PathBuilder(spillingTo: file)
    }

    private static func isGPX(_ name: ElementName) -> Bool {
        name.namespace == .gpx || name.namespace == .none
    }

    private var parent: Tag? {
        guard let last = open.last, Self.isGPX(last) else { return nil }
        return last.tag
    }

    func startElement(_ name: ElementName, attributes: XMLAttributes, at position: SourcePosition) throws(ReadFailure) {
        defer { open.append(name) }
        if extensionDepth > 0 {
            extensionDepth += 1
            // A leaf's text; replaced if it has children.
            if point != nil {
                text.begin(at: position.afterTag, depth: open.count)
                // Waypost's own `<waypost:value name="…">` for a name that is no XML name.
                valueName = name.local == "value" ? attributes.string("name") : nil
            }
            return
        }
        guard Self.isGPX(name) else { return }
        switch name.tag {
        case .trk, .rte:
            feature = TrackFeature(kind: name.tag == .trk ? .track : .route)
            segments = []
            path = PathBuilder(spillingTo: file)
            lastTime = -.infinity
        case .trkseg:
            path = PathBuilder(spillingTo: file)
            lastTime = -.infinity
        case .wpt, .trkpt, .rtept:
            if name.tag == .wpt { feature = TrackFeature(kind: .waypoint) }
            point = try readPosition(name, attributes, at: position)
            pointPosition = position
            pointValues.removeAll(keepingCapacity: true)
        case .extensions:
            extensionDepth = 1
        case .ele where point != nil, .time where point != nil, .course where point != nil,
            .speed where point != nil:
            text.begin(at: position.afterTag, depth: open.count)
        case .name where [.trk, .rte, .wpt, .metadata, .gpx].contains(parent),
            .desc where feature != nil && point == nil,
            .desc where parent == .wpt:
            text.begin(at: position.afterTag, depth: open.count)
        default:
            break
        }
    }

    /// Throws when a point's course or speed (``PointValue/problem(named:_:)``) is not one a fix can carry.
    private static func check(_ name: String, _ value: Double, at start: SourcePosition) throws(ReadFailure) {
        if let problem = PointValue.problem(named: name, value) {
            throw ReadFailure(kind: .invalid, position: start, message: "<\(name)> \(problem)")
        }
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>, at position: SourcePosition) throws(ReadFailure) {
        if text.isActive { try text.append(bytes, element: open.last?.local ?? "") }
    }

    func endElement(_ name: ElementName, at position: SourcePosition) throws(ReadFailure) {
        open.removeLast()
        let ownsText = text.isActive(at: open.count)
        if extensionDepth > 0 {
            extensionDepth -= 1
            if extensionDepth > 0, ownsText, point != nil {
                let start = text.start
                if let value = text.end({ DecimalParser.parse(Self.trimmed($0)) }) {
                    let name = name.local == "value" ? valueName ?? name.local : name.local
                    try Self.check(name, value, at: start)
                    pointValues.append((name, value))
                }
            }
            return
        }
        guard Self.isGPX(name) else { return }
        switch name.tag {
        case .ele where ownsText:
            point?.storedAltitude = try number(name)
        case .course where ownsText, .speed where ownsText:
            let start = text.start
            let value = try number(name)
            try Self.check(name.local, value, at: start)
            pointValues.append((name.local, value))
        case .time where ownsText:
            let start = text.start
            let parsed = text.end { XSDDateTime.parse($0) }
            guard let parsed else {
                throw ReadFailure(
                    kind: .invalid, position: start,
                    message: "<time> '\(String(decoding: text.bytes.prefix(64), as: UTF8.self))' is not an xsd:dateTime"
                )
            }
            point?.storedTime = parsed
        case .name where ownsText:
            let value = text.end()
            if parent == .metadata || parent == .gpx {
                if track.name == nil { track.name = value }
            } else {
                feature?.name = value
            }
        case .desc where ownsText:
            feature?.description = text.end()
        case .trkpt, .rtept:
            guard let point else { break }
            // Route point times are creation stamps (GPX 1.1), not passage times: no order is implied.
            if name.tag == .trkpt, let time = point.timeIntervalSince1970 {
                if time < lastTime && backwards == nil {
                    backwards = ReadFailure.timeGoesBackwards(time, after: lastTime, at: pointPosition)
                }
                lastTime = time
            }
            if PathBuilder.isLegacyMarker(latitude: point.latitude) {
                // A legacy pause/resume marker ends the segment.
                if !path.points.isEmpty { segments.append(path.build()) }
                path = PathBuilder(spillingTo: file)
                self.point = nil
                break
            }
            let index = path.points.count
            path.append(point)
            for (key, value) in pointValues { path.set(key, value, at: index) }
            self.point = nil
        case .wpt:
            if let point {
                feature?.geometry = .point(point)
                if let time = point.time { feature?.timeSpan = TimeSpan(begin: time, end: time) }
            }
            if let feature { track.features.append(feature) }
            feature = nil
            point = nil
        case .trkseg:
            if !path.points.isEmpty { segments.append(path.build()) }
            path = PathBuilder(spillingTo: file)
        case .rte:
            if !path.points.isEmpty { segments.append(path.build()) }
            fallthrough
        case .trk:
            // A track or route with no points has nothing to replay or export; it is left out.
            if var feature, !segments.isEmpty {
                feature.geometry = segments.count == 1 ? .track(segments[0]) : .collection(segments.map { .track($0) })
                track.features.append(feature)
            }
            feature = nil
            segments = []
        default:
            break
        }
    }

    func finish() throws(ReadFailure) {}

    private func readPosition(_ name: ElementName, _ attributes: XMLAttributes, at position: SourcePosition)
        throws(ReadFailure) -> TrackPoint
    {
        func coordinate(_ key: StaticString, limit: Double) throws(ReadFailure) -> Double {
            guard let bytes = attributes.value(key) else {
                throw ReadFailure(
                    kind: .invalid, position: position, message: "<\(name.local)> has no \(key) attribute")
            }
            guard let value = DecimalParser.parse(Self.trimmed(bytes)) else {
                throw ReadFailure(
                    kind: .invalid, position: position,
                    message:
                        "<\(name.local)> \(key)=\"\(String(decoding: bytes.prefix(64), as: UTF8.self))\" is not a number"
                )
            }
            guard abs(value) <= limit else {
                throw ReadFailure(
                    kind: .invalid, position: position,
                    message: "<\(name.local)> \(key) \(value) is outside [-\(Int(limit)), \(Int(limit))]")
            }
            return value
        }
        // Only a track point can be a legacy pause/resume marker.
        let lat = try coordinate("lat", limit: name.tag == .trkpt ? 200 : 90)
        if !PathBuilder.isLegacyMarker(latitude: lat) && abs(lat) > 90 {
            throw ReadFailure(
                kind: .invalid, position: position, message: "<\(name.local)> lat \(lat) is outside [-90, 90]")
        }
        let lon = try coordinate("lon", limit: 180)
        return TrackPoint(latitude: lat, longitude: lon)
    }

    private func number(_ name: ElementName) throws(ReadFailure) -> Double {
        let start = text.start
        let parsed = text.end { DecimalParser.parse(Self.trimmed($0)) }
        guard let parsed else {
            // An empty <ele/> is common in the wild (togeojson's empty_ele.gpx) and means "unknown".
            if text.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { return .nan }
            throw ReadFailure(
                kind: .invalid, position: start,
                message: "<\(name.local)> '\(String(decoding: text.bytes.prefix(64), as: UTF8.self))' is not a number")
        }
        return parsed
    }

    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var lo = 0
        var hi = bytes.count
        func space(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        while lo < hi, space(bytes[lo]) { lo += 1 }
        while hi > lo, space(bytes[hi - 1]) { hi -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[lo..<hi])
    }
}
