import ArgumentParser

/// `waypost`: replay routes through a simulated location manager, and everything around it.
@main
struct Waypost: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "waypost",
        abstract: "Replay KML/GPX routes as CoreLocation-style location events, and check in where privacy allows.",
        discussion: """
            Exit codes follow sysexits: 0 ok, 1 expectation failed, 64 usage, 65 bad input data, \
            66 input missing, 69 service unavailable, 70 internal error, 73 cannot create output, \
            74 I/O error.
            """,
        version: "0.1.0",
        subcommands: [
            Replay.self, Test.self, Report.self, Audit.self, Outbox.self, History.self, Export.self, OAuthSign.self,
            Emulator.self,
        ]
    )
}
