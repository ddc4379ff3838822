import Foundation
import Geo

/// Everything Waypost read from one route file: its features in document order.
///
/// ```swift
/// let track = try TrackReader().read(contentsOf: URL(fileURLWithPath: "tracks/cupertino-walk.kml"))
/// track.features.count
/// track.paths.first?.points.first?.time
/// ```
public struct Track: Sendable, Equatable {
    /// The file's format.
    public var format: TrackFormat
    /// The document's own name (KML `Document/name`, GPX `metadata/name`), if any.
    public var name: String?
    /// Placemarks (KML) or waypoints, routes and tracks (GPX), in document order.
    public var features: [TrackFeature]
    /// What was read in a way the file's own format does not define, `LINE:COLUMN: what`
    /// (e.g. GML-style `<MultiPolygon>` wrappers around KML geometry): shown as warnings.
    public var warnings: [String] = []

    public init(format: TrackFormat, name: String? = nil, features: [TrackFeature] = []) {
        self.format = format
        self.name = name
        self.features = features
    }

    /// Every line of the file in document order — tracks, line strings, routes, polygon
    /// outlines — flattened out of multi-geometries. This is what a replay follows.
    public var paths: [TrackPath] {
        features.flatMap { $0.geometry?.paths ?? [] }
    }

    /// Every single-point geometry (KML Points, GPX waypoints) in document order.
    public var points: [TrackPoint] {
        features.flatMap { $0.geometry?.points ?? [] }
    }

    /// Total number of positions in all geometries.
    public var pointCount: Int {
        features.reduce(0) { $0 + ($1.geometry?.pointCount ?? 0) }
    }
}

/// The formats ``TrackReader`` reads.
public enum TrackFormat: String, Sendable, CaseIterable {
    case kml, kmz, gpx
    /// An NMEA 0183 log (GGA/RMC sentences), as GPS loggers and `waypost replay --nmea` write.
    case nmea
}

/// A KML Placemark, or a GPX waypoint, route or track.
public struct TrackFeature: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case placemark, waypoint, route, track
    }

    public var kind: Kind
    public var name: String?
    public var description: String?
    /// KML TimeStamp (begin == end) or TimeSpan; GPX `time` of a waypoint, route or track.
    public var timeSpan: TimeSpan?
    /// KML ExtendedData `Data`/`SimpleData` values by name.
    public var properties: [String: String]
    /// Names of the enclosing KML Folders and Documents, outermost first.
    public var folders: [String]
    public var geometry: Geometry?

    public init(
        kind: Kind, name: String? = nil, description: String? = nil, timeSpan: TimeSpan? = nil,
        properties: [String: String] = [:], folders: [String] = [], geometry: Geometry? = nil
    ) {
        self.kind = kind
        self.name = name
        self.description = description
        self.timeSpan = timeSpan
        self.properties = properties
        self.folders = folders
        self.geometry = geometry
    }

    /// The instant of a KML TimeStamp (a span whose ends coincide), seconds since 1970: read by
    /// the gpsbabel pairing and by the single-point timeline alike.
    var timeStamp: Double? {
        guard let span = timeSpan, let begin = span.begin, span.end == begin else { return nil }
        return begin.timeIntervalSince1970
    }
}

/// A KML TimeSpan; a TimeStamp is a span whose ends coincide. Either end may be open.
public struct TimeSpan: Sendable, Equatable {
    public var begin: Date?
    public var end: Date?

    public init(begin: Date?, end: Date?) {
        self.begin = begin
        self.end = end
    }
}

/// KML's altitude modes (`altitudeMode`, `gx:altitudeMode`).
public enum AltitudeMode: String, Sendable, CaseIterable {
    case clampToGround, relativeToGround, absolute, clampToSeaFloor, relativeToSeaFloor
}

/// A sequence of positions: a line string, a ring, a GPX segment or route, a gx:Track.
///
/// Its columns are ``SpillColumn``s: a path read from a long file keeps them on disk.
public struct TrackPath: Sendable, Equatable {
    public var points: SpillColumn<TrackPoint>
    /// Per-point numeric values by name (KML `gx:SimpleArrayData`, GPX extension values such as
    /// heart rate or cadence): each column has one entry per point, NaN where a point has none.
    public var attributes: [String: SpillColumn<Double>]
    public var altitudeMode: AltitudeMode?

    public init(
        points: SpillColumn<TrackPoint> = [], attributes: [String: SpillColumn<Double>] = [:],
        altitudeMode: AltitudeMode? = nil
    ) {
        self.points = points
        self.attributes = attributes
        self.altitudeMode = altitudeMode
    }

    /// A path of points held in memory.
    public init(points: [TrackPoint], attributes: [String: [Double]] = [:], altitudeMode: AltitudeMode? = nil) {
        self.init(
            points: SpillColumn(points), attributes: attributes.mapValues { SpillColumn($0) },
            altitudeMode: altitudeMode)
    }

    public static func == (lhs: TrackPath, rhs: TrackPath) -> Bool {
        lhs.points == rhs.points && lhs.altitudeMode == rhs.altitudeMode
            && lhs.attributes.keys == rhs.attributes.keys
            && lhs.attributes.allSatisfy { key, values in
                let other = rhs.attributes[key] ?? []
                return values.count == other.count && values.elementsEqual(other) { $0 == $1 || ($0.isNaN && $1.isNaN) }
            }
    }

    /// Whether every point carries a time.
    public var isTimed: Bool { !points.isEmpty && points.allSatisfy { !$0.storedTime.isNaN } }
}

