import Foundation
import Geo
import SimulatedTime

/// A replay's timeline, made sample by sample as it is iterated (see ``RouteTiming``).
///
/// It holds what the file holds — timed points are shared with the ``Track``, untimed paths are
/// kept as their points and geodesic legs — never the samples: densifying a world-scale line at
/// walking pace makes millions of them, and a replay needs only the next one. Speed and course
/// are derived as each sample is made, from the one after it.
///
/// ```swift
/// let timeline = try RouteTiming(speed: 30).timeline(for: track)
/// for sample in timeline { print(sample.point.time!, sample.speed ?? 0) }
/// ```
public struct RouteTimeline: Sequence, Sendable {
    /// One path's stretch of the timeline.
    enum Piece: Sendable {
        /// Samples given as they are (``init(_:)``).
        case samples([RouteSample])
        /// Timed points, with the file's own per-point speed and course where it has them.
        case timed(SpillColumn<TrackPoint>, speeds: SpillColumn<Double>?, courses: SpillColumn<Double>?)
        /// An untimed path timed at `speed` from `begin`, densified along its `legs` so that no two
        /// samples are more than `step` metres apart; `shift` is added to every time afterwards
        /// (geometry placed before the file's first time is moved to end just before it).
        case densified(Densified)
    }

    struct Densified: Sendable {
        var points: SpillColumn<TrackPoint>
        var legs: [GeodesicLine]
        var begin: Double
        var speed: Double
        var step: Double
        var shift = 0.0

        /// The time of the last sample, before the shift: the sum, leg by leg, that the samples follow.
        var end: Double {
            legs.reduce(begin) { $0 + $1.distance / speed }
        }
    }

    let pieces: [Piece]
    /// How many samples iteration makes.
    public let count: Int
    /// The first and last sample times; nil for an empty timeline.
    public let span: ClosedRange<EpochInstant>?

    init(pieces: [Piece], count: Int, span: ClosedRange<Double>?) {
        self.pieces = pieces
        self.count = count
        self.span = span.map {
            EpochInstant(secondsSince1970: $0.lowerBound)...EpochInstant(secondsSince1970: $0.upperBound)
        }
    }

    private init(pieces: [Piece], count: Int, span: ClosedRange<EpochInstant>?) {
        (self.pieces, self.count, self.span) = (pieces, count, span)
    }

    /// A timeline of samples already made (tests, generated routes).
    public init(_ samples: [RouteSample]) {
        var span: ClosedRange<Double>?
        if let first = samples.first?.point.timeIntervalSince1970, let last = samples.last?.point.timeIntervalSince1970
        {
            span = first...Swift.max(first, last)
        }
        self.init(pieces: samples.isEmpty ? [] : [.samples(samples)], count: samples.count, span: span)
    }

    /// The same timeline with its samples made now and kept: for a route many runs follow (a
    /// scenario's trials, a crowd's devices), each then reads them instead of making them again
    /// (the speed and course of every sample, from its neighbours). It holds every sample in
    /// memory, where this one holds the file's points: for routes of moderate length.
    package func materialized() -> RouteTimeline {
        RouteTimeline(pieces: isEmpty ? [] : [.samples(Array(self))], count: count, span: span)
    }

    public var isEmpty: Bool { count == 0 }
    public var underestimatedCount: Int { count }

    public func makeIterator() -> Iterator { Iterator(pieces: pieces) }

    /// Makes the samples of one piece after another.
    public struct Iterator: IteratorProtocol, Sendable {
        private let pieces: [Piece]
        private var pieceIndex = 0
        private var current: PieceCursor?

        init(pieces: [Piece]) {
            self.pieces = pieces
        }

        public mutating func next() -> RouteSample? {
            while true {
                if current == nil {
                    guard pieceIndex < pieces.count else { return nil }
                    current = PieceCursor(pieces[pieceIndex])
                    pieceIndex += 1
                }
                if let sample = current?.next() { return sample }
                current = nil
            }
        }
    }
}

/// The samples of one piece: its raw points, one ahead, with motion derived from neighbours as
/// `RouteTiming` always has (the next sample; the previous one for a path's last).
private struct PieceCursor: Sendable {
    private var raw: RawPoints
    private var speeds: SpillColumn<Double>.Iterator?
    private var courses: SpillColumn<Double>.Iterator?
    private let shift: Double
    private var index = 0
    private var previous: TrackPoint?
    private var upcoming: TrackPoint?
    private var cachedMetric: (latitude: Double, metric: LocalMetric)?
    /// Samples handed over as they are, for ``RouteTimeline/Piece/samples(_:)``.
    private var given: [RouteSample]?

