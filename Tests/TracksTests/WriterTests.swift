import Foundation
import TestSupport
import Testing
import WaypostSupport

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
        // KML has no track timed at some points only (segmented_tracks.gpx has such segments):
        // those are LineStrings, without their times.
        let expected = original.paths.map { path in
            let timed = path.points.filter { $0.time != nil }.count
            guard format == .kml, timed > 0, timed < path.points.count else { return Array(path.points) }
            return path.points.map { TrackPoint(latitude: $0.latitude, longitude: $0.longitude, altitude: $0.altitude) }
        }
        #expect(again.paths.map { Array($0.points) } == expected)
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

    /// A class stream that takes bytes (``ByteOutputStream``, as the CLI's output is) gets the
    /// same text as a `String`, chunk boundaries included: 20,000 points are several 64 KB chunks.
    @Test(arguments: ExportFormat.allCases) func aByteStreamGetsTheSameText(format: ExportFormat) {
        final class Collected: ByteOutputStream {
            var bytes: [UInt8] = []
            var byteWrites = 0
            func write(_ string: String) { bytes.append(contentsOf: string.utf8) }
            func write(bytes chunk: UnsafeRawBufferPointer) {
                bytes.append(contentsOf: chunk)
                byteWrites += 1
            }
        }
        let points = (0..<20_000).map { i in
            TrackPoint(
                latitude: 37 + Double(i) * 1e-5, longitude: -122.031204, altitude: Double(i % 70),
                time: Date(timeIntervalSince1970: 1_748_880_000 + Double(i)))
        }
        let track = Track(
            format: .kml,
            features: [TrackFeature(kind: .placemark, name: "walk", geometry: .track(TrackPath(points: points)))])
        var text = ""
        TrackWriter.write(track, as: format, to: &text)
        var collected = Collected()
        TrackWriter.write(track, as: format, to: &collected)
        #expect(collected.byteWrites > 3)
        #expect(String(decoding: collected.bytes, as: UTF8.self) == text)
    }

    @Test func fixedPointPlacesThePointAndTheSign() {
        func written(_ units: UInt64, _ places: Int, negative: Bool = false, pointZero: Bool = false) -> String {
            var bytes: [UInt8] = []
            FixedPoint.append(units, places: places, negative: negative, pointZero: pointZero, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(written(1234, 3, negative: true) == "-1.234")
        #expect(written(5, 2) == "0.05")
        #expect(written(0, 1) == "0.0")
        #expect(written(156, 0, pointZero: true) == "156.0")
        #expect(written(156, 0) == "156")
        #expect(written(UInt64.max, 0, negative: true) == "-18446744073709551615")
        #expect(written(UInt64.max, 19) == "1.8446744073709551615")
    }

    /// Digits go two a step: every count of places (odd and even), and units of every length,
    /// against the decimal string put together by hand.
    @Test func fixedPointMatchesTheDecimalStringAtEveryPlaces() {
        var random = SplitMix64(seed: 7)
        for places in 0...24 {
            for length in 1...20 {
                let bound = (0..<min(length, 19)).reduce(UInt64(1)) { power, _ in power * 10 }
                let units = length == 20 ? UInt64.max - random.next() % 1000 : random.next() % bound
                let negative = length % 3 == 0
                let digits = String(units)
                let padded = String(repeating: "0", count: max(0, places + 1 - digits.count)) + digits
                let expected =
                    (negative ? "-" : "")
                    + (places == 0 ? padded : padded.dropLast(places) + "." + padded.suffix(places))
                var bytes: [UInt8] = []
                FixedPoint.append(units, places: places, negative: negative, to: &bytes)
                #expect(String(decoding: bytes, as: UTF8.self) == expected, "\(units), \(places) places")
            }
        }
    }

    /// Numbers are written as Swift's `description` writes them (the shortest text that reads
    /// back as the same Double), most without calling it: the oracle is `description` itself.
    /// The writers' numbers (whole numbers bare) and the event stream's (exactly `description`)
    /// against Swift's own `description`.
    @Test func numbersAreTheShortestTextThatReadsBack() {
        func written(_ value: Double) -> String {
            var bytes: [UInt8] = []
            Format.appendNumber(value, to: &bytes)
            bytes.append(UInt8(ascii: " "))
            ShortestDecimal.append(value, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        func expected(_ value: Double) -> String {
            (value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : value.description) + " "
                + value.description
        }
        var random = SystemRandomNumberGenerator()
        var checked = 0
        for places in 0...12 {
            for _ in 0..<20_000 {
                // Decimals as files write them (GPS coordinates, altitudes, times), and raw doubles.
                let integer = Int.random(in: -999_999...999_999, using: &random)
                let fraction = Int.random(in: 0..<Int(pow(10, Double(places))), using: &random)
                let text = places == 0 ? "\(integer)" : "\(integer).\(String(fraction).leftPadded(to: places))"
                for value in [Double(text) ?? 0, Double.random(in: -1000...1000, using: &random)] {
                    #expect(written(value) == expected(value), "\(text)")
                    checked += 1
                }
            }
        }
        for value in [
            0.0001, 0.00012, 9.9999e-5, 1e-5, -0.0001, 0.1, 0.3, -122.08407, 999_999.123456789, 1_000_000.5,
            123_456.000_000_001, 1e15 + 0.5, .pi, -.ulpOfOne, 1e300, .infinity, -.infinity, .nan, 0, -0.0, 156,
            -156, 1e15 - 1, 1e15, 9_007_199_254_740_992, 1e16,
        ] {
            #expect(written(value) == expected(value), "\(value)")
        }
        #expect(checked == 13 * 40_000)
    }

    /// GPX's coordinates and elevation are XML Schema's `decimal`, which has no exponent: a GPX
    /// written with `9.1697e-05` failed the GPX 1.1 schema (gpxpy's track-with-small-floats.gpx).
    /// The same digits, written out, read back as the same Double.
    @Test func xmlNumbersHaveNoExponent() throws {
        for value in [
            9.1697e-05, -8.1658e-05, 5e-06, 1e-300, -2.5e-7, 1e16, 1.2345e+20, -9_007_199_254_740_993.0, 0.0001, 37.5,
        ] {
            var bytes: [UInt8] = []
            Format.appendDecimal(value, to: &bytes)
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(text.allSatisfy { $0.isNumber || $0 == "." || $0 == "-" }, "\(text)")
            #expect(Double(text) == value, "\(text)")
        }
        var text = ""
        let track = try readTrack(
            #"<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg><trkpt lat="9.1697e-05" lon="8.1658e-05"><ele>5e-06</ele></trkpt></trkseg></trk></gpx>"#,
            name: "small.gpx")
        TrackWriter.write(track, as: .gpx, to: &text)
        #expect(text.contains(#"lat="0.000091697" lon="0.000081658"><ele>0.000005</ele>"#), "\(text)")
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

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
