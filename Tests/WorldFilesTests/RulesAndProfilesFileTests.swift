import CheckinEngine
import ConfigFiles
import Foundation
import SimulatedTime
import SocialAPI
import TestSupport
import Testing
import WorldFiles

@Suite("Rules and privacy profiles, read strictly")
struct ConfigurationTests {
    @Test("A rules file reads every field")
    func rules() throws {
        let rules = try CheckinRuleFile.parse(
            """
            rules:
              - id: coffee
                on: [regionEnter, visit]
                regions: [a, b]
                networks: twitter
                message: "At {place}"
                place: {category: Coffee}
                precision: city
                consent: ask
                cooldown: 2h
                maxAge: 15m
                legacyLength: true
            """, name: "rules.yaml")
        #expect(rules.count == 1)
        let rule = rules[0]
        #expect(rule.triggers == [.regionEnter, .visit] && rule.regions == ["a", "b"] && rule.networks == [.twitter])
        #expect(rule.place == .category("Coffee") && rule.precision == .city && rule.consent == .ask)
        #expect(rule.cooldown == .seconds(7_200) && rule.maxAge == .seconds(900) && rule.legacyLength)
    }

    @Test(
        "Bad rules are one error with file:line:column",
        arguments: [
            ("rules:\n  - id: a\n    on: regionEnter\n    colour: red\n", "rules.yaml:4:5: unknown key 'colour'"),
            ("rules:\n  - id: a\n    on: arrive\n", "rules.yaml:3:9: 'arrive' is not one of"),
            // Empty lists made a rule that never fires, silently.
            ("rules:\n  - id: a\n    on: []\n", "rules.yaml:3:9: 'on' needs at least one of regionEnter, regionExit"),
            (
                "rules:\n  - id: a\n    on: regionEnter\n    regions: []\n",
                "rules.yaml:4:14: 'regions' needs at least one region"
            ),
            (
                "rules:\n  - id: a\n    on: regionEnter\n    cooldown: soon\n",
                "rules.yaml:4:15: 'soon' is not a duration"
            ),
            (
                "rules:\n  - id: a\n    on: visit\n  - id: a\n    on: visit\n",
                "rules.yaml:4:5: rule 'a' is defined twice"
            ),
            ("rules:\n  - on: visit\n", "rules.yaml:2:5: missing 'id'"),
            (
                "rules:\n  - id: a\n    on: visit\n    searchRadius: 1e300\n",
                "rules.yaml:4:19: 'searchRadius' must be at most 50000 metres"
            ),
            ("a: &x [1]\nb: *x\n", "rules.yaml:1:4: YAML anchors"),
            // A typo in a placeholder was posted as written.
            (
                "rules:\n  - id: a\n    on: visit\n    message: \"{plcae} at {place}\"\n",
                "rules.yaml:4:14: 'message': unknown placeholder '{plcae}' (expected {place}, {region}, {time}, {network})"
            ),
            (
                "rules:\n  - id: a\n    on: visit\n    message: At {place\n",
                "rules.yaml:4:14: 'message': '{place' is not closed: '{place}'"
            ),
        ])
    func badRules(text: String, expected: String) {
        #expect {
            try CheckinRuleFile.parse(text, name: "rules.yaml")
        } throws: { error in
            (error as? ConfigFileError)?.description.hasPrefix(expected) == true
        }
    }

    @Test("A profile reads zones and answers; the defaults share nothing")
    func profile() throws {
        let profile = try PrivacyProfileFile.parse(
            """
            optIn: true
            disclosureAcknowledged: true
            precision: exact
            consent: ask
            answers: [yes, no]
            zones:
              - {name: home, latitude: 37.33, longitude: -122.03, radius: 300}
            maxAge: 1h
            """, name: "p.yaml")
        #expect(profile.optIn && profile.disclosureAcknowledged && profile.maximumPrecision == .exact)
        #expect(
            profile.answers == [true, false] && profile.zones.first?.name == "home" && profile.maxAge == .seconds(3_600)
        )
        let safe = PrivacyProfile()
        #expect(!safe.optIn && !safe.disclosureAcknowledged && safe.consent == .ask && safe.maximumPrecision == .place)
        #expect(throws: ConfigFileError.self) {
            try PrivacyProfileFile.parse("zones:\n  - {name: h, latitude: 95, longitude: 0, radius: 1}\n", name: "p")
        }
        // Found at stop 80: the store keeps zones by name, so the second 'home' replaced the first.
        #expect {
            try PrivacyProfileFile.parse(
                "zones:\n  - {name: home, latitude: 37.3, longitude: -122, radius: 100}\n"
                    + "  - {name: home, latitude: 10, longitude: 10, radius: 10}\n", name: "p.yaml")
        } throws: { error in
            "\(error)" == "p.yaml:3:12: privacy zone 'home' is defined twice"
        }
    }
}

/// A credentials file with a mistake must not print what it holds: the error names the file and
/// the place, never a value (a misplaced secret, a key typed where a value goes, YAML's own
/// message quoting the line).
struct CredentialsErrorTests {
    static let secret = "S3CRET-9f8e7d"

