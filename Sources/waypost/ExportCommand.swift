import ArgumentParser
import Foundation
import SimulatedTime
import Tracks
import WaypostSupport

/// What `waypost export` writes: a track format, or a route in the form a tool that drives real
/// apps takes (``DriverExport``).
enum ExportTarget: String, CaseIterable, ExpressibleByArgument {
    case geojson, gpx, kml
    case xcodeGPX = "xcode-gpx"
    case simctl, maestro, adb

    var track: ExportFormat? { ExportFormat(rawValue: rawValue) }
    var driver: DriverExport.Format? { DriverExport.Format(rawValue: rawValue) }
}

/// `waypost export TRACK --format geojson|gpx|kml|xcode-gpx|simctl|maestro|adb`
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a route to GeoJSON, GPX or KML, or for Xcode, simctl, Maestro or the Android emulator.",
        discussion: """
            geojson (togeojson-compatible), gpx and kml convert the track as it is. xcode-gpx \
            (Xcode's Simulate Location: waypoints with times), simctl (one `xcrun simctl location \
            … start` command), maestro (a flow of `travel` steps) and adb (`adb emu geo fix` \
            lines paced by the route's times) take the route timed as replay times it — untimed \
            geometry at --speed — one position per route point (a leg longer than an hour at that \
            speed is cut into equal pieces along the geodesic, which the tools' straight lines \
            would leave), or one every --sample-interval seconds. What a format cannot keep is \
            one warning line on standard error.

            Examples:
              waypost export tracks/cupertino-walk.kml --format geojson > walk.geojson
              waypost export tracks/stevens-creek-ride.gpx --format kml --output ride.kml
              waypost export - --format gpx -o - < tracks/cafe-stop.kml
              waypost export tracks/sunnyvale-commute.kml --format xcode-gpx -o Commute.gpx
              waypost export tracks/i280-drive.kml --format simctl --device 5A1B2C3D
              waypost export tracks/sunnyvale-commute.kml --format maestro -o commute.yaml
              waypost export tracks/cafe-stop.kml --format adb -o stop.sh
            """
    )

    @Argument(
        help: "A KML, KMZ, GPX or NMEA 0183 file, or - for standard input.",
        completion: .file(extensions: trackExtensions))
    var track: String

    @Option(help: "Output format: \(ExportTarget.allCases.map(\.rawValue).joined(separator: ", ")).")
    var format: ExportTarget

    @Option(
        name: .shortAndLong,
        help: "Write here instead of standard output (replaced only on success; - is standard output).",
        completion: .file())
    var output: String?

    @Option(help: "A track point earlier than the one before it: strict (refuse the file), drop it, or sort the track.")
    var timeOrder: TimeOrder = .strict

    @Option(
        parsing: .unconditional,
        help: "xcode-gpx, simctl, maestro, adb: travel speed for untimed geometry, m/s (default: walking, 1.4).")
    var speed: Double?

    @Option(
        parsing: .unconditional,
        help: "xcode-gpx, simctl, maestro, adb: one position every this many seconds (default: one per route point).")
    var sampleInterval: Double?

    @Option(
        parsing: .unconditional,
        help: "xcode-gpx, simctl, maestro, adb: only the N-th path (track, line or route) of the file, counting from 1."
    )
    var path: Int?

    @Option(help: "simctl: the simulator's UDID (default: booted).")
    var device: String?

    func validate() throws {
        if let speed { try OptionRange.check("--speed", speed, 0.01...1_000, " m/s") }
        if let sampleInterval { try OptionRange.check("--sample-interval", sampleInterval, 0.01...3_600, " seconds") }
        if let path { try OptionRange.check("--path", path, 1...Int.max) }
        if format.track != nil, speed != nil || sampleInterval != nil || path != nil || device != nil {
            throw ValidationError(
                "--speed, --sample-interval, --path and --device are for xcode-gpx, simctl, maestro and adb; \(format.rawValue) converts the track as it is"
            )
        }
        if device != nil, format != .simctl { throw ValidationError("--device is for simctl") }
    }

    func run() throws {
        try reportingFailures {
            let input = RouteInput(argument: track)
            let parsed = try input.read(timeOrder: timeOrder)
            if let trackFormat = format.track {
                try OutputDestination(output).write { out in
                    var stream = out
                    TrackWriter.write(parsed, as: trackFormat, to: &stream)
                }
                for lost in TrackWriter.lost(parsed, as: trackFormat) {
                    // The sentence quotes the track's own names; the line is read on a terminal.
                    FileHandle.standardError.write(
                        Data("waypost: warning: \(DisplayEscaping.escape("\(input.displayName): \(lost)"))\n".utf8))
                }
                return
            }
            guard let driver = format.driver else { return }
            // One sample per route point: timing cuts only legs longer than an hour, into equal
            // pieces along the geodesic (a tool's straight line between far waypoints leaves it).
            let timing = RouteTiming(
                speed: speed ?? RouteTiming.walkingSpeed, sampleInterval: Seconds(3_600), untimedSampling: .points)
            var samples: [RouteSample]
            do throws(RouteTimingError) {
                samples = try timing.samples(for: parsed, path: path)
            } catch {
                throw CommandFailure(.dataError, "\(input.displayName): \(error.message)")
            }
            if let sampleInterval {
                // As a replay refuses to fill more (--max-fixes' default): times centuries apart
                // would be billions of positions.
                let span =
                    (samples.last?.point.timeIntervalSince1970 ?? 0) - (samples.first?.point.timeIntervalSince1970 ?? 0)
                guard span / sampleInterval <= Double(RouteTiming.defaultMaximumSamples) else {
                    throw CommandFailure(
                        .dataError,
                        "\(input.displayName): its times span \(Int(span.rounded())) s: one position every \(sampleInterval) s would be more than \(RouteTiming.defaultMaximumSamples); resample coarser (--sample-interval)"
                    )
                }
                samples = DriverExport.resampled(samples, every: sampleInterval)
            }
            try OutputDestination(output).write { out in
                var stream = out
                DriverExport.write(samples, as: driver, device: device, name: input.runName, to: &stream)
            }
            if let lost = DriverExport.lost(driver, samples: samples) {
                FileHandle.standardError.write(Data("waypost: \(lost)\n".utf8))
            }
        }
    }
}
