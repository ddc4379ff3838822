import Foundation
import Geo
import SimulatedTime
import WaypostSupport

/// One timed position of a replay, with the motion a location fix reports.
///
/// 48 bytes (absent values are NaN inside), since a replay holds one per second of route.
public struct RouteSample: Sendable, Equatable {
    /// The position; always timed.
    public var point: TrackPoint
    @usableFromInline var storedSpeed: Double
    @usableFromInline var storedCourse: Double

    public init(point: TrackPoint, speed: Double? = nil, course: Double? = nil) {
        self.point = point
        self.storedSpeed = speed ?? .nan
        self.storedCourse = course ?? .nan
    }

    /// Metres per second: the file's own value when it has one, else derived from the
    /// neighbouring samples; nil when it cannot be known (a single sample, zero elapsed time).
    @inlinable public var speed: Double? {
        get { storedSpeed.isNaN ? nil : storedSpeed }
        set { storedSpeed = newValue ?? .nan }
    }

    /// Degrees clockwise from true north in [0, 360), the same way; nil when unknown.
    @inlinable public var course: Double? {
        get { storedCourse.isNaN ? nil : storedCourse }
        set { storedCourse = newValue ?? .nan }
    }

    public static func == (lhs: RouteSample, rhs: RouteSample) -> Bool {
        lhs.point == rhs.point && lhs.speed == rhs.speed && lhs.course == rhs.course
    }
}

/// Why a track cannot be turned into a timeline.
public struct RouteTimingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Turns a ``Track`` into the timeline a replay follows.
///
/// - Paths (tracks, line strings, routes, polygon outlines) are followed in document order; a
///   file with no paths is followed through its single points (KML Points, GPX waypoints).
/// - GPX route points carry creation stamps, not passage times (GPX 1.1), so routes are timed
///   like untimed geometry.
/// - Timed points keep their times. Points of a partly timed path get times interpolated by
///   distance between their timed neighbours; leading and trailing untimed points are timed at
///   ``speed``.
/// - Untimed geometry is timed at ``speed`` and sampled along the geodesic every
///   ``sampleInterval`` on one clock, as a receiver reports fixes and as `simctl location` does
///   with `--speed` and `--interval` (``UntimedSampling/clock``); or at each of its own points,
///   long legs cut evenly, for a file handed on (``UntimedSampling/points``). It starts where the previous path ended; untimed geometry before the file's first timed
///   point ends just before that point, so a file's own clock wins; a wholly untimed file starts
///   at ``start``, or at ``defaultStart`` when that is nil.
/// - Paths follow one another: a path that begins before the previous one ended is an error
///   (within a path the reader has already refused times that go backwards). The jump between
///   the end of one path and the start of the next takes one ``sampleInterval``.
///
/// ```swift
/// let timeline = try RouteTiming(speed: 30).timeline(for: track)  // a freeway drive at 108 km/h
/// ```
public struct RouteTiming: Sendable {
    /// Walking pace, m/s: the default speed for untimed geometry.
    public static let walkingSpeed = 1.4
    /// Where untimed routes start when nothing says otherwise: 2025-01-01T00:00:00Z.
    public static let defaultStart = EpochInstant(secondsSince1970: 1_735_689_600)

    /// Travel speed for untimed geometry, m/s.
    public var speed: Double
    /// Time between samples of untimed geometry (with ``UntimedSampling/points``, the longest).
    public var sampleInterval: Seconds
    /// Where untimed geometry is sampled.
    public var untimedSampling: UntimedSampling
    /// Time of the first sample of untimed geometry that nothing else anchors; nil anchors it to
    /// the file's own first time, or ``defaultStart`` for a wholly untimed file.
    public var start: EpochInstant?
    /// Most samples a timeline may have (`--max-fixes`): untimed geometry that would densify into
    /// more is refused before anything is built (a 112-byte line across the world at walking pace
    /// is 14 million fixes). The default, five million, is 58 days at 1 Hz.
    public var maximumSamples: Int

    public static let defaultMaximumSamples = 5_000_000

    /// Where the samples of untimed geometry fall.
    public enum UntimedSampling: Sendable {
        /// Every ``RouteTiming/sampleInterval`` from the path's start, wherever the device has got
        /// to along it, and at its last point: a receiver's fixes, one clock for the whole path.
        /// A stream limited to one fix every N intervals gets every Nth (cut into equal pieces,
        /// a path's samples came a little under an interval apart, and such a stream skipped one
        /// more each time).
        case clock
        /// At each of the path's own points, legs longer than an interval's travel cut into
        /// equal pieces: the route's shape kept for a file handed on (`waypost export`).
        case points
    }

