import AsyncHTTPClient
import Dispatch
import Foundation
import NIOCore
import SimulatedTime
import SocialEmulator
import TestSupport
import Testing

/// The emulator a run starts in this process answers on one of NIO's loops, not on Swift's
/// global executor. There, an answer waited behind whatever else kept the executor's threads busy —
/// a test suite's other cases, scenarios run side by side — and past the clients' timeout the post
/// was tried again: a run through SQLite and loopback HTTP came out with an attempt more in its
/// audit than the same run in memory (RunPathParityTests failed so under a loaded machine).
@Suite struct InProcessEmulatorTests {
    @Test func itAnswersWhileEveryThreadOfSwiftsGlobalExecutorIsBusy() async throws {
        let emulator = try await InProcessEmulator.start(
            fixtures: try EmulatorFixtures.shipped(root: Corpus.repositoryRoot), seed: 1,
            clock: SimulatedClock(start: WallClock().now))
        let url = try #require(emulator.running).twitterBaseURL.appendingPathComponent(
            "account/verify_credentials.json")
        let status = await Self.ask(url)
        await emulator.stop()
        // Unsigned: Twitter's 400 ("Bad Authentication data"); nil: no answer at all.
        #expect(status == 400, "the emulator did not answer while the global executor was busy")
    }

    /// The status `url` answers with, asked from a thread of its own while every thread of
    /// Swift's global executor waits; nil when no answer came within 20 s.
    static func ask(_ url: URL) async -> UInt? {
        await withCheckedContinuation { continuation in
            Thread {
                // The pool is as wide as the cores; Linux's may add threads while its workers
                // are blocked, up to twice that, Darwin's never does (extra blockers wait).
                // Held briefly: the other cases of the suite wait too.
                let width = ProcessInfo.processInfo.activeProcessorCount
                let (started, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
                for _ in 0..<(2 * width) {
                    Task.detached {
                        started.signal()
                        release.wait()
                    }
                }
                for _ in 0..<width { started.wait() }
                let extra = DispatchTime.now() + 1
                for _ in 0..<width { _ = started.wait(timeout: extra) }
                let answer = try? HTTPClient.shared.execute(
                    request: HTTPClient.Request(url: url.absoluteString), deadline: .now() + .seconds(20)
                ).wait()
                for _ in 0..<(2 * width) { release.signal() }
                continuation.resume(returning: answer.map { UInt($0.status.code) })
            }.start()
        }
    }
}
