// waypost-bench: measures the track reader against its peers on 1M-point files, then the
// emulator and the check-in engine over loopback, in one run.
//
//   waypost-bench                 generate inputs in .bench/ (once, seeded) and compare; then `social`
//   waypost-bench social          only the signed-request and check-in figures
//   waypost-bench scale           only file-to-output memory, first events and devices (issue 17)
//   waypost-bench trials          only trials in one process against separate processes (issue 30)
//   waypost-bench parse FILE      parse FILE into a Track and print its point count (child mode)
//   waypost-bench generate DIR    only write the inputs
//
// Environment: BENCH_RUNS (reader runs, 5), BENCH_SOCIAL_SECONDS (per measurement, 5),
// BENCH_SOCIAL_RUNS (signed-request runs per concurrency, 3); WAYPOST_BASELINE (an older build's
// waypost: the trials and the crowd paired with it) and WAYPOST_BASELINE_SCENARIO (its commute).
//
// Every reader measurement runs in its own child process so that peak RSS (from wait4) is that
// tool's alone. Times are medians of several runs; the figures that matter are the ratios, since
// the peers run on the same machine in the same minute. Never run by the tests.

import Foundation
import Geo
import LocationEvents
import LocationSimulation
import SimulatedTime
import Tracks
import WaypostSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: Inputs

/// A seeded xorshift generator, so the inputs are the same on every machine.
struct SeededRandom {
    var state: UInt64
    mutating func next() -> Double {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Double(state >> 11) / Double(1 << 53)
    }
}

/// A million-point random walk around Cupertino at walking pace, one fix a second.
func walk(points: Int, seed: UInt64) -> [(lat: Double, lon: Double, alt: Double, time: Double)] {
    var random = SeededRandom(state: seed)
    var lat = 37.3318
    var lon = -122.0312
    var alt = 70.0
    var heading = 0.0
    var out: [(Double, Double, Double, Double)] = []
    out.reserveCapacity(points)
    for i in 0..<points {
        heading += (random.next() - 0.5) * 0.6
        lat += cos(heading) * 1.4 / 111_000
        lon += sin(heading) * 1.4 / 88_000
        alt += (random.next() - 0.5) * 0.4
        out.append((lat, lon, alt, 1_748_880_000 + Double(i)))
    }
    return out
}

/// Writes a file through a 1 MB buffer, so generating 100 MB needs little memory.
func writeFile(_ url: URL, _ produce: ((String) -> Void) -> Void) throws {
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
        throw CocoaError(.fileWriteUnknown)
    }
    let handle = try FileHandle(forWritingTo: url)
    var buffer = ""
    buffer.reserveCapacity(1 << 20)
    produce { text in
        buffer += text
        if buffer.utf8.count >= 1 << 20 {
            handle.write(Data(buffer.utf8))
            buffer.removeAll(keepingCapacity: true)
        }
    }
    handle.write(Data(buffer.utf8))
    try handle.close()
}

func f6(_ x: Double) -> String { String(format: "%.6f", x) }
func f1(_ x: Double) -> String { String(format: "%.1f", x) }

let kmlHead =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<kml xmlns=\"http://www.opengis.net/kml/2.2\" xmlns:gx=\"http://www.google.com/kml/ext/2.2\">\n<Document><Placemark><name>bench</name>\n"

/// A gx:Track as Google Earth writes one: every `<when>`, then every `<gx:coord>`.
func writeTrack(_ url: URL, _ fixes: [(lat: Double, lon: Double, alt: Double, time: Double)]) throws {
    try writeFile(url) { out in
        out(kmlHead + "<gx:Track>\n")
        for f in fixes { out("<when>" + XSDDateTime.formatCompact(f.time) + "</when>\n") }
        for f in fixes { out("<gx:coord>" + f6(f.lon) + " " + f6(f.lat) + " " + f1(f.alt) + "</gx:coord>\n") }
        out("</gx:Track>\n</Placemark></Document></kml>\n")
    }
}

func generateTrack(_ url: URL, points: Int) throws {
    try writeTrack(url, walk(points: points, seed: 0x5EED_CAFE))
}

