import Foundation
import TestSupport
import Testing
import Yams

@testable import ConfigFiles

/// JSON is read by a JSON reader (``JSONReader``) for speed (issue 41: a 100,000-region JSON
/// file); it must give exactly the tree YAML gives for the same text — values, styles, tags,
/// positions — or hand the text to YAML, whose errors users then see.
struct JSONReaderTests {
    /// Every scalar with its text, style, tag and position; every collection with its position and
    /// members in order.
    static func shape(_ node: ConfigNode) -> String {
        let record = node.tree.records[node.index]
        let at = "\(node.line):\(node.column)"
        if node.isMapping {
            return "M(\(at) " + node.entries.map { shape($0.key) + "=" + shape($0.value) }.joined(separator: ",") + ")"
        }
        if node.isSequence {
            return "Q(\(at) " + ((try? node.list()) ?? []).map(shape).joined(separator: ",") + ")"
        }
        let tag = "\(record.tag)" + (node.tree.tags[node.index].map { " " + $0 } ?? "")
        return "S(\(record.text.debugDescription) \(record.style) \(tag) \(at))"
    }

    /// The tree the JSON reader gives, or nil when it leaves the text to YAML.
    static func json(_ text: String) -> String? {
        JSONReader.read(text, file: "t.json").map { shape(ConfigNode($0, 0)) }
    }

    static func yaml(_ text: String) throws -> String {
        shape(try ConfigNode.yaml(text, name: "t.json"))
    }

    static let wellFormed = [
        #"{"regions": [{"identifier": "a", "latitude": 37.5, "longitude": -122.25, "radius": 150}]}"#,
        "[1, -0.5, 2e10, 1E-3, 0, true, false, null, \"x\"]",
        "{\r\n  \"a\": {\"b\": [[], {}]},\r\n\t\"c\": \"d\"\n}\n",
        #"{"escapes": "q\" b\\ s\/ \b\f\n\r\t \u00e9 end", "plain": "caf\u00e9"}"#,
        "{\"unicode\": \"日本語 ☕️\", \"after\": [\"é\", 1]}",
        "  \n[\n  {\"k\": \"v\"}  ,  {\"k\": \"w\"}\n]  ",
        "{}", "[]", "[\"\"]", "{\"true\": \"true\", \"n\": \"null\", \"e\": \"\", \"12\": \"12\"}",
        "{\"region\": null, \"flag\": true, \"quoted\": \"yes\"}",
        #"["escaped breaks: \u0085 \u2028 \u2029", "Ça ¢ € ‰"]"#,
        "{\"k\": [{\"a\": 1, \"b\": 2, \"c\": 3, \"d\": 4, \"e\": 5, \"f\": 6, \"g\": 7, \"h\": 8, \"i\": 9, "
            + "\"j\": 10, \"k\": 11, \"l\": 12, \"m\": 13, \"n\": 14, \"o\": 15, \"p\": 16, \"q\": 17, \"r\": 18}]}",
    ]

    @Test(arguments: wellFormed)
    func wellFormedJSONGivesYAMLsTree(_ text: String) throws {
        let ours = try #require(Self.json(text))
        #expect(ours == (try Self.yaml(text)))
    }

    @Test func theShippedJSONFilesGiveYAMLsTree() throws {
        for file in ["fixtures/places/twitter-places.json", "fixtures/places/facebook-pages.json"] {
            let text = try String(contentsOf: Corpus.repositoryRoot.appendingPathComponent(file), encoding: .utf8)
            let ours = try #require(Self.json(text), "\(file)")
            #expect(ours == (try Self.yaml(text)), "\(file)")
        }
    }

    /// The YAML tree is Yams' composed nodes, copied: checked against Yams' own, node for node.
    @Test(arguments: wellFormed + ["a: 1\nb: 'q'\nc: [x, \"y\"]\nd: !!null n\ne: ! t\nf: >\n  g\nh: |\n  z\n"])
    func theYAMLTreeIsYamsNodes(_ text: String) throws {
        func yams(_ node: Node) -> String {
            let at = node.mark.map { "\($0.line):\($0.column)" } ?? "-"
            switch node {
            case .scalar(let s):
                let tag: String =
                    switch s.tag.rawValue {
                    case "": "implicit"
                    case Tag.Name.str.rawValue: "string"
                    case let written: "written " + written
                    }
                return "S(\(s.string.debugDescription) \(s.style) \(tag) \(at))"
            case .mapping(let m):
                return "M(\(at) " + m.map { yams($0.key) + "=" + yams($0.value) }.joined(separator: ",") + ")"
            case .sequence(let q): return "Q(\(at) " + q.map(yams).joined(separator: ",") + ")"
            case .alias: return "A"
            }
        }
        let node = try #require(try Yams.compose(yaml: text, .basic))
        #expect(try Self.yaml(text) == yams(node))
    }

    /// JSON writes a character outside the BMP as an escaped surrogate pair, which libyaml
    /// refuses: such a file, refused before, now reads.
    @Test func anEscapedSurrogatePairReads() throws {
        let text = #"["\ud83d\ude00"]"#
        #expect(throws: (any Error).self) { try Yams.compose(yaml: text) }
        #expect(try ConfigNode.parse(text, name: "s.json").list().first?.string() == "😀")
    }

