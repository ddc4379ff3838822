import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// `waypost emulator` as a service (issue 27, item 3): it cannot listen → one line and 69 at
/// once; SIGINT and SIGTERM stop it in every state; `--journal-bytes` bounds the journal.
@Suite("The emulator as a service")
struct EmulatorServiceCLITests {
    /// Runs the tool; nil when it is still running after `seconds` (it is killed then).
    static func waypost(_ arguments: [String], within seconds: Double) throws -> CLITests.Run? {
        let process = Process()
        process.executableURL = CLITests.executable
        process.arguments = arguments
        process.currentDirectoryURL = Corpus.repositoryRoot
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        guard exits(process, within: seconds) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return CLITests.Run(
            status: process.terminationStatus,
            stdout: String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            stderr: String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    /// Whether `process` ends within `seconds`.
    static func exits(_ process: Process, within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return !process.isRunning
    }

    @Test("A busy port or an address not this machine's: one error line and EX_UNAVAILABLE, at once")
    func aBusyPortIsOneErrorAndEXUNAVAILABLE() throws {
        let first = try EmulatorProcess()
        defer { first.stop() }
        for (arguments, message) in [
            (
                ["emulator", "--port", String(first.port)],
                "cannot listen on 127.0.0.1:\(first.port) (address already in use)"
            ),
            (
                ["emulator", "--host", "192.0.2.1", "--port", "0"],  // TEST-NET-1 (RFC 5737)
                "cannot listen on 192.0.2.1:0 (cannot assign requested address)"
            ),
        ] {
            let run = try #require(try Self.waypost(arguments, within: 10), "\(arguments) still running after 10 s")
            #expect(run.status == 69, "\(arguments)")
            #expect(run.stderr == "waypost: error: \(message)\n", "\(arguments)")
            #expect(run.stdout.isEmpty, "no banner: it is not listening")
        }
    }

    enum State: String, CaseIterable {
        case idle, midRequest, hang
    }

    @Test(
        "SIGINT and SIGTERM stop it promptly, with status 0, idle, mid-request and inside a hang",
        arguments: [SIGINT, SIGTERM], State.allCases)
    func signalsStopItInEveryState(signal: Int32, state: State) async throws {
        let emulator = try EmulatorProcess()
        defer {
            if emulator.process.isRunning { kill(emulator.process.processIdentifier, SIGKILL) }
        }
        if state != .idle {
            try await emulator.control(
                "faults", state == .hang ? "kind=hang" : "kind=latency&ms=60000")
            let url = try #require(URL(string: emulator.base + "me?access_token=waypost-demo-graph-token"))
            Task.detached {
                var request = URLRequest(url: url)
                request.timeoutInterval = 120
                _ = try? await URLSession.shared.data(for: request)
            }
            // In flight once the journal has it (the wait comes after).
            var journaled = false
            for _ in 0..<250 where !journaled {
                journaled = String(decoding: try await emulator.control("journal"), as: UTF8.self).contains("/me")
                if !journaled { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(journaled)
        }
        let sent = Date()
        kill(emulator.process.processIdentifier, signal)
        #expect(Self.exits(emulator.process, within: 6), "still running 6 s after signal \(signal), \(state)")
        #expect(Date().timeIntervalSince(sent) < 4, "\(state)")
        if !emulator.process.isRunning {
            #expect(emulator.process.terminationStatus == 0)
            #expect(emulator.process.terminationReason == .exit)
        }
    }

    @Test("--journal-bytes bounds the journal; the answer counts what it dropped")
    func journalBytesBoundTheJournal() async throws {
        let emulator = try EmulatorProcess(arguments: ["--journal-bytes", "65536"])
        defer { emulator.stop() }
        let url = try #require(URL(string: emulator.base + "me/feed"))
        for _ in 0..<40 {
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "content-type")
            request.httpBody = Data(("message=" + String(repeating: "m", count: 100_000)).utf8)
            _ = try await URLSession.shared.data(for: request)
        }
        let journalURL = try #require(URL(string: emulator.base + "__waypost/journal"))
        let (data, response) = try await URLSession.shared.data(from: journalURL)
        let http = try #require(response as? HTTPURLResponse)
        let dropped = Int(http.value(forHTTPHeaderField: "x-waypost-journal-dropped") ?? "") ?? 0
        let entries = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(dropped > 0 && dropped + entries.count == 40, "\(dropped) dropped, \(entries.count) kept")
        #expect(data.count <= 65536)
        let truncated = try #require(entries.last?["truncated"] as? [String: Any])
        #expect((truncated["parameters"] as? [String: Int])?["message"] == 100_000)
        #expect(entries.last?["bodyBytes"] as? Int == 100_008)
        #expect(try CLITests.waypost("emulator", "--journal-bytes", "10").status == 64)
    }
}
