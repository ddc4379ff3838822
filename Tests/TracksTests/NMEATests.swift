import Foundation
import SimulatedTime
import TestSupport
import Testing
import WaypostSupport

@testable import Tracks

/// NMEA 0183 out (``NMEASentences``) and in (``NMEALogParser`` through ``TrackReader``), as pure
/// functions, against published sentences.
///
/// The published examples are Dale DePriest's "NMEA data" sentences (gpsinformation.org), the
/// ones gpsd's "NMEA Revealed" (gpsd.gitlab.io/gpsd/NMEA.html) and most NMEA references quote:
/// a fix at 12:35:19 UTC on 23 March 1994, 48°07.038′N 11°31.000′E, 545.4 m.
struct NMEATests {
    static let published = [
        "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47",
        "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A",
        "$GPVTG,054.7,T,034.4,M,005.5,N,010.2,K*48",
        "$GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1*39",
    ]

    /// 1994-03-23T12:35:19Z.
    static let publishedTime = EpochInstant(
        secondsSince1970: Double(CivilCalendar.days(year: 1994, month: 3, day: 23) * 86_400 + 12 * 3600 + 35 * 60 + 19))

    static func fields(_ sentence: String) -> [Substring] {
        sentence.dropFirst().split(separator: "*")[0].split(separator: ",", omittingEmptySubsequences: false)
    }

    static func checksumHolds(_ sentence: String) -> Bool {
        let parts = sentence.dropFirst().split(separator: "*")
        guard parts.count == 2, let given = UInt8(parts[1], radix: 16) else { return false }
        return NMEASentences.checksum(parts[0].utf8) == given
    }

    @Test(arguments: published) func checksumsOfPublishedSentences(sentence: String) {
        #expect(Self.checksumHolds(sentence))
        let body = String(sentence.dropFirst().prefix { $0 != "*" })
        #expect(NMEASentences.sentence(body) == sentence)
    }

