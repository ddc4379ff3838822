import Foundation
import TestSupport
import Testing
import WaypostSupport

@testable import Tracks

/// Issue 31 item 4: gpsbabel writes a track to KML as an untimed LineString after one
/// timestamped Point placemark per track point. Such a file reads as the timed track it is;
/// where the pairing is not certain, as written, with one warning saying why.
struct GpsbabelKMLTests {
    /// A gpsbabel-shaped document: `points` as (lon, lat, time) Point placemarks in a "Points"
    /// folder, then a "Path" placemark holding `line` (one `coordinates` text per LineString).
    static func document(points: [(String, String?)], line: [String]) -> String {
        let placemarks = points.enumerated().map { index, point in
            let stamp = point.1.map { "<TimeStamp><when>\($0)</when></TimeStamp>" } ?? ""
            return
                "<Placemark><name>ride-\(index)</name>\(stamp)<Point><coordinates>\(point.0)</coordinates></Point></Placemark>"
        }
        let lines = line.map { "<LineString><tessellate>1</tessellate><coordinates>\($0)</coordinates></LineString>" }
        let geometry = lines.count == 1 ? lines[0] : "<MultiGeometry>\(lines.joined())</MultiGeometry>"
        return kml(
            """
            <Folder><name>Tracks</name><Folder><name>ride</name>
            <Folder><name>Points</name>
            \(placemarks.joined(separator: "\n"))
            </Folder>
            <Placemark><name>Path</name>\(geometry)</Placemark>
            </Folder></Folder>
            """)
    }

    static let vertices = ["-122.064397,37.374390,29.80", "-122.064423,37.374506,29.80", "-122.064438,37.374586,29.70"]
    static let times = ["2025-06-07T15:30:00Z", "2025-06-07T15:30:02Z", "2025-06-07T15:30:04Z"]

    @Test func theLineTakesThePointsTimes() throws {
        let track = try readTrack(
            Self.document(
                points: Array(zip(Self.vertices, Self.times.map(Optional.some))),
                line: [Self.vertices.joined(separator: " ")]))
        #expect(track.warnings.isEmpty, "\(track.warnings)")
        let path = try #require(track.paths.first)
        #expect(track.paths.count == 1)
        #expect(path.isTimed)
        #expect(path.points.map(\.timeIntervalSince1970) == Self.times.map { XSDDateTime.parse($0) })
        #expect(path.points.map(\.altitude) == [29.8, 29.8, 29.7])
        guard case .track? = track.features.last?.geometry else {
            Issue.record("the Path is a timed track: \(String(describing: track.features.last?.geometry))")
            return
        }
        // The points stay what they were: placemarks (GPX waypoints on export).
        #expect(track.features.count == 4)
    }

    /// A track of several segments: a MultiGeometry of LineStrings, the points numbered through.
    @Test func segmentsTakeTheirTimesInTurn() throws {
        let track = try readTrack(
            Self.document(
                points: Array(zip(Self.vertices, Self.times.map(Optional.some))),
                line: [Self.vertices[0...1].joined(separator: " "), Self.vertices[2]]))
        #expect(track.warnings.isEmpty, "\(track.warnings)")
        #expect(track.paths.map(\.points.count) == [2, 1])
        #expect(track.paths.allSatisfy { $0.isTimed })
        #expect(track.paths[1].points.first?.timeIntervalSince1970 == XSDDateTime.parse(Self.times[2]))
    }

    /// Where the pairing is not certain the line is read as written (untimed), and one warning
    /// says where and why.
    @Test(arguments: [
        // A point missing: 2 points, 3 vertices.
        ([(vertices[0], times[0]), (vertices[1], times[1])] as [(String, String?)], "the line has 3 vertices"),
        // A point elsewhere than its vertex.
        (
            [(vertices[0], times[0]), (vertices[2], times[1]), (vertices[1], times[2])],
            "point 2 is not at the line's vertex 2"
        ),
        // A point without a time.
        ([(vertices[0], times[0]), (vertices[1], nil), (vertices[2], times[2])], "point 2 has no TimeStamp"),
        // Times going backwards.
        (
            [(vertices[0], times[1]), (vertices[1], times[0]), (vertices[2], times[2])],
            "point 2's time is earlier than the one before it"
        ),
    ])
    func anUncertainPairingIsOneWarning(points: [(String, String?)], reason: String) throws {
        let track = try readTrack(Self.document(points: points, line: [Self.vertices.joined(separator: " ")]))
        #expect(track.warnings.count == 1)
        let warning = try #require(track.warnings.first)
        // Where the Path placemark is: after the XML declaration, two folders' starts and the points.
        #expect(warning.hasPrefix("\(6 + points.count):"), "\(warning)")
        #expect(warning.contains(": the \(points.count) Point placemarks before LineString 'Path'"), "\(warning)")
        #expect(warning.contains(reason), "\(warning)")
        #expect(warning.hasSuffix("their times are not used, the line is read untimed"))
        #expect(track.paths.count == 1)
        #expect(track.paths[0].points.allSatisfy { $0.timeIntervalSince1970 == nil })
    }

