import SimulatedTime
import WaypostSupport

/// One position fix as a GPS receiver reports it, the input of ``NMEASentences``.
///
/// Plain numbers rather than a simulation type: Tracks writes files, and an NMEA stream is one
/// more format; whoever holds fixes (the replay, a test) fills this in.
public struct NMEAFix: Sendable, Equatable {
    /// UTC (NMEA has no time zone).
    public var time: EpochInstant
    /// Degrees, WGS-84.
    public var latitude: Double
    /// Degrees, WGS-84.
    public var longitude: Double
    /// Metres above mean sea level; nil for a 2D fix.
    public var altitude: Double?
    /// Radius of uncertainty in metres (CoreLocation's `horizontalAccuracy`): becomes HDOP.
    public var horizontalAccuracy: Double
    /// Metres (CoreLocation's `verticalAccuracy`): becomes VDOP; nil when unknown.
    public var verticalAccuracy: Double?
    /// Metres per second over ground; nil when unknown.
    public var speed: Double?
    /// Degrees from true north; nil when unknown.
    public var course: Double?

    public init(
        time: EpochInstant, latitude: Double, longitude: Double, altitude: Double? = nil, horizontalAccuracy: Double,
        verticalAccuracy: Double? = nil, speed: Double? = nil, course: Double? = nil
    ) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
    }
}

/// NMEA 0183 sentences for a fix — GGA, GSA, RMC, VTG, in the order SiRF and MediaTek receivers
/// send an epoch — as gpsd, `gpsfake`, gpsbabel, the Android emulator's `geo nmea` and receiver
/// test rigs read them. GGA comes first: gpsbabel's reader makes a point of each GGA and dates it
/// by the RMC that follows, so an epoch begun by RMC (u-blox's order, used before) put every point
/// one fix late (a black-box hunt; gpsd reads either order).
///
/// Pure functions of their input, so they are tested against published sentences and a replay's
/// stream is reproducible byte for byte. A sentence is `$` + body + `*` + checksum (two upper-case
/// hex digits, the XOR of the body's bytes, NMEA 0183 §5.3); lines end with CR LF.
///
/// Choices where the standard leaves room (documented in docs/nmea.md):
/// - **Precision**: latitude and longitude in degrees and minutes with ``coordinateDecimals``
///   (default 5: 0.00001′ ≈ 2 cm, what survey-grade receivers write and gpsd reads); time of day
///   with ``timeDecimals`` (default 2); altitude to 0.1 m; speed to 0.01 knot; course to 0.01°.
///   Every sentence stays within the standard's 82 characters.
/// - **HDOP** from the fix's horizontal accuracy: HDOP = accuracy ÷ ``metresPerDOP`` (5 m, so
///   CoreLocation's best-case 5 m is HDOP 1.0, the ideal geometry), rounded to 0.1, between 0.1
///   and 99.9; VDOP likewise from the vertical accuracy, PDOP = √(HDOP² + VDOP²). Readers invert
///   it: accuracy = HDOP × 5 m.
/// - **Satellites**: Waypost models no constellation; GGA says ``satellitesInUse`` (12) and GSA
///   lists no PRNs (empty fields are valid), so a reader sees a usable fix and no made-up sky.
/// - **No fix** (signal loss): RMC status `V` and mode `N`, GGA quality 0, GSA mode 1, VTG mode
///   `N`, with the time and date but empty position fields, as receivers without a fix send them.
public struct NMEASentences: Sendable, Equatable {
    /// The talker identifier: `GP` (GPS), the one every reader accepts.
    public var talker = "GP"
    /// Decimals of the minutes of latitude and longitude.
    public var coordinateDecimals = 5
    /// Decimals of the seconds of the time of day.
    public var timeDecimals = 2
    /// What GGA gives as the number of satellites in use.
    public var satellitesInUse = 12

    /// Metres of horizontal (or vertical) accuracy per unit of dilution of precision.
    public static let metresPerDOP = 5.0

    public init(talker: String = "GP", coordinateDecimals: Int = 5, timeDecimals: Int = 2) {
        self.talker = talker
        self.coordinateDecimals = coordinateDecimals
        self.timeDecimals = timeDecimals
    }

