import Foundation
import TestSupport
import Testing

@testable import Tracks

/// Bad and hostile input: each refused with one clear error that says where and why.
struct HostileInputTests {
    /// The classic entity bomb, written here so that a clone without the corpus checks it too.
    @Test func inlineBillionLaughsIsRefusedBeforeExpansion() throws {
        let entities = (1...9).map { n in
            "<!ENTITY lol\(n) \"" + String(repeating: "&lol\(n - 1);", count: 10) + "\">"
        }.joined(separator: "\n")
        let bomb = """
            <?xml version="1.0"?>
            <!DOCTYPE kml [
            <!ENTITY lol0 "lol">
            \(entities)
            ]>
            <kml><Placemark><name>&lol9;</name></Placemark></kml>
            """
        let error = try #require(readError(bomb))
        #expect(error.kind == .refused)
        #expect(error.message.contains("DOCTYPE"))
    }

    @Test(.needsCorpus) func billionLaughsIsRefusedBeforeExpansion() throws {
        let error = try #require(readError(Data(contentsOf: Corpus.url("libkml/testdata/kml/billion.kml"))))
        #expect(error.kind == .refused)
        #expect(error.message.contains("DOCTYPE"))
        #expect(error.line == 7)
    }

    @Test func externalEntitiesAreNeverResolved() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent(
            "waypost-secret-\(UUID().uuidString)")
        try "TOP-SECRET-CONTENT".write(to: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: secret) }
        let attacks = [
            // A general external entity in content.
            "<?xml version=\"1.0\"?><!DOCTYPE kml [<!ENTITY x SYSTEM \"file://\(secret.path)\">]><kml><Placemark><name>&x;</name></Placemark></kml>",
            // A parameter entity pulling in a DTD.
            "<?xml version=\"1.0\"?><!DOCTYPE kml [<!ENTITY % p SYSTEM \"file://\(secret.path)\"> %p;]><kml/>",
            // An external DTD over http.
            "<?xml version=\"1.0\"?><!DOCTYPE kml SYSTEM \"http://127.0.0.1:9/evil.dtd\"><kml/>",
            // An external DTD from a file.
            "<?xml version=\"1.0\"?><!DOCTYPE kml SYSTEM \"file://\(secret.path)\"><kml/>",
        ]
        for attack in attacks {
            let error = try #require(readError(attack), "\(attack)")
            #expect(error.kind == .refused, "\(error)")
            #expect(!error.description.contains("TOP-SECRET"))
        }
    }

    @Test func undeclaredEntitiesAreErrors() throws {
        let error = try #require(readError(kml("<Placemark><name>&passwd;</name></Placemark>")))
        #expect(error.kind == .refused)
        #expect(error.line == 3)
    }

    @Test func deepNestingIsRefused() throws {
        func folders(_ depth: Int) -> String {
            "<kml>" + String(repeating: "<Folder>", count: depth) + String(repeating: "</Folder>", count: depth)
                + "</kml>"
        }
        let error = try #require(readError(folders(100_000)))
        #expect(error.kind == .refused)
        #expect(error.message.contains("nest deeper than 256"))
        // Real files nest a few levels: 100 read.
        #expect(readError(folders(100)) == nil)
    }

    @Test(.needsCorpus) func libkmlsHundredLevelSampleReads() throws {
        #expect(readError(try Data(contentsOf: Corpus.url("libkml/testdata/kml/100_nested_folders.kml"))) == nil)
    }

    @Test func tooManyAttributesAreRefused() throws {
        let attributes = (0..<100).map { " a\($0)=\"1\"" }.joined()
        let error = try #require(readError(kml("<Placemark\(attributes)/>")))
        #expect(error.kind == .refused)
        #expect(error.message.contains("100 attributes; at most 64"))
    }

    @Test func attributeFloodsAreRefusedBeforeLibxml2ParsesThem() throws {
        // A million attributes would cost libxml2 minutes of quadratic work; the pre-scan stops it.
        var text = "<?xml version=\"1.0\"?>\n<kml>\n<Placemark"
        text.reserveCapacity(12_000_000)
        for i in 0..<1_000_000 { text += " a\(i)=\"1\"" }
        text += "/></kml>"
        let start = ContinuousClock.now
        let error = try #require(readError(text))
        #expect(error.kind == .refused)
        #expect(error.message.contains("more than 256 attributes"))
        #expect(error.line == 3)
        // Not a timing assertion on speed, a guard against the quadratic path: minutes otherwise.
        #expect(ContinuousClock.now - start < .seconds(60))
    }

    @Test func floodGuardIsNotFooledByMarkupInsideTextCommentsOrValues() throws {
        // '=' inside quoted values, comments, CDATA and instructions is not an attribute.
        let noise = String(repeating: "=", count: 2000)
        let text = kml(
            """
            <!-- \(noise) > -> still a comment --><?pi \(noise) > ?>
            <Placemark><name><![CDATA[\(noise) > ]] ]]></name><description>a \(noise) b</description>
            <ExtendedData><Data name="\(noise) > '"><value>v</value></Data></ExtendedData></Placemark>
            """)
        let track = try readTrack(text)
        #expect(track.features.count == 1)
    }

    @Test func hugeLineStringsAreRead() throws {
        // A 12 MB coordinates text node: beyond libxml2's 10 MB text limit, read as a stream.
        let count = 420_000
        var coordinates = ""
        coordinates.reserveCapacity(count * 30)
        for i in 0..<count {
            coordinates +=
                "-122.\(String(format: "%06d", i % 1_000_000)),37.\(String(format: "%06d", i % 1_000_000)),10 "
        }
        #expect(coordinates.utf8.count > 10_000_000)
        let track = try readTrack(
            kml("<Placemark><LineString><coordinates>\(coordinates)</coordinates></LineString></Placemark>"))
        #expect(track.pointCount == count)
        #expect(track.paths[0].points.last?.longitude == -122.419999)
    }

    @Test func hugeDescriptionsAreRefused() throws {
        let text = String(repeating: "x", count: 2 << 20)
        let error = try #require(readError(kml("<Placemark><description>\(text)</description></Placemark>")))
        #expect(error.kind == .refused)
        #expect(error.message.contains("<description>"))
    }

    @Test func invalidUTF8IsMalformed() throws {
        var data = Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<kml>\n<Placemark><name>caf".utf8)
        data.append(contentsOf: [0xC3, 0x28])  // an invalid two-byte sequence
        data.append(Data("</name></Placemark>\n</kml>\n".utf8))
        let error = try #require(readError(data))
        #expect(error.kind == .malformed)
        #expect(error.line == 3)
        #expect(error.message.contains("UTF-8"))
    }

    @Test func truncatedFilesAreMalformed() throws {
        let full = try String(
            contentsOf: Corpus.repositoryRoot.appendingPathComponent("tracks/sunnyvale-commute.kml"), encoding: .utf8)
        let error = try #require(readError(String(full.prefix(full.count / 2))))
        #expect(error.kind == .malformed)
        #expect(error.line > 0)
    }

    @Test(arguments: [
        ("<Placemark><Point><coordinates>10,91</coordinates></Point></Placemark>", "latitude 91.0 is outside", 3),
        ("<Placemark><Point><coordinates>-181,10</coordinates></Point></Placemark>", "longitude -181.0 is outside", 3),
        ("<Placemark><Point><coordinates>NaN,10</coordinates></Point></Placemark>", "'NaN' is not a number", 3),
        ("<Placemark><Point><coordinates>1,2 3,4</coordinates></Point></Placemark>", "a Point has 2 coordinates", 3),
        (
            "<Placemark><TimeStamp><when>yesterday</when></TimeStamp></Placemark>",
            "'yesterday' is not an xsd:dateTime", 3
        ),
        (
            "<Placemark><gx:Track><when>2010-05-28T02:02:09Z</when>\n<when>2010-05-28T02:02:08Z</when></gx:Track></Placemark>",
            "time goes backwards", 4
        ),
        (
            "<Placemark><gx:Track><when>2010-05-28T02:02:09Z</when><when>2010-05-28T02:02:10Z</when>\n<when>2010-05-28T02:02:08Z</when><gx:coord>1 2</gx:coord><gx:coord/><gx:coord>1 3</gx:coord></gx:Track></Placemark>",
            "time goes backwards in a track: 2010-05-28T02:02:08Z after 2010-05-28T02:02:09Z", 4
        ),
        (
            "<Placemark><gx:Track><when>2010-05-28T02:02:09Z</when><gx:coord>1 2</gx:coord><gx:coord>1 3</gx:coord></gx:Track></Placemark>",
            "1 <when> and 2 <coord>", 3
        ),
        ("<Placemark><gx:Track><gx:coord>1 2 3 4</gx:coord></gx:Track></Placemark>", "is not 'longitude latitude", 3),
        (
            "<Placemark><LineString><altitudeMode>floating</altitudeMode></LineString></Placemark>",
            "unknown altitudeMode", 3
        ),
        // A per-point course or speed a fix cannot carry, as a black-box hunt found it in GPX.
        (
            "<Placemark><gx:Track><when>2010-05-28T02:02:09Z</when><gx:coord>1 2</gx:coord><ExtendedData>"
                + "<SchemaData><gx:SimpleArrayData name=\"course\"><gx:value>450</gx:value></gx:SimpleArrayData>"
                + "</SchemaData></ExtendedData></gx:Track></Placemark>",
            "course 450.0 is out of range", 3
        ),
    ])
    func invalidKMLValues(body: String, message: String, line: Int) throws {
        let error = try #require(readError(kml(body)))
        #expect(error.kind == .invalid)
        #expect(error.message.contains(message), "\(error)")
        #expect(error.line == line, "\(error)")
        #expect(error.description.hasPrefix("test.kml:\(line):"))
    }

    @Test(arguments: [
        ("<trk><trkseg><trkpt lat=\"95\" lon=\"1\"/></trkseg></trk>", "lat 95.0 is outside"),
        ("<trk><trkseg><trkpt lat=\"nan\" lon=\"1\"/></trkseg></trk>", "lat=\"nan\" is not a number"),
        ("<trk><trkseg><trkpt lon=\"1\"/></trkseg></trk>", "has no lat attribute"),
        ("<wpt lat=\"1\" lon=\"2\"><ele>high</ele></wpt>", "<ele> 'high' is not a number"),
        // GPX's degreesType (0 ≤ course < 360): a course out of it went into every fix made.
        (
            "<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><course>999</course></trkpt></trkseg></trk>",
            "<course> 999.0 is out of range"
        ),
        ("<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><course>360</course></trkpt></trkseg></trk>", "out of range"),
        ("<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><course>-1</course></trkpt></trkseg></trk>", "out of range"),
        // The same in Garmin's TrackPointExtension: a course of 450 went into fixes as 0° and into
        // NMEA as 90°, a speed of -3 m/s into NMEA as 3 (a black-box hunt).
        (
            "<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><extensions><gpxtpx:TrackPointExtension "
                + "xmlns:gpxtpx=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v2\"><gpxtpx:course>450"
                + "</gpxtpx:course></gpxtpx:TrackPointExtension></extensions></trkpt></trkseg></trk>",
            "<course> 450.0 is out of range"
        ),
        (
            "<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><extensions><gpxtpx:TrackPointExtension "
                + "xmlns:gpxtpx=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v2\"><gpxtpx:speed>-3"
                + "</gpxtpx:speed></gpxtpx:TrackPointExtension></extensions></trkpt></trkseg></trk>",
            "<speed> -3.0 is negative"
        ),
        ("<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><speed>-0.5</speed></trkpt></trkseg></trk>", "is negative"),
        (
            "<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>2020-01-01T00:00:01Z</time></trkpt><trkpt lat=\"1\" lon=\"2\"><time>2020-01-01T00:00:00Z</time></trkpt></trkseg></trk>",
            "time goes backwards"
        ),
    ])
    func invalidGPXValues(body: String, message: String) throws {
        let text = "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n\(body)\n</gpx>"
        let error = try #require(readError(text, name: "test.gpx"))
        #expect(error.kind == .invalid)
        #expect(error.message.contains(message), "\(error)")
        #expect(error.line == 2)
    }

    /// An empty argument is the working directory as `URL(fileURLWithPath:)` takes it: it said
    /// ": read error: is a directory".
    @Test func anEmptyPathIsSaidToBeOne() {
        #expect(throws: TrackReadError(.missing, file: "''", "an empty path names no file")) {
            try TrackReader().read(contentsOf: URL(fileURLWithPath: ""), displayName: "")
        }
    }

    @Test func emptyAndForeignDocuments() throws {
        #expect(readError(Data())?.message == "the file is empty")
        #expect(readError("<html><body/></html>")?.kind == .unsupported)
        #expect(readError("not xml at all")?.kind == .malformed)
        // Said as what it is, where libxml2's words said the opposite ("Document is empty" of a
        // file that is not, "Extra content at the end" of one cut short).
        for foreign in ["not xml at all", #"{"type": "FeatureCollection", "features": []}"#] {
            #expect(
                readError(foreign)?.message.hasPrefix("not KML or GPX: no XML element where the document starts")
                    == true)
        }
        let whole = kml("<Placemark><name>a</name></Placemark>")
        let end = try #require(whole.range(of: "</Placemark>")).lowerBound
        let cut = try #require(readError(String(whole[..<end])))
        #expect(cut.kind == .malformed && cut.message.hasPrefix("the file ends before its document does"), "\(cut)")
        #expect(readError("<?xml version=\"1.0\"?>\n")?.message == "no root element (a KML or GPX document holds one)")
        #expect(
            readError("<kml></kml><kml/>")?.message == "not well-formed XML: Extra content at the end of the document")
        // A KML with no features reads; it is the replay that has nothing to do.
        let empty = try readTrack(kml(""))
        #expect(empty.features.isEmpty)
        #expect(throws: RouteTimingError.self) { try RouteTiming().samples(for: empty) }
    }

    @Test func missingFilesSayNoSuchFile() {
        #expect(throws: TrackReadError(.missing, file: "/nonexistent/route.kml", "no such file")) {
            try TrackReader().read(contentsOf: URL(fileURLWithPath: "/nonexistent/route.kml"))
        }
    }

    @Test func aDirectoryIsAReadErrorNotACrash() throws {
        try withTemporaryDirectory { directory -> Void in
            #expect(throws: TrackReadError(.missing, file: "dir", "is a directory, not a KML, KMZ or GPX file")) {
                try TrackReader().read(contentsOf: directory, displayName: "dir")
            }
        }
    }

    /// A named pipe hands the reader a few bytes per read(2); the file must read the same, head
    /// (the KMZ check) included, as from a regular file.
    @Test func aPipeReadsAsTheFileDoes() throws {
        let route = Corpus.repositoryRoot.appendingPathComponent("tracks/stevens-creek-ride.gpx")
        let bytes = try Data(contentsOf: route)
        try withTemporaryDirectory { directory in
            let fifo = directory.appendingPathComponent("route.gpx")
            #expect(mkfifo(fifo.path, 0o600) == 0)
            let writer = Thread {
                guard let handle = FileHandle(forWritingAtPath: fifo.path) else { return }
                for start in stride(from: 0, to: bytes.count, by: 3) {
                    handle.write(bytes[start..<min(start + 3, bytes.count)])
                }
                try? handle.close()
            }
            writer.start()
            var reader = TrackReader()
            reader.chunkSize = 4096
            let piped = try reader.read(contentsOf: fifo)
            #expect(piped == (try TrackReader().read(contentsOf: route)))
            #expect(piped.pointCount > 100)
        }
    }

    /// A Track's `when`/`coord` where no Track is being read — outside a Placemark, inside a KML
    /// element that cannot hold it — used to stop the reader (an index of -1); they are skipped,
    /// as their Track is. Inside a wrapper no KML defines, the Track is read, with a warning.
    @Test(arguments: [
        ("<Document><gx:Track><when>2020-01-01T00:00:00Z</when><gx:coord>1 2 3</gx:coord></gx:Track></Document>", 0),
        (
            "<Placemark><Url><gx:Track><when>2020-01-01T00:00:00Z</when><gx:coord>1 2</gx:coord></gx:Track></Url></Placemark>",
            0
        ),
        (
            "<Placemark><Foo><gx:Track><when>2020-01-01T00:00:00Z</when><gx:coord>1 2</gx:coord></gx:Track></Foo></Placemark>",
            1
        ),
        ("<gx:Track><when>2020-01-01T00:00:00Z</when></gx:Track>", 0),
        ("<Folder><Track><coord>1 2</coord><when>2020-01-01T00:00:00Z</when></Track></Folder>", 0),
    ])
    func trackPartsOutsideATrackBeingReadAreSkipped(_ body: String, points: Int) throws {
        let document =
            #"<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">"# + body
            + "</kml>"
        let track = try TrackReader().read(data: Data(document.utf8), name: "stray.kml")
        #expect(track.pointCount == points)
        #expect(track.warnings.count == points)
    }

    /// docs/reading-rules.md: "empty `<gx:coord/>` pairs are dropped" — with their `<when>`, which
    /// then takes no part in the time order (OpenTracks writes such pairs at pauses).
    @Test func anEmptyCoordPairIsOutOfTheTimeOrder() throws {
        let track = try readTrack(
            kml(
                """
                <Placemark><gx:Track>
                <when>2025-06-01T08:00:00Z</when><when>2025-06-01T08:00:05Z</when>
                <when>2025-06-01T08:00:03Z</when><when>2025-06-01T08:00:10Z</when>
                <gx:coord>1 2 0</gx:coord><gx:coord/><gx:coord>1 2.001 0</gx:coord><gx:coord>1 2.002 0</gx:coord>
                </gx:Track></Placemark>
                """))
        let times = track.features.first?.geometry?.paths.first?.points.compactMap(\.timeIntervalSince1970)
        #expect(times.map { $0.map { $0 - times![0] } } == [0, 3, 10])
    }

    /// Found by `make fuzz` (fuzz-tracks): an element closing inside another's text — a
    /// `<gx:coord>` inside a `<name>` — took that text as its own, and a coordinate with no Track
    /// to hold it indexed past the end (SIGILL). Each element now reads only its own text.
    @Test func anElementNeverReadsItsParentsText() throws {
        let track = try readTrack(
            kml(
                "<Document><Placemark><name><gx:coord>1 2 3</gx:coord></name>"
                    + "<Point><coordinates>1,2</coordinates></Point></Placemark></Document>"))
        #expect(track.features.first?.name == "1 2 3")
        #expect(track.pointCount == 1)
        let gpx = try TrackReader().read(
            data: Data(
                #"<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><wpt lat="1" lon="2"><name>a<ele>5</ele></name></wpt></gpx>"#
                    .utf8), name: "w.gpx")
        #expect(gpx.pointCount == 1)
    }

    /// My Tracks' and OpenTracks' legacy pause/resume markers (a point at latitude 100 or 200,
    /// `TrackRecordingService.PAUSE_LATITUDE`/`RESUME_LATITUDE`) cut the track into segments and
    /// are dropped with their times and per-point values; anywhere else such a latitude is refused.
    @Test func legacyPauseMarkersAreSegmentBreaks() throws {
        let kml = try readTrack(
            kml(
                """
                <Placemark><gx:Track>
                <when>2012-06-01T08:00:00Z</when><when>2012-06-01T08:00:05Z</when><when>2012-06-01T08:00:06Z</when>
                <when>2012-06-01T08:20:00Z</when><when>2012-06-01T08:20:05Z</when>
                <gx:coord>1 2 0</gx:coord><gx:coord>1 2.001 0</gx:coord><gx:coord>0 100 0</gx:coord>
                <gx:coord>0 200 0</gx:coord><gx:coord>1 2.002 0</gx:coord>
                <ExtendedData><SchemaData><gx:SimpleArrayData name="hr">
                <gx:value>90</gx:value><gx:value>91</gx:value><gx:value>0</gx:value><gx:value>0</gx:value><gx:value>95</gx:value>
                </gx:SimpleArrayData></SchemaData></ExtendedData>
                </gx:Track></Placemark>
                """))
        let paths = kml.features.first?.geometry?.paths ?? []
        #expect(paths.map { $0.points.map(\.latitude) } == [[2, 2.001], [2.002]])
        #expect(paths.map { $0.attributes["hr"] ?? [] } == [[90, 91], [95]])
        #expect(paths.last?.points.first?.timeIntervalSince1970 == 1_338_538_805)

        let gpx = try TrackReader().read(
            data: Data(
                """
                <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
                <trkpt lat="2" lon="1"><time>2012-06-01T08:00:00Z</time></trkpt>
                <trkpt lat="100" lon="0"><time>2012-06-01T08:00:06Z</time></trkpt>
                <trkpt lat="200" lon="0"><time>2012-06-01T08:20:00Z</time></trkpt>
                <trkpt lat="2.001" lon="1"><time>2012-06-01T08:20:05Z</time></trkpt>
                </trkseg></trk></gpx>
                """.utf8), name: "legacy.gpx")
        #expect(gpx.paths.map(\.points.count) == [1, 1])

        for (document, name) in [
            (
                #"<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><rte><rtept lat="100" lon="0"/></rte></gpx>"#,
                "r.gpx"
            ),
            (
                #"<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg><trkpt lat="150" lon="0"/></trkseg></trk></gpx>"#,
                "t.gpx"
            ),
        ] {
            let error = try #require(readError(document, name: name))
            #expect(error.message.contains("is outside [-90, 90]"), "\(error)")
        }
    }

    /// A bad value on its element's own line is located at its first character: counted from the
    /// start tag's `>`, where libxml2 leaves its input when it reports the tag, every such error
    /// was one column early (a black-box hunt). Values on the lines after were right, and are.
    @Test(arguments: [
        (
            "<kml><Placemark><LineString><coordinates>-122,37 foo</coordinates></LineString></Placemark></kml>",
            "k.kml",
            1, 50
        ),
        (
            "<kml><Placemark><LineString><coordinates>\n-122,37 -122,95</coordinates></LineString></Placemark></kml>",
            "k.kml", 2, 9
        ),
        (
            #"<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg><trkpt lat="1" lon="2"><time>noon</time></trkpt></trkseg></trk></gpx>"#,
            "g.gpx", 1, 104
        ),
    ])
    func aBadValueIsLocatedAtItsFirstCharacter(_ document: String, _ name: String, _ line: Int, _ column: Int) throws {
        let error = try #require(readError(document, name: name))
        #expect((error.line, error.column) == (line, column), "\(error)")
        let text = document.split(separator: "\n", omittingEmptySubsequences: false)[line - 1]
        #expect(["f", "-", "n"].contains(text.dropFirst(column - 1).first), "\(text.dropFirst(column - 1).prefix(8))")
    }

    /// `--time-order`: strict refuses the file and names the way out; drop keeps the points in
    /// order; sort reorders them, per-point values following their points.
    @Test func timeOrderStrictDropOrSort() throws {
        let gpx = """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1"><trk><trkseg>
            <trkpt lat="1" lon="1"><time>2020-01-01T00:00:00Z</time><extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>100</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions></trkpt>
            <trkpt lat="1" lon="2"><time>2020-01-01T00:00:10Z</time><extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>110</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions></trkpt>
            <trkpt lat="1" lon="3"><time>2020-01-01T00:00:05Z</time><extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>105</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions></trkpt>
            <trkpt lat="1" lon="4"><time>2020-01-01T00:00:20Z</time><extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>120</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions></trkpt>
            </trkseg></trk></gpx>
            """
        let error = try #require(readError(gpx, name: "t.gpx"))
        #expect(error.line == 4 && error.message.hasSuffix("(--time-order drop or sort reads the file anyway)"))
        func read(_ order: TimeOrder) throws -> TrackPath {
            try #require(
                try TrackReader(timeOrder: order).read(data: Data(gpx.utf8), name: "t.gpx").paths.first)
        }
        let dropped = try read(.drop)
        #expect(dropped.points.map(\.longitude) == [1, 2, 4])
        #expect(dropped.attributes.values.first == [100, 110, 120])
        let sorted = try read(.sort)
        #expect(sorted.points.map(\.longitude) == [1, 3, 2, 4])
        #expect(sorted.attributes.values.first == [100, 105, 110, 120])
    }
}
