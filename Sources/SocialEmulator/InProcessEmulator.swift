import Foundation
import SimulatedTime
import SocialAPI

/// The emulator inside this process, on an ephemeral loopback port — real HTTP all the same —
/// with the project's clients signed as its first configured accounts. `waypost replay
/// --checkins` and every scenario post through one of these unless told otherwise. A run nobody
/// keeps may reach it in memory instead (``inMemory(fixtures:configuration:seed:twitterAPI:clock:)``):
/// the same core, the clients on ``EmulatorTransport``, no socket.
///
/// ```swift
/// let clock = SimulatedClock(start: origin)
/// let emulator = try await InProcessEmulator.start(fixtures: fixtures, seed: 7, clock: clock)
/// let delivery = OutboxDelivery(store: store, clients: emulator.clients, clock: clock)
/// …
/// await emulator.stop()
/// ```
public struct InProcessEmulator: Sendable {
    public let core: EmulatorCore
    /// The server, listening; nil: reached in memory.
    public let running: EmulatorServer.Running?
    public let clients: SocialClients
    /// The loop the server and its clients share; nil: reached in memory.
    let network: LoopbackNetwork?

    /// Starts the emulator on `clock` (its OAuth window, rate limits and fault times follow it;
    /// the clients sign with it too).
    ///   `twitterAPI`: which API the clients post tweets through (v2: `POST /2/tweets`, signed
    ///   with the same OAuth 1.0a user context); `network`: the loop the server and its clients
    ///   share (nil: the process's own on the next of NIO's loops). On a loop, the server answers
    ///   whatever keeps Swift's global executor busy: there, a request waited behind the
    ///   process's other work — a test suite's cases, scenarios run side by side — and when that
    ///   took longer than the clients' timeout, the post was retried, and a run kept in SQLite
    ///   differed from the same run in memory (an attempt more in its audit).
    public static func start(
        fixtures: EmulatorFixtures, configuration: EmulatorConfiguration = .demo, seed: UInt64,
        twitterAPI: TwitterAPIVersion = .v1_1, network: LoopbackNetwork? = nil, clock: any EpochClock
    ) async throws -> InProcessEmulator {
        let core = EmulatorCore(fixtures: fixtures, configuration: configuration, seed: seed, clock: clock)
        let loop = network ?? .sharedOnNextLoop()
        let running = try await EmulatorServer(core: core).start(port: 0, network: loop)
        return InProcessEmulator(
            core: core, running: running,
            clients: clients(
                of: running, configuration: configuration, twitterAPI: twitterAPI, loop, core: core, clock: clock),
            network: loop)
    }

    /// The emulator reached in memory: its clients call the core through ``EmulatorTransport``,
    /// signed and verified as over HTTP, with the same routes, faults and journal.
    public static func inMemory(
        fixtures: EmulatorFixtures, configuration: EmulatorConfiguration = .demo, seed: UInt64,
        twitterAPI: TwitterAPIVersion = .v1_1, clock: any EpochClock
    ) -> InProcessEmulator {
        let core = EmulatorCore(fixtures: fixtures, configuration: configuration, seed: seed, clock: clock)
        return InProcessEmulator(
            core: core, running: nil,
            clients: clients(
                of: nil, configuration: configuration, twitterAPI: twitterAPI, nil, core: core, clock: clock),
            network: nil)
    }

    /// This emulator, still listening, made anew for another run as `start` would make it, with
    /// clients for that run: runs one after another (a scenario's trials) skip starting a server
    /// and connecting to it each time.
    public func renewed(
        fixtures: EmulatorFixtures, configuration: EmulatorConfiguration = .demo, seed: UInt64,
        twitterAPI: TwitterAPIVersion = .v1_1, clock: any EpochClock
    ) async -> InProcessEmulator {
        await core.renew(fixtures: fixtures, configuration: configuration, seed: seed, clock: clock)
        return InProcessEmulator(
            core: core, running: running,
            clients: Self.clients(
                of: running, configuration: configuration, twitterAPI: twitterAPI, network, core: core, clock: clock),
            network: network)
    }

    /// The project's clients signed as the first configured accounts, on `clock`: over HTTP to
    /// `running` on `network`, or in memory to `core` when nothing listens.
    private static func clients(
        of running: EmulatorServer.Running?, configuration: EmulatorConfiguration, twitterAPI: TwitterAPIVersion,
        _ network: LoopbackNetwork?, core: EmulatorCore, clock: any EpochClock
    ) -> SocialClients {
        let transport: any HTTPTransport =
            network.map { AsyncHTTPClientTransport(client: $0.client) } ?? EmulatorTransport(core: core)
        let base = running?.baseURL ?? EmulatorTransport.baseURL
        var twitter: TwitterClient?
        var x: XClient?
        if let account = configuration.twitterAccounts.first,
            let (key, secret) = configuration.consumers.sorted(by: { $0.key < $1.key }).first
        {
            let credentials = OAuth1Credentials(
                consumerKey: key, consumerSecret: secret, token: account.token, tokenSecret: account.tokenSecret)
            twitter = TwitterClient(
                baseURL: EmulatorServer.twitterRoot(of: base), credentials: credentials, transport: transport,
                clock: clock)
            if twitterAPI == .v2 {
                x = XClient(
                    baseURL: EmulatorServer.xRoot(of: base),
                    authorization: .oauth1(OAuth1Signer(credentials: credentials)),
                    transport: transport, clock: clock)
            }
        }
        let facebook = configuration.facebookAccounts.first.map {
            FacebookClient(baseURL: base, accessToken: $0.accessToken, transport: transport)
        }
        return SocialClients(
            twitter: twitter, facebook: facebook, x: x, twitterAPI: twitterAPI, servers: .inProcessEmulator)
    }

    public func stop() async {
        await running?.stop()
    }
}
