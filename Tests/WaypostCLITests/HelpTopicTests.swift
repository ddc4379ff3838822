import Foundation
import TestSupport
import Testing

/// Issue 32, item 2: `waypost help <topic>` prints the file formats the man page points to, and
/// a subcommand that does not exist is a usage error with a suggestion, after `help` or alone.
struct HelpTopicTests {
    /// Each topic is its file in docs/, as built into the tool (`make embed` after an edit).
    @Test(arguments: [
        ("regions", "docs/formats/regions.md"), ("beacons", "docs/formats/beacons.md"),
        ("rules", "docs/formats/rules.md"), ("privacy", "docs/formats/privacy.md"),
        ("scenarios", "docs/scenarios.md"),
    ])
    func helpTopicPrintsItsDocument(topic: String, file: String) throws {
        let text = try String(contentsOf: Corpus.repositoryRoot.appendingPathComponent(file), encoding: .utf8)
        try withTemporaryDirectory { directory in
            // From a folder without the checkout: the text is built in.
            let run = try CLITests.waypost(["help", topic], in: directory)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == text, "waypost help \(topic) differs from \(file): run scripts/embed-help.sh")
        }
    }

    /// Every key the readers accept is documented in its topic.
    @Test(arguments: [
        ("regions", ["identifier", "latitude", "longitude", "radius", "notifyOnEntry", "notifyOnExit"]),
        ("beacons", ["identifier", "uuid", "major", "minor", "latitude", "longitude", "range"]),
        (
            "rules",
            [
                "id", "on", "regions", "networks", "message", "place", "precision", "consent", "cooldown", "maxAge",
                "searchRadius", "legacyLength",
            ]
        ),
        (
            "privacy",
            ["optIn", "disclosureAcknowledged", "precision", "consent", "answers", "zones", "maxAge", "cooldown"]
        ),
    ])
    func topicNamesEveryKey(topic: String, keys: [String]) throws {
        let run = try CLITests.waypost("help", topic)
        for key in keys { #expect(run.stdout.contains("`\(key)`"), "waypost help \(topic) does not name '\(key)'") }
    }

    @Test(arguments: [
        (
            ["help", "replya"],
            "error: unknown subcommand or help topic 'replya'; did you mean 'replay'? (topics: regions, beacons"
        ),
        (["help", "regoins"], "did you mean 'regions'?"),
        (
            ["replya", "tracks/cupertino-walk.kml"],
            "error: unknown subcommand 'replya'; did you mean 'replay'? (see 'waypost --help')"
        ),
        (
            ["history", "purg"],
            "unknown subcommand 'purg' of 'waypost history'; did you mean 'purge'? (see 'waypost history --help')"
        ),
        (["help", "history", "retentoin"], "did you mean 'retention'?"),
        (["frobnicate"], "error: unknown subcommand 'frobnicate' (see 'waypost --help')"),
    ])
    func unknownSubcommandIsAUsageErrorWithASuggestion(arguments: [String], message: String) throws {
        let run = try CLITests.waypost(arguments)
        #expect(run.status == 64, "\(arguments): \(run.stdout)")
        #expect(run.stdout.isEmpty, "\(arguments): \(run.stdout)")
        #expect(run.stderr.hasPrefix("waypost: error: "), "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    }

    /// What argument-parser answers itself still works: help for a real subcommand, and bare help.
    @Test func helpForRealSubcommandsStillWorks() throws {
        let replay = try CLITests.waypost("help", "replay")
        #expect(replay.status == 0)
        #expect(replay.stdout.contains("USAGE: waypost replay"))
        let nested = try CLITests.waypost("help", "history", "retention")
        #expect(nested.status == 0)
        #expect(nested.stdout.contains("USAGE: waypost history retention"))
        let bare = try CLITests.waypost("help")
        #expect(bare.status == 0)
        #expect(bare.stdout.contains("File formats: waypost help regions, beacons, rules, privacy or scenarios."))
    }
}
