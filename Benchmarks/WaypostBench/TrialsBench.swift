import Foundation

/// Issues 30 and 41: trials in one process against the same scenario as separate `waypost test`
/// processes, both sides one run at a time (`--jobs 1`) — trials a second, and peak memory as N
/// grows (it should stay flat: a trial's run is dropped once its record is made). Trials run in
/// memory (no SQLite file, no socket); the goal is 4× the in-process rate measured at d743c5a
/// (32 trials/s, both sides at --jobs 1, this machine), and 15× one trial a process. The same
/// trials without check-ins show that ratio's ceiling: the simulation's own cost.
func trialsSection(waypost: String, runs: Int) {
    print("")
    print("Trials: fixtures/scenarios/field-cafe-checkin.yaml (the commute), both sides at --jobs 1")
    guard FileManager.default.isExecutableFile(atPath: waypost) else {
        return print("trials measurements: n/a (build the waypost product in release)")
    }
    let scenario = "fixtures/scenarios/field-cafe-checkin.yaml"
    let root = FileManager.default.currentDirectoryPath
    // A verdict may be a failure (exit 1: one trial cannot decide a rate); the time is what
    // counts, so the medians below take exit 1 as a timed run.
    guard let single = singleTrial(of: scenario, named: "field-cafe-checkin-1.yaml"),
        let separate = median(max(runs, 10), [waypost, "test", single.path, "--jobs", "1"], highestStatus: 1)
    else { return print("trials measurements failed: one trial as its own process") }
    var figures: [(trials: Int, measurement: Measurement)] = []
    for trials in [100, 1_000] {
        guard let m = median(1, [waypost, "test", scenario, "--trials", "\(trials)", "--jobs", "1"], highestStatus: 1)
        else {
            return print("trials measurements failed: \(trials) trials")
        }
        figures.append((trials, m))
    }
    let separateRate = 1 / separate.seconds
    print(
        String(
            format: "one trial a process            %7.3f s  %6.0f MB   %7.1f trials/s", separate.seconds,
            separate.peakMegabytes, separateRate))
    for (trials, m) in figures {
        let rate = Double(trials) / m.seconds
        print(
            String(
                format:
                    "%5d trials in one process     %7.2f s  %6.0f MB   %7.1f trials/s (goal ≥ 128)   %.1f× separate processes (goal ≥ 15)",
                trials, m.seconds, m.peakMegabytes, rate, rate / separateRate))
    }
    if figures.count == 2 {
        print(
            String(
                format: "peak memory, 1,000 trials / 100: %.2f× (target: flat, ≤ 1.2)",
                figures[1].measurement.peakMegabytes / figures[0].measurement.peakMegabytes))
    }
    // The ceiling of that ratio: the same phones, route and cafés with no check-ins — the
    // simulation's own cost, which no saving on the engine, the clients or the emulator passes.
    let alone = benchDirectory.appendingPathComponent("field-cafe-simulation.yaml")
    let simulation = """
        name: field-cafe-simulation
        seed: 1
        realism: field
        device:
          route: \(root)/tracks/sunnyvale-commute.kml
        regions: \(root)/fixtures/regions/commute-cafes.yaml
        expect:
          - { event: regionEnter, region: infinite-loop-cafe, rate: ">= 0.5" }

        """
    guard (try? Data(simulation.utf8).write(to: alone)) != nil,
        let m = median(1, [waypost, "test", alone.path, "--trials", "1000", "--jobs", "1"], highestStatus: 1)
    else { return print("trials measurements failed: the simulation alone") }
    let rate = 1_000 / m.seconds
    print(
        String(
            format:
                " 1000 trials, no check-ins      %7.2f s  %6.0f MB   %7.1f trials/s   %.1f× separate processes (the ceiling)",
            m.seconds, m.peakMegabytes, rate, rate / separateRate))
    pairedTrials(waypost: waypost, scenario: scenario, single: single, runs: runs)
}

/// The scenario at `path` without `trials:`, its relative paths made absolute, written to the
/// bench's directory: each process given it does one seeded run — a trial's work (`--trials 1`
/// would add the exact run). Nil when it cannot be read or written.
private func singleTrial(of path: String, named name: String) -> URL? {
    let url = URL(fileURLWithPath: path)
    guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
    // The shipped scenarios name their files from fixtures/scenarios: `../../` is the checkout's
    // root, `../` its fixtures.
    let fixtures = url.deletingLastPathComponent().deletingLastPathComponent()
    let one = text.replacingOccurrences(of: "trials: 40\n", with: "")
        .replacingOccurrences(of: "../../", with: fixtures.deletingLastPathComponent().path + "/")
        .replacingOccurrences(of: "../", with: fixtures.path + "/")
    let single = benchDirectory.appendingPathComponent(name)
    return (try? Data(one.utf8).write(to: single)) != nil ? single : nil
}