    public init(
        speed: Double = walkingSpeed, sampleInterval: Seconds = Seconds(1), untimedSampling: UntimedSampling = .clock,
        start: EpochInstant? = nil, maximumSamples: Int = defaultMaximumSamples
    ) {
        precondition(speed > 0 && sampleInterval > .zero)
        self.speed = speed
        self.sampleInterval = sampleInterval
        self.untimedSampling = untimedSampling
        self.start = start
        self.maximumSamples = maximumSamples
    }

    /// Whether two runs of points visit the same positions in the same order.
    static func samePositions(_ a: some Sequence<TrackPoint>, _ b: some Sequence<TrackPoint>) -> Bool {
        a.elementsEqual(b) { $0.latitude == $1.latitude && $0.longitude == $1.longitude }
    }

    /// The samples of `track`, or of only its `path`-th path (1-based, in document order), made
    /// all at once: ``timeline(for:path:)`` makes them one at a time.
    public func samples(for track: Track, path selected: Int? = nil) throws(RouteTimingError) -> [RouteSample] {
        Array(try timeline(for: track, path: selected))
    }

    /// The timeline of `track`, or of only its `path`-th path (1-based, in document order). Its
    /// samples are made as it is iterated, so its size is the file's, not the replay's.
    public func timeline(for track: Track, path selected: Int? = nil) throws(RouteTimingError) -> RouteTimeline {
        // GPX route point times are creation stamps, not a timeline: routes are timed by speed.
        var paths = track.features.flatMap { feature in
            let paths = feature.geometry?.paths ?? []
            guard feature.kind == .route else { return paths }
            return paths.map { path in
                var untimed = path
                untimed.points = path.points.mapColumn { point in
                    var point = point
                    point.timeIntervalSince1970 = nil
                    return point
                }
                return untimed
            }
        }
        if let selected {
            guard paths.indices.contains(selected - 1) else {
                let points = paths.isEmpty ? track.points.count : 0
                throw RouteTimingError(
                    message: points > 0
                        ? "there is no path \(selected): the track has only single points (\(points)), "
                            + "replayed in document order without --path"
                        : "there is no path \(selected); the track has \(paths.count)")
            }
            paths = [paths[selected - 1]]
        } else {
            // gpsbabel's `kml,track=1` writes a track twice: a gx:Track with its times and an
            // untimed "Path" line of the same positions, its drawing. Walked as well, the drawing
            // replayed the whole route again at --speed after it (a black-box hunt).
            let timed = paths.filter { $0.points.contains { $0.timeIntervalSince1970 != nil } }
            paths.removeAll { path in
                path.points.allSatisfy { $0.timeIntervalSince1970 == nil }
                    && timed.contains {
                        $0.points.count == path.points.count && Self.samePositions($0.points, path.points)
                    }
            }
        }
        if paths.isEmpty {
            // Single points in document order; a KML Point placemark's TimeStamp times its point,
            // as a GPX waypoint's `time` does (they were replayed untimed from 2025-01-01).
            let points = track.features.flatMap { feature -> [TrackPoint] in
                let points = feature.geometry?.points ?? []
                guard let stamp = feature.timeStamp else { return points }
                return points.map { point in
                    var point = point
                    if point.timeIntervalSince1970 == nil { point.timeIntervalSince1970 = stamp }
                    return point
                }
            }
            if !points.isEmpty { paths = [TrackPath(points: SpillColumn(points))] }
        }
        guard paths.contains(where: { !$0.points.isEmpty }) else {
            throw RouteTimingError(message: "the track has no positions to replay")
        }
        // The geodesic legs of each wholly untimed path (nil for paths with times): measured once,
        // to bound the timeline before anything is built and then to cut it.
        let legs = paths.map { path -> [GeodesicLine]? in
            guard path.points.allSatisfy({ $0.timeIntervalSince1970 == nil }) else { return nil }
            var legs: [GeodesicLine] = []
            var previous: TrackPoint?
            for point in path.points {
                if let previous { legs.append(Geodesic.wgs84.inverse(previous.coordinate, point.coordinate)) }
                previous = point
            }
            return legs
        }
        let count = try checkSize(of: paths, legs: legs)
        var pieces: [RouteTimeline.Piece] = []
        var first: Double?
        var cursor: Double? = nil
        // Untimed pieces placed before any timed one, to be anchored to the file's first time.
        var floating = start == nil ? 0 : -1
        for (index, path) in paths.enumerated() where !path.points.isEmpty {
            let timed = path.points.allSatisfy { $0.timeIntervalSince1970 != nil }
            if floating >= 0, let anchor = path.points.lazy.compactMap(\.timeIntervalSince1970).first {
                if floating > 0, case .densified(let last) = pieces[floating - 1] {
                    let shift = anchor - sampleInterval.seconds - last.end
                    for i in 0..<floating {
                        if case .densified(var piece) = pieces[i] {
                            piece.shift = shift
                            pieces[i] = .densified(piece)
                        }
                    }
                    first = first.map { $0 + shift }
                    cursor = last.end + shift
                }
                floating = -1
            }
            let end: Double
            if timed {
                let begin = path.points[0].storedTime
                if let cursor, begin < cursor {
                    throw RouteTimingError(
                        message:
                            "path \(index + 1) starts at \(XSDDateTime.formatCompact(begin)), before path \(index) ends at \(XSDDateTime.formatCompact(cursor)); take one path at a time with --path N (1…\(paths.count))"
                    )
                }
                pieces.append(.timed(path.points, speeds: path.attributes["speed"], courses: path.attributes["course"]))
                first = first ?? begin
                end = path.points[path.points.count - 1].storedTime
            } else if path.points.contains(where: { $0.timeIntervalSince1970 != nil }) {
                let points = interpolated(path.points.map { $0 }, after: cursor)
                pieces.append(.timed(SpillColumn(points), speeds: nil, courses: nil))
                first = first ?? points[0].storedTime
                end = points[points.count - 1].storedTime
            } else {
                let begin = cursor.map { $0 + sampleInterval.seconds } ?? (start ?? Self.defaultStart).secondsSince1970
                let piece = RouteTimeline.Densified(
                    points: path.points, legs: legs[index] ?? [], begin: begin, speed: speed,
                    interval: sampleInterval.seconds, sampling: untimedSampling)
                pieces.append(.densified(piece))
                first = first ?? begin
                end = piece.end
                if floating >= 0 { floating = pieces.count }
            }
            cursor = end
        }
        return RouteTimeline(pieces: pieces, count: count, span: first.flatMap { a in cursor.map { a...max(a, $0) } })
    }

