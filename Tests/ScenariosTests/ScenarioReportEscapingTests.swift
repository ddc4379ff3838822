import Foundation
import Scenarios
import TestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Issue 27, item 2: scenario and region names, places and messages in the scenario reports
/// come from files and servers; the text report shows them escaped, JUnit stays valid XML, JSON
/// keeps them exact.
struct ScenarioReportEscapingTests {
    static let results = [
        ScenarioResult(
            name: "cafe\u{1B}]0;owned\u{07}", file: "cafe\u{9B}.yaml",
            expectations: [
                ExpectationResult(
                    description: "post at \u{202E}gnp.exe", location: "cafe.yaml:3:5", passed: false,
                    expected: "place =1+1", actual: "0\nFAIL  forged\u{1B}[2J")
            ])
    ]

    @Test func textShowsNamesEscaped() {
        let text = ScenarioReport.text(Self.results)
        #expect(
            !text.unicodeScalars.contains {
                ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}"
            })
        #expect(text.hasPrefix(#"FAIL  cafe\e]0;owned\x07  (cafe\u{9B}.yaml)"#))
        #expect(text.contains(#"  ✗ post at \u{202E}gnp.exe"#))
        #expect(text.contains(#"      actual:   0\nFAIL  forged\e[2J"#))
        #expect(!text.split(separator: "\n").contains { $0.hasPrefix("FAIL  forged") })
    }

    @Test func junitIsValidXMLAndJSONIsExact() throws {
        let junit = ScenarioReport.junit(Self.results)
        #expect(!junit.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{9B}" })
        #expect(junit.contains(#"<testsuite name="cafe\e]0;owned\x07" tests="1""#))
        #expect(junit.contains(#"<property name="file" value="cafe\u{9B}.yaml"/>"#))
        #expect(junit.contains(#"actual:   0&#10;FAIL  forged\e[2J"#))
        let parser = XMLParser(data: Data(junit.utf8))
        #expect(parser.parse(), "\(String(describing: parser.parserError))")
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(ScenarioReport.json(Self.results).utf8)) as? [String: Any])
        let scenario = try #require((json["scenarios"] as? [[String: Any]])?.first)
        #expect(scenario["name"] as? String == "cafe\u{1B}]0;owned\u{07}")
    }
}