    /// The published fix written by Waypost, to the published precision (3 decimals of minutes,
    /// whole seconds): the fields a reader uses carry the published values.
    @Test func writesThePublishedFixAsPublished() throws {
        var writer = NMEASentences(coordinateDecimals: 3, timeDecimals: 0)
        writer.satellitesInUse = 8
        let fix = NMEAFix(
            time: Self.publishedTime, latitude: 48 + 7.038 / 60, longitude: 11 + 31.0 / 60, altitude: 545.4,
            horizontalAccuracy: 4.5, speed: 22.4 * 1852 / 3600, course: 84.4)
        let epoch = writer.sentences(for: fix)
        #expect(epoch.map { String($0.prefix(6)) } == ["$GPGGA", "$GPGSA", "$GPRMC", "$GPVTG"])
        for sentence in epoch {
            #expect(Self.checksumHolds(sentence), "\(sentence)")
            #expect(sentence.utf8.count + 2 <= 82, "\(sentence)")
        }
        let rmc = Self.fields(epoch[2])
        let publishedRMC = Self.fields(Self.published[1])
        // time, status, latitude, N, longitude, E, speed (knots), course, date
        for i in [1, 2, 3, 4, 5, 6, 9] { #expect(rmc[i] == publishedRMC[i], "RMC field \(i)") }
        #expect(Double(rmc[7]) == 22.4 && Double(rmc[8]) == 84.4)
        let gga = Self.fields(epoch[0])
        let publishedGGA = Self.fields(Self.published[0])
        // time, latitude, N, longitude, E, quality, satellites, HDOP, altitude, M
        for i in 1...10 { #expect(gga[i] == publishedGGA[i], "GGA field \(i)") }
        #expect(epoch[0] == "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,,M,,*52")
        #expect(epoch[1] == "$GPGSA,A,3,,,,,,,,,,,,,0.9,0.9,*1C")
        #expect(epoch[2] == "$GPRMC,123519,A,4807.038,N,01131.000,E,22.40,84.40,230394,,,A*7C")
        #expect(epoch[3] == "$GPVTG,84.40,T,,M,22.40,N,41.48,K,A*08")
    }

    /// Signal loss: a receiver without a fix says so and gives no position.
    @Test func noFixSaysSoWithTimeAndNoPosition() {
        let epoch = NMEASentences().noFix(at: Self.publishedTime)
        #expect(
            epoch == [
                "$GPGGA,123519.00,,,,,0,00,,,M,,M,,*45",
                "$GPGSA,A,1,,,,,,,,,,,,,,,*1E",
                "$GPRMC,123519.00,V,,,,,,,230394,,,N*7F",
                "$GPVTG,,T,,M,,N,,K,N*2C",
            ])
        for sentence in epoch { #expect(Self.checksumHolds(sentence)) }
        #expect(Self.fields(epoch[1]).count == 18)  // GSA: id, mode, fix, 12 satellites, 3 dilutions
    }

    @Test func roundingCarriesIntoTheNextDayAndDegree() {
        let writer = NMEASentences()
        // 1999-12-31T23:59:59.999Z rounds to midnight of 1 January 2000, not 24:00:00.
        let newYear = Double(CivilCalendar.days(year: 2000, month: 1, day: 1) * 86_400)
        let (time, date) = writer.timeAndDate(newYear - 0.001)
        #expect(time == "000000.00" && date == "010100")
        #expect(writer.latitude(-(47 + 59.999_999 / 60)) == "4800.00000,S")
        #expect(writer.longitude(-122.5) == "12230.00000,W")
        #expect(writer.longitude(179.999_999_99) == "18000.00000,E")
        // The longest sentences stay within the standard's 82 characters (with CR LF).
        let extreme = NMEAFix(
            time: EpochInstant(secondsSince1970: newYear - 0.001), latitude: -89.999_999, longitude: -179.999_999,
            altitude: -12_345.6,
            horizontalAccuracy: 1e6, verticalAccuracy: 1e6, speed: 999, course: 359.999)
        #expect(Self.fields(writer.sentences(for: extreme)[2])[8] == "0.00")  // course 359.999° → 0.00
        for sentence in writer.sentences(for: extreme) {
            #expect(sentence.utf8.count + 2 <= 82, "\(sentence)")
            #expect(Self.checksumHolds(sentence))
        }
        // The largest altitude and speed written fit too; past them (a file's 9.3e17 m trapped
        // converting to Int64) the fields are empty, as a receiver leaves what it cannot fill.
        for (altitude, speed) in [(-999_999_999.9, 514_444_444.0), (9.3e17, 1e300)] {
            var fix = extreme
            (fix.altitude, fix.speed) = (altitude, speed)
            let sentences = writer.sentences(for: fix)
            for sentence in sentences {
                #expect(sentence.utf8.count + 2 <= 82, "\(sentence)")
                #expect(Self.checksumHolds(sentence))
            }
            let written = abs(altitude) < 1e9
            #expect(Self.fields(sentences[0])[9].isEmpty != written, "\(sentences[0])")
            #expect(Self.fields(sentences[1])[2] == (written ? "3" : "2"), "\(sentences[1])")
            #expect(Self.fields(sentences[2])[7].isEmpty != written, "\(sentences[2])")
        }
    }

    @Test func dilutionIsAccuracyOverFiveMetres() {
        #expect(NMEASentences.dilution(5) == 1.0)
        #expect(NMEASentences.dilution(4.5) == 0.9)
        #expect(NMEASentences.dilution(65) == 13)
        #expect(NMEASentences.dilution(0.01) == 0.1)
        #expect(NMEASentences.dilution(1e9) == 99.9)
        #expect(NMEASentences.dilution(0) == 0.1)  // --noise none: fixes exactly on the route
        #expect(NMEASentences.dilution(.infinity) == 99.9)
    }

    // MARK: - Reading

    static func log(_ lines: [String]) -> String { lines.joined(separator: "\r\n") + "\r\n" }

    @Test func readsThePublishedSentences() throws {
        let track = try readTrack(Self.log(Self.published), name: "published.nmea")
        #expect(track.format == .nmea)
        let path = try #require(track.paths.first)
        #expect(path.points.count == 1)
        let point = path.points[0]
        let latitude: Double = 48 + 7.038 / 60
        let longitude: Double = 11 + 31.0 / 60
        #expect(Self.near(point.latitude, latitude, 1e-12))
        #expect(Self.near(point.longitude, longitude, 1e-12))
        #expect(point.altitude == 545.4)
        #expect(point.timeIntervalSince1970 == Self.publishedTime.secondsSince1970)
        let knots: Double = 22.4
        #expect(Self.near(path.attributes["speed"]?[0], knots * 1852 / 3600, 1e-12))
        #expect(path.attributes["course"]?[0] == 84.4)
        #expect(track.warnings.isEmpty)
    }

    /// Waypost's own sentences read back as the fixes they were written from, within the
    /// precision written (1e-5 minute, 0.01 s, 0.1 m, 0.01 knot, 0.01°).
    @Test func ownSentencesReadBackAsTheirFixes() throws {
        let writer = NMEASentences()
        let start: EpochInstant = 1_749_309_000.25
        let fixes: [NMEAFix] = (0..<120).map { (i: Int) -> NMEAFix in
            let x = Double(i)
            let latitude: Double = 37.374_39 + x * 1.234_567e-5
            let longitude: Double = -122.064_397 - x * 7.654_321e-6
            let speed: Double = 4.2 + Double(i % 7) * 0.113
            let course: Double = Double(i * 3 % 360) + 0.123
            return NMEAFix(
                time: start + x, latitude: latitude, longitude: longitude, altitude: 29.8 - x * 0.037,
                horizontalAccuracy: 5, verticalAccuracy: 8, speed: speed, course: course)
        }
        var lines = fixes.flatMap { writer.sentences(for: $0) }
        lines += writer.noFix(at: start + 120)
        let track = try readTrack(Self.log(lines), name: "own.nmea")
        let path = try #require(track.paths.first)
        #expect(path.points.count == fixes.count)
        let speeds = path.attributes["speed"].map { Array($0) } ?? []
        let courses = path.attributes["course"].map { Array($0) } ?? []
        let minute = 0.5e-5 / 60 + 1e-12
        for (i, (point, fix)) in zip(path.points, fixes).enumerated() {
            #expect(Self.near(point.latitude, fix.latitude, minute), "\(i)")
            #expect(Self.near(point.longitude, fix.longitude, minute), "\(i)")
            #expect(Self.near(point.altitude, fix.altitude, 0.05 + 1e-9), "\(i)")
            #expect(Self.near(point.timeIntervalSince1970, fix.time.secondsSince1970, 0.005 + 1e-9), "\(i)")
            #expect(Self.near(speeds[i], fix.speed, 0.005 * 1852 / 3600 + 1e-9), "\(i)")
            #expect(Self.near(courses[i], fix.course, 0.005 + 1e-9), "\(i)")
        }
    }

    static func near(_ a: Double?, _ b: Double?, _ tolerance: Double) -> Bool {
        guard let a, let b else { return false }
        return abs(a - b) <= tolerance
    }

    /// GGA has only the time of day: the date comes from the RMC nearest before, one day on after
    /// midnight, and counts back from the first RMC for epochs before it.
    @Test func datesCrossMidnightFromTheNearestRMC() throws {
        let lines = [
            "$GPGGA,235959,4807.038,N,01131.000,E,1,08,0.9,545.4,M,,M,,",  // before the first RMC: 31 Dec 1999
            "$GPRMC,000000,A,4807.038,N,01131.000,E,0.0,0.0,010100,,",
            "$GPGGA,000000,4807.038,N,01131.000,E,1,08,0.9,545.4,M,,M,,",
            "$GPGGA,120000,4807.038,N,01131.000,E,1,08,0.9,545.4,M,,M,,",
            "$GPGGA,235959,4807.038,N,01131.000,E,1,08,0.9,545.4,M,,M,,",
            "$GPGGA,000001,4807.038,N,01131.000,E,1,08,0.9,545.4,M,,M,,",  // midnight passed: 2 January
        ].map { NMEASentences.sentence(String($0.dropFirst())) }
        let track = try readTrack(Self.log(lines), name: "midnight.nmea")
        let times = try #require(track.paths.first).points.map { $0.timeIntervalSince1970 ?? .nan }
        let newYear = Double(CivilCalendar.days(year: 2000, month: 1, day: 1) * 86_400)
        #expect(times == [newYear - 1, newYear, newYear + 43_200, newYear + 86_399, newYear + 86_401])
    }

    /// Two-digit years are the GPS era's: 80–99 are 1980–1999, 00–79 are 2000–2079.
    @Test(arguments: [("070898", 1998), ("311279", 2079), ("010180", 1980)])
    func twoDigitYears(date: String, year: Int) throws {
        let rmc = NMEASentences.sentence("GPRMC,000000,A,4807.038,N,01131.000,E,,,\(date),,")
        let track = try readTrack(Self.log([rmc]), name: "year.nmea")
        let time = try #require(track.paths.first?.points.first?.timeIntervalSince1970)
        #expect(CivilCalendar.date(days: Int(time / 86_400)).year == year)
    }

    @Test func aClockStepBackIsRefusedNamingTheLine() throws {
        let lines = [
            "$GPRMC,120000,A,4807.038,N,01131.000,E,0.0,0.0,010100,,",
            "$GPRMC,115959,A,4807.038,N,01131.000,E,0.0,0.0,010100,,",
        ].map { NMEASentences.sentence(String($0.dropFirst())) }
        let error = try #require(readError(Self.log(lines), name: "back.nmea"))
        #expect(error.line == 2 && error.column == 1, "\(error)")
        #expect(error.description.contains("--time-order"))
        let dropped = try TrackReader(timeOrder: .drop).read(data: Data(Self.log(lines).utf8), name: "back.nmea")
        #expect(dropped.paths.first?.points.count == 1)
    }

    /// Bad sentences are dropped, as NMEA 0183 and gpsd do: one warning with the count and the
    /// first one's line:column.
    @Test func badChecksumsAndCutLinesAreDroppedWithOneWarning() throws {
        var lines = NMEASentences().sentences(
            for: NMEAFix(time: Self.publishedTime, latitude: 48.1173, longitude: 11.5167, horizontalAccuracy: 5))
        lines += NMEASentences().sentences(
            for: NMEAFix(time: Self.publishedTime + 1, latitude: 48.1174, longitude: 11.5167, horizontalAccuracy: 5))
        lines[2] = String(lines[2].dropLast()) + (lines[2].hasSuffix("0") ? "1" : "0")  // GGA's checksum wrong
        lines.insert("1.000,E,1,08*", at: 0)  // a capture begun mid-sentence
        lines.append("$GPRMC,123521.00,A,4807.0")  // cut off
        let track = try readTrack("# gpsfake log\n" + Self.log(lines), name: "bad.nmea")
        #expect(track.paths.first?.points.count == 2)
        #expect(track.warnings.count == 1)
        let warning = try #require(track.warnings.first)
        #expect(warning.hasPrefix("2:1: 3 sentences dropped"), "\(warning)")
    }

    /// Issue 43: one malformed field (a garbage date in an RMC) refused the whole log, where gpsd
    /// and gpsbabel drop that sentence and read the rest. Dropped now, counted in the one warning
    /// at the field's line:column; what the sentence had begun (a new epoch) is undone.
    @Test func aChecksummedSentenceWithABadFieldIsDroppedAtItsColumn() throws {
        let bad = NMEASentences.sentence("GPGGA,123519,48x7.038,N,01131.000,E,1,08,0.9,545.4,M,,M,,")
        let garbageDate = NMEASentences.sentence("GPRMC,123520,A,4807.038,N,01131.000,E,022.4,084.4,3X0994,003.1,W")
        let next = NMEASentences().sentences(
            for: NMEAFix(time: Self.publishedTime + 2, latitude: 48.1174, longitude: 11.5167, horizontalAccuracy: 5))
        let track = try readTrack(Self.log([Self.published[1], bad, garbageDate] + next), name: "field.nmea")
        let warning = try #require(track.warnings.first)
        #expect(track.warnings.count == 1)
        #expect(warning.hasPrefix("2:15: 2 sentences dropped"), "\(warning)")
        #expect(warning.contains("GPGGA field 2 '48x7.038' is not"), "\(warning)")
        // The good sentences around them, and nothing of the dropped ones: no fix at 12:35:20.
        let points = track.paths.flatMap(\.points)
        #expect(points.map(\.timeIntervalSince1970) == [0, 2].map { Self.publishedTime.secondsSince1970 + $0 })
        #expect(abs(points[0].coordinate.latitude - (48 + 7.038 / 60)) < 1e-9)
        // Nothing but bad fields: no usable fix is still an error.
        let error = try #require(readError(Self.log([bad, garbageDate]), name: "only-bad.nmea"))
        #expect(error.kind == .invalid)
        #expect(error.description.contains("no valid sentence: 2 dropped"), "\(error)")
    }

    /// A second 60 only ends a UTC day (a leap second, 235960, read as the 60th second as gpsd
    /// does). `000060` was read as 00:01:00, and the next sentence, at 00:00:03, refused as going
    /// back in time: blamed on the wrong line. It is a bad field now, dropped at its column.
    @Test func aSecondSixtyOnlyEndsADay() throws {
        let first = NMEASentences.sentence("GPRMC,000002,A,4807.038,N,01131.000,E,0.0,0.0,010124,,")
        let sixty = NMEASentences.sentence("GPRMC,000060,A,4807.038,N,01131.000,E,0.0,0.0,010124,,")
        let next = NMEASentences.sentence("GPRMC,000003,A,4807.038,N,01131.000,E,0.0,0.0,010124,,")
        let track = try readTrack(Self.log([first, sixty, next]), name: "sixty.nmea")
        let warning = try #require(track.warnings.first)
        #expect(warning.hasPrefix("2:8: 1 sentence dropped"), "\(warning)")
        #expect(track.paths.flatMap(\.points).count == 2)
        let leap = [
            NMEASentences.sentence("GPRMC,235959,A,4807.038,N,01131.000,E,0.0,0.0,311216,,"),
            NMEASentences.sentence("GPRMC,235960,A,4807.038,N,01131.000,E,0.0,0.0,311216,,"),
        ]
        let read = try readTrack(Self.log(leap), name: "leap.nmea")
        #expect(read.warnings.isEmpty, "\(read.warnings)")
        let times = read.paths.flatMap(\.points).compactMap(\.timeIntervalSince1970)
        #expect(times.map { $0.truncatingRemainder(dividingBy: 86_400) } == [86_399, 0])
    }

    /// A black-box hunt: an RMC whose hemisphere was garbage was read — its date, speed and course
    /// used — when its epoch's GGA had given the position already (the RMC's was not looked at).
    /// Its field is as bad either way: the sentence is dropped, at that field's column.
    @Test func anRMCWithABadHemisphereIsDroppedThoughItsGGAGaveThePosition() throws {
        let gga = NMEASentences.sentence("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,,M,,")
        let rmc = NMEASentences.sentence("GPRMC,123519,A,4807.038,X,01131.000,E,022.4,084.4,230394,003.1,W")
        let next = NMEASentences.sentence("GPRMC,123520,A,4807.040,N,01131.000,E,000.0,000.0,230394,003.1,W")
        let track = try readTrack(Self.log([gga, rmc, next]), name: "hemisphere.nmea")
        let warning = try #require(track.warnings.first)
        #expect(warning.hasPrefix("2:26: 1 sentence dropped"), "\(warning)")
        let path = try #require(track.paths.first)
        #expect(path.points.count == 2)
        // Nothing of the dropped RMC: no speed or course at the first fix (NaN: none), only the next one's.
        for name in ["speed", "course"] {
            #expect(path.attributes[name].map { [$0[0].isNaN, $0[1] == 0] } == [true, true], "\(name)")
        }
    }

    @Test func aLineOfKilobytesIsNotNMEA() throws {
        let long = "$GPTXT," + String(repeating: "A", count: 5000) + "*00"
        let error = try #require(readError(Self.log([Self.published[1], long]), name: "long.nmea"))
        #expect(error.line == 2 && error.description.contains("longer than 4096 bytes"), "\(error)")
    }

    @Test func ggaWithoutAnyRMCHasNoDate() throws {
        let error = try #require(readError(Self.log([Self.published[0]]), name: "gga.nmea"))
        #expect(error.line == 1 && error.description.contains("no RMC sentence gives the date"), "\(error)")
    }

    @Test func aLogWithoutAFixSaysWhy() throws {
        let error = try #require(readError(Self.log(NMEASentences().noFix(at: Self.publishedTime)), name: "v.nmea"))
        #expect(error.description.contains("no fix"), "\(error)")
    }

    /// Any talker (GN: several constellations), and sentences Waypost does not read — GSV,
    /// proprietary `$P…`, AIS `!` — checked and skipped.
    @Test func readsAnyTalkerAndSkipsOtherSentences() throws {
        let lines =
            [
                "GNRMC,123519.00,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W,A",
                "GNGGA,123519.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
                "GPGSV,3,1,11,03,03,111,00,04,15,270,00,06,01,010,00,13,06,292,00",
                "PGRMZ,1794,f,3",
            ].map { NMEASentences.sentence($0) } + ["!AIVDM,1,1,,B,177KQJ5000G?tO`K>RA1wUbN0TKH,0*5C"]
        let track = try readTrack(Self.log(lines), name: "gn.nmea")
        #expect(track.warnings.isEmpty, "\(track.warnings)")
        let point = try #require(track.paths.first?.points.first)
        #expect(track.paths.first?.points.count == 1)
        #expect(point.altitude == 545.4 && point.timeIntervalSince1970 == Self.publishedTime.secondsSince1970)
    }

    @Test func sniffsNMEAFromTheContent() {
        func sniff(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBytes { NMEALogParser.looksLikeNMEA($0) }
        }
        #expect(sniff("$GPRMC,1"))
        #expect(sniff("\u{FEFF}\r\n  $GPGGA"))
        #expect(sniff("# Name: log\n$GPGGA"))
        #expect(sniff("1.000,E*47\r\n$GPRMC"))
        #expect(!sniff("<?xml version=\"1.0\"?><gpx/>"))
        #expect(!sniff("<kml>\n$GPRMC"))
        #expect(!sniff(""))
    }
}