    /// Refuses, up front, a timeline of more than ``maximumSamples``: wholly untimed paths (those
    /// with `legs`) are counted as ``RouteTimeline`` will sample them; the count is the timeline's.
    private func checkSize(of paths: [TrackPath], legs: [[GeodesicLine]?]) throws(RouteTimingError) -> Int {
        var (count, untimed) = (0.0, false)
        for (path, legs) in zip(paths, legs) where !path.points.isEmpty {
            guard let legs else {
                count += Double(path.points.count)
                continue
            }
            untimed = true
            count += RouteTimeline.Densified.count(
                legs: legs, speed: speed, interval: sampleInterval.seconds, sampling: untimedSampling)
        }
        guard count <= Double(maximumSamples) else {
            // Said of the route it is: a timed track's points are not "untimed geometry at 1.4 m/s".
            throw RouteTimingError(
                message: untimed
                    ? "the route would make \(Int(count)) samples (untimed geometry at \(speed) m/s, one every \(sampleInterval.seconds) s), more than --max-fixes \(maximumSamples); raise it, or replay faster (--speed) or coarser (--sample-interval)"
                    : "the route has \(Int(count)) timed points, more than --max-fixes \(maximumSamples); raise it, or replay one path (--path N)"
            )
        }
        return Int(count)
    }

    /// Fills missing times of a partly timed path by distance between timed neighbours.
    private func interpolated(_ points: [TrackPoint], after cursor: Double?) -> [TrackPoint] {
        var out = points
        var along = [0.0]
        for i in 1..<max(points.count, 1) {
            along.append(along[i - 1] + ShortDistance.distance(points[i - 1].coordinate, points[i].coordinate))
        }
        let known = points.indices.filter { points[$0].timeIntervalSince1970 != nil }
        guard let first = known.first, let last = known.last else { return out }
        for i in 0..<first {
            out[i].storedTime = points[first].storedTime - (along[first] - along[i]) / speed
        }
        for i in (last + 1)..<points.count {
            out[i].storedTime = points[last].storedTime + (along[i] - along[last]) / speed
        }
        for (a, b) in zip(known, known.dropFirst()) where b > a + 1 {
            let t0 = points[a].storedTime
            let t1 = points[b].storedTime
            let span = along[b] - along[a]
            for i in (a + 1)..<b {
                let fraction = span > 0 ? (along[i] - along[a]) / span : Double(i - a) / Double(b - a)
                out[i].storedTime = t0 + (t1 - t0) * fraction
            }
        }
        if let cursor, out[0].storedTime < cursor {
            let shift = cursor + sampleInterval.seconds - out[0].storedTime
            for i in out.indices where points[i].timeIntervalSince1970 == nil { out[i].storedTime += shift }
        }
        return out
    }
}

extension TrackPoint {
    /// The point's position as a ``Coordinate``.
    public var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }
}
