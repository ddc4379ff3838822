import Foundation
import TestSupport
import Testing

@testable import Tracks

/// Issue 31 item 2: per-point values (heart rate, cadence, power, temperature, speed, course)
/// survive GPX → GPX and GPX → KML, written where other tools look for them.
struct PointValueTests {
    /// Garmin TrackPointExtension v1 (hr, cad, atemp), a power meter's value in a namespace of
    /// its own, GPX 1.0-style speed and course read from the extension, and a point without values.
    static let garminGPX = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"
          xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1"
          xmlns:pwr="http://www.garmin.com/xmlschemas/PowerExtension/v1">
        <trk><name>ride</name><trkseg>
        <trkpt lat="37.1" lon="-122.1"><ele>10</ele><time>2025-06-07T15:30:00Z</time><extensions>
          <gpxtpx:TrackPointExtension><gpxtpx:atemp>21.5</gpxtpx:atemp><gpxtpx:hr>111</gpxtpx:hr>
          <gpxtpx:cad>85</gpxtpx:cad><gpxtpx:speed>5.25</gpxtpx:speed><gpxtpx:course>12.5</gpxtpx:course>
          </gpxtpx:TrackPointExtension><pwr:PowerInWatts>250</pwr:PowerInWatts></extensions></trkpt>
        <trkpt lat="37.2" lon="-122.2"><ele>11</ele><time>2025-06-07T15:30:01Z</time></trkpt>
        <trkpt lat="37.3" lon="-122.3"><ele>12</ele><time>2025-06-07T15:30:02Z</time><extensions>
          <gpxtpx:TrackPointExtension><gpxtpx:hr>113</gpxtpx:hr></gpxtpx:TrackPointExtension>
          </extensions></trkpt>
        </trkseg></trk></gpx>
        """

    static func write(_ track: Track, as format: ExportFormat) -> String {
        var text = ""
        TrackWriter.write(track, as: format, to: &text)
        return text
    }

    /// Each column's values, NaN as nil so that columns compare.
    static func columns(_ path: TrackPath) -> [String: [Double?]] {
        path.attributes.mapValues { column in column.map { $0.isNaN ? nil : $0 } }
    }

    @Test func gpxToGPXKeepsEveryValueUnderTrackPointExtensionV2OrWaypost() throws {
        let original = try readTrack(Self.garminGPX, name: "ride.gpx")
        let path = try #require(original.paths.first)
        #expect(Set(path.attributes.keys) == ["atemp", "hr", "cad", "speed", "course", "PowerInWatts"])
        let gpx = Self.write(original, as: .gpx)
        #expect(gpx.contains("xmlns:gpxtpx=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v2\""))
        #expect(gpx.contains("xmlns:waypost=\"urn:waypost:gpx:point-values:1\""))
        // TrackPointExtension v2's sequence: atemp, wtemp, depth, hr, cad, speed, course, bearing.
        #expect(
            gpx.contains(
                "<extensions><gpxtpx:TrackPointExtension><gpxtpx:atemp>21.5</gpxtpx:atemp><gpxtpx:hr>111</gpxtpx:hr>"
                    + "<gpxtpx:cad>85</gpxtpx:cad><gpxtpx:speed>5.25</gpxtpx:speed><gpxtpx:course>12.5</gpxtpx:course>"
                    + "</gpxtpx:TrackPointExtension><waypost:PowerInWatts>250</waypost:PowerInWatts></extensions>"),
            "\(gpx)")
        // The point without values has no extensions element.
        #expect(gpx.contains("<time>2025-06-07T15:30:01Z</time></trkpt>"))
        let again = try readTrack(gpx, name: "again.gpx")
        #expect(try Self.columns(#require(again.paths.first)) == Self.columns(path))
        #expect(again.paths.map(\.points) == original.paths.map(\.points))
    }

    @Test func gpxToKMLWritesSimpleArrayDataNamedAsGpsbabelDoes() throws {
        let original = try readTrack(Self.garminGPX, name: "ride.gpx")
        let kml = Self.write(original, as: .kml)
        #expect(kml.contains("<Schema id=\"point-values\">"))
        #expect(
            kml.contains("<gx:SimpleArrayField name=\"heartrate\" type=\"int\"><displayName>Heart Rate</displayName>"))
        #expect(kml.contains("<ExtendedData><SchemaData schemaUrl=\"#point-values\">"))
        #expect(
            kml.contains(
                "<gx:SimpleArrayData name=\"heartrate\">\n<gx:value>111</gx:value>\n<gx:value/>\n<gx:value>113</gx:value>\n"
            ), "\(kml)")
        let again = try readTrack(kml, name: "again.kml")
        let columns = try Self.columns(#require(again.paths.first))
        let expected = try Self.columns(#require(original.paths.first))
        let renamed = [
            "temperature": "atemp", "heartrate": "hr", "cadence": "cad", "speed": "speed", "course": "course",
            "power": "PowerInWatts",
        ]
        #expect(Set(columns.keys) == Set(renamed.keys))
        for (kmlName, gpxName) in renamed { #expect(columns[kmlName] == expected[gpxName], "\(kmlName)") }
        // And KML's names go back to GPX as TrackPointExtension fields.
        let gpx = Self.write(again, as: .gpx)
        #expect(gpx.contains("<gpxtpx:hr>111</gpxtpx:hr>") && gpx.contains("<waypost:power>250</waypost:power>"))
    }

    /// A KML array name that is no XML name goes to GPX as `<waypost:value name="…">` and back.
    @Test func namesThatAreNoXMLNamesRoundTrip() throws {
        let track = Track(
            format: .kml,
            features: [
                TrackFeature(
                    kind: .placemark,
                    geometry: .track(
                        TrackPath(
                            points: [
                                TrackPoint(latitude: 1, longitude: 2, time: Date(timeIntervalSince1970: 0)),
                                TrackPoint(latitude: 1.1, longitude: 2.1, time: Date(timeIntervalSince1970: 1)),
                            ],
                            attributes: ["blood oxygen %": [97, .nan], "xmlish": [1, 2]])))
            ])
        let gpx = Self.write(track, as: .gpx)
        #expect(gpx.contains("<waypost:value name=\"blood oxygen %\">97</waypost:value>"), "\(gpx)")
        let again = try readTrack(gpx, name: "again.gpx")
        #expect(try Self.columns(#require(again.paths.first)) == Self.columns(#require(track.paths.first)))
    }

    /// gpsbabel's own KML of its Garmin-extensions GPX and Waypost's KML of the same GPX carry
    /// the same arrays under the same names.
    @Test(.needsCorpus) func kmlArraysMatchGpsbabelsReferenceKML() throws {
        let source = try TrackReader().read(
            contentsOf: Corpus.url("gpsbabel/reference/track/gpx_garmin_extensions.gpx"))
        let reference = try TrackReader().read(
            contentsOf: Corpus.url("gpsbabel/reference/track/gpx_garmin_extensions-kml_track.kml"))
        let ours = try readTrack(Self.write(source, as: .kml), name: "ours.kml")
        let theirs = try #require(reference.paths.first { !$0.attributes.isEmpty })
        #expect(try Self.columns(#require(ours.paths.first)) == Self.columns(theirs))
    }
}
