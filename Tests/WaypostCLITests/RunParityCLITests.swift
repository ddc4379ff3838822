import Foundation
import TestSupport
import Testing

/// `waypost replay` and `waypost test` are two front ends over one run (`RunSession`): a shipped
/// scenario and the replay its options spell give the same posts, audit, events and store rows.
struct RunParityCLITests {
    /// A shipped scenario as `waypost replay` arguments, when every key it uses has a replay
    /// option (one device, files for regions, rules and privacy); nil otherwise.
    static func replayArguments(for path: String) throws -> [String]? {
        let text = try String(contentsOfFile: Corpus.repositoryRoot.appendingPathComponent(path).path, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            .filter { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        var top: [String: String] = [:]
        var device: [String: String] = [:]
        var deviceLists: [String: [[String: String]]] = [:]
        var section = ""
        var listKey = ""
        for line in lines {
            if !line.hasPrefix(" ") {
                let (key, value) = pair(line)
                top[key] = value
                section = key
            } else if section == "device" {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("- {") {
                    let body = trimmed.dropFirst(3).dropLast().split(separator: ",").map { pair(String($0)) }
                    deviceLists[listKey, default: []].append(Dictionary(uniqueKeysWithValues: body))
                } else {
                    let (key, value) = pair(trimmed)
                    device[key] = value
                    listKey = key
                }
            }
        }
        let allowedTop: Set = [
            "name", "description", "seed", "device", "regions", "privacy", "rules", "expect", "iosVersion",
        ]
        let flags = [
            "speed": "--speed", "start": "--start", "mode": "--mode", "authorization": "--auth",
            "accuracyAuthorization": "--accuracy-authorization",
            "temporaryFullAccuracyAt": "--temporary-full-accuracy-at",
            "visits": "--visits",
        ]
        guard Set(top.keys).isSubset(of: allowedTop),
            ["regions", "privacy", "rules"].allSatisfy({ top[$0].map { !$0.isEmpty } ?? true }),
            let route = device["route"],
            Set(device.keys).isSubset(of: Set(flags.keys).union(["route", "appStates", "authorizationChanges"]))
        else { return nil }
        // Paths relative to the scenario's folder, as relative to the checkout.
        func resolved(_ relative: String) -> String {
            var parts = path.split(separator: "/").dropLast().map(String.init)
            for part in relative.split(separator: "/").map(String.init) {
                if part == ".." { parts.removeLast() } else { parts.append(part) }
            }
            return parts.joined(separator: "/")
        }
        var arguments = ["replay", resolved(route), "--run", top["name"] ?? "", "--seed", top["seed"] ?? "0"]
        if let regions = top["regions"] { arguments += ["--regions", resolved(regions)] }
        arguments += ["--checkins", top["rules"].map(resolved) ?? "fixtures/rules/none.yaml"]
        if let privacy = top["privacy"] { arguments += ["--privacy", resolved(privacy)] }
        if let version = top["iosVersion"] { arguments += ["--ios-version", version] }
        for (key, flag) in flags.sorted(by: { $0.key < $1.key }) {
            guard let value = device[key] else { continue }
            if value == "true" {
                arguments.append(flag)
            } else {
                arguments += [flag, key == "temporaryFullAccuracyAt" ? seconds(value) : value]
            }
        }
        for state in deviceLists["appStates"] ?? [] {
            arguments += ["--app-state", "\(state["state"] ?? "")@\(seconds(state["at"] ?? ""))"]
        }
        for change in deviceLists["authorizationChanges"] ?? [] {
            arguments += ["--authorization-change", "\(change["status"] ?? "")@\(seconds(change["at"] ?? ""))"]
        }
        return arguments
    }

    static func pair(_ text: String) -> (String, String) {
        let parts = text.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        return (parts[0], parts.count > 1 ? parts[1] : "")
    }

    /// `10m`, `90s`, `1h` or plain seconds, as seconds.
    static func seconds(_ text: String) -> String {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600]
        guard let unit = text.last.flatMap({ units[$0] }), let value = Double(text.dropLast()) else { return text }
        return String(Int(value * unit))
    }

    /// What a run left in its store, as the commands that read stores show it (wall-clock fields masked).
    static func stored(run name: String, db: String) throws -> [String] {
        try [
            ["audit", "--db", db, "--format", "json"], ["report", name, "--db", db, "--format", "text"],
            ["report", name, "--db", db, "--format", "geojson"],
        ].map { arguments in
            let run = try CLITests.waypost(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            return run.stdout.replacingOccurrences(
                of: #""(startedAt|finishedAt)" *: *[^,}]*"#, with: "", options: .regularExpression)
        }
    }

    /// Scenarios without `--db` run in memory; `--run-path durable` runs them as recorded runs go,
    /// on a temporary SQLite store and loopback HTTP. The reports a user reads are the same bytes.
    @Test(arguments: ["text", "json"])
    func runsNobodyKeepsReportTheSameInMemoryAsDurable(_ format: String) throws {
        let folder = Corpus.repositoryRoot.appendingPathComponent("fixtures/scenarios")
        let scenarios = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".yaml") }.sorted().map { "fixtures/scenarios/\($0)" }
        let memory = try CLITests.waypost(["test", "--format", format] + scenarios)
        let durable = try CLITests.waypost(["test", "--format", format, "--run-path", "durable"] + scenarios)
        #expect(memory.status == 0, "\(memory.stderr)")
        #expect(memory.stdout.count > 10_000)
        #expect(memory.stdout == durable.stdout)
        #expect(memory.stderr == durable.stderr)
    }

    @Test func everyExpressibleScenarioAndItsReplayStoreTheSameRun() throws {
        let scenarios = try FileManager.default.contentsOfDirectory(
            atPath: Corpus.repositoryRoot.appendingPathComponent("fixtures/scenarios").path
        ).filter { $0.hasSuffix(".yaml") }.sorted()
        var compared: [String] = []
        try withTemporaryDirectory { directory in
            for file in scenarios {
                let path = "fixtures/scenarios/\(file)"
                guard let arguments = try Self.replayArguments(for: path) else { continue }
                let name = arguments[3]
                let (a, b) = (
                    directory.appendingPathComponent("\(name)-test.db").path,
                    directory.appendingPathComponent("\(name)-replay.db").path
                )
                let test = try CLITests.waypost("test", path, "--db", a)
                #expect(test.status == 0, "\(path): \(test.stdout)\(test.stderr)")
                let replay = try CLITests.waypost(arguments + ["--db", b, "--format", "jsonl"])
                #expect(replay.status == 0, "\(arguments): \(replay.stderr)")
                guard replay.status == 0 else { continue }
                let (viaTest, viaReplay) = (try Self.stored(run: name, db: a), try Self.stored(run: name, db: b))
                for (x, y) in zip(viaTest, viaReplay) where x != y {
                    // The first line that differs, not two whole maps.
                    let (a, b) = (x.split(separator: "\n"), y.split(separator: "\n"))
                    let line = Array(zip(a, b)).firstIndex { $0.0 != $0.1 } ?? min(a.count, b.count)
                    let (left, right) = (a.dropFirst(line).first ?? "(end)", b.dropFirst(line).first ?? "(end)")
                    Issue.record(
                        "\(path) ≠ waypost \(arguments.joined(separator: " ")): line \(line + 1): \(left.prefix(300)) ≠ \(right.prefix(300))"
                    )
                }
                compared.append(file)
            }
        }
        // The scenarios that use only what replay options spell: most of the library.
        #expect(compared.count >= 11, "\(compared)")
    }
}