    /// Placemarks that only happen to come before a line (a single timed stop, untimed
    /// waypoints) are nothing to pair and nothing to warn about.
    @Test func ordinaryPlacemarksBeforeALineAreLeftAlone() throws {
        for points: [(String, String?)] in [
            [(Self.vertices[0], Self.times[0])],
            [(Self.vertices[0], nil), (Self.vertices[1], nil), (Self.vertices[2], nil)],
        ] {
            let track = try readTrack(Self.document(points: points, line: [Self.vertices.joined(separator: " ")]))
            #expect(track.warnings.isEmpty, "\(track.warnings)")
            #expect(track.paths[0].points.allSatisfy { $0.timeIntervalSince1970 == nil })
        }
        // Points in another folder (gpsbabel's "Waypoints") are not the line's.
        let elsewhere = kml(
            """
            <Folder><name>Waypoints</name>
            \(zip(Self.vertices, Self.times).map { "<Placemark><TimeStamp><when>\($1)</when></TimeStamp><Point><coordinates>\($0)</coordinates></Point></Placemark>" }.joined())
            </Folder>
            <Folder><name>Tracks</name><Placemark><name>Path</name><LineString><coordinates>\(Self.vertices.joined(separator: " "))</coordinates></LineString></Placemark></Folder>
            """)
        let track = try readTrack(elsewhere)
        #expect(track.warnings.isEmpty, "\(track.warnings)")
        #expect(!track.paths[0].isTimed)
    }

    /// With `track=1` gpsbabel writes the track twice: a gx:Track, and an untimed "Path" line of
    /// the same positions, its drawing. A replay walked the drawing too — the whole route again
    /// at --speed after the track (a black-box hunt: 12,667 fixes for its GPX's 7,200). Only a
    /// line whose positions are those of a timed track is left out: `--path` still picks it.
    @Test func aLineDrawingATimedTrackIsNotReplayedAgain() throws {
        let when = Self.times.map { "<when>\($0)</when>" }.joined()
        let coords = Self.vertices.map { "<gx:coord>\($0.split(separator: ",").joined(separator: " "))</gx:coord>" }
        func replayed(_ line: [String]) throws -> [RouteSample] {
            let track = try readTrack(
                kml(
                    """
                    <Placemark><name>ride</name><gx:Track>\(when)\(coords.joined())</gx:Track></Placemark>
                    <Placemark><name>Path</name><LineString><coordinates>\(line.joined(separator: " "))</coordinates></LineString></Placemark>
                    """))
            return try RouteTiming().samples(for: track)
        }
        let samples = try replayed(Self.vertices)
        let times = samples.compactMap(\.point.timeIntervalSince1970)
        #expect(times.count == 3 && times.last.map { $0 - times[0] } == 4, "the track's points only: \(times)")
        // Another line is walked after the track, as before; and `--path 2` picks the drawing.
        #expect(try replayed(Array(Self.vertices.reversed())).count > 3)
        let track = try readTrack(
            kml(
                "<Placemark><LineString><coordinates>\(Self.vertices.joined(separator: " "))</coordinates></LineString></Placemark>"
            ))
        #expect(try RouteTiming().samples(for: track, path: 1).count > 1)
    }

    /// gpsbabel's own KML, from its reference files: with `track=1` the times are in a gx:Track
    /// and the LineString beside it stays a drawing (no second timed copy, no warning); the
    /// KML it wrote reads as the GPX it was written from.
    @Test(.needsCorpus) func gpsbabelsReferenceFilesReadAsTheirGPX() throws {
        let kml = try TrackReader().read(contentsOf: Corpus.url("gpsbabel/reference/track/tracks~gpx.kml"))
        #expect(kml.warnings.isEmpty, "\(kml.warnings)")
        #expect(kml.paths.filter { $0.isTimed }.count == 1, "the gx:Track only")
        let gpx = try TrackReader().read(contentsOf: Corpus.url("gpsbabel/reference/track/tracks.gpx"))
        let timed = try #require(kml.paths.first { $0.isTimed })
        let source = try #require(gpx.paths.first)
        #expect(timed.points.map(\.timeIntervalSince1970) == source.points.map(\.timeIntervalSince1970))
        // And a replay of the KML is the GPX's: the drawing beside the gx:Track is not walked.
        #expect(try RouteTiming().samples(for: kml).count == (try RouteTiming().samples(for: gpx).count))

        // Untimed track points (the GPX had no times): nothing to pair, nothing said.
        let untimed = try TrackReader().read(contentsOf: Corpus.url("gpsbabel/reference/track/bounds-test-track.kml"))
        #expect(untimed.warnings.isEmpty, "\(untimed.warnings)")
        // A track timed at four of its 23 points: read untimed, and said so once.
        let partly = try TrackReader().read(contentsOf: Corpus.url("gpsbabel/reference/track/segmented_tracks.kml"))
        #expect(partly.warnings.count == 1, "\(partly.warnings)")
        #expect(partly.warnings.first?.contains("(4 with a TimeStamp)") == true, "\(partly.warnings)")
        #expect(partly.warnings.first?.contains("point 2 has no TimeStamp") == true, "\(partly.warnings)")
        // A GPX route's points carry creation stamps, out of order here: not a passage in time.
        let route = try TrackReader().read(contentsOf: Corpus.url("gpsbabel/reference/earth-expertgps-track.kml"))
        #expect(route.warnings.count == 1, "\(route.warnings)")
        #expect(route.warnings.first?.contains("time is earlier than the one before it") == true)
    }
}
