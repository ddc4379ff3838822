import Foundation
import TestSupport
import Testing

@testable import Tracks

/// Exports that their format's own rules accept, whatever the source's shape: element order,
/// altitude modes, times and lines of one point.
struct ExportValidityTests {
    static func export(_ track: Track, as format: ExportFormat) -> String {
        var text = ""
        TrackWriter.write(track, as: format, to: &text)
        return text
    }

    /// Where each of `tags` starts in `text`, in order of appearance, as (offset, tag).
    static func occurrences(of tags: [String], in text: String) -> [(offset: Int, tag: String)] {
        tags.flatMap { tag in
            text.ranges(of: tag).map { (text.distance(from: text.startIndex, to: $0.lowerBound), tag) }
        }
        .sorted { $0.offset < $1.offset }
    }

    // MARK: GPX: wpt, then rte, then trk

    /// A line placemark before a point placemark, and a MultiGeometry of a Point and a line.
    static let linesBeforePoints = kml(
        """
        <Placemark><name>walk</name><LineString><coordinates>-122.03,37.33 -122.02,37.34</coordinates></LineString></Placemark>
        <Placemark><name>cafe</name><Point><coordinates>-122.025,37.335</coordinates></Point></Placemark>
        <Placemark><name>mixed</name><MultiGeometry><Point><coordinates>-122.03,37.33,5</coordinates></Point>
        <LineString><coordinates>-122.03,37.33 -122.02,37.34</coordinates></LineString></MultiGeometry></Placemark>
        <Placemark><name>park</name><Point><coordinates>-122.01,37.32</coordinates></Point></Placemark>
        """)

    /// GPX 1.1's schema (gpx.xsd, `gpxType`) is a sequence: `metadata?, wpt*, rte*, trk*,
    /// extensions?`. A KML document mixes points and lines in any order; the GPX lists every
    /// waypoint first, then routes, then tracks, each kind in document order.
    /// GPX's `longitudeType` is −180 ≤ lon < 180; KML allows 180, the same meridian: a point and
    /// a line there were written `lon="180"`, which the GPX 1.1 schema refuses.
    @Test func theAntimeridianIsMinus180InGPX() throws {
        let track = try readTrack(
            kml(
                """
                <Placemark><Point><coordinates>180,10</coordinates></Point></Placemark>
                <Placemark><LineString><coordinates>179.5,10 180,10.5</coordinates></LineString></Placemark>
                """))
        let gpx = Self.export(track, as: .gpx)
        #expect(!gpx.contains("lon=\"180\""), "\(gpx)")
        #expect(gpx.components(separatedBy: "lon=\"-180\"").count == 3, "\(gpx)")
    }

    @Test func waypointsComeBeforeRoutesAndTracks() throws {
        var track = try readTrack(Self.linesBeforePoints)
        // A route among them (a GPX source's), after the KML's features.
        track.features.insert(
            TrackFeature(
                kind: .route, name: "errand",
                geometry: .track(
                    TrackPath(points: [
                        TrackPoint(latitude: 37.3, longitude: -122), TrackPoint(latitude: 37.31, longitude: -122),
                    ]))), at: 1)
        let gpx = Self.export(track, as: .gpx)
        let order = Self.occurrences(of: ["<wpt", "<rte>", "<trk>"], in: gpx).map(\.tag)
        #expect(order == ["<wpt", "<wpt", "<wpt", "<rte>", "<trk>", "<trk>"], "\(gpx)")
        let names = gpx.matches(of: /<name>([^<]*)<\/name>/).map { String($0.1) }
        #expect(names == ["cafe", "mixed", "park", "errand", "walk", "mixed"], "\(gpx)")
        // Nothing lost on the way: the reader gets every point and line back.
        let again = try readTrack(gpx, name: "out.gpx")
        #expect(again.points == track.points)
        #expect(again.paths.count == 3)
    }