func generate(into directory: URL, points: Int) throws {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let fixes = walk(points: points, seed: 0x5EED_CAFE)
    let head = kmlHead
    try writeTrack(directory.appendingPathComponent("gxtrack-1m.kml"), fixes)
    try writeFile(directory.appendingPathComponent("linestring-1m.kml")) { out in
        out(head + "<LineString><coordinates>\n")
        for f in fixes { out(f6(f.lon) + "," + f6(f.lat) + "," + f1(f.alt) + "\n") }
        out("</coordinates></LineString>\n</Placemark></Document></kml>\n")
    }
    try writeFile(directory.appendingPathComponent("track-1m.gpx")) { out in
        out(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"waypost-bench\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n<trk><name>bench</name><trkseg>\n"
        )
        for f in fixes {
            out(
                "<trkpt lat=\"" + f6(f.lat) + "\" lon=\"" + f6(f.lon) + "\"><ele>" + f1(f.alt) + "</ele><time>"
                    + XSDDateTime.formatCompact(f.time) + "</time></trkpt>\n")
        }
        out("</trkseg></trk>\n</gpx>\n")
    }
}

// MARK: Measuring

struct Measurement {
    var seconds: Double
    var peakMegabytes: Double
    var status: Int32
}

/// Runs `arguments` as a child process (output discarded); wall time and peak RSS.
func measure(_ arguments: [String], environment extra: [String: String] = [:]) -> Measurement {
    var environment = ProcessInfo.processInfo.environment
    for (k, v) in extra { environment[k] = v }
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var pid: pid_t = 0
    var start = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    guard posix_spawnp(&pid, arguments[0], &actions, nil, argv, envp) == 0 else {
        return Measurement(seconds: .nan, peakMegabytes: .nan, status: 127)
    }
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    var end = timespec()
    clock_gettime(CLOCK_MONOTONIC, &end)
    let seconds = Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    #if canImport(Darwin)
        let peak = Double(usage.ru_maxrss) / 1_048_576  // bytes on Darwin
    #else
        let peak = Double(usage.ru_maxrss) / 1024  // kilobytes on Linux
    #endif
    return Measurement(seconds: seconds, peakMegabytes: peak, status: (status >> 8) & 0xFF)
}

/// Median of `runs` measurements (peak RSS: the largest seen).
func median(
    _ runs: Int, _ arguments: [String], environment: [String: String] = [:], highestStatus: Int32 = 0
) -> Measurement? {
    var results: [Measurement] = []
    for _ in 0..<runs {
        let m = measure(arguments, environment: environment)
        guard m.status <= highestStatus else { return nil }
        results.append(m)
    }
    return Measurement(
        seconds: middle(results.map(\.seconds)), peakMegabytes: results.map(\.peakMegabytes).max() ?? .nan, status: 0)
}

/// The median of `values` (the upper one of an even count), which are not empty.
func middle(_ values: [Double]) -> Double {
    values.sorted()[values.count / 2]
}

