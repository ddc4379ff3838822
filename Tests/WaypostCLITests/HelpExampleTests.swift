import Foundation
import TestSupport
import Testing

/// Every example printed by `--help` runs, as a reader would paste it: in a fresh directory that
/// holds the checkout's tracks/ and fixtures/, with `waypost` on the PATH, in the order the
/// commands below depend on each other (a scenario run before its report, a check-in replay
/// before the audit). `waypost emulator` examples serve forever and are checked by the emulator
/// tests instead.
struct HelpExampleTests {
    static let commands = [
        ["test"], ["replay"], ["export"], ["report"], ["audit"], ["outbox"], ["outbox", "flush"],
        ["history", "purge"], ["history", "retention"], ["oauth-sign"], ["compare"], ["emulator"], ["sweep"],
    ]

    /// The example commands of a help text: the lines under "Examples:" (or "Example …:"),
    /// continuation lines joined, trailing `# comments` dropped.
    static func examples(_ help: String) -> [String] {
        var out: [String] = []
        var inExamples = false
        var pending = ""
        for line in help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("Example") && line.hasSuffix(":") {
                inExamples = true
                continue
            }
            guard inExamples else { continue }
            guard line.hasPrefix("  ") else {
                inExamples = false
                continue
            }
            var text = line.trimmingCharacters(in: .whitespaces)
            if let comment = text.range(of: "  #") { text = String(text[..<comment.lowerBound]) }
            if text.hasSuffix("\\") {
                pending += text.dropLast() + " "
                continue
            }
            out.append(pending + text)
            pending = ""
        }
        return out
    }

    @Test func everyHelpExampleRuns() throws {
        try withTemporaryDirectory { directory in
            for name in ["tracks", "fixtures"] {
                try FileManager.default.createSymbolicLink(
                    at: directory.appendingPathComponent(name),
                    withDestinationURL: Corpus.repositoryRoot.appendingPathComponent(name))
            }
            let bin = CLITests.executable.deletingLastPathComponent().path
            var ran = 0
            for command in Self.commands {
                let help = try CLITests.waypost(command + ["--help"], in: directory)
                #expect(help.status == 0)
                let examples = Self.examples(help.stdout)
                #expect(!examples.isEmpty, "waypost \(command.joined(separator: " ")) --help shows no example")
                for example in examples where !example.hasPrefix("waypost emulator") {
                    #expect(example.hasPrefix("waypost "), "\(example)")
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: "/bin/sh")
                    process.arguments = ["-c", example + " >/dev/null"]
                    process.currentDirectoryURL = directory
                    var environment = ProcessInfo.processInfo.environment
                    environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
                    process.environment = environment
                    let err = Pipe()
                    process.standardError = err
                    try process.run()
                    let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    process.waitUntilExit()
                    #expect(process.terminationStatus == 0, "\(example): \(stderr)")
                    ran += 1
                }
            }
            #expect(ran >= 20)
        }
    }

    /// Help is written for argument-parser's own wrapping: no paragraph line is hard-wrapped,
    /// which shows as a line ending mid-sentence followed by one that starts lower-case.
    @Test func helpParagraphsAreNotHardWrapped() throws {
        for command in Self.commands + [[]] {
            let help = try CLITests.waypost(command + ["--help"])
            let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated().dropLast() where !line.isEmpty && !line.hasPrefix(" ") {
                let next = lines[index + 1]
                // argument-parser wraps at 80 columns; a shorter line followed by text means a break was ours.
                if line.count < 60, let first = next.first, first.isLowercase {
                    Issue.record("waypost \(command.joined(separator: " ")) --help: hard-wrapped after '\(line)'")
                }
            }
        }
    }
}