    /// The same file and the corpus KML files that interleave points and lines (gpsbabel's own
    /// KML of expertgps.gpx, togeojson's multitrack.kml…) validate against the GPX 1.1 schema
    /// (Topografix's gpx.xsd) with xmllint. Before, each failed "Element 'wpt': This element is
    /// not expected".
    @Test(.needsCorpus, .enabled(if: XMLSchema.xmllintAvailable, "needs xmllint (libxml2-utils)"))
    func gpxOfInterleavedKMLValidatesAgainstGPX11Schema() throws {
        let schema = try Corpus.url("schemas/gpx-1.1.xsd")
        var documents = [("line-then-point.kml", Self.export(try readTrack(Self.linesBeforePoints), as: .gpx))]
        for file in [
            "gpsbabel/reference/earth-expertgps-track.kml", "placemark-togeojson/test-data/multitrack.kml",
            "gpsbabel/reference/track/segmented_tracks.kml", "gpsbabel/reference/realtime.kml",
        ] {
            documents.append((file, Self.export(try TrackReader().read(contentsOf: Corpus.url(file)), as: .gpx)))
        }
        for (name, gpx) in documents {
            let errors = try XMLSchema.errors(validating: gpx, against: schema)
            #expect(errors.isEmpty, "\(name): \(errors.prefix(400))")
        }
    }

    // MARK: KML: altitude modes

