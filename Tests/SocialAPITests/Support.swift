import Foundation
import SocialAPI
import SocialEmulator
import TestSupport

/// Runs `body` against a fresh emulator on an ephemeral loopback port, and stops it after.
func withEmulator(
    configuration: EmulatorConfiguration = .demo, seed: UInt64 = 0,
    _ body: (EmulatorServer.Running, EmulatorCore) async throws -> Void
) async throws {
    let fixtures = try EmulatorFixtures.shipped(root: Corpus.repositoryRoot)
    let core = EmulatorCore(fixtures: fixtures, configuration: configuration, seed: seed)
    let running = try await EmulatorServer(core: core).start(port: 0)
    do {
        try await body(running, core)
    } catch {
        await running.stop()
        throw error
    }
    await running.stop()
}
