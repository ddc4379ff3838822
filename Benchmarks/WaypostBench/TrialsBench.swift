import Foundation

/// Issue 30, item 7: trials in one process against the same scenario as separate `waypost test`
/// processes — trials a second, and peak memory as N grows (it should stay flat: a trial's run
/// is dropped once its record is made).
func trialsSection(waypost: String, runs: Int) {
    print("")
    print("Trials: fixtures/scenarios/field-cafe-checkin.yaml (the commute, realism device)")
    guard FileManager.default.isExecutableFile(atPath: waypost) else {
        return print("trials measurements: n/a (build the waypost product in release)")
    }
    let scenario = "fixtures/scenarios/field-cafe-checkin.yaml"
    // One trial a process: the same scenario without `trials:`, so each process does one seeded
    // run — a trial's work (`trials: 1` would add the exact run).
    let single = benchDirectory.appendingPathComponent("field-cafe-checkin-1.yaml")
    guard let text = try? String(contentsOfFile: scenario, encoding: .utf8) else {
        return print("trials measurements: \(scenario) is missing")
    }
    let root = FileManager.default.currentDirectoryPath
    let one =
        text.replacingOccurrences(of: "trials: 40\n", with: "")
        .replacingOccurrences(of: "../../", with: "\(root)/").replacingOccurrences(of: "../", with: "\(root)/fixtures/")
    // A verdict may be a failure (exit 1: one trial cannot decide a rate); the time is what counts.
    func timed(_ arguments: [String], runs: Int) -> Measurement? {
        let all = (0..<runs).map { _ in measure(arguments) }
        guard all.allSatisfy({ $0.status <= 1 }) else { return nil }
        let sorted = all.map(\.seconds).sorted()
        return Measurement(
            seconds: sorted[sorted.count / 2], peakMegabytes: all.map(\.peakMegabytes).max() ?? .nan, status: 0)
    }
    guard (try? Data(one.utf8).write(to: single)) != nil,
        let separate = timed([waypost, "test", single.path], runs: max(runs, 10))
    else { return print("trials measurements failed: one trial as its own process") }
    var figures: [(trials: Int, measurement: Measurement)] = []
    for trials in [100, 1_000] {
        guard let m = timed([waypost, "test", scenario, "--trials", "\(trials)"], runs: 1) else {
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
                    "%5d trials in one process     %7.2f s  %6.0f MB   %7.1f trials/s   %.1f× separate processes (target ≥ 10)",
                trials, m.seconds, m.peakMegabytes, rate, rate / separateRate))
    }
    if figures.count == 2 {
        print(
            String(
                format: "peak memory, 1,000 trials / 100: %.2f× (target: flat, ≤ 1.2)",
                figures[1].measurement.peakMegabytes / figures[0].measurement.peakMegabytes))
    }
}
