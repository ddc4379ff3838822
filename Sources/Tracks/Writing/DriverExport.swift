import Foundation
import Geo
import WaypostSupport

/// A timed route in the forms the tools that drive real apps take, so the route a prediction
/// was made for can follow the app to a simulator, an emulator or a test flow:
///
/// - `xcode-gpx`: Xcode's "Simulate Location" GPX — `<wpt>` waypoints with ascending `<time>`s,
///   no namespace (Xcode's own template; Xcode interpolates between waypoints by their times).
/// - `simctl`: one `xcrun simctl location <device> start --speed=… lat,lon lat,lon …` command
///   (Xcode 14+; latitude first; one speed for the whole route, the route's mean).
/// - `maestro`: a Maestro flow whose `travel` steps carry `"lat, lon"` points and a speed in m/s
///   (Maestro's source: `YamlTravelCommand`); a stop or a change of pace starts another step, and
///   so does the antimeridian (Maestro's `Traveller` steps straight in degrees, not across 180°).
/// - `adb`: a shell script of Android emulator console `geo fix <longitude> <latitude>
///   [<altitude>]` commands through `adb emu`, paced by the route's times with `sleep`.
///
/// None of them keeps everything a route has; ``lost(_:samples:)`` says what, in one line.
///
/// ```swift
/// var out = ""
/// DriverExport.write(samples, as: .simctl, to: &out)   // xcrun simctl location booted start …
/// ```
public enum DriverExport {
    public enum Format: String, Sendable, CaseIterable {
        case xcodeGPX = "xcode-gpx"
        case simctl, maestro, adb
    }

    /// Slower than this between two positions, metres per second, the device may be stopped: it
    /// is when the slow stretch ends within ``stopRadius`` of where it began (a crawl or a long
    /// gap that covers ground is a slow leg, not a stop).
    static let stoppedBelow = 0.3
    /// Metres a slow stretch may end from where it began and still be a stop (the pause radius of
    /// Core Location's automatic pause, 25 m, as elsewhere in Waypost).
    static let stopRadius = 25.0
    /// A leg of a Maestro flow ends where the pace changes by more than this fraction of its own.
    static let paceChange = 0.25

    /// What `format` cannot carry of these samples, as one line; nil when it keeps everything.
    public static func lost(_ format: Format, samples: [RouteSample]) -> String? {
        let altitude = samples.contains { $0.point.altitude != nil }
        switch format {
        case .xcodeGPX:
            return "xcode-gpx keeps each position and its time; "
                + (altitude ? "altitude, " : "")
                + "speed, course and accuracy are not kept (Xcode's waypoints take none)"
        case .simctl:
            let pace =
                switch (meanSpeed(samples), length(samples[...]) > 0) {
                case (let speed?, _): "their times become one speed (the route's mean, \(speedText(speed)) m/s)"
                case (nil, true): "their times give the route no duration, so it moves at simctl's own speed"
                case (nil, false): "their times become one speed (the route's mean, 0 m/s)"
                }
            return "simctl keeps the positions in order; \(pace): stops and changes of pace are not kept"
                + (altitude ? ", nor altitude" : "")
        case .maestro:
            return "maestro keeps the positions in order at each leg's mean speed; stops are not kept "
                + "(a travel step does not wait)" + (altitude ? ", nor altitude" : "")
        case .adb:
            return "adb keeps positions" + (altitude ? ", altitude" : "")
                + " and their times (as pauses); speed, course and accuracy are not kept (geo fix takes none)"
        }
    }

    /// Writes the samples (timed, in time order) as `format`. `device` names the simulator for
    /// `simctl` (default `booted`); `name` goes into the comments of the flow and the script.
    public static func write(
        _ samples: [RouteSample], as format: Format, device: String? = nil, name: String = "route",
        to out: inout some TextOutputStream
    ) {
        switch format {
        case .xcodeGPX: xcodeGPX(samples, to: &out)
        case .simctl: simctl(samples, device: device ?? "booted", to: &out)
        case .maestro: maestro(samples, name: commented(name), to: &out)
        case .adb: adb(samples, name: commented(name), to: &out)
        }
    }