/// The shape of a feature.
public indirect enum Geometry: Sendable, Equatable {
    case point(TrackPoint)
    case lineString(TrackPath)
    /// The outer boundary, then any inner boundaries (holes).
    case polygon(outer: TrackPath, inner: [TrackPath])
    /// A timed path: KML gx:Track/Track, a GPX track segment, or a GPX route.
    case track(TrackPath)
    /// KML MultiGeometry or MultiTrack, or a GPX track with several segments.
    case collection([Geometry])

    /// Lines in document order, multi-geometries flattened.
    public var paths: [TrackPath] {
        switch self {
        case .point: []
        case .lineString(let path), .track(let path): [path]
        case .polygon(let outer, let inner): [outer] + inner
        case .collection(let parts): parts.flatMap(\.paths)
        }
    }

    /// Single points in document order, multi-geometries flattened.
    public var points: [TrackPoint] {
        switch self {
        case .point(let point): [point]
        case .lineString, .track, .polygon: []
        case .collection(let parts): parts.flatMap(\.points)
        }
    }

    var pointCount: Int {
        switch self {
        case .point: 1
        case .lineString(let path), .track(let path): path.points.count
        case .polygon(let outer, let inner): inner.reduce(outer.points.count) { $0 + $1.points.count }
        case .collection(let parts): parts.reduce(0) { $0 + $1.pointCount }
        }
    }
}

/// What the reader does with a track point earlier than the one before it (`--time-order`):
/// recorders write them (a GPS clock correcting itself, Sports Tracker's exports).
public enum TimeOrder: String, Sendable, CaseIterable {
    /// Refuse the file, naming the point (the default: nothing is guessed).
    case strict
    /// Drop each point earlier than the last one kept.
    case drop
    /// Put each track's points in time order (stable; untimed points stay after their predecessor).
    case sort
}

extension Track {
    /// The track with every timed path transformed by `transform` (polygons are left alone).
    func mappingPaths(_ transform: (TrackPath) -> TrackPath) -> Track {
        var copy = self
        copy.features = features.map { feature in
            var feature = feature
            feature.geometry = feature.geometry.map { $0.mappingPaths(transform) }
            return feature
        }
        return copy
    }
}

extension Geometry {
    func mappingPaths(_ transform: (TrackPath) -> TrackPath) -> Geometry {
        switch self {
        case .point, .polygon: self
        case .lineString(let path): .lineString(transform(path))
        case .track(let path): .track(transform(path))
        case .collection(let parts): .collection(parts.map { $0.mappingPaths(transform) })
        }
    }
}

extension TrackPath {
    /// What becomes of a point when a path is rebuilt (``rebuilt(_:)``).
    enum Fate {
        /// It stays, with its attribute values.
        case keep
        /// It goes, with its attribute values.
        case drop
        /// It goes, and the path is cut there.
        case cut
    }

    /// The path rebuilt in one pass over its columns: the points `fate` keeps (it may change them,
    /// and is given each point's index), with their attribute values, in pieces cut where it says
    /// so; empty pieces are left out. Attribute columns shorter than the path read as NaN.
    func rebuilt(_ fate: (Int, inout TrackPoint) -> Fate) -> [TrackPath] {
        let names = Array(attributes.keys)
        var values = names.map { attributes[$0, default: []].makeIterator() }
        var pieces: [TrackPath] = []
        var piece = TrackPath(points: points.emptyCopy(), altitudeMode: altitudeMode)
        var pieceValues = names.map { _ in SpillColumn<Double>(spillingTo: points.file) }
        func finishPiece() {
            guard !piece.points.isEmpty else { return }
            for (name, column) in zip(names, pieceValues) { piece.attributes[name] = column }
            pieces.append(piece)
            piece = TrackPath(points: points.emptyCopy(), altitudeMode: altitudeMode)
            pieceValues = names.map { _ in SpillColumn<Double>(spillingTo: points.file) }
        }
        for (index, var point) in points.enumerated() {
            let outcome = fate(index, &point)
            if outcome == .cut { finishPiece() }
            if outcome == .keep { piece.points.append(point) }
            for c in values.indices {
                let value = values[c].next() ?? .nan
                if outcome == .keep { pieceValues[c].append(value) }
            }
        }
        finishPiece()
        return pieces
    }

    /// The points `isKept` accepts, in order, with their attribute values.
    func filter(_ isKept: (TrackPoint) -> Bool) -> TrackPath {
        rebuilt { _, point in isKept(point) ? .keep : .drop }.first
            ?? TrackPath(
                points: points.emptyCopy(), attributes: attributes.mapValues { $0.emptyCopy() },
                altitudeMode: altitudeMode)
    }

    /// Without the points earlier than the last timed point kept.
    func droppingBackwardTimes() -> TrackPath {
        var last = -Double.infinity
        func isInOrder(_ point: TrackPoint) -> Bool {
            guard let time = point.timeIntervalSince1970 else { return true }
            if time < last { return false }
            last = time
            return true
        }
        guard !points.allSatisfy(isInOrder) else { return self }
        last = -.infinity
        return filter(isInOrder)
    }

    /// The points in time order, stably; an untimed point sorts with the timed one before it.
    /// Sorting needs the whole path: its columns are read into memory.
    func sortedByTime() -> TrackPath {
        let all = points.map { $0 }
        var key = -Double.infinity
        let keys = all.map { point -> Double in
            key = point.timeIntervalSince1970 ?? key
            return key
        }
        let order = all.indices.sorted { (keys[$0], $0) < (keys[$1], $1) }
        var sorted = TrackPath(points: points.emptyCopy(), altitudeMode: altitudeMode)
        for i in order { sorted.points.append(all[i]) }
        for (name, column) in attributes {
            let values = column.map { $0 }
            var reordered = column.emptyCopy()
            for i in order { reordered.append(values.indices.contains(i) ? values[i] : .nan) }
            sorted.attributes[name] = reordered
        }
        return sorted
    }
}
