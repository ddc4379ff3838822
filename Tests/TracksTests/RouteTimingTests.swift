import Foundation
import Geo
import SimulatedTime
import TestSupport
import Testing

@testable import Tracks

struct RouteTimingTests {
    /// Two points 1 km apart due north, untimed.
    static let line = Track(
        format: .kml,
        features: [
            TrackFeature(
                kind: .placemark,
                geometry: .lineString(
                    TrackPath(points: [
                        TrackPoint(latitude: 37, longitude: -122),
                        TrackPoint(latitude: 37 + 1000 / 110_986.0, longitude: -122),
                    ])))
        ])

    @Test func untimedGeometryIsTimedAtTheSpeedAndDensified() throws {
        let samples = try RouteTiming(speed: 10, sampleInterval: 1, start: 0).samples(
            for: Self.line)
        let length = Geodesic.wgs84.distance(
            Self.line.paths[0].points[0].coordinate, Self.line.paths[0].points[1].coordinate)
        #expect(abs(length - 1000) < 1)
        // 1 km at 10 m/s, samples at most 1 s apart: 100 legs.
        #expect(samples.count == Int((length / 10).rounded(.up)) + 1)
        #expect(samples.first?.point.timeIntervalSince1970 == 0)
        #expect(abs((samples.last?.point.timeIntervalSince1970 ?? 0) - length / 10) < 1e-9)
        for (a, b) in zip(samples, samples.dropFirst()) {
            let dt = b.point.storedTime - a.point.storedTime
            #expect(dt <= 1 + 1e-9)
            #expect(abs(ShortDistance.distance(a.point.coordinate, b.point.coordinate) - 10 * dt) < 0.01)
        }
        #expect(samples.allSatisfy { abs(($0.speed ?? 0) - 10) < 1e-3 })
        #expect(samples.allSatisfy { abs(($0.course ?? 99) - 0) < 1e-6 })
    }