    /// `name` (a file's, which may hold anything) for a comment line: control characters written
    /// visibly (``DisplayEscaping``), YAML's other line breaks (U+2028, U+2029) too, so that no
    /// part of it can end the comment and run in the shell script or become a key of the flow.
    static func commented(_ name: String) -> String {
        DisplayEscaping.escape(name).replacingOccurrences(of: "\u{2028}", with: "\\u{2028}")
            .replacingOccurrences(of: "\u{2029}", with: "\\u{2029}")
    }

    /// The route at one position every `interval` seconds from its first, interpolated along the
    /// straight line between the samples around each time, and its last position.
    public static func resampled(_ samples: [RouteSample], every interval: Double) -> [RouteSample] {
        guard let first = samples.first?.point.timeIntervalSince1970,
            let last = samples.last?.point.timeIntervalSince1970, interval > 0, last > first
        else { return samples }
        var out: [RouteSample] = []
        out.reserveCapacity(Int((last - first) / interval) + 2)
        var index = 0
        var k = 0.0
        while true {
            let time = first + k * interval
            guard time < last else { break }
            while index + 1 < samples.count, (samples[index + 1].point.timeIntervalSince1970 ?? last) <= time {
                index += 1
            }
            let a = samples[index].point
            let b = samples[min(index + 1, samples.count - 1)].point
            let (ta, tb) = (a.timeIntervalSince1970 ?? time, b.timeIntervalSince1970 ?? time)
            let f = tb > ta ? (time - ta) / (tb - ta) : 0
            let altitude = a.altitude.flatMap { x in b.altitude.map { x + f * ($0 - x) } }
            out.append(
                RouteSample(
                    point: TrackPoint(
                        latitude: a.latitude + f * (b.latitude - a.latitude),
                        longitude: Longitude.between(a.longitude, b.longitude, at: f), altitude: altitude,
                        time: Date(timeIntervalSince1970: time))))
            k += 1
        }
        if let end = samples.last { out.append(end) }
        return out
    }

    // MARK: - The formats

    private static func xcodeGPX(_ samples: [RouteSample], to out: inout some TextOutputStream) {
        // Xcode's template, as Xcode writes it: version 1.1, no namespace.
        out.write("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"Waypost\">\n")
        for sample in samples {
            out.write(
                "    <wpt lat=\"\(degrees(sample.point.latitude))\" lon=\"\(degrees(Tracks.Format.gpxLongitude(sample.point.longitude)))\">\n"
            )
            if let time = sample.point.timeIntervalSince1970 {
                out.write("        <time>\(XSDDateTime.formatCompact(time))</time>\n")
            }
            out.write("    </wpt>\n")
        }
        out.write("</gpx>\n")
    }

    private static func simctl(_ samples: [RouteSample], device: String, to out: inout some TextOutputStream) {
        let quoted = shellQuoted(device)
        guard samples.count > 1, length(samples[...]) > 0 else {
            // One place (or no movement): simctl's `start` needs two waypoints; `set` holds one.
            if let only = samples.first {
                out.write("xcrun simctl location \(quoted) set \(latitudeFirst(only))\n")
            }
            return
        }
        // A route that moves in no time (every point stamped alike) has no speed of its own:
        // `--speed` is optional, and simctl moves at its own. It was `set` to its first point.
        let command =
            "xcrun simctl location \(quoted) start" + (meanSpeed(samples).map { " --speed=\(speedText($0))" } ?? "")
        let waypoints = samples.map(latitudeFirst)
        // A long route's one line is past what exec takes (macOS: 1 MiB with the environment, about
        // 43,000 waypoints); simctl reads them from its standard input then ("Use '-' to read
        // waypoints from stdin, one waypoint per line", simctl's help).
        guard waypoints.reduce(0, { $0 + $1.utf8.count + 1 }) > simctlLineLimit else {
            out.write(command + " " + waypoints.joined(separator: " ") + "\n")
            return
        }
        out.write(command + " - <<'WAYPOINTS'\n" + waypoints.joined(separator: "\n") + "\nWAYPOINTS\n")
    }

