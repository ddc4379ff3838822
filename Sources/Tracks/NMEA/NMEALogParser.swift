import WaypostSupport

/// Reads an NMEA 0183 log — what GPS loggers record, `gpsfake` replays and Waypost's own
/// `--nmea` writes — into a ``Track``: one timed track of the epochs that had a fix.
///
/// Fed in chunks (a log is read as it streams, like the XML formats), one line at a time.
///
/// Rules (docs/reading-rules.md lists them):
/// - **Sentences**: `$` + fields + `*HH`, any talker (`GP`, `GN`, `GL`…). RMC gives time, date,
///   status, position, speed and course; GGA time, quality, position and altitude; VTG speed and
///   course when RMC has none. Other sentences (GSA, GSV, proprietary `$P…`, AIS `!`) are checked
///   and skipped. Lines starting with `#` are comments (gpsfake's log headers). Empty lines are skipped.
/// - **Bad sentences are dropped**, as NMEA 0183 tells a listener to and gpsd does: a checksum
///   that does not match, or a line that is not a whole sentence (no `*HH` — a log cut off
///   mid-line, a serial read begun mid-sentence). The count and the first one's line:column come
///   as one warning. So is a sentence whose checksum holds but whose field is not a number, a
///   time, a date or a hemisphere (a receiver's garbage date): gpsd and gpsbabel drop it and read
///   on. A log with no usable fix at all is still an error.
/// - **Epochs**: consecutive sentences with the same time of day are one fix; VTG (no time) joins
///   the epoch before it. An epoch is a fix when GGA's quality is not 0, or RMC's status is `A`
///   (and its mode, NMEA 2.3, is not `N`); epochs without a fix (signal loss) are left out.
/// - **Dates**: RMC carries the date (`ddmmyy`; years 80–99 are 1980–1999, 00–79 are 2000–2079,
///   the GPS era), GGA only the time of day. An epoch without an RMC takes the date of the
///   nearest dated epoch before it, one day later when its time of day is more than 12 hours
///   earlier than its predecessor's (midnight passed); epochs before the first RMC count back
///   from it the same way. A log with fixes but no RMC at all has no date: an error.
struct NMEALogParser {
    let name: String
    private var line = 1
    /// Bytes of a line not yet ended.
    private var pending: [UInt8] = []
    private var epochs: [Epoch] = []
    private var current: Epoch?
    private var dropped = 0
    private var firstDrop: (line: Int, column: Int, why: String)?
    private var firstGGA: Int?

    /// The longest line read: NMEA allows 82 characters; proprietary sentences and loggers'
    /// prefixes run longer, but a line of kilobytes is not NMEA.
    static let maximumLineLength = 4096

    init(name: String) {
        self.name = name
    }