    /// The epoch of a fix: GGA, GSA, RMC, VTG (each without its line ending).
    public func sentences(for fix: NMEAFix) -> [String] {
        let (time, date) = timeAndDate(fix.time.secondsSince1970)
        let position = latitude(fix.latitude) + "," + longitude(fix.longitude)
        // A speed or altitude past what a sentence's 82 characters hold (a file's 9.3e17 m, not a
        // receiver's) is left empty, as a receiver leaves a field it cannot fill: it trapped
        // converting to Int64 (a black-box hunt).
        let speed = fix.speed.flatMap { $0 * 3600 / 1852 < Self.largestWritten ? $0 : nil }
        let knots = speed.map { Self.fixed($0 * 3600 / 1852, decimals: 2) } ?? ""
        let kmh = speed.map { Self.fixed($0 * 3.6, decimals: 2) } ?? ""
        let course = fix.course.map { Self.fixed(Self.degrees($0), decimals: 2) } ?? ""
        let hdop = Self.dilution(fix.horizontalAccuracy)
        let height = fix.altitude.flatMap { abs($0) < Self.largestWritten ? $0 : nil }
        let vdop = fix.verticalAccuracy.flatMap { $0 >= 0 && height != nil ? Self.dilution($0) : nil }
        let pdop = vdop.map { ($0 * $0 + hdop * hdop).squareRoot() } ?? hdop
        let altitude = height.map { Self.signedFixed($0, decimals: 1) } ?? ""
        let satellites = Self.digits(min(max(satellitesInUse, 0), 99), width: 2)
        return [
            sentence("GGA,\(time),\(position),1,\(satellites),\(Self.fixed(hdop, decimals: 1)),\(altitude),M,,M,,"),
            sentence(
                Self.gsa(
                    mode: height == nil ? 2 : 3, pdop: Self.fixed(min(pdop, 99.9), decimals: 1),
                    hdop: Self.fixed(hdop, decimals: 1), vdop: vdop.map { Self.fixed($0, decimals: 1) } ?? "")),
            sentence("RMC,\(time),A,\(position),\(knots),\(course),\(date),,,A"),
            sentence("VTG,\(course),T,,M,\(knots),N,\(kmh),K,A"),
        ]
    }

    /// The largest altitude (metres) and speed (knots) written: 12 characters at most, which
    /// keeps GGA and RMC within 82.
    static let largestWritten = 1e9

    /// The epoch of a receiver without a fix at `time` (signal loss): GGA, GSA, RMC, VTG.
    public func noFix(at time: EpochInstant) -> [String] {
        let (time, date) = timeAndDate(time.secondsSince1970)
        return [
            sentence("GGA,\(time),,,,,0,00,,,M,,M,,"),
            sentence(Self.gsa(mode: 1, pdop: "", hdop: "", vdop: "")),
            sentence("RMC,\(time),V,,,,,,,\(date),,,N"),
            sentence("VTG,,T,,M,,N,,K,N"),
        ]
    }

    /// GSA's body: automatic 2D/3D selection, the fix `mode` (1 none, 2 2D, 3 3D), twelve empty
    /// satellite slots, then the dilutions.
    static func gsa(mode: Int, pdop: String, hdop: String, vdop: String) -> String {
        (["GSA", "A", String(mode)] + Array(repeating: "", count: 12) + [pdop, hdop, vdop]).joined(separator: ",")
    }

    /// A course rounded to 0.01° in [0, 360): 359.999° is 0.00, not 360.00.
    static func degrees(_ value: Double) -> Double {
        let hundredths = (value * 100).rounded().truncatingRemainder(dividingBy: 36_000)
        return (hundredths < 0 ? hundredths + 36_000 : hundredths) / 100
    }

    /// `$` + talker + `body` + `*` + checksum.
    func sentence(_ body: String) -> String {
        Self.sentence(talker + body)
    }

    /// `$body*HH`: the checksum is the XOR of the bytes between `$` and `*`.
    public static func sentence(_ body: String) -> String {
        let sum = checksum(body.utf8)
        return "$" + body + "*" + hex(sum)
    }

