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
        /// An untimed path timed at `speed` from `begin` and sampled as its `sampling` says;
        /// `shift` is added to every time afterwards (geometry placed before the file's first
        /// time is moved to end just before it).
        case densified(Densified)
    }

    struct Densified: Sendable {
        var points: SpillColumn<TrackPoint>
        var legs: [GeodesicLine]
        var begin: Double
        var speed: Double
        /// Seconds between samples (``RouteTiming/sampleInterval``).
        var interval: Double
        var sampling: RouteTiming.UntimedSampling
        var shift = 0.0

        /// The time of the last sample, before the shift: the sum, leg by leg, that the samples follow.
        var end: Double {
            legs.reduce(begin) { $0 + $1.distance / speed }
        }

        /// How many samples the path makes: a Double, so that a count too large for memory is
        /// measured before it is refused.
        static func count(legs: [GeodesicLine], speed: Double, interval: Double, sampling: RouteTiming.UntimedSampling)
            -> Double
        {
            switch sampling {
            case .points:
                let step = speed * interval
                return legs.reduce(1) { $0 + Swift.max(1, ($1.distance / step).rounded(.up)) }
            case .clock:
                let duration = legs.reduce(0) { $0 + $1.distance / speed }
                // A tick within a microsecond of the end is the end itself.
                guard duration > ClockPoints.tolerance else { return 1 }
                return ((duration - ClockPoints.tolerance) / interval).rounded(.up) + 1
            }
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
    /// `upcoming`'s speed and course where its path's timing gives them (clock sampling).
    private var upcomingMotion: RawPoints.Motion?
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
            let raw: RawPoints =
                switch path.sampling {
                case .points: .densified(DensifiedPoints(path))
                case .clock: .clock(ClockPoints(path))
                }
            (self.raw, speeds, courses, shift, given) = (raw, nil, nil, path.shift, nil)
        }
        upcoming = raw.next()
        upcomingMotion = raw.motion
    }

    mutating func next() -> RouteSample? {
        if let given {
            guard index < given.count else { return nil }
            defer { index += 1 }
            return given[index]
        }
        guard let point = upcoming else { return nil }
        let known = upcomingMotion
        upcoming = raw.next()
        upcomingMotion = raw.motion
        var speed: Double? = nil
        var course: Double? = nil
        if let (p, q) = upcoming.map({ (point, $0) }) ?? previous.map({ ($0, point) }) {
            (speed, course) = RouteTimeline.motion(
                from: p, to: q, metric: LocalMetric.near(p.latitude, cached: &cachedMetric))
        }
        if let known {
            speed = known.speed
            course = known.course ?? course
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

extension RouteTimeline {
    /// The motion from `p` to `q` measured in `metric` (a metric near `p`): the distance over
    /// the time (nil without time between them) and the direction, degrees clockwise from true
    /// north in [0, 360) (nil without distance).
    package static func motion(from p: TrackPoint, to q: TrackPoint, metric: LocalMetric) -> (
        speed: Double?, course: Double?
    ) {
        let dt = q.storedTime - p.storedTime
        let (north, east) = metric.offset(from: p.coordinate, to: q.coordinate)
        let distance = (north * north + east * east).squareRoot()
        var course: Double?
        if distance > 0 {
            let degrees = atan2(east, north) * 180 / .pi
            course = degrees < 0 ? degrees + 360 : degrees
        }
        return (dt > 0 ? distance / dt : nil, course)
    }
}

/// A piece's positions before motion: stored points, or an untimed path sampled on the way.
///
/// Optionals, not an enum: an enum's payload is taken out to be advanced, and the copy left
/// behind shares the iterator's chunk, so reading the next chunk into it copied a megabyte first.
private struct RawPoints: Sendable {
    private var stored: SpillColumn<TrackPoint>.Iterator?
    private var densified: DensifiedPoints?
    private var clock: ClockPoints?

    static func points(_ points: SpillColumn<TrackPoint>.Iterator) -> RawPoints {
        RawPoints(stored: points, densified: nil, clock: nil)
    }

    static func densified(_ cursor: DensifiedPoints) -> RawPoints {
        RawPoints(stored: nil, densified: cursor, clock: nil)
    }

    static func clock(_ cursor: ClockPoints) -> RawPoints {
        RawPoints(stored: nil, densified: nil, clock: cursor)
    }

    mutating func next() -> TrackPoint? {
        if stored != nil { return stored?.next() }
        return densified != nil ? densified?.next() : clock?.next()
    }

    /// How the device moves at a point.
    typealias Motion = (speed: Double, course: Double?)

    /// The motion at the point ``next()`` last made, where the path's timing says it: along a
    /// path sampled on a clock, the speed it is timed at and the direction of travel there (a
    /// chord across a corner between two samples is shorter and turned).
    var motion: Motion? { clock?.motion }
}

/// An untimed path timed at its speed and cut along each geodesic leg (`legs[i]` runs from point
/// i to point i + 1) into equal steps no longer than an interval's travel; the leg's end is the
/// file's own point (``RouteTiming/UntimedSampling/points``).
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
            pieces = max(1, Int((path.legs[leg].distance / (path.speed * path.interval)).rounded(.up)))
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

/// An untimed path timed at its speed and sampled on one clock: at `begin` and every interval
/// after, wherever along the geodesic legs the device has got to, then at the path's last point
/// (``RouteTiming/UntimedSampling/clock``).
private struct ClockPoints: Sendable {
    /// Seconds: a tick this close to the path's end is the end.
    static let tolerance = 1e-6

    private let path: RouteTimeline.Densified
    private var points: SpillColumn<TrackPoint>.Iterator
    /// The file's points that bound the current leg.
    private var from: TrackPoint
    private var to: TrackPoint?
    private var leg = 0
    /// Metres along the path where the current leg begins.
    private var legStart = 0.0
    private var tick = 0
    /// Ticks before the end: every sample but the last.
    private let ticks: Int
    private var ended = false
    /// The motion at the last point made.
    private(set) var motion: RawPoints.Motion?

    init(_ path: RouteTimeline.Densified) {
        self.path = path
        points = path.points.makeIterator()
        from = points.next() ?? TrackPoint(latitude: .nan, longitude: .nan)
        to = points.next()
        // Counted, not compared with the end's time: the timeline's size says the same number.
        ticks =
            Int(
                RouteTimeline.Densified.count(
                    legs: path.legs, speed: path.speed, interval: path.interval, sampling: .clock)) - 1
    }

    mutating func next() -> TrackPoint? {
        guard tick < ticks else { return lastPoint() }
        let along = Double(tick) * path.interval * path.speed
        while leg + 1 < path.legs.count, along >= legStart + path.legs[leg].distance, let next = points.next() {
            legStart += path.legs[leg].distance
            leg += 1
            if let to { from = to }
            to = next
        }
        var sample = from
        let into = along - legStart
        motion = nil
        if leg < path.legs.count, let to {
            let line = path.legs[leg]
            var azimuth = line.initialAzimuth
            if into > 0 {
                let at = Geodesic.wgs84.direct(from: from.coordinate, azimuth: line.initialAzimuth, distance: into)
                sample = TrackPoint(latitude: at.coordinate.latitude, longitude: at.coordinate.longitude)
                azimuth = at.finalAzimuth
                if let a = from.altitude, let b = to.altitude, line.distance > 0 {
                    sample.altitude = a + (b - a) * min(1, into / line.distance)
                }
            }
            motion = (path.speed, line.distance > 0 ? Self.course(azimuth) : nil)
        }
        sample.storedTime = path.begin + Double(tick) * path.interval
        tick += 1
        return sample
    }

    /// The path's last point, at the path's end, arriving along the last leg.
    private mutating func lastPoint() -> TrackPoint? {
        guard !ended else { return nil }
        ended = true
        var last = to ?? from
        while let next = points.next() { last = next }
        last.storedTime = path.end
        // A path that goes nowhere (one point, or one point repeated) is not travelled.
        motion =
            ticks > 0 ? path.legs.last.map { (path.speed, $0.distance > 0 ? Self.course($0.finalAzimuth) : nil) } : nil
        return last
    }

    /// An azimuth in (−180, 180] as a course in [0, 360).
    private static func course(_ azimuth: Double) -> Double { azimuth < 0 ? azimuth + 360 : azimuth }
}