    /// OGC KML 2.2 (07-147r2 §16.3, `kml:altitudeModeEnumType`) allows clampToGround,
    /// relativeToGround and absolute; the sea-floor modes are Google's `gx:altitudeModeEnumType`
    /// and go in `<gx:altitudeMode>` (which stands in for `kml:altitudeModeGroup`).
    @Test(arguments: [AltitudeMode.relativeToSeaFloor, .clampToSeaFloor])
    func seaFloorModesAreWrittenAsGxAltitudeMode(mode: AltitudeMode) throws {
        let track = try readTrack(
            kml(
                """
                <Placemark><name>reef</name><LineString><gx:altitudeMode>\(mode.rawValue)</gx:altitudeMode>
                <coordinates>19,37,5 19,41,5</coordinates></LineString></Placemark>
                <Placemark><name>buoy</name><Point><gx:altitudeMode>\(mode.rawValue)</gx:altitudeMode>
                <coordinates>19,37,5</coordinates></Point></Placemark>
                """))
        let text = Self.export(track, as: .kml)
        #expect(!text.contains("<altitudeMode>\(mode.rawValue)"), "\(text)")
        #expect(
            text.contains("<LineString><gx:altitudeMode>\(mode.rawValue)</gx:altitudeMode><coordinates>"), "\(text)")
        #expect(text.contains(#"xmlns:gx="http://www.google.com/kml/ext/2.2""#))
        let again = try readTrack(text)
        #expect(again.paths.map(\.altitudeMode) == [mode])
    }

    /// OGC's own modes stay in `<altitudeMode>`.
    @Test func ogcAltitudeModesStayInAltitudeMode() throws {
        let track = try readTrack(
            kml(
                "<Placemark><LineString><altitudeMode>absolute</altitudeMode><coordinates>19,37,5 19,41,5</coordinates></LineString></Placemark>"
            ))
        #expect(Self.export(track, as: .kml).contains("<LineString><altitudeMode>absolute</altitudeMode>"))
    }

    // MARK: Partly timed lines

    static let partlyTimed = """
        <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>t</name><trkseg>
        <trkpt lat="37.330" lon="-122.03"><time>2025-01-01T00:00:00Z</time></trkpt>
        <trkpt lat="37.331" lon="-122.03"></trkpt>
        <trkpt lat="37.332" lon="-122.03"><time>2025-01-01T00:02:00Z</time></trkpt>
        </trkseg></trk></gpx>
        """

    /// A gx:Track's `when` is a `kml:dateTimeType` for each `gx:coord` (KML 2.2 gx extension,
    /// `gx:Track`; an empty `<when/>` is no dateTime), so a line timed at some points only is a
    /// LineString, as docs/route-formats.md says of untimed lines — its times dropped, said once.
    @Test func aPartlyTimedTrackIsALineStringInKML() throws {
        let track = try readTrack(Self.partlyTimed, name: "part.gpx")
        let text = Self.export(track, as: .kml)
        #expect(!text.contains("<when/>"), "\(text)")
        #expect(!text.contains("gx:Track"), "\(text)")
        #expect(text.contains("<LineString><coordinates>-122.03,37.33 -122.03,37.331 -122.03,37.332</coordinates>"))
        let lost = TrackWriter.lost(track, as: .kml)
        #expect(lost.count == 1)
        #expect(lost.first?.contains("'t': 2 of 3 points") == true, "\(lost)")
        #expect(lost.first?.contains("LineString, without its times") == true, "\(lost)")
        #expect(TrackWriter.lost(track, as: .gpx).isEmpty)
    }

    /// A fully timed segment beside a partly timed one stays a gx:Track; only the partial one is
    /// a LineString (a MultiGeometry holds both: `gx:MultiTrack` is for tracks only).
    @Test func aTimedSegmentBesideAPartlyTimedOneStaysATrack() throws {
        let track = try readTrack(
            """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>t</name>
            <trkseg><trkpt lat="37.3" lon="-122"><time>2025-01-01T00:00:00Z</time></trkpt>
            <trkpt lat="37.31" lon="-122"><time>2025-01-01T00:01:00Z</time></trkpt></trkseg>
            <trkseg><trkpt lat="37.32" lon="-122"><time>2025-01-01T00:02:00Z</time></trkpt>
            <trkpt lat="37.33" lon="-122"/></trkseg>
            </trk></gpx>
            """, name: "two.gpx")
        let text = Self.export(track, as: .kml)
        #expect(text.contains("<MultiGeometry>\n<gx:Track>"), "\(text)")
        #expect(text.components(separatedBy: "<when>").count == 3, "\(text)")
        #expect(text.contains("<LineString><coordinates>-122,37.32 -122,37.33</coordinates></LineString>"))
        #expect(!text.contains("<when/>"))
    }

    /// togeojson's `coordinateProperties.times` is a foreign member (RFC 7946 §6.1), an array
    /// beside the positions: a partly timed line keeps the times it has, null where a point has
    /// none — as the writer already writes attributes — rather than losing all of them.
    @Test func aPartlyTimedTrackKeepsItsTimesInGeoJSON() throws {
        let track = try readTrack(Self.partlyTimed, name: "part.gpx")
        let text = Self.export(track, as: .geojson)
        #expect(
            text.contains(#""coordinateProperties":{"times":["2025-01-01T00:00:00Z",null,"2025-01-01T00:02:00Z"]}"#),
            "\(text)")
        #expect(TrackWriter.lost(track, as: .geojson).isEmpty)
    }

    // MARK: Lines of one point

    /// RFC 7946 §3.1.4: a LineString's (and each MultiLineString line's) "coordinates" has two or
    /// more positions. A GPX track's one-point segment is left out, as togeojson leaves it out
    /// (its expected output of blue_hills.gpx); one line left is a LineString, and its times stay
    /// beside its positions.
    @Test func aOnePointSegmentIsLeftOutOfGeoJSONLines() throws {
        let track = try readTrack(
            """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>t</name>
            <trkseg><trkpt lat="37.33" lon="-122.03"><time>2025-01-01T00:00:00Z</time></trkpt>
            <trkpt lat="37.331" lon="-122.03"><time>2025-01-01T00:01:00Z</time></trkpt></trkseg>
            <trkseg><trkpt lat="37.332" lon="-122.03"><time>2025-01-01T00:02:00Z</time></trkpt></trkseg>
            </trk></gpx>
            """, name: "oneptseg.gpx")
        let text = Self.export(track, as: .geojson)
        #expect(
            text.contains(
                #""geometry":{"type":"LineString","coordinates":[[-122.03,37.33],[-122.03,37.331]]}"#), "\(text)")
        #expect(
            text.contains(#""coordinateProperties":{"times":["2025-01-01T00:00:00Z","2025-01-01T00:01:00Z"]}"#),
            "\(text)")
        let lost = TrackWriter.lost(track, as: .geojson)
        #expect(
            lost == [
                "geojson: a track segment of one point left out ('t'): a GeoJSON line needs two or more positions (RFC 7946 §3.1.4)"
            ])
    }

    /// Two lines stay a MultiLineString without the one-point segment between them, and every
    /// per-point array keeps one entry per kept position.
    @Test func aMultiLineStringKeepsItsLinesOfTwoOrMore() throws {
        let track = try readTrack(
            """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>t</name>
            <trkseg><trkpt lat="1" lon="2"><time>2025-01-01T00:00:00Z</time></trkpt><trkpt lat="3" lon="4"><time>2025-01-01T00:01:00Z</time></trkpt></trkseg>
            <trkseg><trkpt lat="5" lon="6"><time>2025-01-01T00:02:00Z</time></trkpt></trkseg>
            <trkseg><trkpt lat="7" lon="8"><time>2025-01-01T00:03:00Z</time></trkpt><trkpt lat="9" lon="10"><time>2025-01-01T00:04:00Z</time></trkpt></trkseg>
            </trk></gpx>
            """, name: "t.gpx")
        let text = Self.export(track, as: .geojson)
        #expect(text.contains(#""type":"MultiLineString","coordinates":[[[2,1],[4,3]],[[8,7],[10,9]]]"#), "\(text)")
        #expect(
            text.contains(
                #""times":[["2025-01-01T00:00:00Z","2025-01-01T00:01:00Z"],["2025-01-01T00:03:00Z","2025-01-01T00:04:00Z"]]"#
            ), "\(text)")
    }

    /// A line along the antimeridian, written 180° then −180° (KML allows both), is a line on
    /// one side of it — it was cut into two one-point pieces and exported as a MultiPoint — and
    /// its second position keeps its own time.
    @Test func aLineAlongTheAntimeridianStaysALine() throws {
        let track = try readTrack(
            """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>t</name>
            <trkseg><trkpt lat="0" lon="180"><time>2025-01-01T00:00:00Z</time></trkpt><trkpt lat="1" lon="-180"><time>2025-01-01T00:01:00Z</time></trkpt></trkseg>
            </trk></gpx>
            """, name: "t.gpx")
        let text = Self.export(track, as: .geojson)
        #expect(text.contains(#""geometry":{"type":"LineString","coordinates":[[180,0],[180,1]]}"#), "\(text)")
        #expect(text.contains(#""times":["2025-01-01T00:00:00Z","2025-01-01T00:01:00Z"]"#), "\(text)")
    }

    /// RFC 7946 §3.1.6: a ring has four or more positions. A KML ring of two places (closed: three
    /// positions) was written as a Polygon no GeoJSON reader takes; it is its line, a hole of
    /// two places is left out, and the export says so. A ring of three places closed on reading
    /// stays a Polygon.
    @Test func aRingOfFewerThanFourPositionsIsNoPolygon() throws {
        func ring(_ coordinates: String) -> String {
            "<LinearRing><coordinates>\(coordinates)</coordinates></LinearRing>"
        }
        let track = try readTrack(
            kml(
                """
                <Placemark><name>open</name><Polygon><outerBoundaryIs>\(ring("0,0 1,0 1,1"))</outerBoundaryIs></Polygon></Placemark>
                <Placemark><name>flat</name><Polygon><outerBoundaryIs>\(ring("0,0 1,0 0,0"))</outerBoundaryIs></Polygon></Placemark>
                <Placemark><name>hole</name><Polygon><outerBoundaryIs>\(ring("0,0 4,0 4,4 0,4"))</outerBoundaryIs>
                <innerBoundaryIs>\(ring("1,1 2,1"))</innerBoundaryIs></Polygon></Placemark>
                """))
        let text = Self.export(track, as: .geojson)
        #expect(text.contains(#""type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]"#), "\(text)")
        #expect(text.contains(#""type":"LineString","coordinates":[[0,0],[1,0],[0,0]]"#), "\(text)")
        #expect(text.contains(#""type":"Polygon","coordinates":[[[0,0],[4,0],[4,4],[0,4],[0,0]]]"#), "\(text)")
        #expect(
            TrackWriter.lost(track, as: .geojson) == [
                "geojson: 2 polygons have a ring of fewer than four positions ('flat'; 'hole'): a GeoJSON ring needs "
                    + "four or more (RFC 7946 §3.1.6), so an exterior is written as its line and a hole is left out"
            ])
    }

    /// A track of one-point segments only has no line: its positions stay, as a MultiPoint
    /// (a one-point track is a Point, as before); nothing is left out, so nothing is said.
    @Test func aTrackOfOnePointSegmentsIsAMultiPoint() throws {
        let track = try readTrack(
            """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>t</name>
            <trkseg><trkpt lat="1" lon="2"><time>2025-01-01T00:00:00Z</time></trkpt></trkseg>
            <trkseg><trkpt lat="5" lon="6"><time>2025-01-01T00:02:00Z</time></trkpt></trkseg>
            </trk></gpx>
            """, name: "t.gpx")
        let text = Self.export(track, as: .geojson)
        #expect(text.contains(#""geometry":{"type":"MultiPoint","coordinates":[[2,1],[6,5]]}"#), "\(text)")
        #expect(text.contains(#""times":["2025-01-01T00:00:00Z","2025-01-01T00:02:00Z"]"#), "\(text)")
        #expect(TrackWriter.lost(track, as: .geojson).isEmpty)
    }

    /// OGC KML 2.2 (07-147r2 §10.7.3.4): a LineString's `coordinates` are "two or more coordinate
    /// tuples". A one-point GPX route, an untimed one-point track and a one-coordinate KML line are
    /// Point placemarks; a timed one-point track stays a gx:Track (one `when`, one `gx:coord`).
    @Test func aOnePointLineIsAPointInKML() throws {
        let track = try readTrack(
            """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">
            <rte><name>r</name><rtept lat="37.332" lon="-122.03"><time>2025-01-01T00:00:00Z</time></rtept></rte>
            <trk><name>u</name><trkseg><trkpt lat="37.333" lon="-122.03"><ele>4</ele></trkpt></trkseg></trk>
            <trk><name>t</name><trkseg><trkpt lat="37.334" lon="-122.03"><time>2025-01-01T00:02:00Z</time></trkpt></trkseg></trk>
            </gpx>
            """, name: "onept.gpx")
        let text = Self.export(track, as: .kml)
        #expect(!text.contains("<LineString>"), "\(text)")
        #expect(text.contains("<name>r</name>\n<Point><coordinates>-122.03,37.332</coordinates></Point>"), "\(text)")
        #expect(text.contains("<name>u</name>\n<Point><coordinates>-122.03,37.333,4</coordinates></Point>"), "\(text)")
        #expect(text.contains("<when>2025-01-01T00:02:00Z</when>\n<gx:coord>-122.03 37.334</gx:coord>"), "\(text)")
        let line = try readTrack(
            kml("<Placemark><LineString><coordinates>-122.03,37.33</coordinates></LineString></Placemark>"))
        #expect(Self.export(line, as: .kml).contains("<Point><coordinates>-122.03,37.33</coordinates></Point>"))
    }
}

/// xmllint against an XML Schema, for the tests that hold an export to its format's schema.
enum XMLSchema {
    static let xmllint = ["/usr/bin/xmllint", "/usr/local/bin/xmllint", "/opt/homebrew/bin/xmllint"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    static var xmllintAvailable: Bool { xmllint != nil }

    /// xmllint's complaints about `document` against `schema`; empty when it validates.
    static func errors(validating document: String, against schema: URL) throws -> String {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("document.xml")
            try document.write(to: file, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try #require(xmllint))
            process.arguments = ["--noout", "--schema", schema.path, file.path]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return process.terminationStatus == 0 ? "" : text
        }
    }
}
