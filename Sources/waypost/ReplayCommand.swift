import ArgumentParser
import Foundation
import Tracks

/// `waypost replay TRACK`: the route's location fixes, as a table or DESIGN.md's event stream.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay a route and print its location events.",
        discussion: """
            Timed tracks keep their own times; untimed geometry is timed at --speed and densified so
            that samples are at most --sample-interval apart.

            Examples:
              waypost replay tracks/cupertino-walk.kml
              waypost replay tracks/i280-drive.kml --speed 29 --format jsonl
            """
    )

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case text, jsonl
    }

    @Argument(help: "A KML, KMZ or GPX file.")
    var track: String

    @Option(help: "text (a table) or jsonl (one event object per line).")
    var format: OutputFormat = .text

    @Option(help: "Travel speed for untimed geometry, m/s (default: walking, 1.4).")
    var speed: Double = RouteTiming.walkingSpeed

    @Option(help: "Longest gap between samples of untimed geometry, seconds.")
    var sampleInterval: Double = 1

    @Option(
        help:
            "Start time for untimed geometry, e.g. 2025-06-01T08:00:00Z (default: the file's own times, else 2025-01-01T00:00:00Z)."
    )
    var start: String?

    @Option(help: "Replay only the N-th path (track, line or route) of the file, counting from 1.")
    var path: Int?

    func validate() throws {
        if let path, path < 1 { throw ValidationError("--path counts from 1") }
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be a positive number of m/s") }
        guard sampleInterval > 0, sampleInterval.isFinite else {
            throw ValidationError("--sample-interval must be a positive number of seconds")
        }
        if let start, XSDDateTime.parse(start) == nil {
            throw ValidationError("--start '\(start)' is not an ISO-8601 time such as 2025-06-01T08:00:00Z")
        }
    }

    func run() throws {
        try reportingFailures {
            let parsed = try TrackReader().read(contentsOf: URL(fileURLWithPath: track), displayName: track)
            let timing = RouteTiming(
                speed: speed, sampleInterval: sampleInterval,
                start: start.flatMap(XSDDateTime.parse).map(Date.init(timeIntervalSince1970:)))
            let samples: [RouteSample]
            do {
                samples = try timing.samples(for: parsed, path: path)
            } catch let error as RouteTimingError {
                throw CommandFailure(.dataError, "\(track): \(error.message)")
            }
            let out = BufferedOutput()
            var printer = FixPrinter(format: format)
            for sample in samples { printer.print(sample, to: out) }
            out.flush()
        }
    }
}

/// Renders route samples as location fixes. Until the simulated location manager takes over,
/// fixes lie exactly on the route with GPS-class accuracy.
struct FixPrinter {
    /// Horizontal accuracy reported for exact fixes, metres.
    static let horizontalAccuracy = 5.0
    /// Vertical accuracy when the route has altitude; CoreLocation reports −1 (invalid) otherwise.
    static let verticalAccuracy = 3.0

    var format: Replay.OutputFormat
    private var printedHeader = false

    init(format: Replay.OutputFormat) {
        self.format = format
    }

    mutating func print(_ sample: RouteSample, to out: BufferedOutput) {
        let p = sample.point
        let time = XSDDateTime.formatMilliseconds(p.timeIntervalSince1970 ?? 0)
        switch format {
        case .jsonl:
            var line = "{\"t\":\"\(time)\",\"type\":\"location\""
            line += ",\"lat\":\(p.latitude),\"lon\":\(p.longitude),\"alt\":\(p.altitude ?? 0)"
            line += ",\"hacc\":\(Self.horizontalAccuracy),\"vacc\":\(p.altitude == nil ? -1 : Self.verticalAccuracy)"
            line += ",\"speed\":\(rounded(sample.speed, 3) ?? -1),\"course\":\(rounded(sample.course, 2) ?? -1)"
            line += ",\"service\":\"standard\"}\n"
            out.write(line)
        case .text:
            if !printedHeader {
                out.write(
                    pad("time", 26) + pad("latitude", 13) + pad("longitude", 14) + pad("alt m", 9)
                        + pad("speed m/s", 11) + "course°\n")
                printedHeader = true
            }
            out.write(
                pad(time, 26) + pad(String(format: "%.6f", p.latitude), 13)
                    + pad(String(format: "%.6f", p.longitude), 14)
                    + pad(p.altitude.map { String(format: "%.1f", $0) } ?? "-", 9)
                    + pad(sample.speed.map { String(format: "%.2f", $0) } ?? "-", 11)
                    + (sample.course.map { String(format: "%.1f", $0) } ?? "-") + "\n")
        }
    }

    private func rounded(_ value: Double?, _ digits: Int) -> Double? {
        guard let value else { return nil }
        let scale = [1.0, 10, 100, 1000][digits]
        return (value * scale).rounded() / scale
    }

    private func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count)
    }
}
