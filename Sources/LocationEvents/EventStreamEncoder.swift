import Foundation
import SimulatedTime
import WaypostSupport

/// Renders events as DESIGN.md's event stream: one JSON object per line (`jsonl`), or a
/// readable line per event (`text`). Deterministic: the same events give the same bytes.
public enum EventStreamEncoder {
    public enum Format: String, Sendable, CaseIterable {
        case text, jsonl
    }

    public static func encode(_ timed: TimedEvent, as format: Format) -> String {
        switch format {
        case .jsonl: json(timed)
        case .text: text(timed)
        }
    }

    /// Appends the event and a newline as UTF-8.
    public static func append(_ timed: TimedEvent, as format: Format, to out: inout [UInt8]) {
        switch format {
        case .jsonl: appendJSON(timed, to: &out)
        case .text: appendText(timed, to: &out)
        }
        out.append(UInt8(ascii: "\n"))
    }

    /// `{"t":"…","type":"…",…}` with DESIGN.md's field names.
    public static func json(_ timed: TimedEvent) -> String {
        var bytes: [UInt8] = []
        appendJSON(timed, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the event's JSON object (no newline) as UTF-8, building no intermediate strings
    /// for the common fields: a replay writes one per fix.
    public static func appendJSON(_ timed: TimedEvent, to out: inout [UInt8]) {
        out.append(literal: #"{"t":""#)
        XSDDateTime.append(timed.time.secondsSince1970, fractionDigits: 3, to: &out)
        out.append(UInt8(ascii: "\""))
        if let device = timed.device { field("device", quoted(device), &out) }
        out.append(literal: #","type":""#)
        out.append(contentsOf: timed.event.type.utf8)
        out.append(UInt8(ascii: "\""))
        switch timed.event {
        case .authorizationChanged(let status):
            field("status", "\"\(status)\"", &out)
        case .locationUpdated(let fix, let service):
            appendLocation(fix, at: timed.time, to: &out)
            out.append(literal: service == .standard ? #","service":"standard""# : #","service":"significantChange""#)
        case .liveUpdate(let update):
            if let fix = update.location {
                appendLocation(fix, at: timed.time, to: &out)
            } else {
                out.append(literal: #","lat":null,"lon":null"#)
            }
            out.append(literal: update.isStationary ? #","isStationary":true"# : #","isStationary":false"#)
            field("diagnostics", names(update.diagnostics.names), &out)
        case .failed(let error):
            field("code", "\(error.code.rawValue)", &out)
            field("error", "\"\(error.name)\"", &out)
        case .enteredRegion(let region, let at), .exitedRegion(let region, let at):
            field("region", quoted(region.identifier), &out)
            number(#","lat":"#, at.latitude, &out)
            number(#","lon":"#, at.longitude, &out)
        case .determinedState(let state, let region):
            field("region", quoted(region.identifier), &out)
            field("state", "\"\(state)\"", &out)
        case .monitoringFailed(let region, let error):
            field("region", region.map { quoted($0.identifier) } ?? "null", &out)
            field("code", "\(error.code.rawValue)", &out)
            field("error", "\"\(error.name)\"", &out)
        case .visited(let visit):
            number(#","lat":"#, visit.coordinate.latitude, &out)
            number(#","lon":"#, visit.coordinate.longitude, &out)
            out.append(literal: #","hacc":"#)
            appendFixed(visit.horizontalAccuracy, 2, to: &out)
            field("arrival", "\"" + visit.arrival.iso8601 + "\"", &out)
            field(
                "departure",
                visit.isInProgress
                    ? "null" : "\"" + visit.departure.iso8601 + "\"", &out)
        case .accuracyAuthorizationChanged(let accuracy):
            field("accuracy", "\"\(accuracy)\"", &out)
        case .startedMonitoring(let region):
            field("region", quoted(region.identifier), &out)
        case .appStateChanged(let state):
            field("state", "\"\(state)\"", &out)
        case .appLaunched(let reason):
            field("reason", "\"\(reason.rawValue)\"", &out)
        case .monitorEvent(let event, _):
            field("monitor", quoted(event.monitor), &out)
            field("identifier", quoted(event.identifier), &out)
            field("state", "\"\(event.state)\"", &out)
            field("condition", event.condition.map(conditionJSON) ?? "null", &out)
            field("diagnostics", names(event.diagnostics.names), &out)
        case .sessionDiagnostic(let session):
            field("session", "\(session.session)", &out)
            field("kind", "\"\(session.kind.rawValue)\"", &out)
            field("requirement", session.requirement.map { "\"\($0)\"" } ?? "null", &out)
            field("active", session.isActive ? "true" : "false", &out)
            field("diagnostics", names(session.diagnostics.names), &out)
        case .locationUpdatesPaused, .locationUpdatesResumed:
            break
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A fix's fields: `lat`, `lon`, `alt`, `hacc`, `vacc`, `speed`, `course`, and `age` when it
    /// was cached.
    private static func appendLocation(_ fix: Location, at time: EpochInstant, to out: inout [UInt8]) {
        number(#","lat":"#, fix.coordinate.latitude, &out)
        number(#","lon":"#, fix.coordinate.longitude, &out)
        out.append(literal: #","alt":"#)
        appendFixed(fix.altitude, 3, to: &out)
        out.append(literal: #","hacc":"#)
        appendFixed(fix.horizontalAccuracy, 2, to: &out)
        out.append(literal: #","vacc":"#)
        appendFixed(fix.verticalAccuracy, 2, to: &out)
        out.append(literal: #","speed":"#)
        appendFixed(fix.speed, 3, to: &out)
        out.append(literal: #","course":"#)
        appendFixed(shownCourse(fix.course, digits: 2), 2, to: &out)
        if fix.timestamp < time {
            out.append(literal: #","age":"#)
            appendFixed(fix.timestamp.seconds(to: time), 3, to: &out)
        }
    }

    /// A JSON array of names.
    private static func names(_ names: [String]) -> String {
        "[" + names.map { "\"\($0)\"" }.joined(separator: ",") + "]"
    }

    /// `{"type":"circularGeographic","lat":…,"lon":…,"radius":…}` or
    /// `{"type":"beaconIdentity","uuid":"…","major":1,"minor":null}`.
    private static func conditionJSON(_ condition: MonitoringCondition) -> String {
        switch condition {
        case .circularGeographic(let circle):
            #"{"type":"circularGeographic","lat":\#(circle.center.latitude),"lon":\#(circle.center.longitude),"radius":\#(circle.radius)}"#
        case .beaconIdentity(let beacon):
            #"{"type":"beaconIdentity","uuid":"\#(beacon.uuid.uuidString)","major":\#(beacon.major.map { "\($0)" } ?? "null"),"minor":\#(beacon.minor.map { "\($0)" } ?? "null")}"#
        }
    }

    /// `key` (`,"lat":`) and the number as Swift prints it, the shortest text that reads back.
    private static func number(_ key: StaticString, _ value: Double, _ out: inout [UInt8]) {
        out.append(literal: key)
        ShortestDecimal.append(value, to: &out)
    }

    private static func field(_ key: String, _ json: String, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: ","))
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: key.utf8)
        out.append(contentsOf: #"":"#.utf8)
        out.append(contentsOf: json.utf8)
    }

    /// `2025-06-02T16:00:00.000Z  location  37.331817,-122.031175  ±0 m  1.38 m/s  198.7°`
    public static func text(_ timed: TimedEvent) -> String {
        var bytes: [UInt8] = []
        appendText(timed, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``text(_:)`` appended as UTF-8: a fix's line is written without intermediate strings, as a
    /// replay writes one per second of route.
    ///
    /// Names from files (devices, regions, monitors) go through ``DisplayEscaping``: a line is
    /// shown on a terminal, and a region called `ESC ] 0; … BEL` must not retitle it.
    static func appendText(_ timed: TimedEvent, to out: inout [UInt8]) {
        out.appendLine(writing: timed) { writeText($0, to: &$1) }
    }

    /// A line of ``text(_:)``, written in place (see `ByteCursor`).
    private static func writeText(_ timed: borrowing TimedEvent, to line: inout ByteCursor) {
        func put(_ text: String) { line.put(text) }
        func name(_ text: String) { line.put(DisplayEscaping.escape(text)) }
        XSDDateTime.write(timed.time.secondsSince1970, fractionDigits: 3, to: &line)
        line.put("  ")
        if let device = timed.device {
            line.put(UInt8(ascii: "["))
            name(device)
            line.put("] ")
        }
        switch timed.event {
        case .authorizationChanged(let status):
            put("authorization   \(status)")
        case .locationUpdated(let fix, let service):
            line.put(service == .standard ? "location        " : "significant     ")
            writeText(fix, at: timed.time, to: &line)
        case .liveUpdate(let update):
            put("live            ")
            if let location = update.location {
                writeText(location, at: timed.time, to: &line)
            } else {
                put("no location")
            }
            let shown = update.diagnostics.subtracting(.stationary)
            if update.isStationary { put("  stationary") }
            if !shown.isEmpty { put("  (\(shown))") }
        case .failed(let error):
            put("error           \(error.name) (\(error.code.rawValue))")
        case .enteredRegion(let region, _):
            put("enter           ")
            name(region.identifier)
        case .exitedRegion(let region, _):
            put("exit            ")
            name(region.identifier)
        case .determinedState(let state, let region):
            put("state           ")
            name(region.identifier)
            put(": \(state)")
        case .monitoringFailed(let region, let error):
            put("monitoringFailed ")
            name(region?.identifier ?? "-")
            put(": \(error)")
        case .visited(let visit):
            put(
                String(
                    format: "visit           %.6f,%.6f  ±%.0f m  %@ → %@", visit.coordinate.latitude,
                    visit.coordinate.longitude, visit.horizontalAccuracy,
                    visit.arrival.iso8601,
                    visit.isInProgress
                        ? "(still there)" : visit.departure.iso8601))
        case .accuracyAuthorizationChanged(let accuracy):
            put("accuracy        \(accuracy)")
        case .startedMonitoring(let region):
            put("monitoring      ")
            name(region.identifier)
        case .locationUpdatesPaused:
            put("paused          location updates (device still)")
        case .locationUpdatesResumed:
            put("resumed         location updates")
        case .appStateChanged(let state):
            put("app             \(state)")
        case .appLaunched(let reason):
            put("app launched    for \(reason.rawValue)")
        case .monitorEvent(let event, _):
            put("monitor         ")
            name(event.monitor)
            put("/")
            name(event.identifier)
            put(": \(event.state)")
            if !event.diagnostics.isEmpty { put(" (\(event.diagnostics))") }
        case .sessionDiagnostic(let session):
            put("session         \(session.session) ")
            put(session.requirement.map { "service (\($0))" } ?? "background activity")
            put(session.isActive ? ": active" : ": inactive")
            if !session.diagnostics.isEmpty { put(" (\(session.diagnostics))") }
        }
    }

    /// A course as written to `digits` decimals: one that would round to 360 is north, 0 (a
    /// course runs from 0 up to, not including, 360; the NMEA output of the same fix said 0.00
    /// where this said 360.0 — a black-box hunt).
    private static func shownCourse(_ course: Double, digits: Int) -> Double {
        // Half a unit of the last digit, for the stream's 1 and 2 decimals (no `pow` per fix).
        course >= 360 - (digits == 1 ? 0.05 : 0.005) ? 0 : course
    }

    /// `37.331817,-122.031175  ±0 m  alt 29.8 m  1.38 m/s  198.7°`
    private static func writeText(_ fix: Location, at time: EpochInstant, to line: inout ByteCursor) {
        func field(_ prefix: StaticString, _ value: Double, _ digits: Int, _ suffix: StaticString) {
            line.put(prefix)
            FixedPoint.writePrintf(value, digits: digits, to: &line)
            line.put(suffix)
        }
        field("", fix.coordinate.latitude, 6, ",")
        field("", fix.coordinate.longitude, 6, "  ±")
        field("", fix.horizontalAccuracy, 0, " m")
        if fix.verticalAccuracy >= 0 { field("  alt ", fix.altitude, 1, " m") }
        if fix.speed >= 0 { field("  ", fix.speed, 2, " m/s") }
        if fix.course >= 0 { field("  ", shownCourse(fix.course, digits: 1), 1, "°") }
        if fix.timestamp < time { field("  cached, ", fix.timestamp.seconds(to: time), 0, " s old") }
    }

    /// `value` rounded to `digits` decimals, written as Swift writes that Double (`69.5`, `5.0`,
    /// `-1.0`) but with integer arithmetic: this runs for five numbers of every fix.
    public static func fixed(_ value: Double, _ digits: Int) -> String {
        var bytes: [UInt8] = []
        appendFixed(value, digits, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func appendFixed(_ value: Double, _ digits: Int, to out: inout [UInt8]) {
        let scale: Int64 = digits == 3 ? 1000 : digits == 2 ? 100 : 10
        guard value.isFinite, abs(value) < 1e12 else {
            out.append(contentsOf: "\(value)".utf8)
            return
        }
        let scaled = Int64((value * Double(scale)).rounded())
        // Trailing zeros of the fraction go, one digit always stays (`5.0`, `69.5`).
        var units = UInt64(abs(scaled))
        var width = digits
        while width > 1 && units % 10 == 0 {
            units /= 10
            width -= 1
        }
        FixedPoint.append(units, places: width, negative: scaled < 0, to: &out)
    }

    private static func quoted(_ text: String) -> String { JSONEscaping.quoted(text) }
}