    @Test(arguments: [
        "twitter: {consumerKey: k, consumerSecret: \(secret)",  // unclosed: YAML's syntax error
        "twitter:\n  consumerKey: k\n  consumerSecret: [\(secret)]",  // a list, not a string
        "twitter:\n  consumerKey: k\n  \(secret): x",  // a secret typed as a key
        "\(secret)",  // a bare scalar
        "facebook:\n  accessToken: {value: \(secret)}",
        "facebook:\n  accesToken: \(secret)",
        "twitter:\n  consumerKey: k\n  consumerSecret: s\n  token: [\(secret)]",
        "twitter: \(secret)",
        "facebook: [\(secret)]",
        "twitter:\n  consumerKey: k\n  consumerSecret: \"\(secret)\n",  // unterminated quote
    ])
    func errorsNeverEchoTheFile(_ text: String) throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("credentials.yaml")
            try text.write(to: file, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
            do {
                _ = try Credentials.read(contentsOf: file, displayName: "credentials.yaml")
                Issue.record("accepted: \(text)")
            } catch let error as ConfigFileError {
                #expect(!error.description.contains("S3CRET"), "\(error.description)")
                #expect(error.description.hasPrefix("credentials.yaml"))
            }
        }
    }
}

/// A hunt: `token: ~` was sent as the text "~", and an empty file said "not YAML or JSON" —
/// a null is no credential, and an empty file has nothing to hide.
@Test func credentialsNullsAndEmptyFilesSayWhatIsWrong() throws {
    try withTemporaryDirectory { directory in
        let file = directory.appendingPathComponent("credentials.yaml")
        for (text, message) in [
            (
                "twitter:\n  consumerKey: k\n  consumerSecret: s\n  token: ~\n  tokenSecret: t\n",
                "twitter: every value must be a non-empty string"
            ),
            ("facebook:\n  accessToken: null\n", "facebook: accessToken must be a non-empty string"),
            ("", "the file is empty"),
        ] {
            try text.write(to: file, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
            #expect {
                try Credentials.read(contentsOf: file, displayName: "credentials.yaml")
            } throws: { error in
                (error as? ConfigFileError)?.message == message
            }
        }
    }
}

/// A template's placeholders are checked as a rules file is read: a brace around a word that is
/// not a placeholder, or a placeholder never closed, would be posted as written. Other braces are
/// text.
@Test func templateProblemsAreTheTyposAPostWouldCarry() {
    for fine in ["At {place} ({region}) {time} via {network}", "{{place}}", "{ } {:)} {1} {", "no braces", ""] {
        #expect(MessageTemplate.problem(in: fine) == nil, "\(fine)")
    }
    #expect(MessageTemplate.problem(in: "{Place}")?.hasPrefix("unknown placeholder '{Place}'") == true)
    #expect(MessageTemplate.problem(in: "{place_name} now")?.hasPrefix("unknown placeholder '{place_name}'") == true)
    #expect(MessageTemplate.problem(in: "at {time") == "'{time' is not closed: '{time}'")
    #expect(MessageTemplate.problem(in: "at {tim") == nil, "an unclosed brace before a word that is no name is text")
}

/// A rule's message is filled in one pass: what a value contains is never filled again.
@Test func messagesAreFilledInOnePass() {
    let time: EpochInstant = 1_748_963_447  // 2025-06-03 15:10:47 UTC
    #expect(
        MessageTemplate.render(
            "At {place} ({region}) {time} via {network}", place: "Café", region: "cafe", time: time,
            network: .twitter) == "At Café (cafe) 15:10 via twitter")
    #expect(
        MessageTemplate.render("  At {place}  now ", place: nil, region: nil, time: time, network: .facebook)
            == "At now")
    #expect(
        MessageTemplate.render("{{place}} {other} {", place: "{time}", region: nil, time: time, network: .twitter)
            == "{{time}} {other} {")
    // Braces are characters: one with a combining mark is text (a template that is not ASCII),
    // and an ASCII template's CR LF is one character beside a name.
    #expect(
        MessageTemplate.render("{place}\u{301} {place}", place: "Café", region: nil, time: time, network: .twitter)
            == "{place}\u{301} Café")
    #expect(
        MessageTemplate.render("\r\n{place}\r\n{time}", place: "Café", region: nil, time: time, network: .twitter)
            == "\r\nCafé\r\n15:10")
    // Trimmed as Foundation's `.whitespaces` trims: space separators and tab, not line breaks.
    for template in [
        "\u{A0}\u{3000} At {place}\t", "\n At {place} \n", "\u{2003}\u{202F}", " \u{301}At {place} ", "\t\t",
    ] {
        #expect(
            MessageTemplate.render(template, place: "Café", region: nil, time: time, network: .twitter)
                == template.replacingOccurrences(of: "{place}", with: "Café").trimmingCharacters(in: .whitespaces))
    }
}

/// Runs of spaces become one as the character-by-character collapse made them, whatever joins a
/// space: a combining accent (a space of its own grapheme), a prepended mark, a value ending or
/// starting in spaces.
@Test func spacesCollapseAsCharacterByCharacter() {
    let time: EpochInstant = 1_748_963_447
    func collapsed(_ pieces: [String]) -> String {
        var text = ""
        for piece in pieces {
            for character in piece where !(character == " " && text.last == " ") { text.append(character) }
        }
        return text.trimmingCharacters(in: .whitespaces)
    }
    let values = ["", " ", "  ", "Café", " \u{301}x", "a  b", "\u{600} ", "x ", " y", "  \u{301}  "]
    for place in values {
        for region in values {
            let template = "At {place} {region}  x \u{301} {place}"
            let expected = collapsed(["At ", place, " ", region, "  x \u{301} ", place])
            #expect(
                MessageTemplate.render(template, place: place, region: region, time: time, network: .twitter)
                    == expected, "\(place.debugDescription) \(region.debugDescription)")
        }
    }
}
