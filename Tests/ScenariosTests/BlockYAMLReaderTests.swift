import Foundation
import TestSupport
import Testing
import WaypostSupport

@testable import ConfigFiles

/// YAML in the shape configuration files have is read by ``BlockYAMLReader`` for speed (a
/// 100,000-region YAML file: Yams' nodes were two thirds of loading it); it must give exactly the
/// tree Yams composes from the same text — values, styles, tags, positions — or leave the text
/// to Yams, whose answer (tree or error) users then see. Yams (libyaml) is the reference here,
/// not this project's reading of the YAML specification.
struct BlockYAMLReaderTests {
    static func shape(_ tree: ConfigTree) -> String { JSONReaderTests.shape(ConfigNode(tree, 0)) }

    /// What Yams makes of `text`: the tree's shape, or its error.
    static func yams(_ text: String) -> String {
        do throws(ConfigFileError) {
            return shape(try YAMLTree.composed(text, file: "t.yaml"))
        } catch {
            return error.description
        }
    }

    /// The block reader's tree of `text`, or nil when it leaves the text to Yams.
    static func block(_ text: String) -> String? { BlockYAMLReader.read(text, file: "t.yaml").map(shape) }

    static let taken = [
        "regions:\n  - {identifier: r0, latitude: 37.622902, longitude: -121.758213, radius: 150}\n"
            + "  - {identifier: r1, latitude: 37.795194, longitude: -121.557550, radius: 150}\n",
        "regions:\n- identifier: cafe\n  name: Blue Bottle  # a comment\n  latitude: 37.5\n  radius: 100\n"
            + "- identifier: 'it''s'\n  name: \"Café de l'Époque\"\n",
        "# leading comment\n\nname: x\nnested:\n  a: 1\n  b:\n    - x\n    - [1, 2, 'three']\n  c: {}\nd: []\n",
        "- - a\n  - b\n- c\n", "- a: 1\n  b: 2\n-   c: 3\n", "key with spaces: value with  two spaces\n",
        "a: b#c\nd: -1.5e3\ne: ~\nf: yes\ng: 'x: y'\nh: \"#not a comment\"\ni: http://example.com/a?b=c\n",
        "  indented: root\n  second: 2\n", "a : 1\n", "list:\n- {a: [x, y z], 'b': \"q\"}\n- [ ]\n",
        "日本語: 東京\nkey: 'ça'\n", "a:\n  # comment between\n\n  b: 1\n", "- 'x'\n- \"y\"\n- z",
        "x: 12:30\ny: a, b\nz: -x\n",
        "regions: [" + (0..<300).map { "{identifier: café\($0), 'ñ': [\($0), -\($0).5]}" }.joined(separator: ", ")
            + "]\n",
    ]

    @Test(arguments: taken)
    func textInItsShapeGivesYamsTree(_ text: String) throws {
        let ours = try #require(Self.block(text))
        #expect(ours == Self.yams(text))
    }

    static let leftToYams = [
        "", "# only a comment\n", "a: 1\na: 2\n", "a:\n", "a:\nb: 1\n", "- \n- a\n", "a: b\n  c\n", "- a\n  b\n",
        "a: 1\r\nb: 2\r\n", "a:\t1\n", "a: |\n  text\n", "a: >\n  text\n", "a: !!str 1\n", "a: &x 1\n", "---\na: 1\n",
        "a: 1\n...\n", "%YAML 1.1\n---\na: 1\n", "a: \"esc\\n\"\n", "a: 'open\n  close'\n", "a: [1,\n 2]\n",
        "a: {b: 1,}\n", "a: {b:1}\n", "a: [b: 1]\n", "a: {b: 1 #c}\n", "? a\n: b\n", "a: b: c\n", "- - a\n - b\n",
        "a: 1\n- b\n", "a: 1\n b: 2\n", "[1, 2]\n", "{a: 1}\n", "plain scalar\n", "a: {b: 1, b: 2}\n",
        "a: \u{2028}\n", "a: £5\n", "a: 1\n  # indented comment\n b: 2\n", "\"a\" : 1\n", "a: \"x\" y\n",
        "- a: 1\n   b: 2\n", "a: [x]y\n", "a:\n- b\n - c\n", "-a: 1\n-b: 2\n-", "a: {b: c", "a: [b, c", "a: 'b",
        "a: {b", "- [", "a: {b: 1, c:",
    ]

