import Foundation
import TestSupport
import Testing
import Yams

@testable import ConfigFiles

/// JSON is composed by a JSON reader (``JSONNodes``) for speed (issue 41: a 100,000-region JSON
/// file); it must give exactly the nodes Yams composes from the same text — values, styles,
/// tags, marks — or hand the text to YAML.
struct JSONNodesTests {
    /// Every scalar with its style, mark and tag; every collection with its style, mark, tag and order.
    static func shape(_ node: Node) -> String {
        let mark = node.mark.map { "\($0.line):\($0.column)" } ?? "-"
        switch node {
        case .scalar(let s): return "S(\(s.string.debugDescription) \(s.style) \(mark) \(s.tag))"
        case .mapping(let m):
            return "M(\(m.style) \(mark) \(m.tag) "
                + m.map { shape($0.key) + "=" + shape($0.value) }.joined(separator: ",") + ")"
        case .sequence(let q): return "Q(\(q.style) \(mark) \(q.tag) " + q.map(shape).joined(separator: ",") + ")"
        case .alias: return "A"
        }
    }

    static func yams(_ text: String) throws -> String? {
        try Yams.compose(yaml: text, .basic).map(shape)
    }

    @Test(arguments: [
        #"{"regions": [{"identifier": "a", "latitude": 37.5, "longitude": -122.25, "radius": 150}]}"#,
        "[1, -0.5, 2e10, 1E-3, 0, true, false, null, \"x\"]",
        "{\r\n  \"a\": {\"b\": [[], {}]},\r\n\t\"c\": \"d\"\n}\n",
        #"{"escapes": "q\" b\\ s\/ \b\f\n\r\t \u00e9 end", "plain": "caf\u00e9"}"#,
        "{\"unicode\": \"日本語 ☕️\", \"after\": [\"é\", 1]}",
        "  \n[\n  {\"k\": \"v\"}  ,  {\"k\": \"w\"}\n]  ",
        "{}", "[]", "[\"\"]",
    ])
    func wellFormedJSONGivesYamsNodes(_ text: String) throws {
        let ours = try #require(JSONNodes.compose(text))
        #expect(Self.shape(ours) == (try Self.yams(text)))
    }

    @Test func theShippedJSONFilesGiveYamsNodes() throws {
        for file in ["fixtures/places/twitter-places.json", "fixtures/places/facebook-pages.json"] {
            let text = try String(contentsOf: Corpus.repositoryRoot.appendingPathComponent(file), encoding: .utf8)
            let ours = try #require(JSONNodes.compose(text), "\(file)")
            #expect(Self.shape(ours) == (try Self.yams(text)), "\(file)")
        }
    }

    /// JSON writes a character outside the BMP as an escaped surrogate pair, which libyaml
    /// refuses: such a file, refused before, now reads.
    @Test func anEscapedSurrogatePairReads() throws {
        let text = #"["\ud83d\ude00"]"#
        #expect(throws: (any Error).self) { try Yams.compose(yaml: text) }
        #expect(try ConfigNode.parse(text, name: "s.json").list().first?.string() == "😀")
    }

    /// Not JSON this reader takes: YAML composes it (and gives its own error when it is no YAML either).
    @Test(arguments: [
        "{\"a\": 1, \"a\": 2}", "{a: 1}", "[1, 2,]", "{\"a\": 01}", "[\"tab\there\"]", "{\"a\": 1} x", "[1",
        #"["\ud800"]"#, #"["\x"]"#, "[.5]", "[+1]", "[1.]", "[tru]", "",
    ])
    func otherTextIsLeftToYAML(_ text: String) {
        #expect(JSONNodes.compose(text) == nil)
    }

    @Test func deepNestingIsLeftToYAML() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(JSONNodes.compose(deep) == nil)
        #expect(JSONNodes.compose("[[[1]]]") != nil)
    }

    /// The errors users see for JSON are YAML's, whichever reader met the text first.
    @Test func aRepeatedKeyIsYAMLsError() throws {
        #expect(JSONNodes.marksAreConstructible)
        do {
            _ = try ConfigNode.parse("{\"a\": 1,\n \"a\": 2}", name: "d.json")
            Issue.record("a repeated key should be refused")
        } catch {
            #expect(error.description.contains("d.json") && error.description.contains("'a' is given twice"))
        }
    }
}
