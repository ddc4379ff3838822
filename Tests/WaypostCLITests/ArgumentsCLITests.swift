import Foundation
import TestSupport
import Testing

/// The command line as the tool receives it, before any command runs: what argument-parser and
/// Swift would otherwise take silently.
struct ArgumentsCLITests {
    /// A black-box hunt: `--regions A --regions B` monitored B's regions alone (argument-parser
    /// keeps the last), silently. An option of one value given twice is one usage error, in an
    /// option group too, under any of its names; options that take several values are given as often as wanted.
    @Test func anOptionOfOneValueGivenTwiceIsRefused() throws {
        let cases: [([String], String)] = [
            (
                [
                    "replay", "tracks/cafe-stop.kml", "--regions", "fixtures/regions/commute-cafes.yaml",
                    "--regions=fixtures/regions/twenty-one-stops.yaml",
                ], "--regions"
            ),
            (
                [
                    "replay", "tracks/cafe-stop.kml", "--checkins", "fixtures/rules/coffee.yaml",
                    "--twitter-base-url", "http://a.invalid/", "--twitter-base-url", "http://b.invalid/",
                ], "--twitter-base-url"
            ),
            (["test", "fixtures/scenarios/two-devices.yaml", "--jobs", "1", "--jobs", "2"], "--jobs"),
            // Named otherwise than its property (`.customLong`): found by reflection, it was missed.
            (["replay", "tracks/cafe-stop.kml", "--nmea", "/dev/null", "--nmea", "-"], "--nmea"),
            // One option under its short and its long name.
            (["test", "fixtures/scenarios/two-devices.yaml", "-o", "/dev/null", "--output", "-"], "--output"),
        ]
        for (arguments, option) in cases {
            let run = try CLITests.waypost(arguments)
            #expect(run.status == 64 && run.stdout.isEmpty, "\(arguments): \(run.stderr)")
            #expect(
                run.stderr
                    == "waypost: error: \(option) is given twice: it takes one value, and the last would replace the first\n"
            )
        }
        let several = try CLITests.waypost(
            "oauth-sign", "--url", "https://example.com/", "--consumer-key", "k", "--consumer-secret", "s", "--param",
            "a=1", "--param", "b=2", "--nonce", "n", "--timestamp", "1318622958")
        #expect(several.status == 0 && several.stdout.contains("a%3D1%26b%3D2"), "\(several.stderr)")
        // After `--`, words are arguments, not options.
        let after = try CLITests.waypost("replay", "--format", "jsonl", "--", "tracks/cafe-stop.kml")
        #expect(after.status == 0, "\(after.stderr)")
    }

    /// A stop-91 leftover: an argument that is not UTF-8 (a Latin-1 `é`) was read as U+FFFD, so
    /// `--param` signed other bytes than the user gave and a file name named another file. One
    /// usage error names the argument; valid UTF-8 (`é` as two bytes) is signed as before.
    @Test func anArgumentThatIsNotUTF8IsRefused() throws {
        let shell = URL(fileURLWithPath: "/bin/sh")
        let tool = CLITests.executable.path
        let latin1 = try CLITests.waypost(
            [
                "-c",
                #""$0" oauth-sign --url https://example.com/ --consumer-key k --consumer-secret s --param "$(printf 'q=caf\351')""#,
                tool,
            ],
            through: shell)
        #expect(latin1.status == 64, "\(latin1.stderr)")
        #expect(
            latin1.stderr
                == "waypost: error: argument 9 is not valid UTF-8 (q=caf\u{FFFD}): waypost reads its arguments, file names among them, as UTF-8\n"
        )
        #expect(latin1.stdout.isEmpty)
        let path = try CLITests.waypost(["-c", #""$0" replay "$(printf '/tmp/caf\351.kml')""#, tool], through: shell)
        #expect(path.status == 64 && path.stderr.contains("argument 2 is not valid UTF-8"), "\(path.stderr)")
        let utf8 = try CLITests.waypost(
            [
                "oauth-sign", "--url", "https://example.com/", "--consumer-key", "k", "--consumer-secret", "s",
                "--param", "q=café", "--nonce", "n", "--timestamp", "1318622958",
            ])
        #expect(utf8.status == 0 && utf8.stdout.contains("q%3Dcaf%25C3%25A9"), "\(utf8.stdout)\(utf8.stderr)")
    }
}