    init(_ piece: RouteTimeline.Piece) {
        switch piece {
        case .samples(let samples):
            (raw, speeds, courses, shift, given) = (.points(SpillColumn().makeIterator()), nil, nil, 0, samples)
        case .timed(let points, let speeds, let courses):
            (raw, self.speeds, self.courses, shift, given) = (
                .points(points.makeIterator()), speeds?.makeIterator(), courses?.makeIterator(), 0, nil
            )
        case .densified(let path):
            (raw, speeds, courses, shift, given) = (.densified(DensifiedPoints(path)), nil, nil, path.shift, nil)
        }
        upcoming = raw.next()
    }

    mutating func next() -> RouteSample? {
        if let given {
            guard index < given.count else { return nil }
            defer { index += 1 }
            return given[index]
        }
        guard let point = upcoming else { return nil }
        upcoming = raw.next()
        var speed: Double? = nil
        var course: Double? = nil
        if let (p, q) = upcoming.map({ (point, $0) }) ?? previous.map({ ($0, point) }) {
            let dt = q.storedTime - p.storedTime
            let metric = LocalMetric.near(p.latitude, cached: &cachedMetric)
            let (north, east) = metric.offset(from: p.coordinate, to: q.coordinate)
            let distance = (north * north + east * east).squareRoot()
            if dt > 0 { speed = distance / dt }
            if distance > 0 {
                let degrees = atan2(east, north) * 180 / .pi
                course = degrees < 0 ? degrees + 360 : degrees
            }
        }
        if let given = speeds?.next(), !given.isNaN { speed = given }
        if let given = courses?.next(), !given.isNaN { course = given }
        previous = point
        index += 1
        var shifted = point
        shifted.storedTime += shift
        return RouteSample(point: shifted, speed: speed, course: course)
    }
}

/// A piece's positions before motion: stored points, or an untimed path densified on the way.
///
/// Two optionals, not an enum: an enum's payload is taken out to be advanced, and the copy left
/// behind shares the iterator's chunk, so reading the next chunk into it copied a megabyte first.
private struct RawPoints: Sendable {
    private var stored: SpillColumn<TrackPoint>.Iterator?
    private var densified: DensifiedPoints?

    static func points(_ points: SpillColumn<TrackPoint>.Iterator) -> RawPoints {
        RawPoints(stored: points, densified: nil)
    }

    static func densified(_ cursor: DensifiedPoints) -> RawPoints {
        RawPoints(stored: nil, densified: cursor)
    }

    mutating func next() -> TrackPoint? {
        stored != nil ? stored?.next() : densified?.next()
    }
}

/// An untimed path timed at its speed and cut along each geodesic leg (`legs[i]` runs from point
/// i to point i + 1) into steps of at most `step` metres; the leg's end is the file's own point.
private struct DensifiedPoints: Sendable {
    private let path: RouteTimeline.Densified
    /// The file's points after `previous`.
    private var points: SpillColumn<TrackPoint>.Iterator
    private var upcoming: TrackPoint?
    private var leg = 0
    private var piece = 0
    private var pieces = 0
    private var time: Double
    private var previous: TrackPoint
    private var started = false

    init(_ path: RouteTimeline.Densified) {
        self.path = path
        time = path.begin
        points = path.points.makeIterator()
        previous = points.next() ?? TrackPoint(latitude: .nan, longitude: .nan)
        previous.storedTime = time
    }

    mutating func next() -> TrackPoint? {
        guard started else {
            started = true
            return previous
        }
        if piece == pieces {
            guard leg < path.legs.count else { return nil }
            pieces = max(1, Int((path.legs[leg].distance / path.step).rounded(.up)))
            piece = 0
            upcoming = points.next()
        }
        piece += 1
        let line = path.legs[leg]
        guard let next = upcoming else { return nil }
        let fraction = Double(piece) / Double(pieces)
        var sample: TrackPoint
        if piece == pieces {
            sample = next
        } else {
            let at = Geodesic.wgs84.direct(
                from: previous.coordinate, azimuth: line.initialAzimuth, distance: line.distance * fraction
            ).coordinate
            sample = TrackPoint(latitude: at.latitude, longitude: at.longitude)
            if let a = previous.altitude, let b = next.altitude { sample.altitude = a + (b - a) * fraction }
        }
        sample.storedTime = time + line.distance * fraction / path.speed
        if piece == pieces {
            time += line.distance / path.speed
            previous = next
            previous.storedTime = time
            leg += 1
        }
        return sample
    }
}
