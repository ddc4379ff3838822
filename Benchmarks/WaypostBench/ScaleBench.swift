// Issue 17's figures: memory and time to first event from file to output, devices by the
// thousand. Each figure is printed beside its goal.

import Foundation
import Scenarios
import SimulatedTime
import SocialEmulator

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Seconds until `arguments` prints its first line (then it is stopped): how long a user waits
/// for the first event.
func firstLine(_ arguments: [String]) -> Double? {
    var fds: [Int32] = [0, 0]
    guard fds.withUnsafeMutableBufferPointer({ pipe($0.baseAddress) }) == 0 else { return nil }
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    posix_spawn_file_actions_addclose(&actions, fds[0])
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var start = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    var pid: pid_t = 0
    guard posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ) == 0 else { return nil }
    close(fds[1])
    var byte: UInt8 = 0
    var seen = false
    while read(fds[0], &byte, 1) == 1 {
        if byte == 0x0A {
            seen = true
            break
        }
    }
    var end = timespec()
    clock_gettime(CLOCK_MONOTONIC, &end)
    kill(pid, SIGKILL)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    close(fds[0])
    return seen ? Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9 : nil
}

/// An untimed line round the world, 60 vertices: densified at 30 m/s it is 3.7 million fixes.
func writeWorldLine(_ url: URL) throws {
    let coordinates = (0..<60).map { i in "\(-179.5 + 6 * Double(i)),\(10 * Double(i % 5 - 2)),0" }
    try Data(
        ("<?xml version=\"1.0\"?><kml xmlns=\"http://www.opengis.net/kml/2.2\"><Placemark><name>world</name>"
            + "<LineString><coordinates>\(coordinates.joined(separator: " "))</coordinates></LineString>"
            + "</Placemark></kml>\n").utf8
    ).write(to: url)
}

/// Export and replay from file to output: peak memory at 1M and 4M points, time against the
/// parser floor, and the wait for the first event.
func streamingSection(waypost: String, runs: Int, xmllint: String?) {
    print("")
    print("From file to output, whole process, median of \(runs) runs (issue 17)")
    let large = benchDirectory.appendingPathComponent("gxtrack-4m.kml")
    if !FileManager.default.fileExists(atPath: large.path) {
        print("generating the 4M-point gx:Track in .bench/ …")
        guard measure([me, "generate-large", large.path]).status == 0 else { return print("could not generate it") }
    }
    // xmllint's time to parse each whole file: the first event cannot come sooner, since a bad
    // point at a file's end must be found before anything is printed (DESIGN.md).
    var floors: [String: Double] = [:]
    for (label, file) in [
        ("gx:Track 1M", "gxtrack-1m.kml"), ("GPX 1M", "track-1m.gpx"), ("gx:Track 4M", "gxtrack-4m.kml"),
    ] {
        let path = benchDirectory.appendingPathComponent(file).path
        let lint = xmllint.flatMap { median(runs, [$0, "--stream", "--noout", path]) }
        floors[path] = lint?.seconds
        var export: Measurement?
        for format in ["geojson", "gpx", "kml"] {
            guard let m = median(runs, [waypost, "export", path, "--format", format]) else { continue }
            if format == "geojson" { export = m }
            let ratio = lint.map { String(format: "%.2f× xmllint (target ≤ 1.5)", m.seconds / $0.seconds) } ?? ""
            print(
                String(
                    format: "%@ export %-7@ %5.2f s %6.0f MB (target ≤ 50 MB)   %@", label, format, m.seconds,
                    m.peakMegabytes, ratio))
        }
        if let replay = median(runs, [waypost, "replay", path, "--summary"]), let export {
            print(
                String(
                    format: "%@ replay --summary %5.2f s %6.0f MB (target ≤ 50 MB)   %.2f× export (target ≤ 1.5)",
                    label, replay.seconds, replay.peakMegabytes, replay.seconds / export.seconds))
        }
    }
    let world = benchDirectory.appendingPathComponent("world-line.kml")
    try? writeWorldLine(world)
    for (label, arguments) in [
        ("1M-point gx:Track", [waypost, "replay", benchDirectory.appendingPathComponent("gxtrack-1m.kml").path]),
        ("4M-point gx:Track", [waypost, "replay", large.path]),
        ("untimed line round the world, 3.7M fixes", [waypost, "replay", world.path, "--speed", "30"]),
    ] {
        let waits = (0..<runs).compactMap { _ in firstLine(arguments) }.sorted()
        let shown = waits.isEmpty ? "n/a" : String(format: "%.2f s", waits[waits.count / 2])
        let floor = floors[arguments[2]].map { String(format: "; xmllint parses the whole file in %.2f s", $0) } ?? ""
        print("first event of `waypost replay`, \(label): \(shown) (target < 1 s\(floor))")
    }
    if let world = median(runs, [waypost, "replay", world.path, "--speed", "30", "--summary"]) {
        print(
            String(
                format: "untimed line round the world, replay --summary: %5.2f s %6.0f MB (target ≤ 50 MB)",
                world.seconds, world.peakMegabytes))
    }
}

