import Foundation
import Geo
import TestSupport
import Testing
import ZIPFoundation

@testable import Tracks

/// What the reader takes from each construct of KML and GPX.
struct ReaderTests {
    @Test(arguments: [
        "http://www.opengis.net/kml/2.2", "http://www.opengis.net/kml/2.3",
        "http://earth.google.com/kml/2.1", "http://earth.google.com/kml/2.2", "",
    ])
    func readsEveryKMLNamespace(namespace: String) throws {
        let body = "<Placemark><name>P</name><Point><coordinates>-122.03,37.33,12</coordinates></Point></Placemark>"
        let text = namespace.isEmpty ? "<kml><Document>\(body)</Document></kml>" : kml(body, namespace: namespace)
        let track = try readTrack(text)
        #expect(track.features.map(\.name) == ["P"])
        #expect(track.points == [TrackPoint(latitude: 37.33, longitude: -122.03, altitude: 12)])
    }

    @Test func matchesNamespacesNotPrefixes() throws {
        let text = """
            <k:kml xmlns:k="http://www.opengis.net/kml/2.2" xmlns:other="urn:example">
            <k:Placemark><k:name>real</k:name><k:Point><k:coordinates>1,2</k:coordinates></k:Point></k:Placemark>
            <other:Placemark><other:name>foreign</other:name></other:Placemark>
            </k:kml>
            """
        let track = try readTrack(text)
        #expect(track.features.map(\.name) == ["real"])
    }

    @Test func kml23TrackWithInterleavedWhenAndCoord() throws {
        let track = try readTrack(
            kml(
                """
                <Placemark><Track>
                <when>2020-01-01T00:00:00Z</when><coord>1 2 3</coord>
                <coord>1 2.1 4</coord><when>2020-01-01T00:00:05Z</when>
                <when>2020-01-01T00:00:10Z</when><coord>1 2.2</coord>
                </Track></Placemark>
                """, namespace: "http://www.opengis.net/kml/2.3"))
        let points = track.paths[0].points
        #expect(points.map(\.latitude) == [2, 2.1, 2.2])
        #expect(points.map(\.altitude) == [3, 4, nil])
        #expect(points.map(\.timeIntervalSince1970) == [1_577_836_800, 1_577_836_805, 1_577_836_810])
    }

    @Test func gxTrackWithPerPointDataAndEmptyCoords() throws {
        let track = try readTrack(
            kml(
                """
                <Placemark><gx:MultiTrack><gx:Track>
                <altitudeMode>absolute</altitudeMode>
                <when>2020-01-01T00:00:00Z</when><when>2020-01-01T00:00:01Z</when><when>2020-01-01T00:00:02Z</when>
                <gx:coord>1 2 3</gx:coord><gx:coord/><gx:coord>1 2.2 5</gx:coord>
                <ExtendedData><SchemaData schemaUrl="#s">
                <gx:SimpleArrayData name="heartrate"><gx:value>120</gx:value><gx:value>121</gx:value><gx:value>x</gx:value></gx:SimpleArrayData>
                </SchemaData></ExtendedData>
                </gx:Track>
                <gx:Track><when>2020-01-01T00:01:00Z</when><gx:coord>1 3 0</gx:coord></gx:Track>
                </gx:MultiTrack></Placemark>
                """))
        guard case .collection(let parts) = track.features[0].geometry else {
            Issue.record("expected a MultiTrack collection")
            return
        }
        #expect(parts.count == 2)
        let first = track.paths[0]
        #expect(first.points.map(\.latitude) == [2, 2.2])  // the empty coord dropped its pair
        #expect(first.points.map(\.timeIntervalSince1970) == [1_577_836_800, 1_577_836_802])
        #expect(first.altitudeMode == .absolute)
        let heartrate = try #require(first.attributes["heartrate"])
        #expect(heartrate[0] == 120)
        #expect(heartrate[1].isNaN)  // "x" is kept as missing, aligned with the point
    }

    /// libxml2 hands an attribute's `&amp;` over as `&#38;`: `name="k&amp;y"` was read `k&#38;y`,
    /// and a KML round trip wrote `k&amp;#38;y`, longer every time (a black-box hunt).
    @Test func attributeValuesAreDecoded() throws {
        let track = try readTrack(
            kml(
                """
                <Placemark><ExtendedData><Data name="k&amp;y"><value>1</value></Data>
                <Data name="&#38;&amp;#38;&lt;&#x41;"><value>2</value></Data></ExtendedData>
                <Point><coordinates>1,2</coordinates></Point></Placemark>
                """))
        #expect(track.features.first?.properties == ["k&y": "1", "&&#38;<A": "2"])
    }