func tool(_ name: String) -> String? {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
        let path = "\(directory)/\(name)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}

// MARK: Main

let arguments = CommandLine.arguments
let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path

if arguments.count == 3 && arguments[1] == "parse" {
    do {
        let track = try TrackReader().read(contentsOf: URL(fileURLWithPath: arguments[2]))
        print(track.pointCount)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(65)
    }
}

/// Replays FILE in standard mode with `regionCount` regions (limit lifted past 20), counting
/// events instead of printing them. The first 20 regions sit on the route; the rest are spread,
/// seeded, over a 1° × 1° square (≈ 111 × 88 km) around it — a city's worth of geofences, most
/// of them far from the device at any moment, which is what the spatial index is for.
func replay(_ path: String, regionCount: Int) throws -> [String: Int] {
    let track = try TrackReader().read(contentsOf: URL(fileURLWithPath: path))
    let route = try RouteTiming().samples(for: track)  // random access below, to place regions on the route
    var configuration = LocationManagerConfiguration()
    configuration.regionLimit = regionCount > 20 ? nil : 20
    let manager = SimulatedLocationManager(
        status: .authorizedAlways, startTime: EpochInstant(secondsSince1970: route[0].point.timeIntervalSince1970 ?? 0),
        configuration: configuration)
    let lats = route.map(\.point.latitude)
    let lons = route.map(\.point.longitude)
    let middle = Coordinate(
        latitude: ((lats.min() ?? 0) + (lats.max() ?? 0)) / 2, longitude: ((lons.min() ?? 0) + (lons.max() ?? 0)) / 2)
    let (south, north) = (middle.latitude - 0.5, middle.latitude + 0.5)
    let (west, east) = (middle.longitude - 0.5, middle.longitude + 0.5)
    var random = SeededRandom(state: 0xBADC_0FFE)
    for i in 0..<regionCount {
        let center: Coordinate
        if i < 20 {
            center = route[(i * 7919 * 113) % route.count].point.coordinate
        } else {
            center = Coordinate(
                latitude: south + random.next() * (north - south), longitude: west + random.next() * (east - west))
        }
        manager.startMonitoring(
            for: CircularRegion(identifier: "r\(i)", center: center, radius: 100 + 200 * random.next()))
    }
    manager.startUpdatingLocation()
    var fixes = 0
    var enters = 0
    var exits = 0
    var other = 0
    Simulation(devices: [SimulatedDevice(route: route, manager: manager)]).run { timed in
        switch timed.event {
        case .locationUpdated: fixes += 1
        case .enteredRegion: enters += 1
        case .exitedRegion: exits += 1
        default: other += 1
        }
    }
    return ["fixes": fixes, "enters": enters, "exits": exits, "other": other]
}

if arguments.count == 4 && arguments[1] == "replay", let regions = Int(arguments[3]) {
    do {
        print(try replay(arguments[2], regionCount: regions))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(65)
    }
}

/// Signed requests against the emulator on loopback, with wrk's ceiling in the same run.
func socialSection() {
    let socialSeconds = Double(ProcessInfo.processInfo.environment["BENCH_SOCIAL_SECONDS"] ?? "") ?? 5
    let socialRuns = Int(ProcessInfo.processInfo.environment["BENCH_SOCIAL_RUNS"] ?? "") ?? 3
    print(
        "Signed reverse_geocode + statuses/update pairs against the emulator, median of \(socialRuns) runs of \(Int(socialSeconds)) s per concurrency"
    )
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var social: (figures: [SocialBench.Figures], wrk: Double?, bareClient: SocialBench.Figures)?
    Task.detached {
        social = try? await SocialBench.run(
            root: URL(fileURLWithPath: FileManager.default.currentDirectoryPath), seconds: socialSeconds,
            runs: socialRuns, concurrencies: [1, 16, 64])
        done.signal()
    }
    done.wait()
    guard let social else { return print("emulator measurements failed") }
    for f in social.figures {
        print(
            String(
                format: "concurrency %2d   %7.0f req/s   p50 %6.2f ms   p99 %6.2f ms   failures %d", f.concurrency,
                f.requestsPerSecond, f.p50 * 1000, f.p99 * 1000, f.failures))
    }
    print(
        String(
            format:
                "bare AsyncHTTPClient GETs of /__waypost/faults at c16: %.0f req/s (the client library's ceiling; signed = %.2f of it)",
            social.bareClient.requestsPerSecond,
            (social.figures.first { $0.concurrency == 16 }?.requestsPerSecond ?? .nan)
                / social.bareClient.requestsPerSecond))
    if let wrk = social.wrk, let c16 = social.figures.first(where: { $0.concurrency == 16 }) {
        print(
            String(
                format:
                    "wrk -t2 -c16 on GET /__waypost/faults: %.0f req/s; signed at c16 = %.2f of it (target ≥ 0.33), the bare client %.2f; target ≥ 3000 req/s",
                wrk, c16.requestsPerSecond / wrk, social.bareClient.requestsPerSecond / wrk))
    } else {
        print("wrk: n/a (apt install wrk)")
    }
    printInMemoryRequestCost(pairs: 5_000)
    print("End-to-end check-ins (rule → gates → SQLite outbox → reverse_geocode + statuses/update → audit)")
    nonisolated(unsafe) var checkins: [(Int, Double)]?
    nonisolated(unsafe) var failure: (any Error)?
    Task.detached {
        do {
            checkins = try await CheckinBench.run(
                root: URL(fileURLWithPath: FileManager.default.currentDirectoryPath), seconds: socialSeconds,
                concurrencies: [1, 16])
        } catch {
            failure = error
        }
        done.signal()
    }
    done.wait()
    let signed = social.figures.first { $0.concurrency == 16 }?.requestsPerSecond ?? .nan
    for (concurrency, rate) in checkins ?? [] {
        print(
            String(
                format: "concurrency %2d   %7.0f check-ins/s   = %.2f of the signed pair rate at c16 (%.0f pairs/s)%@",
                concurrency, rate, rate / (signed / 2), signed / 2, concurrency == 16 ? "; target ≥ 500/s" : ""))
    }
    if let failure { print("check-in measurements failed: \(failure)") }
}

/// The in-memory path's cost per signed request: `pairs` reverse_geocode + statuses/update pairs
/// through `EmulatorTransport`, one at a time; nil when they failed.
func inMemoryRequestCost(pairs: Int) -> Double? {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var seconds: Double?
    Task.detached {
        seconds = try? await SocialBench.inMemory(
            root: URL(fileURLWithPath: FileManager.default.currentDirectoryPath), pairs: pairs)
        done.signal()
    }
    done.wait()
    return seconds.map { $0 / Double(2 * pairs) }
}

func printInMemoryRequestCost(pairs: Int) {
    guard let cost = inMemoryRequestCost(pairs: pairs) else { return print("in-memory measurements failed") }
    print(
        String(
            format: "in memory (EmulatorTransport, a trial's path): %d signed pairs, %.1f µs a request", pairs,
            cost * 1e6))
}

/// `waypost-bench social-memory [pairs]`: only that figure.
if arguments.count >= 2 && arguments[1] == "social-memory" {
    printInMemoryRequestCost(pairs: arguments.count > 2 ? Int(arguments[2]) ?? 20_000 : 20_000)
    exit(0)
}

if arguments.count == 2 && arguments[1] == "social" {
    socialSection()
    exit(0)
}

let benchDirectory = URL(fileURLWithPath: ".bench")
if arguments.count == 3 && arguments[1] == "generate" {
    try generate(into: URL(fileURLWithPath: arguments[2]), points: 1_000_000)
    exit(0)
}
if arguments.count == 3 && arguments[1] == "generate-large" {
    try generateTrack(URL(fileURLWithPath: arguments[2]), points: 4_000_000)
    exit(0)
}

let inputs = [
    ("gx:Track KML", "gxtrack-1m.kml", "kml"),
    ("LineString KML", "linestring-1m.kml", "kml"),
    ("GPX with times", "track-1m.gpx", "gpx"),
]
if !inputs.allSatisfy({ FileManager.default.fileExists(atPath: benchDirectory.appendingPathComponent($0.1).path) }) {
    // In a child process: Linux carries a parent's peak RSS into children spawned after it.
    print("generating 1M-point inputs in .bench/ …")
    guard measure([me, "generate", benchDirectory.path]).status == 0 else {
        FileHandle.standardError.write(Data("waypost-bench: could not generate the inputs\n".utf8))
        exit(70)
    }
}

let runs = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 5
let xmllint = tool("xmllint")
let gpsbabel = tool("gpsbabel")
let waypost = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("waypost").path
if arguments.count == 2 && arguments[1] == "scale" {
    streamingSection(waypost: waypost, runs: runs, xmllint: xmllint)
    devicesSection(runs: runs)
    exit(0)
}
if arguments.count == 2 && arguments[1] == "trials" {
    trialsSection(waypost: waypost, runs: runs)
    crowdSection(waypost: waypost, runs: runs)
    exit(0)
}
print("Track reader, 1M points, median of \(runs) runs (peak RSS is the largest seen)")
print(
    "file             size    waypost          xmllint --stream   gpsbabel           waypost/xmllint  gpsbabel/waypost")
func cell(_ m: Measurement?) -> String {
    guard let m else { return "n/a".padding(toLength: 19, withPad: " ", startingAt: 0) }
    return String(format: "%5.2f s %6.0f MB   ", m.seconds, m.peakMegabytes)
}
for (label, file, format) in inputs {
    let path = benchDirectory.appendingPathComponent(file).path
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    let ours = median(runs, [me, "parse", path])
    let lint = xmllint.flatMap {
        median(runs, [$0, "--stream", "--noout"] + (file.hasPrefix("linestring") ? ["--huge"] : []) + [path])
    }
    let babel = gpsbabel.flatMap {
        median(
            max(1, runs / 2), [$0, "-t", "-i", format, "-f", path, "-o", "unicsv", "-F", "/dev/null"],
            environment: ["TZ": "UTC"])
    }
    let vsLint = ours.flatMap { o in lint.map { String(format: "%.2f×", o.seconds / $0.seconds) } } ?? "n/a"
    let vsBabel = ours.flatMap { o in babel.map { String(format: "%.1f× faster", $0.seconds / o.seconds) } } ?? "n/a"
    print(
        label.padding(toLength: 17, withPad: " ", startingAt: 0)
            + String(format: "%4.0f MB ", Double(size) / 1_048_576) + cell(ours) + cell(lint) + cell(babel)
            + vsLint.padding(toLength: 17, withPad: " ", startingAt: 0) + vsBabel)
}
print("targets (gx:Track): waypost ≤ 1.5× xmllint, ≥ 6× faster than gpsbabel, peak RSS ≤ 100 MB")

// Replay through the simulated location manager, against parse-only in the same run.
let gx = benchDirectory.appendingPathComponent("gxtrack-1m.kml").path
print("")
print("Replay of the 1M-point gx:Track, virtual clock, median of \(runs) runs")
if let parse = median(runs, [me, "parse", gx]), let twenty = median(runs, [me, "replay", gx, "20"]),
    let tenThousand = median(runs, [me, "replay", gx, "10000"])
{
    let jsonl =
        FileManager.default.isExecutableFile(atPath: waypost)
        ? median(runs, [waypost, "replay", gx, "--format", "jsonl"]) : nil
    print(String(format: "parse only                          %5.2f s %6.0f MB", parse.seconds, parse.peakMegabytes))
    print(
        String(
            format: "replay, 20 regions, events counted  %5.2f s %6.0f MB   %.2f× parse (target ≤ 2)", twenty.seconds,
            twenty.peakMegabytes, twenty.seconds / parse.seconds))
    print(
        String(
            format: "replay, 10,000 regions              %5.2f s %6.0f MB   %.2f× the 20-region replay (target ≤ 1.3)",
            tenThousand.seconds, tenThousand.peakMegabytes, tenThousand.seconds / twenty.seconds))
    if let jsonl {
        print(
            String(
                format: "waypost replay --format jsonl >/dev/null %5.2f s %6.0f MB   %.2f× parse (target ≤ 3)",
                jsonl.seconds, jsonl.peakMegabytes, jsonl.seconds / parse.seconds))
    } else {
        print("waypost replay --format jsonl: n/a (build the waypost product in release)")
    }
} else {
    print("replay measurements failed")
}

// Regions files at scale: reading and registering must grow linearly (issue 17).
print("")
print("Regions files, whole process (read, register, a 15-minute walk), median of \(runs) runs")
/// `count` places at random in one square of the Bay Area, written once to .bench/`name`: a YAML
/// list under `key`, or a JSON object's (`json`); `entry(i, latitude, longitude)` spells one.
func writePlaces(
    _ name: String, key: String, count: Int, json: Bool, seed: UInt64, _ entry: (Int, String, String) -> String
) throws -> String {
    let url = benchDirectory.appendingPathComponent(name)
    if !FileManager.default.fileExists(atPath: url.path) {
        var random = SeededRandom(state: seed ^ UInt64(count))
        try writeFile(url) { write in
            write(json ? "{\"\(key)\": [\n" : "\(key):\n")
            for i in 0..<count {
                let item = entry(i, f6(37 + random.next()), f6(-122.5 + random.next()))
                write(json ? "  \(item)\(i + 1 < count ? "," : "")\n" : "  - \(item)\n")
            }
            if json { write("]}\n") }
        }
    }
    return url.path
}
/// `count` random regions of 150 m, as YAML, or as JSON (the same regions) when `json`.
func writeRegions(_ count: Int, json: Bool = false) throws -> String {
    try writePlaces(
        "regions-\(count).\(json ? "json" : "yaml")", key: "regions", count: count, json: json, seed: 0x5EED_0000
    ) { i, latitude, longitude in
        json
            ? "{\"identifier\": \"r\(i)\", \"latitude\": \(latitude), \"longitude\": \(longitude), \"radius\": 150}"
            : "{identifier: r\(i), latitude: \(latitude), longitude: \(longitude), radius: 150}"
    }
}
let walk = "tracks/cupertino-walk.kml"  // `make bench` runs in the checkout, as .bench/ is
/// The walk replayed with every region or beacon of `file` (`option`: `--regions`, `--beacons`)
/// watched through `api`.
func replayWatching(_ option: String, _ file: String, api: String) -> Measurement? {
    median(runs, [waypost, "replay", walk, option, file, "--unlimited-regions", "--api", api, "--summary"])
}
/// Replays the walk with 10,000 and then 100,000 regions read from YAML or JSON files, monitored
/// through the delegate API or `CLMonitor` (`api`), and prints both, the 100,000 beside `goal`
/// for its time when there is one; false when a run failed.
func regionLoads(json: Bool, api: String = "delegate", goal: String? = nil) -> Bool {
    guard let small = try? writeRegions(10_000, json: json), let large = try? writeRegions(100_000, json: json),
        let tenK = replayWatching("--regions", small, api: api),
        let hundredK = replayWatching("--regions", large, api: api)
    else { return false }
    printLoads("regions\(json ? ", JSON" : "")\(api == "monitor" ? ", CLMonitor" : "")", tenK, hundredK, goal: goal)
    return true
}
/// A load's two lines: 10,000 and 100,000 `things`, the second beside the linear target and `goal`.
func printLoads(_ things: String, _ tenK: Measurement, _ hundredK: Measurement, goal: String? = nil) {
    func label(_ count: String) -> String { "\(count) \(things)".padding(toLength: 35, withPad: " ", startingAt: 0) }
    print(String(format: "%@ %5.2f s %6.0f MB", label("10,000"), tenK.seconds, tenK.peakMegabytes))
    print(
        String(
            format: "%@ %5.2f s %6.0f MB   %.1f× 10,000 (target ≤ 10: linear%@)", label("100,000"),
            hundredK.seconds, hundredK.peakMegabytes, hundredK.seconds / tenK.seconds,
            goal.map { "; the time, \($0)" } ?? ""))
}
// Issue 41: JSON goes through a JSON reader, not YAML's. `CLMonitor` evaluates only the conditions
// whose regions changed (before, 10,000 conditions took 7.9 s: every fix walked them all).
if !FileManager.default.isExecutableFile(atPath: waypost) || !regionLoads(json: false, goal: "< 1 s")
    || !regionLoads(json: true, goal: "≤ 0.5 s") || !regionLoads(json: true, api: "monitor")
{
    print("regions measurements failed (build the waypost product in release)")
}
/// `count` iBeacons of 40 m at random in the same square as the regions, as JSON.
func writeBeacons(_ count: Int) throws -> String {
    try writePlaces("beacons-\(count).json", key: "beacons", count: count, json: true, seed: 0xBEAC_0000) {
        i, latitude, longitude in
        "{\"identifier\": \"b\(i)\", \"uuid\": \"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\", \"major\": \(1 + i / 65_536), \"minor\": \(i % 65_536), \"latitude\": \(latitude), \"longitude\": \(longitude), \"range\": 40}"
    }
}
// `CLMonitor` watching every beacon of a world: a fix looks at the beacons heard near it and the
// conditions not settled (before, 10,000 took 15 s: every fix evaluated every beacon condition).
if FileManager.default.isExecutableFile(atPath: waypost), let small = try? writeBeacons(10_000),
    let large = try? writeBeacons(100_000),
    let tenK = replayWatching("--beacons", small, api: "monitor"),
    let hundredK = replayWatching("--beacons", large, api: "monitor")
{
    printLoads("beacons, CLMonitor", tenK, hundredK)
} else {
    print("beacons measurements failed (build the waypost product in release)")
}
if let twenty = median(runs, [me, "replay", gx, "20"]), let lakh = median(runs, [me, "replay", gx, "100000"]) {
    print(
        String(
            format: "replay of the 1M-point track, 100,000 regions %5.2f s   %.2f× with 20 (target ≤ 1.3)",
            lakh.seconds, lakh.seconds / twenty.seconds))
}

if FileManager.default.isExecutableFile(atPath: waypost) {
    streamingSection(waypost: waypost, runs: runs, xmllint: xmllint)
}
// The processes first: a child's peak memory counts this process's from before its `exec`, and
// the devices section grows it by 10,000 devices.
trialsSection(waypost: waypost, runs: runs)
crowdSection(waypost: waypost, runs: runs)
devicesSection(runs: runs)

print("")
socialSection()