/// One device against 10,000 on the same route, in process (no start-up in the figures): time
/// per device-fix, and the peak memory of the whole process.
func devicesSection(runs: Int) {
    print("")
    print("Devices: the café walk (1,174 fixes a device), regions monitored, dry run (issue 17)")
    let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    func scenario(_ count: Int) -> String {
        """
        name: devices-\(count)
        seed: 17
        dryRun: true
        devices:
          - name: phone
            count: \(count)
            route: \(root.path)/tracks/cafe-stop.kml
            spread: { time: 10m, distance: 500 }
        regions: \(root.path)/fixtures/regions/commute-cafes.yaml
        expect:
          - { event: location, device: phone, atLeast: 1 }
        """
    }
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var figures: [(devices: Int, seconds: Double, fixes: Int)] = []
    nonisolated(unsafe) var failure: (any Error)?
    Task.detached {
        do {
            let fixtures = try EmulatorFixtures.load(from: root.appendingPathComponent("fixtures/places"))
            let runner = ScenarioRunner(fixtures: fixtures)
            for (count, repeats) in [(1, max(runs, 5) * 4), (10_000, 1)] {
                let url = benchDirectory.appendingPathComponent("devices-\(count).yaml")
                try Data(scenario(count).utf8).write(to: url)
                let parsed = try ScenarioFile.read(contentsOf: url, displayName: url.path)
                var times: [Double] = []
                var events = 0
                for _ in 0..<repeats {
                    let start = ContinuousClock.now
                    let outcome = try await runner.execute(parsed)
                    let elapsed = ContinuousClock.now - start
                    times.append(elapsed.inSeconds)
                    events = outcome.eventCount
                }
                figures.append((count, middle(times), events))
            }
        } catch {
            failure = error
        }
        done.signal()
    }
    done.wait()
    if let failure { return print("devices measurements failed: \(failure)") }
    guard figures.count == 2 else { return }
    let perFix = figures.map { $0.seconds / Double($0.fixes) }
    for (figure, cost) in zip(figures, perFix) {
        print(
            String(
                format: "%6d device%@  %7.2f s   %9d events   %5.2f µs per event", figure.devices,
                figure.devices == 1 ? " " : "s", figure.seconds, figure.fixes, cost * 1e6))
    }
    print(String(format: "10,000 devices: %.2f× the one-device time per event (target ≤ 1.5)", perFix[1] / perFix[0]))
    var usage = rusage()
    #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
        getrusage(RUSAGE_SELF, &usage)
    #endif
    print(
        String(format: "peak RSS of this process after the 10,000-device run: %.0f MB", Double(usage.ru_maxrss) / 1024))
}
