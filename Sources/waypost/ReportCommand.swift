import ArgumentParser
import Foundation
import RunReports
import WaypostSupport

/// `waypost report [RUN]`: a picture (or a summary, or GeoJSON) of a recorded run.
struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a recorded run: a map (SVG, HTML), GeoJSON, or a text timeline.",
        discussion: """
            Runs are recorded by `waypost replay --checkins` and `waypost test --db`; the database \
            must exist (a missing one is exit 66, never created here). Both maps are one \
            self-contained file: the route, regions and privacy zones as true-scale circles, event \
            markers, and posts coloured by the location precision they carried.

            The HTML map is interactive, on Leaflet: pan and zoom, a layer control (route, regions, \
            privacy zones, events, posts by network and by precision), a legend, popups with each \
            item's details, markers clustered where they overlap, a time slider, and #t=SECONDS in \
            the address to open it at an instant. Leaflet and Leaflet.markercluster are inlined from \
            the system (Debian/Ubuntu: libjs-leaflet and libjs-leaflet.markercluster, which `make \
            deps` installs, under /usr/share/javascript/leaflet; or the folder in \
            WAYPOST_LEAFLET_DIR), so the file works offline. Where Leaflet is missing, the HTML is \
            the static SVG map with a time slider, and one line on standard error says how to get \
            the interactive one.

            No base map is loaded unless --tiles names one (a URL template with {z}, {x} and {y}), \
            with --attribution as its provider requires. OpenStreetMap's tiles \
            (https://tile.openstreetmap.org/{z}/{x}/{y}.png) are free for light use under its tile \
            usage policy: https://operations.osmfoundation.org/policies/tiles/

            The SVG map is a static picture (for documents and bug reports); GeoJSON opens in \
            geojson.io or QGIS.

            Examples:
              waypost test fixtures/scenarios/commute-cafe-checkin.yaml --db runs.db
              waypost report commute-cafe-checkin --db runs.db
              waypost report commute-cafe-checkin --db runs.db --format html -o map.html
              waypost report --db runs.db --format geojson --output run.geojson
              waypost report --db runs.db --format html -o map.html \\
                --tiles 'https://tile.openstreetmap.org/{z}/{x}/{y}.png' \\
                --attribution '© OpenStreetMap contributors'
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, svg, html, geojson
    }

    @Argument(help: ArgumentHelp("The run's name (default: the latest run).", valueName: "run"))
    var runName: String?

    @Option(help: "text, svg, html or geojson.")
    var format: Format = .text

    @Option(
        name: [.short, .long], help: "Write to this file instead of standard output (- is standard output).",
        completion: .file())
    var output: String?

    @Option(
        help: ArgumentHelp(
            "A base map under the HTML map: a tile URL template with {z}, {x} and {y} (default: none; see above).",
            valueName: "url"))
    var tiles: String?

    @Option(help: "The base map's attribution, as its provider requires (with --tiles).")
    var attribution: String?

    @OptionGroup var storage: ExistingStoreOptions

    func validate() throws {
        // `-o runs.db` for `runs.svg` replaced the store with the drawing.
        if let output, output != "-", isSameFile(output, storage.db) {
            throw ValidationError("--output \(output) is the --db store being read: the report would overwrite it")
        }
        if let tiles {
            guard format == .html else { throw ValidationError("--tiles is for --format html") }
            if let problem = TileLayer.problem(with: tiles) {
                throw ValidationError("--tiles '\(tiles)' \(problem)")
            }
            guard let attribution, !attribution.isEmpty else {
                throw ValidationError(
                    "--tiles needs --attribution: tile providers require one (e.g. '© OpenStreetMap contributors')")
            }
        } else if attribution != nil {
            throw ValidationError("--attribution is for --tiles")
        }
    }

    func run() throws {
        try reportingFailures {
            let (store, record) = try storage.openRun(named: runName)
            let snapshot: RunSnapshot
            do {
                snapshot = try RunSnapshot.load(from: store, run: record)
            } catch let error as DecodingError {
                throw CommandFailure(
                    .dataError,
                    "\(storage.db): a record of run '\(record.name)' is unreadable (\(DecodingErrorText.explain(error)))"
                )
            }
            let text: String
            switch format {
            case .text: text = RunSummary.render(snapshot)
            case .svg: text = SVGMap.render(snapshot)
            case .html:
                if let assets = LeafletAssets.locate() {
                    let base = tiles.map { TileLayer(urlTemplate: $0, attribution: attribution ?? "") }
                    text = LeafletMap.render(snapshot, assets: assets, tiles: base)
                } else {
                    if tiles != nil {
                        throw CommandFailure(
                            .unavailable, "--tiles needs the interactive map: \(LeafletAssets.installHint)")
                    }
                    FileHandle.standardError.write(Data("waypost: note: \(LeafletAssets.installHint)\n".utf8))
                    text = HTMLMap.render(snapshot)
                }
            case .geojson: text = RunGeoJSON.render(snapshot)
            }
            try OutputDestination(output).write { $0.write(text) }
        }
    }
}