    /// Whether `head` (a file's first bytes) is an NMEA log: after blank space (and a UTF-8 byte
    /// order mark), a sentence (`$`, `!`) or a comment (`#`), or — a serial capture begun
    /// mid-sentence — no `<` before the first line that starts with `$`.
    static func looksLikeNMEA(_ head: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        while index < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[index]) { index += 1 }
        guard index < head.count else { return false }
        switch head[index] {
        case UInt8(ascii: "$"), UInt8(ascii: "!"), UInt8(ascii: "#"): return true
        case UInt8(ascii: "<"): return false
        default:
            // A partial first line, then sentences.
            guard let newline = head[index...].firstIndex(of: 0x0A) else { return false }
            let first = head[index..<newline]
            return !first.contains(UInt8(ascii: "<")) && newline + 1 < head.count
                && head[newline + 1] == UInt8(ascii: "$")
        }
    }

    mutating func feed(_ bytes: UnsafeRawBufferPointer) throws(TrackReadError) {
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            pending.append(contentsOf: bytes[start..<index])
            try endLine()
            start = index + 1
        }
        pending.append(contentsOf: bytes[start...])
        try checkLength()
    }

    private func checkLength() throws(TrackReadError) {
        if pending.count > Self.maximumLineLength {
            throw TrackReadError(
                .invalid, file: name, line: line, column: 1,
                "a line longer than \(Self.maximumLineLength) bytes is not NMEA 0183 (sentences are at most 82 characters)"
            )
        }
    }

    /// The track read, with the warning about dropped sentences; `backwards` is the first fix
    /// earlier than the one before it, for ``TrackReader`` to treat by its time order.
    mutating func finish() throws(TrackReadError) -> (track: Track, backwards: ReadFailure?) {
        if !pending.isEmpty { try endLine() }
        if let current { epochs.append(current) }
        current = nil
        let fixes = epochs.filter(\.isFix)
        let droppedNote =
            firstDrop.map {
                " (\(dropped) sentence\(dropped == 1 ? " was" : "s were") dropped, the first at line \($0.line): \($0.why))"
            } ?? ""
        guard !fixes.isEmpty else {
            let why =
                epochs.isEmpty
                ? (dropped > 0
                    ? "no valid sentence: \(dropped) dropped (\(firstDrop.map { "line \($0.line): \($0.why)" } ?? ""))"
                    : "no GGA or RMC sentence")
                : "no fix: every GGA says quality 0 and every RMC status V (gpsbabel writes that for GPX points without <fix>)"
                    + droppedNote
            throw TrackReadError(.invalid, file: name, "an NMEA log with \(why)")
        }
        guard let dated = epochs.firstIndex(where: { $0.date != nil }) else {
            throw TrackReadError(
                .invalid, file: name, line: firstGGA ?? fixes[0].line, column: 1,
                "no RMC sentence gives the date: GGA carries only the time of day, so the fixes cannot be placed in time"
                    + droppedNote)
        }
        // Dates forward from the first dated epoch, then back from it.
        var days = [Int](repeating: 0, count: epochs.count)
        days[dated] = epochs[dated].date ?? 0
        for i in epochs.indices.dropFirst(dated + 1) {
            days[i] = epochs[i].date ?? (days[i - 1] + (epochs[i - 1].timeOfDay - epochs[i].timeOfDay > 43_200 ? 1 : 0))
        }
        for i in stride(from: dated - 1, through: 0, by: -1) {
            days[i] = days[i + 1] - (epochs[i].timeOfDay - epochs[i + 1].timeOfDay > 43_200 ? 1 : 0)
        }
        var path = PathBuilder(spillingTo: nil)
        var backwards: ReadFailure?
        var last = -Double.infinity
        for (i, epoch) in epochs.enumerated() where epoch.isFix {
            guard let latitude = epoch.latitude, let longitude = epoch.longitude else { continue }
            let time = Double(days[i]) * 86_400 + epoch.timeOfDay
            if time < last && backwards == nil {
                backwards = ReadFailure.timeGoesBackwards(
                    time, after: last, at: SourcePosition(line: epoch.line, column: 1))
            }
            last = max(last, time)
            let index = path.points.count
            var point = TrackPoint(latitude: latitude, longitude: longitude, altitude: epoch.altitude)
            point.storedTime = time
            path.append(point)
            if let speed = epoch.speed { path.set("speed", speed, at: index) }
            if let course = epoch.course { path.set("course", course, at: index) }
        }
        var track = Track(format: .nmea, features: [TrackFeature(kind: .track, geometry: .track(path.build()))])
        if let firstDrop {
            track.warnings.append(
                "\(firstDrop.line):\(firstDrop.column): \(dropped) sentence\(dropped == 1 ? "" : "s") dropped "
                    + "(a bad checksum, an incomplete line or a bad field; a receiver discards them, NMEA 0183 §5.3): "
                    + "the first \(firstDrop.why)")
        }
        return (track, backwards)
    }

    // MARK: - Lines

    private mutating func endLine() throws(TrackReadError) {
        try checkLength()
        defer {
            pending.removeAll(keepingCapacity: true)
            line += 1
        }
        var bytes = pending[...]
        while let last = bytes.last, last == 0x0D || last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        var column = 1
        if line == 1, bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            bytes = bytes.dropFirst(3)
        }
        while let first = bytes.first, first == 0x20 || first == 0x09 {
            bytes = bytes.dropFirst()
            column += 1
        }
        guard let first = bytes.first, first != UInt8(ascii: "#") else { return }
        guard first == UInt8(ascii: "$") || first == UInt8(ascii: "!") else {
            drop(column, "is not a sentence (it does not start with $)")
            return
        }
        let star = bytes.lastIndex(of: UInt8(ascii: "*"))
        guard let star, bytes.endIndex - star == 3,
            let given = UInt8(String(decoding: bytes[(star + 1)...], as: UTF8.self), radix: 16)
        else {
            drop(column, "is incomplete (no *HH checksum at its end)")
            return
        }
        let body = bytes[(bytes.startIndex + 1)..<star]
        let computed = NMEASentences.checksum(body)
        guard computed == given else {
            drop(
                column + (star - bytes.startIndex),
                "has checksum *\(NMEASentences.hex(given)), but its bytes sum to *\(NMEASentences.hex(computed))")
            return
        }
        guard first == UInt8(ascii: "$") else { return }
        // Fields with the column each starts at.
        var fields: [(text: Substring, column: Int)] = []
        let text = String(decoding: body, as: UTF8.self)
        var fieldColumn = column + 1
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            fields.append((part, fieldColumn))
            fieldColumn += part.utf8.count + 1
        }
        let address = fields[0].text
        guard address.utf8.count == 5, !address.hasPrefix("P") else { return }
        let reader = SentenceFields(fields: fields, name: name, line: line, type: String(address))
        // A field that is not what its sentence says (a garbage date, a cut number) drops that
        // sentence alone, as gpsd and gpsbabel do, with what the sentence had begun undone.
        let before = (epochs: epochs.count, current: current, firstGGA: firstGGA)
        do {
            switch address.suffix(3) {
            case "RMC": try readRMC(reader)
            case "GGA": try readGGA(reader)
            case "VTG": try readVTG(reader)
            default: break
            }
        } catch {
            epochs.removeSubrange(before.epochs...)
            (current, firstGGA) = (before.current, before.firstGGA)
            drop(error.column, "has a bad field: \(error.message)")
        }
    }

    private mutating func drop(_ column: Int, _ why: String) {
        dropped += 1
        if firstDrop == nil { firstDrop = (line, column, "sentence " + why) }
    }

    // MARK: - Sentences

    /// The epoch a sentence stamped `timeOfDay` belongs to: the current one, or a new one.
    private mutating func epoch(at timeOfDay: Double) -> Epoch {
        if let current, current.timeOfDay == timeOfDay { return current }
        if let current { epochs.append(current) }
        return Epoch(line: line, timeOfDay: timeOfDay)
    }

    /// `$--RMC,time,status,lat,N,lon,E,knots,course,ddmmyy,magvar,E[,mode]`
    private mutating func readRMC(_ s: SentenceFields) throws(TrackReadError) {
        guard let timeOfDay = try s.timeOfDay(1) else { return }
        var epoch = epoch(at: timeOfDay)
        let status = s.text(2)
        let mode = s.text(12)
        let valid = status == "A" && mode != "N"
        epoch.date = try s.date(9) ?? epoch.date
        if valid {
            epoch.rmcFix = true
            // Read even where the epoch's GGA gave the position: a bad field drops this sentence
            // (its date, speed and course too), as gpsd does, not only when its position is used.
            if let position = try s.position(3), epoch.latitude == nil || !epoch.ggaFix {
                (epoch.latitude, epoch.longitude) = position
            }
            if let knots = try s.number(7) { epoch.speed = knots * 1852 / 3600 }
            if let course = try s.number(8) { epoch.course = course }
        } else {
            epoch.noFix = true
        }
        current = epoch
    }

    /// `$--GGA,time,lat,N,lon,E,quality,satellites,hdop,altitude,M,separation,M,age,station`
    private mutating func readGGA(_ s: SentenceFields) throws(TrackReadError) {
        guard let timeOfDay = try s.timeOfDay(1) else { return }
        if firstGGA == nil { firstGGA = line }
        var epoch = epoch(at: timeOfDay)
        let quality = try s.number(6) ?? 0
        if quality > 0 {
            epoch.ggaFix = true
            if let position = try s.position(2) { (epoch.latitude, epoch.longitude) = position }
            if let altitude = try s.number(9, signed: true) { epoch.altitude = altitude }
        } else {
            epoch.noFix = true
        }
        current = epoch
    }

    /// `$--VTG,course,T,magnetic,M,knots,N,kmh,K[,mode]`: speed and course when RMC gave none.
    private mutating func readVTG(_ s: SentenceFields) throws(TrackReadError) {
        guard var epoch = current else { return }
        if epoch.course == nil, let course = try s.number(1) { epoch.course = course }
        if epoch.speed == nil {
            if let knots = try s.number(5) {
                epoch.speed = knots * 1852 / 3600
            } else if let kmh = try s.number(7) {
                epoch.speed = kmh / 3.6
            }
        }
        current = epoch
    }
}

