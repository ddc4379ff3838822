import ArgumentParser
import Foundation
import RunReports

/// `waypost report [RUN]`: a picture (or a summary, or GeoJSON) of a recorded run.
struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a recorded run: a map (SVG, HTML), GeoJSON, or a text timeline.",
        discussion: """
            Runs are recorded by `waypost replay --checkins` and `waypost test --db`. The SVG and \
            HTML maps are self-contained (no network): the route in Web Mercator, regions as \
            true-scale circles, event markers, and posts coloured by the location precision they \
            carried. The HTML adds a time slider and hover details. GeoJSON opens in geojson.io or \
            QGIS.

            Examples:
              waypost test fixtures/scenarios/commute-cafe-checkin.yaml --db runs.db
              waypost report commute-cafe-checkin --db runs.db
              waypost report commute-cafe-checkin --db runs.db --format html -o map.html
              waypost report --db runs.db --format geojson --output run.geojson
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, svg, html, geojson
    }

    @Argument(help: ArgumentHelp("The run's name (default: the latest run).", valueName: "run"))
    var runName: String?

    @Option(help: "text, svg, html or geojson.")
    var format: Format = .text

    @Option(name: [.short, .long], help: "Write to this file instead of standard output (- is standard output).")
    var output: String?

    @OptionGroup var storage: ExistingStoreOptions

    func run() throws {
        try reportingFailures {
            let (store, record) = try storage.openRun(named: runName)
            let snapshot: RunSnapshot
            do {
                snapshot = try RunSnapshot.load(from: store, run: record)
            } catch let error as DecodingError {
                throw CommandFailure(
                    .dataError, "\(storage.db): a record of run '\(record.name)' is unreadable (\(error))")
            }
            let text: String
            switch format {
            case .text: text = RunSummary.render(snapshot)
            case .svg: text = SVGMap.render(snapshot)
            case .html: text = HTMLMap.render(snapshot)
            case .geojson: text = RunGeoJSON.render(snapshot)
            }
            try OutputDestination(output).write { $0.write(text) }
        }
    }
}