    /// Bytes of waypoints a simctl command line may carry; past it they go through a here-document.
    static let simctlLineLimit = 128 * 1_024

    private static func maestro(_ samples: [RouteSample], name: String, to out: inout some TextOutputStream) {
        out.write(
            "# \(name) for Maestro, from `waypost export`: run it with `maestro test -e APP_ID=<your app id> FILE`.\n")
        out.write("appId: ${APP_ID}\n---\n")
        for leg in legs(samples) {
            // Maestro steps in straight lines of latitude and longitude (its Traveller), so a leg
            // across 180° is two steps that meet on the meridian: one step would go round the world.
            let positions = leg.samples.map { Coordinate(latitude: $0.point.latitude, longitude: $0.point.longitude) }
            let pieces = Antimeridian.cut(positions)
            for piece in pieces.isEmpty ? [positions] : pieces {  // one place: one point
                out.write("- travel:\n    points:\n")
                for position in piece {
                    out.write("      - \"\(degrees(position.latitude)), \(degrees(position.longitude))\"\n")
                }
                out.write("    speed: \(speedText(leg.speed))\n")
            }
        }
    }

    private static func adb(_ samples: [RouteSample], name: String, to out: inout some TextOutputStream) {
        out.write("#!/bin/sh\n")
        out.write(
            "# \(name) for the Android emulator, from `waypost export`: `geo fix <longitude> <latitude> [<altitude>]`\n"
        )
        out.write("# through `adb emu`, paced by the route's times (ANDROID_SERIAL picks the emulator).\n")
        out.write("set -e\n")
        // Each pause is the step between two times rounded from the start, to the millisecond: a
        // pause rounded on its own lost up to half a millisecond each (a 30 Hz track, 1 % of its time).
        let start = samples.lazy.compactMap(\.point.timeIntervalSince1970).first ?? 0
        var previous: Int?
        for sample in samples {
            if let time = sample.point.timeIntervalSince1970 {
                let elapsed = Int(((time - start) * 1_000).rounded())
                if let previous, elapsed > previous {
                    out.write("sleep \(number(Double(elapsed - previous) / 1_000, digits: 3))\n")
                }
                previous = elapsed
            }
            var line = "adb emu geo fix \(degrees(sample.point.longitude)) \(degrees(sample.point.latitude))"
            if let altitude = sample.point.altitude { line += " \(number(altitude, digits: 1))" }
            out.write(line + "\n")
        }
    }

    // MARK: - Pieces

    /// Metres along the route over seconds from its first time to its last; nil without both.
    static func meanSpeed(_ samples: [RouteSample]) -> Double? {
        guard let first = samples.first?.point.timeIntervalSince1970,
            let last = samples.last?.point.timeIntervalSince1970, last > first
        else { return nil }
        return length(samples[...]) / (last - first)
    }

    static func length(_ samples: ArraySlice<RouteSample>) -> Double {
        zip(samples, samples.dropFirst()).reduce(0) { $0 + distance($1.0, $1.1) }
    }

    static func distance(_ a: RouteSample, _ b: RouteSample) -> Double {
        ShortDistance.distance(
            Coordinate(latitude: a.point.latitude, longitude: a.point.longitude),
            Coordinate(latitude: b.point.latitude, longitude: b.point.longitude))
    }