/// What one epoch's sentences said.
private struct Epoch {
    var line: Int
    var timeOfDay: Double
    /// Days since 1970-01-01, from RMC.
    var date: Int?
    var latitude: Double?
    var longitude: Double?
    var altitude: Double?
    var speed: Double?
    var course: Double?
    var ggaFix = false
    var rmcFix = false
    var noFix = false

    /// A fix with a position: GGA quality above 0 or RMC status A.
    var isFix: Bool { (ggaFix || rmcFix) && latitude != nil }
}

/// A checksummed sentence's fields, read with errors that name the field's line and column.
private struct SentenceFields {
    var fields: [(text: Substring, column: Int)]
    var name: String
    var line: Int
    var type: String

    func text(_ index: Int) -> Substring {
        index < fields.count ? fields[index].text : ""
    }

    func fail(_ index: Int, _ what: String) -> TrackReadError {
        let column = index < fields.count ? fields[index].column : (fields.last?.column ?? 1)
        return TrackReadError(
            .invalid, file: name, line: line, column: column,
            "\(type) field \(index) '\(String(text(index).prefix(32)))' is not \(what)")
    }

    /// A non-negative decimal (or signed with `signed`), nil when the field is empty.
    func number(_ index: Int, signed: Bool = false) throws(TrackReadError) -> Double? {
        let field = text(index)
        guard !field.isEmpty else { return nil }
        var digits = field[...]
        if signed, digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            digits.filter({ $0 == "." }).count <= 1, let value = Double(field), value.isFinite
        else {
            throw fail(index, signed ? "a number" : "a non-negative number")
        }
        return value
    }

