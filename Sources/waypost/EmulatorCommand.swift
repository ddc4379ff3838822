import ArgumentParser
import Foundation
import SocialEmulator
import UnixSignals

/// `waypost emulator`: the Twitter and Facebook Graph emulator as a standalone server.
struct Emulator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the Twitter v1.1, X API v2 and Facebook Graph emulator until interrupted.",
        discussion: """
            Prints its base URLs and the demo credentials, then serves until SIGINT or SIGTERM, \
            which stop it at once whatever it is doing (in-flight requests get a second), exit \
            status 0. When it cannot listen (the port is taken, the address is not this \
            machine's, no permission) it says so on one line and exits 69. \
            The places it knows are built in (the project's fixtures/places) unless --fixtures \
            names a directory of your own. It answers Twitter's v1.1 (and v1) geo, statuses, \
            users, account and rate-limit endpoints and the Graph API's place search, me, \
            checkins, feed and permissions, and has a control plane under /__waypost/ (reset, \
            journal, geo_enabled, permissions, accounts, faults).

            Examples:
              waypost emulator --port 8080
              waypost emulator --port 0 --fixtures fixtures/places
            """
    )

    @Option(parsing: .unconditional, help: "Port to listen on (0 picks a free one).")
    var port: Int = 8080

    @Option(help: "Address to listen on.")
    var host: String = "127.0.0.1"

    @Option(
        help:
            "Require this token in X-Waypost-Control-Token for the control plane (reset, journal, faults, accounts); give one when listening beyond loopback. Or WAYPOST_CONTROL_TOKEN, which other users cannot read as they can a command line (ps)."
    )
    var controlToken: String?

    /// The control token: the option, or else `WAYPOST_CONTROL_TOKEN`.
    var requiredControlToken: String? {
        controlToken ?? ProcessInfo.processInfo.environment["WAYPOST_CONTROL_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Loopback addresses: only this machine reaches them.
    var isLoopback: Bool { host == "localhost" || host == "::1" || host.hasPrefix("127.") }

    @Option(
        help:
            "Directory with twitter-places.json and facebook-pages.json (default: the built-in places, as in fixtures/places).",
        completion: .directory
    )
    var fixtures: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Bytes the request journal keeps (default 16 MiB); past it the oldest requests are dropped and counted.",
            valueName: "bytes"))
    var journalBytes: Int = JournalLimits.defaultBytes

    /// The journal's limits: `--journal-bytes`, and each entry within 16 KiB.
    var journalLimits: JournalLimits { JournalLimits(bytes: journalBytes) }

    func validate() throws {
        try OptionRange.check("--port", port, 0...65535)
        // At least a few full entries (16 KiB each); at most what an Int on any platform holds.
        try OptionRange.check("--journal-bytes", journalBytes, (64 << 10)...(1 << 40), " bytes")
        // An empty token matches no request's header: the control plane would answer 401 to all.
        if controlToken?.isEmpty == true { throw ValidationError("--control-token must not be empty") }
    }

    /// In-flight requests get this long after SIGINT or SIGTERM; then they are cancelled, and
    /// after as long again the process exits whatever it is waiting for.
    static let grace: Duration = .seconds(1)

    func run() async throws {
        var loaded: EmulatorFixtures?
        try reportingFailures { loaded = try loadFixtures(fixtures) }
        guard let loaded else { return }
        // Trapped before listening, so that no state — starting, serving, mid-request, inside a
        // `hang` fault, stopping — leaves SIGINT and SIGTERM without effect.
        let stop = await StopSignals()
        let running: EmulatorServer.Running
        do {
            running = try await EmulatorServer(
                core: EmulatorCore(fixtures: loaded, journalLimits: journalLimits, controlToken: requiredControlToken)
            ).start(host: host, port: port)
        } catch {
            try reportingFailures { throw CommandFailure(.unavailable, "\(error)") }
            return
        }
        let demo = EmulatorConfiguration.demo
        let twitter = demo.twitterAccounts[0]
        let graph = demo.facebookAccounts[0]
        let base = running.baseURL.absoluteString
        let banner = """
            Waypost emulator listening on \(base)
              Twitter v1.1  \(running.twitterBaseURL.absoluteString)  (v1 at \(base)1/)
              X API v2      \(running.xBaseURL.absoluteString)  (POST /2/tweets, GET|DELETE /2/tweets/:id, GET /2/users/me)
              Graph         \(base)
              Control       \(base)__waypost/  (journal, reset, twitter/geo_enabled, twitter/protected, facebook/permissions, facebook/audience)
            Demo credentials (valid only here):
              Twitter consumer  \(demo.consumers.keys.sorted()[0]) / \(demo.consumers.values.sorted()[0])
              Twitter token     \(twitter.token) / \(twitter.tokenSecret)  (@\(twitter.screenName), geo_enabled)
              X bearer token    \(twitter.bearerToken ?? "-")  (OAuth 2.0 user context, @\(twitter.screenName), v2 only)
              Graph token       \(graph.accessToken)  (\(graph.permissions.sorted().joined(separator: ", ")))
            Ctrl-C stops it.

            """
        do {
            try BufferedOutput.writeToStandardOutput(banner)
        } catch {
            await running.stop()
            try reportingFailures { throw error }
            return
        }
        if !isLoopback {
            let warning =
                "waypost: warning: listening on \(host), beyond loopback: other machines reach the emulator"
                + (requiredControlToken == nil
                    ? ", and its control plane (reset, faults, a journal with coordinates) — give --control-token "
                        + "or WAYPOST_CONTROL_TOKEN\n"
                    : "; its control plane needs the control token\n")
            FileHandle.standardError.write(Data(warning.utf8))
        }
        // Until a signal, or the server ends by itself (an error surfaces as 70).
        if case .stopped(let failure) = await stop.first(orEndOf: running) {
            if let failure { try reportingFailures { throw failure } }
            return
        }
        await running.stop(grace: Self.grace)
    }
}

/// SIGINT and SIGTERM for a server: the first asks it to stop; a second, or a stop that is
/// still going after ``Emulator/grace`` three times over, ends the process at once (status 0:
/// the stop was asked for). Nothing the server does can outlast a signal.
struct StopSignals: Sendable {
    enum Ending: Sendable {
        case signal
        /// The server stopped by itself, with its error if any.
        case stopped((any Error)?)
    }

    private let endings: AsyncStream<Ending>
    private let end: AsyncStream<Ending>.Continuation

    init() async {
        (endings, end) = AsyncStream<Ending>.makeStream()
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let end = self.end
        Task {
            var received = signals.makeAsyncIterator()
            guard await received.next() != nil else { return }
            end.yield(.signal)
            Task {
                try await Task.sleep(for: Emulator.grace * 3)
                exit(SysExit.ok.rawValue)
            }
            if await received.next() != nil { exit(SysExit.ok.rawValue) }
        }
    }

    /// Waits for the first signal, or for `running` to stop by itself.
    func first(orEndOf running: EmulatorServer.Running) async -> Ending {
        let end = self.end
        Task {
            do {
                try await running.wait()
                end.yield(.stopped(nil))
            } catch {
                end.yield(.stopped(error))
            }
        }
        for await ending in endings { return ending }
        return .signal
    }
}
