import Geo
import LocationEvents
import SimulatedTime

/// Recognises visits (`CLVisit`) in a sequence of positions, as a value: a stay within
/// ``LocationManagerConfiguration/visitRadius`` of its centre for at least
/// ``LocationManagerConfiguration/visitMinimumDuration``.
///
/// iOS reports a visit twice (Apple, `CLVisit`): once when the arrival is recognised, with
/// `departureDate` `distantFuture` ("the visit is still in progress"), and again after the
/// device leaves, with both dates. The coordinate is the centre of the stay, and the accuracy
/// the spread of the positions around it.
///
/// ```swift
/// var visits = VisitDetector(configuration: LocationManagerConfiguration())
/// if let visit = visits.observe(fix.coordinate, at: fix.timestamp) { print(visit.isInProgress) }
/// ```
public struct VisitDetector: Sendable {
    public let configuration: LocationManagerConfiguration

    /// The stay being watched: its first instant, a reference point and the running sums of the
    /// positions' offsets from it (metres), from which the centre and spread follow.
    private struct Stay: Sendable {
        var origin: Coordinate
        var metric: LocalMetric
        var since: EpochInstant
        var count = 0.0
        var north = 0.0, east = 0.0, northSquares = 0.0, eastSquares = 0.0
        var arrivalReported = false

        init(origin: Coordinate, since: EpochInstant) {
            self.origin = origin
            self.metric = LocalMetric(latitude: origin.latitude)
            self.since = since
        }

        mutating func add(_ offset: (north: Double, east: Double)) {
            count += 1
            north += offset.north
            east += offset.east
            northSquares += offset.north * offset.north
            eastSquares += offset.east * offset.east
        }

        var centreOffset: (north: Double, east: Double) { (north / count, east / count) }

        var centre: Coordinate {
            let (n, e) = centreOffset
            return Coordinate(
                latitude: origin.latitude + n / metric.metresPerDegreeLatitude,
                longitude: origin.longitude + e / metric.metresPerDegreeLongitude)
        }

        /// Root-mean-square distance of the positions from the centre, metres.
        var spread: Double {
            let (n, e) = centreOffset
            return max(0, northSquares / count - n * n + eastSquares / count - e * e).squareRoot()
        }
    }

    private var stay: Stay?

    public init(configuration: LocationManagerConfiguration) {
        self.configuration = configuration
    }

    /// The device is at `position` at `time`: returns the arrival or departure this completes.
    public mutating func observe(_ position: Coordinate, at time: EpochInstant) -> Visit? {
        guard var current = stay else {
            start(at: position, time: time)
            return nil
        }
        let offset = current.metric.offset(from: current.origin, to: position)
        let (n, e) = current.count > 0 ? current.centreOffset : (0, 0)
        let fromCentre = ((offset.north - n) * (offset.north - n) + (offset.east - e) * (offset.east - e)).squareRoot()
        guard fromCentre <= configuration.visitRadius else {
            start(at: position, time: time)
            return current.arrivalReported ? visit(current, departure: time) : nil
        }
        current.add(offset)
        var arrival: Visit?
        if !current.arrivalReported
            && current.since.seconds(to: time) >= configuration.visitMinimumDuration.seconds - 1e-9
        {
            current.arrivalReported = true
            arrival = visit(current, departure: Visit.distantFuture)
        }
        stay = current
        return arrival
    }

    private mutating func start(at position: Coordinate, time: EpochInstant) {
        var fresh = Stay(origin: position, since: time)
        fresh.add((0, 0))
        stay = fresh
    }

    private func visit(_ stay: Stay, departure: EpochInstant) -> Visit {
        Visit(
            coordinate: stay.centre, horizontalAccuracy: max(stay.spread, configuration.visitMinimumAccuracy),
            arrival: stay.since, departure: departure)
    }
}
