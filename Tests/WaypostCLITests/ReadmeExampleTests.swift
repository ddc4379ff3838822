import Foundation
import TestSupport
import Testing

/// The examples of the README and of every Markdown file under docs/ run as printed: every
/// `$ waypost …` command of a document's console blocks, in order, in a fresh directory holding
/// the checkout's tracks/ and fixtures/ (one directory per document: a command may read what an
/// earlier one of the same document wrote); and the emulator `sh` block, wherever it is, as a
/// script (on a free port instead of 8080, each curl made to fail on an HTTP error). The Python
/// block runs in Tests/ClientConformance, with the client libraries.
struct ReadmeExampleTests {
    /// README.md, then every Markdown file under docs/, as paths from the checkout's root.
    static let documents: [String] = {
        let docs = Corpus.repositoryRoot.appendingPathComponent("docs").path
        let paths = ((try? FileManager.default.subpathsOfDirectory(atPath: docs)) ?? []).filter { $0.hasSuffix(".md") }
        return ["README.md"] + paths.sorted().map { "docs/" + $0 }
    }()

    static func text(_ document: String) -> String {
        (try? String(contentsOf: Corpus.repositoryRoot.appendingPathComponent(document), encoding: .utf8)) ?? ""
    }

    /// The documents with console examples, the README first.
    static var documentsWithCommands: [String] {
        documents.filter { !consoleCommands(text($0)).isEmpty }
    }

    /// Code blocks with their language (empty for plain ones).
    static func blocks(_ markdown: String) -> [(language: String, lines: [String])] {
        var out: [(String, [String])] = []
        var current: (String, [String])?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                if let block = current {
                    out.append(block)
                    current = nil
                } else {
                    current = (String(line.dropFirst(3)), [])
                }
            } else if current != nil {
                current?.1.append(line)
            }
        }
        return out
    }

    /// `$ waypost …` commands of the plain blocks, continuation lines joined.
    static func consoleCommands(_ markdown: String) -> [String] {
        var commands: [String] = []
        for block in blocks(markdown) where block.language.isEmpty {
            var pending: String?
            for line in block.lines {
                if let started = pending {
                    let text = line.trimmingCharacters(in: .whitespaces)
                    if text.hasSuffix("\\") {
                        pending = started + text.dropLast() + " "
                    } else {
                        commands.append(started + text)
                        pending = nil
                    }
                } else if line.hasPrefix("$ waypost ") {
                    var text = String(line.dropFirst(2))
                    if let comment = text.range(of: "   #") { text = String(text[..<comment.lowerBound]) }
                    if text.hasSuffix("\\") { pending = text.dropLast() + " " } else { commands.append(text) }
                }
            }
        }
        return commands
    }

    static func shell(_ script: String, in directory: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = CLITests.executable.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "")
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    static func sandbox(_ body: (URL) throws -> Void) throws {
        try withTemporaryDirectory { directory in
            for name in ["tracks", "fixtures"] {
                try FileManager.default.createSymbolicLink(
                    at: directory.appendingPathComponent(name),
                    withDestinationURL: Corpus.repositoryRoot.appendingPathComponent(name))
            }
            try body(directory)
        }
    }

    /// The examples are where this test looks: the README's tour, and the reference in docs/.
    @Test func consoleExamplesAreFound() {
        #expect(Self.consoleCommands(Self.text("README.md")).count >= 6)
        #expect(Self.documents.map { Self.consoleCommands(Self.text($0)).count }.reduce(0, +) >= 12)
        #expect(Self.documentsWithCommands.first == "README.md")
    }

    /// The README's sample of `waypost test` output is what the tool prints: each line it shows
    /// of privacy-zone-home is a line of that scenario's verdict (it said "14 requests checked"
    /// where the tool counts 17; found by a black-box hunt of the CLI).
    @Test func theReadmeScenarioSampleIsTheToolsOutput() throws {
        let shown = Self.text("README.md").components(separatedBy: "\n")
            .drop { $0 != "$ waypost test fixtures/scenarios/*.yaml --junit out.xml" }.dropFirst()
            .prefix { $0 != "…" }
        let run = try CLITests.waypost("test", "fixtures/scenarios/privacy-zone-home.yaml")
        #expect(run.status == 0, "\(run.stderr)")
        let printed = Set(run.stdout.components(separatedBy: "\n"))
        #expect(shown.count == 3 && shown.allSatisfy(printed.contains), "\(Array(shown))\n\(run.stdout)")
    }

    @Test(arguments: ReadmeExampleTests.documentsWithCommands)
    func consoleExamplesRun(document: String) throws {
        let commands = Self.consoleCommands(Self.text(document))
        #expect(!commands.isEmpty)
        try Self.sandbox { directory in
            for command in commands {
                let run = try Self.shell("set -o pipefail; " + command + " >/dev/null", in: directory)
                #expect(run.status == 0, "\(document): \(command): \(run.output)")
            }
        }
    }

    @Test func emulatorShellBlockRuns() throws {
        let blocks = Self.documents.flatMap { Self.blocks(Self.text($0)) }.filter {
            $0.language == "sh" && $0.lines.first?.hasPrefix("waypost emulator") == true
        }
        #expect(blocks.count == 1, "one emulator block in the README and docs/")
        let block = try #require(blocks.first, "the emulator block (docs/emulator.md)")
        let port = String(20_000 + Int(getpid()) % 20_000)
        let script =
            "set -e\ncurl() { command curl -fsS --max-time 10 \"$@\" >/dev/null; }\n"
            + block.lines.joined(separator: "\n").replacingOccurrences(of: "8080", with: port)
            + "\nkill %1\n"
        try Self.sandbox { directory in
            let run = try Self.shell(script, in: directory)
            #expect(run.status == 0, "\(run.output)")
        }
    }
}
