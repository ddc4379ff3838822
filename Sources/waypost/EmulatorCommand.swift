import ArgumentParser
import Foundation
import SocialEmulator
import UnixSignals

/// `waypost emulator`: the Twitter and Facebook Graph emulator as a standalone server.
struct Emulator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the Twitter v1.1 and Facebook Graph emulator until interrupted.",
        discussion: """
            Prints its base URLs and the demo credentials, then serves until SIGINT or SIGTERM. \
            The places it knows are built in (the project's fixtures/places) unless --fixtures \
            names a directory of your own. The README's "The emulator" section lists the \
            endpoints and which client libraries are verified against each.

            Examples:
              waypost emulator --port 8080
              waypost emulator --port 0 --fixtures fixtures/places
            """
    )

    @Option(help: "Port to listen on (0 picks a free one).")
    var port: Int = 8080

    @Option(help: "Address to listen on.")
    var host: String = "127.0.0.1"

    @Option(
        help:
            "Require this token in X-Waypost-Control-Token for the control plane (reset, journal, faults, accounts); give one when listening beyond loopback."
    )
    var controlToken: String?

    /// Loopback addresses: only this machine reaches them.
    var isLoopback: Bool { host == "localhost" || host == "::1" || host.hasPrefix("127.") }

    @Option(
        help:
            "Directory with twitter-places.json and facebook-pages.json (default: the built-in places, as in fixtures/places)."
    )
    var fixtures: String?

    func validate() throws {
        try OptionRange.check("--port", port, 0...65535)
    }

    func run() async throws {
        var loaded: EmulatorFixtures?
        try reportingFailures { loaded = try loadFixtures(fixtures) }
        guard let loaded else { return }
        let running: EmulatorServer.Running
        do {
            running = try await EmulatorServer(core: EmulatorCore(fixtures: loaded, controlToken: controlToken)).start(
                host: host, port: port, shutdownSignals: [.sigint, .sigterm])
        } catch {
            try reportingFailures { throw CommandFailure(.unavailable, "cannot listen on \(host):\(port): \(error)") }
            return
        }
        let demo = EmulatorConfiguration.demo
        let twitter = demo.twitterAccounts[0]
        let graph = demo.facebookAccounts[0]
        let base = running.baseURL.absoluteString
        let banner = """
            Waypost emulator listening on \(base)
              Twitter v1.1  \(running.twitterBaseURL.absoluteString)  (v1 at \(base)1/)
              Graph         \(base)
              Control       \(base)__waypost/  (journal, reset, twitter/geo_enabled, facebook/permissions)
            Demo credentials (valid only here):
              Twitter consumer  \(demo.consumers.keys.sorted()[0]) / \(demo.consumers.values.sorted()[0])
              Twitter token     \(twitter.token) / \(twitter.tokenSecret)  (@\(twitter.screenName), geo_enabled)
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
                + (controlToken == nil
                    ? ", and its control plane (reset, faults, a journal with coordinates) — give --control-token\n"
                    : "; its control plane needs the --control-token\n")
            FileHandle.standardError.write(Data(warning.utf8))
        }
        try await running.wait()
    }
}
