import Foundation
import TestSupport
import Testing

@testable import Tracks

/// Export round trips: what a writer writes, the reader reads back the same.
struct WriterTests {
    static let samples = [
        "placemark-togeojson/test-data/gxtrack.kml",
        "placemark-togeojson/test-data/multigeometry.kml",
        "placemark-togeojson/test-data/polygon.kml",
        "placemark-togeojson/test-data/run.gpx",
        "gpsbabel/reference/track/google_ext.kml",
        "gpsbabel/reference/track/segmented_tracks.gpx",
        "gpxpy/test_files/korita-zbevnica.gpx",
    ]

    @Test(.needsCorpus, arguments: samples, [ExportFormat.gpx, .kml])
    func roundTripsPointsAndTimes(file: String, format: ExportFormat) throws {
        let original = try TrackReader().read(contentsOf: Corpus.url(file))
        var text = ""
        TrackWriter.write(original, as: format, to: &text)
        let again = try TrackReader().read(data: Data(text.utf8), name: "out.\(format.rawValue)")
        #expect(again.points == original.points)
        #expect(again.paths.map(\.points) == original.paths.map(\.points))
        #expect(
            again.features.filter { $0.geometry != nil }.map(\.name)
                == original.features.filter { $0.geometry != nil }.map(\.name))
    }

    @Test(.needsCorpus) func routesExportToKMLAsLines() throws {
        // expertgps.gpx's route-point times are creation stamps out of order: KML gets plain lines.
        let original = try TrackReader().read(contentsOf: Corpus.url("gpsbabel/reference/expertgps.gpx"))
        var text = ""
        TrackWriter.write(original, as: .kml, to: &text)
        let again = try TrackReader().read(data: Data(text.utf8), name: "out.kml")
        #expect(again.paths.map { $0.points.map(\.coordinate) } == original.paths.map { $0.points.map(\.coordinate) })
    }

    @Test(.needsCorpus) func geoJSONRoundTripsThroughJSONSerialization() throws {
        let original = try TrackReader().read(contentsOf: Corpus.url("placemark-togeojson/test-data/gxtrack.kml"))
        var text = ""
        TrackWriter.write(original, as: .geojson, to: &text)
        let json = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let feature = try #require((json["features"] as? [[String: Any]])?.first)
        let geometry = try #require(feature["geometry"] as? [String: Any])
        let coordinates = try #require(geometry["coordinates"] as? [[Double]])
        #expect(coordinates.count == 7)
        #expect(coordinates[0] == [-122.207881, 37.371915, 156])
        let times = (feature["properties"] as? [String: Any])?["coordinateProperties"] as? [String: Any]
        #expect((times?["times"] as? [String])?.first == "2010-05-28T02:02:09Z")
    }

    @Test func escapesText() throws {
        let track = Track(
            format: .kml, name: "A & B",
            features: [
                TrackFeature(
                    kind: .placemark, name: "\"quoted\" <tag>\n\u{1}", properties: ["k": "v&"],
                    geometry: .point(TrackPoint(latitude: 1, longitude: 2)))
            ])
        for format in ExportFormat.allCases {
            var text = ""
            TrackWriter.write(track, as: format, to: &text)
            if format == .geojson {
                #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
                #expect(text.contains("\\u0001"))
            } else {
                let again = try TrackReader().read(data: Data(text.utf8), name: "x")
                #expect(again.features.first?.name?.hasPrefix("\"quoted\" <tag>") == true, "\(format)")
            }
        }
    }

    /// RFC 7946 §3.1.4: a LineString has two or more positions; a one-point track is a Point.
    @Test func aOnePointTrackIsExportedAsAPoint() throws {
        let track = try readTrack(
            "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg><trkpt lat=\"37.3\" lon=\"-122\"><time>2025-06-01T08:00:00Z</time></trkpt></trkseg></trk></gpx>",
            name: "one.gpx")
        var text = ""
        TrackWriter.write(track, as: .geojson, to: &text)
        #expect(text.contains(#""geometry":{"type":"Point","coordinates":[-122,37.3]}"#), "\(text)")
        #expect(!text.contains("LineString"))
    }
}
