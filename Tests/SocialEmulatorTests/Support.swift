import Foundation
import SocialAPI
import SocialEmulator
import TestSupport

/// The emulator as a test reaches it: in memory through ``EmulatorTransport`` (no socket), or
/// on a loopback port through AsyncHTTPClient, for what only a real connection shows.
struct TestEmulator {
    let core: EmulatorCore
    let baseURL: URL
    /// What the clients send through: the core in memory, or real HTTP.
    let transport: any HTTPTransport

    var twitterBaseURL: URL { baseURL.appendingPathComponent("1.1/") }
    var facebookBaseURL: URL { baseURL }
}

/// Runs `body` against a fresh emulator — in memory unless `loopback` — and stops it after.
func withEmulator(
    configuration: EmulatorConfiguration = .demo, seed: UInt64 = 0, loopback: Bool = false,
    _ body: (TestEmulator, EmulatorCore) async throws -> Void
) async throws {
    let fixtures = try EmulatorFixtures.shipped(root: Corpus.repositoryRoot)
    let core = EmulatorCore(fixtures: fixtures, configuration: configuration, seed: seed)
    guard loopback else {
        let emulator = TestEmulator(
            core: core, baseURL: EmulatorTransport.baseURL, transport: EmulatorTransport(core: core))
        return try await body(emulator, core)
    }
    let running = try await EmulatorServer(core: core).start(port: 0)
    do {
        try await body(TestEmulator(core: core, baseURL: running.baseURL, transport: patientTransport), core)
    } catch {
        await running.stop()
        throw error
    }
    await running.stop()
}

/// A real HTTP client that waits as long as a loaded test machine may need: the product's 10 s
/// deadline is meant for a real network, and under the full parallel test run (several
/// `waypost` processes on two cores) an ordinary answer from the in-process server has taken
/// longer. Tests that need a deadline to fire set a short one themselves.
let patientTransport = AsyncHTTPClientTransport(timeout: .seconds(120))