    /// Untimed geometry is sampled on one clock across its legs, as a receiver reports fixes:
    /// every sample but the last a whole interval after the start, each where the device has got
    /// to by then (corners between ticks are not samples), and the path's last point at its end.
    /// Cut leg by leg into equal pieces, samples came a little under an interval apart and a
    /// stream allowed one fix every N intervals skipped one more each time.
    @Test func untimedPathsAreSampledOnOneClockAcrossLegs() throws {
        // Legs of about 25 m, 10 m and 37 m due north, at 4 m/s: the corners fall between ticks.
        let points = [0.0, 25, 35, 72].map { TrackPoint(latitude: 37 + $0 / 110_986, longitude: -122, altitude: $0) }
        let track = Track(
            format: .kml,
            features: [TrackFeature(kind: .placemark, geometry: .lineString(TrackPath(points: points)))])
        let timeline = try RouteTiming(speed: 4, sampleInterval: 1, start: 0).timeline(for: track)
        let samples = Array(timeline)
        #expect(samples.count == timeline.count)
        let length = zip(points, points.dropFirst()).reduce(0) {
            $0 + Geodesic.wgs84.distance($1.0.coordinate, $1.1.coordinate)
        }
        #expect(samples.count == Int(length / 4) + 2)
        for (index, sample) in samples.dropLast().enumerated() {
            #expect(sample.point.storedTime == Double(index))
            let along = Geodesic.wgs84.distance(points[0].coordinate, sample.point.coordinate)
            #expect(abs(along - 4 * Double(index)) < 0.01)
            #expect(abs((sample.point.altitude ?? -1) - along) < 0.05)
        }
        let last = try #require(samples.last)
        #expect(last.point.coordinate == points[3].coordinate)
        #expect(abs(last.point.storedTime - length / 4) < 1e-9)
        // The corners themselves (25 m, 35 m) are not on the clock.
        #expect(
            !samples.contains {
                $0.point.coordinate == points[1].coordinate || $0.point.coordinate == points[2].coordinate
            })
    }

    /// For a file handed on (`waypost export`), each of the path's own points is a sample and
    /// only longer legs are cut, evenly.
    @Test func untimedPathsSampledAtTheirPointsKeepEveryPoint() throws {
        let points = [0.0, 25, 35, 72].map { TrackPoint(latitude: 37 + $0 / 110_986, longitude: -122) }
        let track = Track(
            format: .kml,
            features: [TrackFeature(kind: .placemark, geometry: .lineString(TrackPath(points: points)))])
        let timeline = try RouteTiming(speed: 4, sampleInterval: 5, untimedSampling: .points, start: 0).timeline(
            for: track)
        let samples = Array(timeline)
        #expect(samples.count == timeline.count)
        // 25 m at 4 m/s is 6.25 s: two pieces; 10 m, one; 37 m, two.
        #expect(samples.count == 6)
        for point in points { #expect(samples.contains { $0.point.coordinate == point.coordinate }) }
    }

    @Test func defaultsAreWalkingFromTheDocumentedStart() throws {
        let samples = try RouteTiming().samples(for: Self.line)
        #expect(samples.first?.point.timeIntervalSince1970 == RouteTiming.defaultStart.secondsSince1970)
        #expect(abs((samples.last?.point.storedTime ?? 0) - samples[0].point.storedTime - 1000 / 1.4) < 1)
    }

    /// A KML Point placemark's TimeStamp times its point, as a GPX waypoint's `time` does: such
    /// points replayed untimed from 2025-01-01 at walking pace (a black-box hunt).
    @Test func pointPlacemarksAreTimedByTheirTimeStamps() throws {
        let placemarks = [("-122,37", "08:00:00"), ("-122,37.001", "08:01:00")].map {
            "<Placemark><TimeStamp><when>2025-06-01T\($1)Z</when></TimeStamp><Point><coordinates>\($0)</coordinates></Point></Placemark>"
        }
        let samples = try RouteTiming().samples(for: try readTrack(kml(placemarks.joined())))
        let times = samples.compactMap(\.point.timeIntervalSince1970)
        #expect(times.first == 1_748_764_800 && times.last == 1_748_764_860, "\(times)")
    }

    /// `--path N` names a line; a file of waypoints has none, and said "the track has 0" of a
    /// file that replays (a black-box hunt).
    @Test func aPathAskedOfSinglePointsSaysHowTheyAreReplayed() throws {
        let track = try readTrack(kml("<Placemark><Point><coordinates>-122,37</coordinates></Point></Placemark>"))
        #expect(throws: RouteTimingError.self) { try RouteTiming().samples(for: track, path: 1) }
        do {
            _ = try RouteTiming().samples(for: track, path: 1)
        } catch {
            #expect(error.message.contains("only single points (1), replayed in document order without --path"))
        }
        #expect(try RouteTiming().samples(for: track).count == 1)
    }

    @Test func partlyTimedPathsAreInterpolatedByDistance() throws {
        var points = (0..<5).map { TrackPoint(latitude: 37 + Double($0) * 0.001, longitude: -122) }
        points[0].timeIntervalSince1970 = 100
        points[4].timeIntervalSince1970 = 140
        let track = Track(
            format: .gpx, features: [TrackFeature(kind: .track, geometry: .track(TrackPath(points: points)))])
        let times = try RouteTiming().samples(for: track).map(\.point.storedTime)
        #expect(times.count == 5)
        for (i, t) in times.enumerated() { #expect(abs(t - (100 + Double(i) * 10)) < 1e-3) }
    }

    @Test func fileSpeedAndCourseWinOverDerivedOnes() throws {
        let path = TrackPath(
            points: [
                TrackPoint(latitude: 37, longitude: -122, time: Date(timeIntervalSince1970: 0)),
                TrackPoint(latitude: 37.001, longitude: -122, time: Date(timeIntervalSince1970: 10)),
            ],
            attributes: ["speed": [3.5, .nan], "course": [.nan, 12]])
        let samples = try RouteTiming().samples(
            for: Track(format: .gpx, features: [TrackFeature(kind: .track, geometry: .track(path))]))
        #expect(samples[0].speed == 3.5)
        #expect(abs((samples[1].speed ?? 0) - 11.0986) < 0.01)
        #expect(samples[1].course == 12)
    }

    @Test(.needsCorpus) func overlappingPathsNeedAChoice() throws {
        let track = try TrackReader().read(contentsOf: Corpus.url("placemark-togeojson/test-data/gxmultitrack.kml"))
        #expect(throws: RouteTimingError.self) { try RouteTiming().samples(for: track) }
        let second = try RouteTiming().samples(for: track, path: 2)
        #expect(second.count == track.paths[1].points.count)
        #expect(throws: RouteTimingError.self) { try RouteTiming().samples(for: track, path: 3) }
    }

    @Test(.needsCorpus) func routeTimesAreNotATimeline() throws {
        // expertgps.gpx's route points carry creation stamps out of order; the route is timed by speed.
        let track = try TrackReader().read(contentsOf: Corpus.url("gpsbabel/reference/expertgps.gpx"))
        let routeIndex = try #require(
            track.features.filter { $0.geometry?.paths.isEmpty == false }.firstIndex { $0.kind == .route })
        let samples = try RouteTiming(speed: 5).samples(for: track, path: routeIndex + 1)
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.point.storedTime <= $1.point.storedTime })
    }

    /// A short line across the world at walking pace would be 28 million fixes: refused before
    /// anything is built, with the count; timed points count as they are.
    @Test func routesOverTheSampleBoundAreRefusedUpFront() throws {
        let world = try readTrack(
            kml("<Placemark><LineString><coordinates>-179,0 0,0 179,0</coordinates></LineString></Placemark>"))
        #expect(throws: RouteTimingError.self) { try RouteTiming().samples(for: world) }
        do {
            _ = try RouteTiming().samples(for: world)
        } catch {
            #expect(error.message.contains("would make 2846") && error.message.contains("--max-fixes 5000000"))
        }
        let fast = try RouteTiming(speed: 1_000, sampleInterval: 3_600, maximumSamples: 100).samples(for: world)
        #expect(fast.count < 100)
    }
}

/// A timeline kept as samples (`materialized()`, for routes many runs follow) is the timeline:
/// the same samples in order, count and span, for timed points over several paths, an untimed
/// path densified at a speed, and samples given as they are.
struct MaterializedTimelineTests {
    static func same(_ timeline: RouteTimeline) {
        let kept = timeline.materialized()
        #expect(Array(kept) == Array(timeline))
        #expect(kept.count == timeline.count && kept.span == timeline.span)
        #expect(Array(kept).count == timeline.count)
    }

    @Test func timedPathsDensifiedPathsAndGivenSamples() throws {
        var timed: [TrackFeature] = []
        for path in 0..<2 {
            let points = (0..<40).map { (index: Int) -> TrackPoint in
                let time = Date(timeIntervalSince1970: Double(path * 100 + index * 2))
                return TrackPoint(
                    latitude: 37 + Double(index) * 0.0003, longitude: -122 + Double(path) * 0.01, time: time)
            }
            timed.append(TrackFeature(kind: .track, geometry: .track(TrackPath(points: points))))
        }
        let timing = RouteTiming(speed: 4, sampleInterval: 1, start: 0)
        Self.same(try timing.timeline(for: Track(format: .gpx, features: timed)))
        Self.same(try timing.timeline(for: RouteTimingTests.line))
        Self.same(RouteTimeline(try timing.samples(for: RouteTimingTests.line)))
        Self.same(RouteTimeline([]))
    }
}