    @Test func placemarkProperties() throws {
        let track = try readTrack(
            kml(
                """
                <Folder><name>Outer</name><Folder><name>Inner</name>
                <Placemark><name>Café</name><description><![CDATA[<b>espresso</b>]]></description>
                <TimeSpan><begin>2020-01-01</begin><end>2020-01-02T00:00:00Z</end></TimeSpan>
                <ExtendedData><Data name="rating"><value>5</value></Data>
                <SchemaData schemaUrl="#s"><SimpleData name="wifi">yes</SimpleData></SchemaData></ExtendedData>
                <MultiGeometry><Point><coordinates>1,2</coordinates></Point>
                <Polygon><outerBoundaryIs><LinearRing><coordinates>0,0 1,0 1,1 0,0</coordinates></LinearRing></outerBoundaryIs>
                <innerBoundaryIs><LinearRing><coordinates>0.1,0.1 0.2,0.1 0.2,0.2</coordinates></LinearRing></innerBoundaryIs></Polygon>
                </MultiGeometry></Placemark></Folder></Folder>
                """))
        let feature = try #require(track.features.first)
        #expect(feature.name == "Café")
        #expect(feature.description == "<b>espresso</b>")
        #expect(feature.folders == ["Outer", "Inner"])
        #expect(feature.properties == ["rating": "5", "wifi": "yes"])
        #expect(feature.timeSpan?.begin?.timeIntervalSince1970 == 1_577_836_800)
        #expect(feature.timeSpan?.end?.timeIntervalSince1970 == 1_577_923_200)
        guard case .collection(let parts) = feature.geometry, case .polygon(let outer, let inner) = parts.last else {
            Issue.record("expected a MultiGeometry with a polygon")
            return
        }
        #expect(outer.points.count == 4)
        #expect(inner.first?.points.count == 4)  // closed on reading
    }

    @Test func gpxTracksRoutesAndWaypoints() throws {
        let text = """
            <gpx version="1.0" xmlns="http://www.topografix.com/GPX/1/0" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
            <name>Doc</name>
            <wpt lat="1" lon="2"><ele>3</ele><time>2020-01-01T00:00:00Z</time><name>W</name><desc>a waypoint</desc></wpt>
            <rte><name>R</name><rtept lat="1" lon="2"/><rtept lat="1.1" lon="2"/></rte>
            <trk><name>T</name><trkseg>
            <trkpt lat="1" lon="2"><ele>3</ele><time>2020-01-01T00:00:00Z</time><course>90</course><speed>2.5</speed>
            <extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>140</gpxtpx:hr><gpxtpx:note>fine</gpxtpx:note></gpxtpx:TrackPointExtension></extensions></trkpt>
            <trkpt lat="1" lon="2.001"><time>2020-01-01T00:00:01Z</time></trkpt>
            </trkseg><trkseg/><trkseg><trkpt lat="1" lon="2.002"/></trkseg></trk>
            </gpx>
            """
        let track = try readTrack(text, name: "t.gpx")
        #expect(track.format == .gpx)
        #expect(track.name == "Doc")
        #expect(track.features.map(\.kind) == [.waypoint, .route, .track])
        #expect(track.features.map(\.name) == ["W", "R", "T"])
        #expect(track.features[0].description == "a waypoint")
        guard case .collection(let segments) = track.features[2].geometry else {
            Issue.record("two non-empty segments make a collection")
            return
        }
        #expect(segments.count == 2)
        let first = track.paths[1]
        #expect(first.attributes["hr"]?[0] == 140)
        #expect(first.attributes["hr"]?[1].isNaN == true)
        #expect(first.attributes["course"]?[0] == 90)
        #expect(first.attributes["speed"]?[0] == 2.5)
        #expect(first.attributes["note"] == nil)  // non-numeric extension content is skipped
    }

