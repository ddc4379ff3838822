import ArgumentParser
import Foundation
import Tracks

extension ExportFormat: ExpressibleByArgument {}

/// `waypost export TRACK --format geojson|gpx|kml`
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a route to GeoJSON (togeojson-compatible), GPX or KML.",
        discussion: """
            Examples:
              waypost export tracks/cupertino-walk.kml --format geojson > walk.geojson
              waypost export tracks/stevens-creek-ride.gpx --format kml --output ride.kml
              waypost export - --format gpx -o - < tracks/cafe-stop.kml
            """
    )

    @Argument(
        help: "A KML, KMZ, GPX or NMEA 0183 file, or - for standard input.",
        completion: .file(extensions: trackExtensions))
    var track: String

    @Option(help: "Output format: \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
    var format: ExportFormat

    @Option(
        name: .shortAndLong,
        help: "Write here instead of standard output (replaced only on success; - is standard output).",
        completion: .file())
    var output: String?

    @Option(help: "A track point earlier than the one before it: strict (refuse the file), drop it, or sort the track.")
    var timeOrder: TimeOrder = .strict

    func run() throws {
        try reportingFailures {
            let parsed = try RouteInput(argument: track).read(timeOrder: timeOrder)
            try OutputDestination(output).write { out in
                var stream = out
                TrackWriter.write(parsed, as: format, to: &stream)
            }
        }
    }
}
