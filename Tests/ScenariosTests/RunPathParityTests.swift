import CheckinEngine
import Foundation
import Runs
import Scenarios
import SocialEmulator
import TestSupport
import Testing

/// Runs nobody keeps go in memory (``CheckinEngine/InMemoryStore``, the emulator's core without a
/// socket); recorded runs go the durable way (SQLite, loopback HTTP). The in-memory path is only
/// allowed because it is the same run: every shipped scenario, and 100 trials of every shipped
/// trials scenario, give byte-identical audits, requests and verdicts both ways.
@Suite("Runs nobody keeps: the in-memory path is the durable path, byte for byte")
struct RunPathParityTests {
    static let scenarios: [String] = {
        let folder = Corpus.repositoryRoot.appendingPathComponent("fixtures/scenarios")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted()
    }()

    /// The shipped scenarios with `trials:`, each run 100 times both ways.
    static let trialsScenarios: [String] = scenarios.filter { (try? ScenarioTests.scenario($0))?.trials != nil }

    static func runner(_ path: RunPath) -> ScenarioRunner {
        var runner = ScenarioTests.runner
        runner.unrecordedPath = path
        return runner
    }

    /// What a run leaves that anyone reads: each post's audit record as JSON, and each request as
    /// the journal holds it — but for the transport's own headers (a socket's port, AHC's
    /// connection headers), which no verdict, audit or report reads.
    static func bytes(_ outcome: ScenarioOutcome) throws -> [String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let posts = try outcome.posts.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        let requests = try outcome.journal.map { entry in
            var entry = entry
            entry.headers = [:]
            return String(decoding: try encoder.encode(entry), as: UTF8.self)
        }
        return posts + ["--"] + requests + ["-- \(outcome.eventCount) events"]
    }

    /// Where two runs' lines first differ, both shown: the arrays whole are pages long.
    static func firstDifference(_ memory: [String], _ durable: [String]) -> String {
        let line = { (lines: [String], index: Int) in lines.indices.contains(index) ? lines[index] : "(none)" }
        guard let index = (0..<max(memory.count, durable.count)).first(where: { line(memory, $0) != line(durable, $0) })
        else { return "no difference" }
        return "line \(index):\n  in memory: \(line(memory, index))\n  durable:   \(line(durable, index))"
    }

    @Test func theShippedScenariosAreFound() {
        #expect(Self.scenarios.count >= 20, "\(Self.scenarios)")
        #expect(!Self.trialsScenarios.isEmpty, "no shipped scenario has trials")
    }

    @Test(arguments: scenarios)
    func aShippedScenarioLeavesTheSameAuditAndRequests(_ name: String) async throws {
        let scenario = try ScenarioTests.scenario(name)
        let memory = try await Self.runner(.inMemory).execute(scenario, recorded: false)
        let durable = try await Self.runner(.durable).execute(scenario, recorded: false)
        let (a, b) = (try Self.bytes(memory), try Self.bytes(durable))
        #expect(a == b, "\(Self.firstDifference(a, b))")
        let verdict = { (o: ScenarioOutcome) in
            zip(scenario.expectations, o.tallies).map { $0.evaluate(o, tally: $1) }
        }
        #expect(verdict(memory) == verdict(durable))
    }

    @Test(arguments: trialsScenarios)
    func aHundredTrialsGiveTheSameVerdicts(_ name: String) async throws {
        let scenario = try ScenarioTests.scenario(name)
        let (memory, durable) = (Self.runner(.inMemory), Self.runner(.durable))
        let header = try memory.header(scenario, trials: 100)
        let resources = RunResources()
        for unit in header.units {
            var a = await memory.run(scenario, unit: unit, of: header)
            var b = await durable.run(scenario, unit: unit, of: header, reusing: resources)
            (a.startedAt, a.duration, a.checkDurations) = (nil, nil, [])
            (b.startedAt, b.duration, b.checkDurations) = (nil, nil, [])
            #expect(a == b, "trial \(unit)")
        }
        await resources.stop()
    }
}