    /// UTF-16 with a byte-order mark, and UTF-8 with a BOM and no declaration, made here.
    @Test func encodingsByByteOrderMark() throws {
        let gpx = """
            <?xml version="1.0" encoding="UTF-16"?>
            <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">
            <wpt lat="46.5" lon="6.6"><name>Café</name></wpt></gpx>
            """
        var utf16 = Data([0xFF, 0xFE])
        for unit in gpx.utf16 { utf16.append(contentsOf: [UInt8(unit & 0xFF), UInt8(unit >> 8)]) }
        let wide = try TrackReader().read(data: utf16, name: "wide.gpx")
        #expect(wide.points.count == 1)
        let plain = gpx.replacingOccurrences(of: #"<?xml version="1.0" encoding="UTF-16"?>"#, with: "")
        let bom = try TrackReader().read(data: Data([0xEF, 0xBB, 0xBF]) + Data(plain.utf8), name: "bom.gpx")
        #expect(bom.points.count == 1)
    }

    @Test(.needsCorpus) func realWorldEncodings() throws {
        // UTF-16 with a byte-order mark, and UTF-8 with a BOM and no declaration.
        let utf16 = try TrackReader().read(contentsOf: Corpus.url("gpsbabel/reference/lowrance-utf16-test.gpx"))
        #expect(utf16.points.count == 1)
        let bom = try TrackReader().read(contentsOf: Corpus.url("gpxpy/test_files/unicode_with_bom_noencoding.gpx"))
        #expect(bom.points.count == 1)
    }

    @Test func readsKMZArchives() throws {
        try withTemporaryDirectory { directory in
            let kmz = directory.appendingPathComponent("walk.kmz")
            let archive = try Archive(url: kmz, accessMode: .create)
            let image = Data(repeating: 0xFF, count: 100)
            try archive.addEntry(
                with: "files/icon.png", type: .file, uncompressedSize: Int64(image.count), compressionMethod: .none
            ) { position, size in
                image.subdata(in: Int(position)..<Int(position) + size)
            }
            let document = try Data(
                contentsOf: Corpus.repositoryRoot.appendingPathComponent("tracks/cupertino-walk.kml"))
            try archive.addEntry(
                with: "doc.kml", type: .file, uncompressedSize: Int64(document.count), compressionMethod: .deflate
            ) { position, size in
                document.subdata(in: Int(position)..<Int(position) + size)
            }
            let track = try TrackReader().read(contentsOf: kmz)
            #expect(track.format == .kmz)
            let plain = try TrackReader().read(data: document, name: "cupertino-walk.kml")
            #expect(track.pointCount == plain.pointCount && plain.pointCount > 0)
            #expect(track.paths == plain.paths)
            // Errors inside the archive name the entry.
            let broken = directory.appendingPathComponent("broken.kmz")
            let brokenArchive = try Archive(url: broken, accessMode: .create)
            let bad = Data(kml("<Placemark><Point><coordinates>1,95</coordinates></Point></Placemark>").utf8)
            try brokenArchive.addEntry(
                with: "doc.kml", type: .file, uncompressedSize: Int64(bad.count), compressionMethod: .deflate
            ) { position, size in
                bad.subdata(in: Int(position)..<Int(position) + size)
            }
            #expect(throws: TrackReadError.self) { try TrackReader().read(contentsOf: broken) }
            do {
                _ = try TrackReader().read(contentsOf: broken, displayName: "broken.kmz")
            } catch {
                #expect("\(error)".hasPrefix("broken.kmz!/doc.kml:3:"))
            }
        }
    }

    @Test(arguments: ["tracks/sunnyvale-commute.kml", "tracks/stevens-creek-ride.gpx"])
    func chunkBoundariesDoNotMatter(_ path: String) throws {
        let url = Corpus.repositoryRoot.appendingPathComponent(path)
        var small = TrackReader()
        small.chunkSize = 7
        #expect(try small.read(contentsOf: url) == TrackReader().read(contentsOf: url))
    }

    /// GDAL writes GML-style `<MultiPolygon><polygonMember>` wrappers inside KML Placemarks: their
    /// polygons are read (as a collection), each with a warning naming the wrapper — never turned
    /// silently into a null or a bare ring. Geometry inside a KML element that cannot hold it (a
    /// Point in a Url) is still skipped, as libkml skips it.
    @Test func geometryInsideForeignWrappersIsReadWithAWarning() throws {
        let ring = { (x: Int) in
            "<Polygon><outerBoundaryIs><LinearRing><coordinates>\(x),0 \(x + 1),0 \(x + 1),1 \(x),0</coordinates></LinearRing></outerBoundaryIs></Polygon>"
        }
        let track = try readTrack(
            kml(
                """
                <Placemark><name>gdal</name><MultiPolygon>
                <polygonMember>\(ring(0))</polygonMember>
                <polygonMember>\(ring(5))</polygonMember>
                </MultiPolygon></Placemark>
                <Placemark><name>url</name><Url><Point><coordinates>1,1</coordinates></Point></Url></Placemark>
                """))
        guard case .collection(let parts)? = track.features.first?.geometry else {
            Issue.record("not a collection: \(String(describing: track.features.first?.geometry))")
            return
        }
        #expect(parts.count == 2)
        #expect(parts.allSatisfy { if case .polygon = $0 { true } else { false } })
        #expect(track.features.last?.geometry == nil)
        #expect(track.warnings.count == 2)
        #expect(
            track.warnings.first?.hasPrefix("4:24: <polygonMember> is not a KML element") == true, "\(track.warnings)")
    }
}
