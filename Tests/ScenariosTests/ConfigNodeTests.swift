import Foundation
import TestSupport
import Testing
import Yams

@testable import ConfigFiles

/// ConfigNode reads values without Yams' implicit tag resolution (for speed: issue 17); these
/// check that what it reads is what Yams' default reading would have given.
struct ConfigNodeTests {
    /// Scalars as config files write them, and the ones only YAML 1.1's rules read as numbers.
    static let numbers = [
        "12", "-12", "+12", "0", "-0", "+0", "012", "-012", "1.5", ".5", "1.", "-122.0315", "1e5", "1E+5", "2.5e-3",
        "1e", "1_000", "1:30", "0x1A", "0o17", "0b101", ".inf", "-.inf", ".nan", "1e400", "'12'", "\"1.5\"",
        "twelve", "1.2.3", "--1", "+-1", "e5", "", "true", "~", "null", "12 ", "99999999999999999999",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "65535", "٣",
    ]

    @Test(arguments: numbers)
    func numbersReadAsYamsReadsThem(text: String) throws {
        let ours = try ConfigNode.parse("value: \(text)", name: "n.yaml").required("value").numericValue
        let yams = try #require(try Yams.compose(yaml: "value: \(text)")?.mapping?["value"])
        let expected = yams.float ?? yams.int.map(Double.init)
        #expect(ours == expected || (ours?.isNaN == true && expected?.isNaN == true), "\(text)")
    }

    /// Whole numbers (a beacon's major and minor) as Yams' `Int` reads them, octal `012` included.
    @Test(arguments: numbers)
    func integersReadAsYamsReadsThem(text: String) throws {
        let ours = try ConfigNode.parse("value: \(text)", name: "n.yaml").required("value").integerValue
        let yams = try #require(try Yams.compose(yaml: "value: \(text)")?.mapping?["value"])
        #expect(ours == yams.int, "\(text)")
    }

    @Test func keysAreFoundByTheirText() throws {
        let node = try ConfigNode.parse("latitude: 1\n'radius': 2\n\"yes\": 3\n", name: "k.yaml")
        #expect(try node.required("latitude").number() == 1)
        #expect(try node.required("radius").number() == 2)
        #expect(try node.required("yes").number() == 3)
        #expect(node["longitude"] == nil)
        #expect(throws: ConfigFileError.self) { try node.required("longitude") }
    }

    @Test(arguments: ["yes", "Off", "TRUE", "tRuE", "'true'", "\"no\"", "1", "y", "~", "on "])
    func flagsReadAsYamsReadsThem(text: String) throws {
        let ours = try? ConfigNode.parse("flag: \(text)", name: "f.yaml").required("flag").bool()
        let yams = try #require(try Yams.compose(yaml: "flag: \(text)")?.mapping?["flag"])
        #expect(ours == yams.bool, "\(text)")
    }

    /// A hunt: `!!python/object:os.system ls` was read as `ls`, `%TAG`-named tags ignored, and
    /// `!!str 100` read as a number. A tag that is not one of YAML's own scalar types is refused
    /// at its place; `!!str` text is text; `!!float` and the like are read as ever.
    @Test func tagsAreReadOrRefused() throws {
        for (text, column) in [("value: !!python/object:os.system ls\n", 8), ("value: !custom 5\n", 8)] {
            #expect {
                try ConfigNode.parse(text, name: "t.yaml")
            } throws: { error in
                let error = error as? ConfigFileError
                return error?.line == 1 && error?.column == column
                    && error?.message.hasSuffix("is not read here: a value is plain text, a number, true/false or null")
                        == true
            }
        }
        let named = "%TAG ! tag:example.com,2000:\n---\nvalue: !x 5\n"
        #expect(throws: ConfigFileError.self) { try ConfigNode.parse(named, name: "t.yaml") }
        #expect(try ConfigNode.parse("value: !!str 100", name: "t.yaml").required("value").numericValue == nil)
        #expect(try ConfigNode.parse("value: !!str 100", name: "t.yaml").required("value").string() == "100")
        #expect(try ConfigNode.parse("value: !!float 100", name: "t.yaml").required("value").number() == 100)
        #expect(try ConfigNode.parse("value: !!bool true", name: "t.yaml").required("value").bool())
    }

    /// A hunt: a 900 KB value that is not a number was echoed whole, a 900 KB error line.
    @Test func errorsQuoteLongValuesInPart() throws {
        let node = try ConfigNode.parse("value: " + String(repeating: "x", count: 900_000), name: "v.yaml")
        #expect {
            try node.required("value").number()
        } throws: { error in
            "\(error)" == "v.yaml:1:8: expected a number, not '\(String(repeating: "x", count: 40))… (900000 bytes)'"
        }
    }

    /// A file too large to compose in this machine's memory is one error, before it is read.
    @Test func aFileLargerThanMemoryAllowsIsRefused() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("regions.yaml")
            try Data(repeating: 0x20, count: 3_000_000).write(to: url)
            #expect {
                try ConfigText.read(url, name: "regions.yaml", largest: 2_000_000)
            } throws: { error in
                "\(error)" == "regions.yaml: 3 MB is more than this machine reads as one configuration file "
                    + "(2 MB: a file is composed whole, about 20 times its size in memory)"
            }
            #expect(ConfigText.largestFile(physicalMemory: 24 << 30) == 644_245_094)
        }
    }
}