    /// The XOR of `bytes` (a sentence's body, between `$` and `*`).
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt8 {
        bytes.reduce(0, ^)
    }

    /// Two upper-case hex digits.
    static func hex(_ value: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(value >> 4)], digits[Int(value & 0xF)]])
    }

    /// HDOP (or VDOP) for an accuracy in metres: ÷ ``metresPerDOP``, rounded to 0.1, in 0.1…99.9
    /// (an exact fix, accuracy 0, is the best geometry there is: 0.1).
    public static func dilution(_ accuracy: Double) -> Double {
        guard accuracy.isFinite, accuracy >= 0 else { return 99.9 }
        return min(max((accuracy / metresPerDOP * 10).rounded() / 10, 0.1), 99.9)
    }

    /// `hhmmss.ss` and `ddmmyy` of a UTC time, rounded to ``timeDecimals`` first (so 23:59:59.999
    /// becomes midnight of the next day, not 24:00:00).
    func timeAndDate(_ seconds: Double) -> (time: String, date: String) {
        let scale = Self.power(timeDecimals)
        let ticks = Int64((seconds * Double(scale)).rounded())
        let perDay = 86_400 * scale
        let day = Int(ticks >= 0 ? ticks / perDay : (ticks - perDay + 1) / perDay)
        let ofDay = ticks - Int64(day) * perDay
        let whole = Int(ofDay / scale)
        var time =
            Self.digits(whole / 3600, width: 2) + Self.digits(whole / 60 % 60, width: 2)
            + Self.digits(whole % 60, width: 2)
        if timeDecimals > 0 { time += "." + Self.digits(Int(ofDay % scale), width: timeDecimals) }
        let civil = CivilCalendar.date(days: day)
        let date =
            Self.digits(civil.day, width: 2) + Self.digits(civil.month, width: 2)
            + Self.digits(((civil.year % 100) + 100) % 100, width: 2)
        return (time, date)
    }

    /// `ddmm.mmmmm,N|S`.
    func latitude(_ degrees: Double) -> String {
        angle(degrees, degreeDigits: 2) + (degrees < 0 ? ",S" : ",N")
    }

    /// `dddmm.mmmmm,E|W`.
    func longitude(_ degrees: Double) -> String {
        angle(degrees, degreeDigits: 3) + (degrees < 0 ? ",W" : ",E")
    }

    /// Whole degrees then minutes, rounded as one integer of 10^-decimals minutes so that 59.999995′
    /// carries into the next degree.
    private func angle(_ degrees: Double, degreeDigits: Int) -> String {
        let scale = Self.power(coordinateDecimals)
        let units = Int64((abs(degrees) * 60 * Double(scale)).rounded())
        let perDegree = 60 * scale
        let whole = Int(units / perDegree)
        let minutes = units % perDegree
        var text = Self.digits(whole, width: degreeDigits) + Self.digits(Int(minutes / scale), width: 2)
        if coordinateDecimals > 0 { text += "." + Self.digits(Int(minutes % scale), width: coordinateDecimals) }
        return text
    }

    static func power(_ decimals: Int) -> Int64 {
        (0..<max(decimals, 0)).reduce(1) { value, _ in value * 10 }
    }

    /// A non-negative number with `decimals` decimals (negative values print as their magnitude).
    static func fixed(_ value: Double, decimals: Int) -> String {
        let scale = power(decimals)
        let units = Int64((abs(value) * Double(scale)).rounded())
        var text = String(units / scale)
        if decimals > 0 { text += "." + digits(Int(units % scale), width: decimals) }
        return text
    }

    /// ``fixed(_:decimals:)`` with a minus sign when the rounded value is negative.
    static func signedFixed(_ value: Double, decimals: Int) -> String {
        let text = fixed(value, decimals: decimals)
        let isZero = Int64((abs(value) * Double(power(decimals))).rounded()) == 0
        return value < 0 && !isZero ? "-" + text : text
    }

    /// `value` with leading zeros to `width` digits.
    static func digits(_ value: Int, width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