/// The goal's own ratio: 1,000 trials in one process against the same at the baseline build
/// (`WAYPOST_BASELINE`), pair by pair, alternating. The baseline reads its own commute scenario,
/// `WAYPOST_BASELINE_SCENARIO` (d743c5a knows no `realism: field`: its commute ran `reips-2024`).
/// One trial a process is paired the same way: the 15× was set against the baseline's
/// process (8/s beside its 32/s in one process), and this build's own process is shown beside it.
private func pairedTrials(waypost: String, scenario: String, single: URL, runs: Int) {
    let environment = ProcessInfo.processInfo.environment
    guard let baseline = environment["WAYPOST_BASELINE"] else {
        return print("trials: set WAYPOST_BASELINE to d743c5a's waypost for the paired ratio (goal ≥ 4×)")
    }
    let baselineScenario = environment["WAYPOST_BASELINE_SCENARIO"] ?? scenario
    let trials = ["--trials", "1000", "--jobs", "1"]
    let sides = [
        ("this build", [waypost, "test", scenario] + trials),
        ("baseline", [baseline, "test", baselineScenario] + trials),
    ]
    guard let seconds = alternating(sides, rounds: min(runs, 3), measuring: "1,000 trials") else { return }
    let ratios = zip(seconds[1], seconds[0]).map(/)
    print(
        String(
            format: "1000 trials: %.1f× the baseline's rate (median of %d pairs, both at --jobs 1; goal ≥ 4)",
            middle(ratios), ratios.count))
    guard let theirs = singleTrial(of: baselineScenario, named: "baseline-field-cafe-checkin-1.yaml") else {
        return print("one trial a process, baseline: cannot write a single-trial copy of \(baselineScenario)")
    }
    guard
        let processes = alternating(
            [
                ("this build", [waypost, "test", single.path, "--jobs", "1"]),
                ("baseline", [baseline, "test", theirs.path, "--jobs", "1"]),
            ], rounds: 10, measuring: "one trial a process")
    else { return }
    let trial = middle(seconds[0]) / 1_000
    for (index, name) in ["this build's", "the baseline's"].enumerated() {
        let process = middle(processes[index])
        // The spread of the processes' own times, each against the median trial: a ratio near its
        // goal is read with it (this host's wall time moves by a fifth from minute to minute).
        let ratios = processes[index].map { $0 / trial }
        print(
            String(
                format:
                    "one trial a process, %-14@ %6.1f ms: 1000 trials in one process are %.1f× its rate (%d processes: %.1f–%.1f×; goal ≥ 15)",
                name, process * 1_000, process / trial, ratios.count, ratios.min() ?? 0, ratios.max() ?? 0))
    }
}

/// Each side's seconds over `rounds` rounds (at least one), the sides in turn within a round so
/// that both meet the same machine; nil, said, when a run exits above 1 (a verdict of failure is
/// still a timed run).
private func alternating(_ sides: [(name: String, command: [String])], rounds: Int, measuring what: String)
    -> [[Double]]?
{
    var seconds: [[Double]] = sides.map { _ in [] }
    for _ in 0..<max(1, rounds) {
        for (index, side) in sides.enumerated() {
            let m = measure(side.command)
            guard m.status <= 1 else {
                print("\(what) measurements failed: \(side.name) exited \(m.status)")
                return nil
            }
            seconds[index].append(m.seconds)
        }
    }
    return seconds
}

/// Issue 41: a 10,000-device crowd checking in, without `--db` (in memory), at `--jobs 1`; paired
/// with the same run of the tool at d743c5a when `WAYPOST_BASELINE` names that build (goal: ≥ 5×
/// faster), and the trial rate too.
func crowdSection(waypost: String, runs: Int) {
    print("")
    print("Crowd: 10,000 commuters checking in at the commute's cafés, no --db, --jobs 1")
    let root = FileManager.default.currentDirectoryPath
    let crowd = benchDirectory.appendingPathComponent("crowd-10000.yaml")
    let text = """
        name: crowd-10000
        seed: 1
        devices:
          - name: commuter
            count: 10000
            route: \(root)/tracks/sunnyvale-commute.kml
            spread: { time: 30m, distance: 300 }
        regions: \(root)/fixtures/regions/commute-cafes.yaml
        privacy: \(root)/fixtures/privacy/demo.yaml
        rules: \(root)/fixtures/rules/coffee.yaml
        expect:
          - { event: regionEnter, device: commuter, atLeast: 1 }

        """
    guard (try? Data(text.utf8).write(to: crowd)) != nil else { return print("crowd: cannot write \(crowd.path)") }
    let baseline = ProcessInfo.processInfo.environment["WAYPOST_BASELINE"]
    var sides = [("this build", [waypost, "test", crowd.path, "--jobs", "1"])]
    if let baseline { sides.append(("baseline", [baseline, "test", crowd.path, "--jobs", "1"])) }
    guard let samples = alternating(sides, rounds: min(runs, 3), measuring: "crowd") else { return }
    var seconds: [Double] = []
    for (index, side) in sides.enumerated() {
        seconds.append(middle(samples[index]))
        print(String(format: "%-12@ %8.2f s (median of %d)", side.0, seconds[index], samples[index].count))
    }
    if seconds.count == 2 {
        print(String(format: "crowd: %.1f× faster than the baseline (goal ≥ 5, paired)", seconds[1] / seconds[0]))
    } else {
        print("crowd: set WAYPOST_BASELINE to d743c5a's waypost for the paired ratio (goal ≥ 5×)")
    }
}