    /// The route cut where it stops and where its pace changes: each leg's positions and its mean
    /// speed. A change of pace is the last half minute's pace more than a quarter off the leg's
    /// own, once the leg has lasted a minute (GPS noise changes the pace from point to point). A
    /// route without times is one leg at Maestro's default pace (4 m/s).
    static func legs(_ samples: [RouteSample]) -> [(samples: ArraySlice<RouteSample>, speed: Double)] {
        let steps = steps(samples)
        let stopped = stops(samples, steps: steps)
        var legs: [(samples: ArraySlice<RouteSample>, speed: Double)] = []
        var start = samples.startIndex
        var leg = (metres: 0.0, seconds: 0.0)
        var recent: [(metres: Double, seconds: Double)] = []
        func close(_ end: Int) {
            if end > start { legs.append((samples[start...end], leg.seconds > 0 ? leg.metres / leg.seconds : 4)) }
            (start, leg, recent) = (end, (0, 0), [])
        }
        for index in samples.indices.dropFirst() {
            let (metres, seconds) = steps[index]
            if stopped[index] {
                // Stopped: the leg so far ends here; the next takes the stop's positions on its
                // way out, and not its time.
                if leg.seconds > 0 { close(index - 1) }
                continue
            }
            recent.append((metres, seconds))
            while recent.count > 1, recent.dropFirst().reduce(0, { $0 + $1.seconds }) >= recentWindow {
                recent.removeFirst()
            }
            let window = recent.reduce((metres: 0.0, seconds: 0.0)) { ($0.metres + $1.metres, $0.seconds + $1.seconds) }
            if leg.seconds >= shortestLeg, window.seconds >= recentWindow, leg.metres > 0 {
                let (pace, current) = (window.metres / window.seconds, leg.metres / leg.seconds)
                if abs(pace - current) > paceChange * current {
                    close(index - 1)
                    recent = [(metres, seconds)]
                }
            }
            leg = (leg.metres + metres, leg.seconds + seconds)
        }
        if leg.seconds == 0, let last = legs.popLast() {
            // Positions after the last move (a final stop) go with the last leg.
            legs.append((samples[last.samples.startIndex...], last.speed))
        } else {
            close(samples.endIndex - 1)
        }
        return legs.isEmpty && !samples.isEmpty ? [(samples[...], 4)] : legs
    }

    /// Per position, the step to it from the one before: metres, and seconds (0 untimed); the
    /// first position's is zero.
    static func steps(_ samples: [RouteSample]) -> [(metres: Double, seconds: Double)] {
        samples.indices.map { index in
            guard index > samples.startIndex else { return (0, 0) }
            let (a, b) = (samples[index - 1], samples[index])
            return (distance(a, b), (b.point.timeIntervalSince1970 ?? 0) - (a.point.timeIntervalSince1970 ?? 0))
        }
    }

    /// Per position, whether the step to it from the one before (``steps(_:)``) is part of a stop:
    /// a run of steps slower than ``stoppedBelow`` that ends within ``stopRadius`` of where it began.
    static func stops(_ samples: [RouteSample], steps: [(metres: Double, seconds: Double)]) -> [Bool] {
        var stopped = Array(repeating: false, count: samples.count)
        func isSlow(_ index: Int) -> Bool {
            steps[index].seconds > 0 && steps[index].metres / steps[index].seconds < stoppedBelow
        }
        var index = samples.startIndex + 1
        while index < samples.endIndex {
            guard isSlow(index) else {
                index += 1
                continue
            }
            var end = index
            while end + 1 < samples.endIndex, isSlow(end + 1) { end += 1 }
            if distance(samples[index - 1], samples[end]) < stopRadius {
                for step in index...end { stopped[step] = true }
            }
            index = end + 1
        }
        return stopped
    }

    /// Seconds of recent travel whose pace is compared with the leg's, and the shortest leg.
    static let recentWindow = 30.0
    static let shortestLeg = 60.0

    static func latitudeFirst(_ sample: RouteSample) -> String {
        "\(degrees(sample.point.latitude)),\(degrees(sample.point.longitude))"
    }

    /// A speed in metres per second with two decimals, three significant digits below 1 m/s:
    /// `1.40`, `0.0140`, `0.000310` (two decimals alone made a slow route's `0.00`).
    static func speedText(_ value: Double) -> String {
        guard value > 0, value < 1 else { return number(value, digits: 2) }
        return number(value, digits: max(2, 2 - Int(log10(value).rounded(.down))))
    }

    /// Seven decimals: about a centimetre, as appium's simctl wrapper writes them.
    static func degrees(_ value: Double) -> String { number(value, digits: 7) }

    static func number(_ value: Double, digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }

    /// `value` as one shell word.
    static func shellQuoted(_ value: String) -> String {
        let plain = value.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || "-_.".unicodeScalars.contains($0)
        }
        return plain && !value.isEmpty ? value : "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
