import ArgumentParser
import Foundation
import WaypostSupport

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

            File formats: waypost help regions, beacons, rules, privacy or scenarios.
            """,
        version: "0.1.0",
        subcommands: [
            Replay.self, Test.self, Sweep.self, Calibrate.self, Report.self, Audit.self, Outbox.self, History.self,
            Export.self, Compare.self, OAuthSign.self, Emulator.self,
        ]
    )

    /// argument-parser's own entry point, after the format topics and the unknown-subcommand
    /// check (``HelpTopic``) have had their turn.
    static func main() async {
        StandardOutputCheck.atExit()
        if let message = Self.argumentNotUTF8() { refuse(message) }
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let status = HelpTopic.intercept(arguments, root: Self.self) { Foundation.exit(status) }
        do {
            var command = try parseAsRoot(arguments)
            if let repeated = RepeatedOption.first(in: type(of: command), arguments) {
                refuse("\(repeated) is given twice: it takes one value, and the last would replace the first")
            }
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    /// A command line refused before any command runs: one `waypost: error:` line, exit 64.
    private static func refuse(_ message: String) -> Never {
        FileHandle.standardError.write(Data("waypost: error: \(message)\n".utf8))
        Foundation.exit(SysExit.usage.rawValue)
    }

    /// Swift reads arguments as UTF-8 and repairs what is not (U+FFFD), so a path would name a
    /// file that is not there and `oauth-sign --param` would sign other bytes than the user's:
    /// the first such argument is one usage error instead.
    private static func argumentNotUTF8() -> String? {
        for index in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index], String(validatingCString: pointer) == nil else {
                continue
            }
            return "argument \(index) is not valid UTF-8 (\(DisplayEscaping.escape(String(cString: pointer)))): "
                + "waypost reads its arguments, file names among them, as UTF-8"
        }
        return nil
    }
}