    /// `hhmmss[.ss]` as seconds since midnight, nil when empty.
    func timeOfDay(_ index: Int) throws(TrackReadError) -> Double? {
        let field = text(index)
        guard !field.isEmpty else { return nil }
        let utf8 = Array(field.utf8)
        func digit(_ i: Int) -> Int? {
            i < utf8.count && utf8[i] >= 0x30 && utf8[i] <= 0x39 ? Int(utf8[i] - 0x30) : nil
        }
        guard utf8.count >= 6, let h1 = digit(0), let h2 = digit(1), let m1 = digit(2), let m2 = digit(3),
            let s1 = digit(4), let s2 = digit(5)
        else { throw fail(index, "a time of day hhmmss[.ss]") }
        let (hours, minutes, seconds) = (h1 * 10 + h2, m1 * 10 + m2, s1 * 10 + s2)
        var fraction = 0.0
        if utf8.count > 6 {
            guard utf8[6] == UInt8(ascii: "."), utf8.count > 7, (7..<utf8.count).allSatisfy({ digit($0) != nil }),
                let value = Double("0" + String(decoding: utf8[6...], as: UTF8.self))
            else { throw fail(index, "a time of day hhmmss[.ss]") }
            fraction = value
        }
        // A leap second (235960) is read as the 60th second, as gpsd does; a leap second comes
        // only at the end of a UTC day (`000060` was read as a minute on, and the next sentence
        // blamed for going back in time).
        guard hours < 24, minutes < 60, seconds < 60 || (hours == 23 && minutes == 59 && seconds == 60) else {
            throw fail(index, "a time of day hhmmss[.ss]")
        }
        return Double(hours * 3600 + minutes * 60 + seconds) + fraction
    }

    /// `ddmmyy` as days since 1970, nil when empty.
    func date(_ index: Int) throws(TrackReadError) -> Int? {
        let field = text(index)
        guard !field.isEmpty else { return nil }
        guard field.utf8.count == 6, field.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(field)
        else { throw fail(index, "a date ddmmyy") }
        let (day, month, yy) = (value / 10_000, value / 100 % 100, value % 100)
        let year = yy >= 80 ? 1900 + yy : 2000 + yy
        let days = CivilCalendar.days(year: year, month: month, day: day)
        // A day the month does not have (310299) comes back as another date.
        let civil = CivilCalendar.date(days: days)
        guard (1...12).contains(month), day >= 1, civil.year == year, civil.month == month, civil.day == day else {
            throw fail(index, "a date ddmmyy")
        }
        return days
    }

    /// `ddmm.mmm,N,dddmm.mmm,E` from field `index`, nil when the fields are empty.
    func position(_ index: Int) throws(TrackReadError) -> (Double, Double)? {
        guard !text(index).isEmpty || !text(index + 2).isEmpty else { return nil }
        func angle(_ i: Int, degreeDigits: Int, limit: Double, hemispheres: (String, String)) throws(TrackReadError)
            -> Double
        {
            let form = degreeDigits == 2 ? "ddmm.mmm" : "dddmm.mmm"
            guard let value = try number(i), text(i).prefix(while: { $0 != "." }).count >= 3 else {
                throw fail(i, "an angle in degrees and minutes (\(form))")
            }
            let degrees = (value / 100).rounded(.down)
            let minutes = value - degrees * 100
            guard minutes < 60 else { throw fail(i, "an angle in degrees and minutes below 60 (\(form))") }
            let result = degrees + minutes / 60
            guard result <= limit else { throw fail(i, "within ±\(Int(limit))°") }
            switch text(i + 1) {
            case hemispheres.0: return result
            case hemispheres.1: return -result
            default: throw fail(i + 1, "a hemisphere (\(hemispheres.0) or \(hemispheres.1))")
            }
        }
        let latitude = try angle(index, degreeDigits: 2, limit: 90, hemispheres: ("N", "S"))
        let longitude = try angle(index + 2, degreeDigits: 3, limit: 180, hemispheres: ("E", "W"))
        return (latitude, longitude)
    }
}