    /// Left to Yams, which reads it (or refuses it) as before.
    @Test(arguments: leftToYams)
    func otherTextIsLeftToYams(_ text: String) {
        let ours = Self.block(text)
        #expect(ours == nil || ours == Self.yams(text), "\(text.debugDescription)")
    }

    /// Every YAML file the project ships: scenarios, regions, beacons, rules, privacy profiles.
    @Test func theShippedYAMLFilesGiveYamsTree() throws {
        let root = Corpus.repositoryRoot.appendingPathComponent("fixtures")
        let files = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "yaml" }
        var taken = 0
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            guard let ours = Self.block(text) else { continue }
            taken += 1
            #expect(ours == Self.yams(text), "\(file.lastPathComponent)")
        }
        // The reader is for files like these: most of them must be read by it, not left to Yams.
        #expect(files.count >= 30 && taken * 4 >= files.count * 3, "\(taken) of \(files.count)")
    }

    /// `make fuzz`'s fuzz-yaml asks ``ReaderAgreement`` of every input: it finds the shipped
    /// files (its seeds) and its own findings agreeing, and a reading that differs from Yams'.
    @Test func theFuzzersAgreementCheckHoldsTheReadersToYams() throws {
        let root = Corpus.repositoryRoot.appendingPathComponent("fixtures")
        let files = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { ["yaml", "json"].contains($0.pathExtension) }
        for file in files {
            #expect(ReaderAgreement.disagreement(in: try String(contentsOf: file, encoding: .utf8)) == nil)
        }
        // fuzz-yaml's findings, read alike since: a NEL and a byte order mark in JSON strings.
        for text in ["{\"country\": \"United Sta\u{85}s\"}", "\"\u{FEFF}\\b \\b\\\" \\b\""] {
            #expect(ReaderAgreement.disagreement(in: text) == nil, "\(text.debugDescription)")
        }
        #expect(ReaderAgreement.difference(try Self.tree("a: 1\n"), try Self.tree("a: 2\n")) != nil)
        #expect(ReaderAgreement.difference(try Self.tree("a: 1\n"), try Self.tree("a:  1\n")) != nil)
        #expect(ReaderAgreement.difference(try Self.tree("a: 1\n"), try Self.tree("a: 1\n")) == nil)
    }

    static func tree(_ text: String) throws -> ConfigTree { try YAMLTree.composed(text, file: "t.yaml") }

    /// Documents put together from pieces that lie on both sides of the reader's subset — keys and
    /// values plain, quoted, with colons, hashes, spaces; flow collections well-formed or not;
    /// indentation right and wrong; comments, blank lines, tabs, carriage returns. Wherever the
    /// reader takes a document, its tree is Yams'; and it takes a good part of them.
    @Test func generatedDocumentsGiveYamsTreeWhereverTaken() {
        var random = SplitMix64(seed: 41)
        let keys = ["a", "b", "name", "key with spaces", "'quoted'", "\"dq\"", "-k", "k:x", "1", "é", "a#b", "a #b"]
        let values = [
            "1", "-1.5", "yes", "~", "null", "text here", "'it''s'", "\"dq\"", "a#b", "a #c", "x: y", "[1, 2]",
            "{a: 1, b: [x, y]}", "{a: 1,}", "{a:1}", "[a: b]", "[]", "{}", "'open", "\"esc\\t\"", "&anchor",
            "- x", "12:30", "http://x/y", "a, b", "[x] y", "{a: {b: {c: d}}}", "[ 'q' , \"r\" ]", "!!int 3", "|",
            "café ☕", "", "# comment", "{a: 1", "[x, ", "{a: b", "'", "\"",
        ]
        func indentation() -> String { String(repeating: " ", count: random.below(5)) }
        var (documents, taken) = (0, 0)
        for _ in 0..<4_000 {
            var lines: [String] = []
            var depth = 0
            for _ in 0..<(1 + random.below(8)) {
                let indent = String(repeating: "  ", count: depth) + (random.below(8) == 0 ? " " : "")
                let key = keys[random.below(keys.count)]
                let value = values[random.below(values.count)]
                switch random.below(10) {
                case 0: lines.append(indent + key + ":"); depth += 1
                case 1: lines.append(indent + "- " + value)
                case 2: lines.append(indent + "- " + key + ": " + value)
                case 3: lines.append(random.below(2) == 0 ? "" : indentation() + "# note")
                case 4: depth = max(0, depth - 1 - random.below(2)); lines.append(indent + key + ": " + value)
                case 5: lines.append(indent + key + ": " + value + (random.below(2) == 0 ? " # c" : "  "))
                case 6: lines.append(indent + "-" + (random.below(2) == 0 ? "" : " ")); depth += 1
                case 7: lines.append(indent + key + ":" + (random.below(3) == 0 ? "\t" : "\r") + value)
                default: lines.append(indent + key + ": " + value)
                }
            }
            let text = lines.joined(separator: "\n") + (random.below(3) == 0 ? "" : "\n")
            documents += 1
            guard let ours = Self.block(text) else { continue }
            taken += 1
            #expect(ours == Self.yams(text), "\(text.debugDescription)")
        }
        #expect(taken * 20 >= documents, "taken \(taken) of \(documents)")
    }

    /// Well-formed documents: random trees written in every style the reader takes — block and
    /// flow collections, compact and indentless sequences, any indentation, comments and blank
    /// lines between — each read by the reader (nearly all) and by Yams, node for node.
    @Test func writtenTreesGiveYamsTree() {
        var writer = TreeWriter(random: SplitMix64(seed: 7))
        var (documents, taken) = (0, 0)
        for _ in 0..<2_000 {
            let text = writer.document()
            documents += 1
            guard let ours = Self.block(text) else { continue }
            taken += 1
            #expect(ours == Self.yams(text), "\(text.debugDescription)")
        }
        #expect(taken * 10 >= documents * 7, "taken \(taken) of \(documents)")
    }

    /// Writes random trees of keys, scalars, mappings and sequences as YAML.
    struct TreeWriter {
        var random: SplitMix64
        let keys = ["a", "b", "name", "key with spaces", "'quoted'", "\"dq\"", "-k", "k:x", "é", "a#b", "日本", "1"]
        let scalars = [
            "1", "-1.5", "yes", "~", "text here", "'it''s'", "\"dq\"", "a#b", "café", "'x: y'", "\"#h\"", "0x1A",
            "two  spaces", "12:30", "http://x/y", "a, b",
        ]

        mutating func document() -> String {
            var lines: [String] = []
            write(collection(depth: 0), indent: random.below(3), into: &lines)
            return lines.joined(separator: "\n") + (random.below(4) == 0 ? "" : "\n")
        }

        indirect enum Tree {
            case scalar(String), mapping([(String, Tree)]), sequence([Tree])
        }

        mutating func collection(depth: Int) -> Tree {
            let count = 1 + random.below(4)
            if random.below(2) == 0 {
                var chosen: [(String, Tree)] = []
                for key in keys.shuffled(using: &random).prefix(count) { chosen.append((key, tree(depth: depth + 1))) }
                return .mapping(chosen)
            }
            return .sequence((0..<count).map { _ in tree(depth: depth + 1) })
        }

        mutating func tree(depth: Int) -> Tree {
            depth < 4 && random.below(3) == 0 ? collection(depth: depth) : .scalar(scalars[random.below(scalars.count)])
        }

        /// The tree on one line, as a flow collection (a scalar as it is).
        mutating func flow(_ tree: Tree) -> String {
            let space = random.below(3) == 0 ? " " : ""
            switch tree {
            case .scalar(let text): return text
            case .mapping(let pairs):
                return "{" + space + pairs.map { "\($0.0): " + flow($0.1) }.joined(separator: ", ") + space + "}"
            case .sequence(let items): return "[" + space + items.map { flow($0) }.joined(separator: ", ") + space + "]"
            }
        }

        /// Appends `tree`, a collection, as a block at column `indent`.
        mutating func write(_ tree: Tree, indent: Int, into lines: inout [String]) {
            let pad = String(repeating: " ", count: indent)
            switch tree {
            case .scalar(let text): lines.append(pad + text)
            case .mapping(let pairs):
                for (key, value) in pairs {
                    interject(indent, into: &lines)
                    if case .scalar = value {
                        lines.append(pad + key + ": " + flow(value) + (random.below(4) == 0 ? "  # c" : ""))
                    } else if random.below(3) == 0 {
                        lines.append(pad + key + ": " + flow(value))
                    } else {
                        lines.append(pad + key + ":" + (random.below(4) == 0 ? " # c" : ""))
                        let indentless = random.below(2) == 0
                        if case .sequence = value, indentless {
                            write(value, indent: indent, into: &lines)
                        } else {
                            write(value, indent: indent + 1 + random.below(4), into: &lines)
                        }
                    }
                }
            case .sequence(let items):
                for item in items {
                    interject(indent, into: &lines)
                    switch (item, random.below(3)) {
                    case (.scalar, _), (_, 0): lines.append(pad + "- " + flow(item))
                    case (_, 1):
                        // Compact: the item's first line after the dash, the rest at its column.
                        let width = 2 + random.below(3)
                        var inner: [String] = []
                        write(item, indent: indent + width, into: &inner)
                        let first = inner[0].dropFirst(indent + width)
                        lines.append(pad + "-" + String(repeating: " ", count: width - 1) + first)
                        lines.append(contentsOf: inner.dropFirst())
                    default:
                        lines.append(pad + "-")
                        write(item, indent: indent + 1 + random.below(4), into: &lines)
                    }
                }
            }
        }

        /// Now and then a blank line or a comment, anywhere.
        mutating func interject(_ indent: Int, into lines: inout [String]) {
            switch random.below(12) {
            case 0: lines.append("")
            case 1: lines.append(String(repeating: " ", count: random.below(indent + 3)) + "# note")
            default: break
            }
        }
    }

    @Test func aMappingOfManyKeysIsLeftToYams() {
        let keys = (0..<1_000).map { "k\($0): \($0)" }.joined(separator: "\n")
        #expect(Self.block(keys) == nil)
        #expect(Self.block("a: 1\nb: 2\n") != nil)
    }

    @Test func deepNestingIsLeftToYams() {
        let deep = (0..<200).map { String(repeating: " ", count: $0) + "k:" }.joined(separator: "\n") + " 1\n"
        #expect(Self.block(deep) == nil)
        let flow = "a: " + String(repeating: "[", count: 200) + String(repeating: "]", count: 200) + "\n"
        #expect(Self.block(flow) == nil)
    }

    /// The reader is behind `ConfigNode`'s YAML: a file it takes reads to the same values and
    /// errors at the same positions as before.
    @Test func aRegionsFilesValuesAndErrorsArePositioned() throws {
        let text =
            "regions:\n  - {identifier: a, latitude: 37.5, longitude: -122.25, radius: 150}\n"
            + "  - identifier: b\n    latitude: 95\n"
        let root = try ConfigNode.parse(text, name: "r.yaml")
        let items = try #require(root.entries.first { $0.key.scalarText == "regions" }?.value).list()
        #expect(items.count == 2)
        let latitude = try #require(items[1].entries.first { $0.key.scalarText == "latitude" }?.value)
        #expect((latitude.line, latitude.column) == (4, 15))
        #expect(latitude.failure("out of range").description.hasPrefix("r.yaml:4:15"))
    }
}

extension SplitMix64 {
    /// A number below `bound` (by remainder): the generated documents' choices, the same on every run.
    fileprivate mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