    static let notTaken = [
        "{\"a\": 1, \"a\": 2}", "{a: 1}", "[1, 2,]", "{\"a\": 01}", "[\"tab\there\"]", "{\"a\": 1} x", "[1",
        #"["\ud800"]"#, #"["\x"]"#, "[.5]", "[+1]", "[1.]", "[tru]", "", "{\"a\": 1,\n \"b\": [}", "{\"a\" 1}",
        "[\"unterminated]", "{\"a\": &x 1, \"b\": *x}", "{\"a\": {\"b\": 1, \"b\": 2}}",
        // YAML 1.1's other line breaks, written as they are: libyaml folds each into a space and
        // counts a line; and a byte order mark, which it drops (fuzz-yaml found a NEL in a places
        // file and a BOM in a string).
        "[\"United Sta\u{85}s\"]", "{\"a\": \"x\u{2028}y\",\n \"b\": 1}", "{\"p\u{2029}\": [2]}",
        "\"\u{FEFF}\\b \\b\\\" \\b\"", "[\"a\u{FEFF}b\", 1]",
        "{\"1\": 1, \"2\": 2, \"3\": 3, \"4\": 4, \"5\": 5, \"6\": 6, \"7\": 7, \"8\": 8, \"9\": 9, \"10\": 10, "
            + "\"11\": 11, \"12\": 12, \"13\": 13, \"14\": 14, \"15\": 15, \"16\": 16, \"17\": 17, \"3\": 18}",
    ]

    /// Not JSON this reader takes: YAML reads it (and gives its own error when it is no YAML either).
    @Test(arguments: notTaken)
    func otherTextIsLeftToYAML(_ text: String) {
        #expect(JSONReader.read(text, file: "t.json") == nil)
    }

    /// Whatever the JSON reader leaves, the user sees YAML's answer: its error, at its line and
    /// column, or its tree.
    @Test(arguments: notTaken)
    func malformedJSONGivesYAMLsError(_ text: String) {
        func outcome(_ read: () throws(ConfigFileError) -> ConfigNode) -> String {
            do throws(ConfigFileError) {
                return Self.shape(try read())
            } catch {
                return error.description
            }
        }
        let parsed = outcome { () throws(ConfigFileError) in try ConfigNode.parse(text, name: "t.json") }
        let yaml = outcome { () throws(ConfigFileError) in try ConfigNode.yaml(text, name: "t.json") }
        #expect(parsed == yaml)
    }

    /// A hunt: a string strict JSON does not take was one message for four faults, placed at its
    /// opening quote; each is said, where it is (columns count Unicode scalars: `é` is one).
    @Test(arguments: [
        ("{\"name\": \"a\tb\"}", 12, "a control character (U+0009) in a string"),
        ("{\"name\": \"é\\x\"}", 12, "an escape JSON does not define (\\x)"),
        ("{\"name\": \"abc", 10, "not closed by a double quote before the end"),
        (#"["\ud800x"]"#, 3, "(\\uD800): a high half without a low one"),
        (#"["\udc00"]"#, 3, "(\\uDC00): a low half without a high one"),
        (#"["\u12"]"#, 3, "not followed by four hexadecimal digits"),
    ])
    func aStringStrictJSONRefusesIsSaidWhereItFails(text: String, column: Int, reason: String) {
        do {
            _ = try ConfigNode.json(text, name: "s.json")
            Issue.record("\(text) should be refused")
        } catch {
            #expect(error.line == 1 && error.column == column, "\(error)")
            #expect(error.message.contains(reason), "\(error)")
        }
    }

    @Test func deepNestingIsLeftToYAML() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(JSONReader.read(deep, file: "t.json") == nil)
        #expect(JSONReader.read("[[[1]]]", file: "t.json") != nil)
    }

    /// The errors users see for JSON are YAML's, whichever reader met the text first.
    @Test func aRepeatedKeyIsYAMLsError() throws {
        do {
            _ = try ConfigNode.parse("{\"a\": 1,\n \"a\": 2}", name: "d.json")
            Issue.record("a repeated key should be refused")
        } catch {
            #expect(error.description.contains("d.json") && error.description.contains("'a' is given twice"))
        }
    }

    /// A hunt: a YAML key given twice was reported where its mapping starts (`1:1`), JSON's at
    /// the second time; both say the second time now, where the edit is to be made.
    @Test(arguments: [
        ("name: x\nother: 1\nname: y\n", 3, 1),
        ("regions:\n  - identifier: a\n    radius: 5\n\n    # again\n    radius: 6\n", 6, 5),
        ("a:\n  b: 1\n  \"b\": 2\n", 3, 3),
    ])
    func aRepeatedYAMLKeyIsReportedWhereItIsRepeated(text: String, line: Int, column: Int) {
        do {
            _ = try ConfigNode.parse(text, name: "d.yaml")
            Issue.record("a repeated key should be refused")
        } catch {
            #expect(error.line == line && error.column == column, "\(error)")
            #expect(error.description.contains("is given twice"), "\(error)")
        }
    }

    /// The readings that keep Yams' rules give the same answers from either reader.
    @Test func scalarsReadAlikeFromJSONAndYAML() throws {
        let text =
            "{\"a\": true, \"b\": \"true\", \"c\": 12, \"d\": \"12\", \"e\": null, \"f\": \"null\", \"g\": -1.5e3}"
        let json = try ConfigNode.parse(text, name: "t.json")
        let yaml = try ConfigNode.yaml(text, name: "t.json")
        #expect(json.tree.records.count == yaml.tree.records.count)
        for key in ["a", "b", "c", "d", "e", "f", "g"] {
            let (j, y) = (try json.required(key), try yaml.required(key))
            #expect(j.boolValue == y.boolValue && j.integerValue == y.integerValue, "\(key)")
            #expect(j.numericValue == y.numericValue && j.isNull == y.isNull, "\(key)")
        }
        #expect(try json.required("a").bool() && (try? json.required("b").bool()) == nil)
        #expect(try json.required("c").integerValue == 12 && json.required("d").integerValue == nil)
        #expect(try json.required("e").isNull && json.required("f").isNull && !json.required("b").isNull)
    }
}
