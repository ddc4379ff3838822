import Foundation
import LocationEvents
import LocationSimulation
import TestSupport
import Testing
import Tracks
import WorldFiles

/// Issue 44: what `Simulation.events()` yields for an app set up with the library is the CLI's
/// stream, byte for byte, from its first line — the launch's authorization and monitoring events
/// included (they used to be lost: the stream began after the launch).
struct LibraryStreamTests {
    @Test func theLibrarysStreamIsTheCLIsByteForByte() throws {
        let root = Corpus.repositoryRoot
        let track = "tracks/sunnyvale-commute.kml"
        let regionsFile = "fixtures/regions/commute-cafes.yaml"
        let route = try RouteTiming().timeline(for: TrackReader().read(contentsOf: root.appendingPathComponent(track)))
        let start = try #require(route.span?.lowerBound)
        let app = AppScript(regions: try RegionFile.read(contentsOf: root.appendingPathComponent(regionsFile)))
        let manager = app.makeManager(startTime: start)
        app.launch(manager)
        var library = ""
        let device = SimulatedDevice(route: route, manager: manager, script: app.script(from: start))
        for event in Simulation(devices: [device]).events() {
            library += EventStreamEncoder.json(event) + "\n"
        }
        let cli = try CLITests.waypost("replay", track, "--regions", regionsFile, "--format", "jsonl")
        #expect(cli.status == 0, "\(cli.stderr)")
        let first = try #require(cli.stdout.split(separator: "\n").first)
        #expect(first.contains("authorization"), "the CLI's stream starts with the launch: \(first)")
        #expect(library.split(separator: "\n").count == cli.stdout.split(separator: "\n").count)
        #expect(library == cli.stdout)
    }
}
