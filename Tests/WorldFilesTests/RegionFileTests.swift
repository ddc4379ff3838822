import ConfigFiles
import Foundation
import LocationEvents
import TestSupport
import Testing
import WorldFiles

struct RegionFileTests {
    @Test func readsYAMLJSONAndGeoJSON() throws {
        let yaml = """
            regions:
              - identifier: cafe
                latitude: 37.3236
                longitude: -122.0315
                radius: 150
                notifyOnExit: false
            """
        let json =
            #"{"regions": [{"identifier": "cafe", "latitude": 37.3236, "longitude": -122.0315, "radius": 150, "notifyOnExit": false}]}"#
        let geojson = #"""
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-122.0315, 37.3236]},
               "properties": {"name": "cafe", "radius": 150, "notifyOnExit": false}}]}
            """#
        let expected = [
            CircularRegion(
                identifier: "cafe", center: .init(latitude: 37.3236, longitude: -122.0315), radius: 150,
                notifyOnExit: false)
        ]
        #expect(try RegionFile.parse(yaml, name: "r.yaml") == expected)
        #expect(try RegionFile.parse(json, name: "r.json") == expected)
        #expect(try RegionFile.parse(geojson, name: "r.geojson") == expected)
    }

    /// A hunt: a GeoJSON feature's `notifyOnExt` was read as a foreign property, so the exit it
    /// meant to silence was reported; `raduis` was "missing 'radius'"; a feature of any `type`
    /// was read; a bare Feature was refused; a position out of range pointed at the feature.
    /// Properties other tools add (geojson.io's `marker-color`) are still read past.
    @Test func geoJSONFeaturesAreReadAsRFC7946Says() throws {
        func feature(_ properties: String, type: String = "Feature", coordinates: String = "[-122.0315, 37.3236]")
            -> String
        {
            #"{"type": "FeatureCollection", "features": [\#n"#
                + #"{"type": "\#(type)", "geometry": {"type": "Point", "coordinates": \#(coordinates)}, "properties": {\#(properties)}}]}"#
        }
        let foreign = try RegionFile.parse(
            feature(#""name": "cafe", "radius": 150, "marker-color": "gray", "description": "x""#), name: "r.geojson")
        #expect(foreign.map(\.identifier) == ["cafe"])
        for (text, line, column, message) in [
            (
                feature(#""name": "a", "radius": 144, "notifyOnExt": false"#), 2, 132,
                "unknown property 'notifyOnExt'; did you mean 'notifyOnExit'?"
            ),
            (feature(#""name": "a", "raduis": 144"#), 2, 117, "unknown property 'raduis'; did you mean 'radius'?"),
            (feature(#""name": "a", "radius": 144"#, type: "Nope"), 2, 10, "each feature is a GeoJSON Feature"),
            (
                feature(#""name": "a", "radius": 144"#, coordinates: "[-122.0, 97.0]"), 2, 66,
                "latitude/longitude 97.0, -122.0 is out of range"
            ),
        ] {
            do {
                _ = try RegionFile.parse(text, name: "r.geojson")
                Issue.record("\(text) was read")
            } catch {
                #expect(error.message.hasPrefix(message), "\(error)")
                #expect((error.line, error.column) == (line, column), "\(error)")
            }
        }
        let bare =
            #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [2, 1]}, "properties": {"identifier": "a", "radius": 9}}"#
        #expect(try RegionFile.parse(bare, name: "r.geojson").map(\.radius) == [9])
    }

    @Test func theShippedRegionsRead() throws {
        let url = Corpus.repositoryRoot.appendingPathComponent("fixtures/regions/commute-cafes.yaml")
        let regions = try RegionFile.read(contentsOf: url)
        #expect(regions.count == 5)
        #expect(regions.allSatisfy { $0.notifyOnEntry })
    }

    @Test(arguments: [
        (
            "regions:\n  - identifier: a\n    latitude: 1\n    longitude: 2\n    radius: 10\n    colour: red\n", 6,
            "unknown key 'colour'"
        ),
        (
            "regions:\n  - identifier: a\n    latitude: north\n    longitude: 2\n    radius: 10\n", 3,
            "'latitude' must be a number"
        ),
        ("regions:\n  - identifier: a\n    latitude: 1\n    longitude: 2\n", 2, "missing 'radius'"),
        // A value out of range is located at the value (it was the region's first line).
        ("regions:\n  - identifier: a\n    latitude: 95\n    longitude: 2\n    radius: 10\n", 3, "out of range"),
        ("regions:\n  - identifier: a\n    latitude: 5\n    longitude: 200\n    radius: 10\n", 4, "out of range"),
        (
            "regions:\n  - identifier: a\n    latitude: 1\n    longitude: 2\n    radius: -5\n", 5,
            "must be a positive number"
        ),
        (
            "regions:\n  - identifier: a\n    latitude: 1\n    longitude: 2\n    radius: 5\n    notifyOnEntry: maybe\n",
            6, "true or false"
        ),
        ("zones: []\n", 1, "unknown key 'zones'"),
        ("regions:\n  - just-a-name\n", 2, "expected a mapping"),
        ("regions:\n  - latitude: 1\n    longitude: 2\n    radius: 5\n", 2, "missing 'identifier'"),
        // An unknown key is the error even after a bad value: keys are checked first.
        ("regions:\n  - identifier: a\n    latitude: north\n    colour: red\n", 4, "unknown key 'colour'"),
    ])
    func errorsSayWhereAndWhy(text: String, line: Int, message: String) {
        do {
            _ = try RegionFile.parse(text, name: "r.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(error.line == line, "\(error)")
            #expect(error.message.contains(message), "\(error)")
            #expect(error.description.hasPrefix("r.yaml:\(line):"))
        }
    }

    /// A value over 1 MiB — the track readers' limit on an XML text node — is refused at its
    /// place, in YAML (block and flow) and JSON alike: a 30 MB identifier was read, and echoed in
    /// every region event (63 MB of output).
    @Test func aHugeValueIsRefusedAtItsPlace() throws {
        let huge = String(repeating: "x", count: (1 << 20) + 1)
        for (text, line, column) in [
            ("- identifier: \(huge)\n  latitude: 1\n  longitude: 2\n  radius: 10\n", 1, 15),
            ("- {identifier: \"\(huge)\", latitude: 1, longitude: 2, radius: 10}\n", 1, 16),
            ("[\n  {\"identifier\": \"\(huge)\", \"latitude\": 1, \"longitude\": 2, \"radius\": 10}\n]\n", 2, 18),
        ] {
            do {
                _ = try RegionFile.parse(text, name: "r.yaml")
                Issue.record("expected an error")
            } catch {
                #expect(error.line == line && error.column == column, "\(error)")
                #expect(error.description.contains("a value of 1048577 bytes; the most one may hold is 1 MiB"))
            }
        }
        let justFits = String(repeating: "x", count: 1 << 20)
        #expect(
            try RegionFile.parse("- {identifier: \(justFits), latitude: 1, longitude: 2, radius: 10}\n", name: "r.yaml")
                .count == 1)
    }

    /// A file named `.json` is JSON only: a trailing comma or an unquoted key, which YAML's flow
    /// style reads, is an error at its place (it was read as YAML); the same text named `.yaml` is
    /// read as before.
    @Test(arguments: [
        ("[\n  {\"identifier\": \"a\", \"latitude\": 1, \"longitude\": 2, \"radius\": 10},\n]\n", 3, 1),
        ("[{identifier: \"a\", \"latitude\": 1, \"longitude\": 2, \"radius\": 10}]\n", 1, 3),
    ])
    func aJSONFileIsReadAsJSONOnly(text: String, line: Int, column: Int) throws {
        try withTemporaryDirectory { directory in
            let yaml = directory.appendingPathComponent("cafes.yaml")
            let json = directory.appendingPathComponent("cafes.JSON")
            try text.write(to: yaml, atomically: true, encoding: .utf8)
            try text.write(to: json, atomically: true, encoding: .utf8)
            #expect(try RegionFile.read(contentsOf: yaml).map(\.identifier) == ["a"])
            do {
                _ = try RegionFile.read(contentsOf: json)
                Issue.record("expected an error")
            } catch let error as ConfigFileError {
                #expect(error.line == line && error.column == column, "\(error)")
                #expect(error.description.hasPrefix(json.path), "\(error)")
            }
        }
    }

    /// A directory "cannot be read", and an empty argument named the working directory.
    @Test func aDirectoryOrAnEmptyPathIsSaidToBeOne() throws {
        try withTemporaryDirectory { directory in
            for (url, name, expected) in [
                (directory, directory.path, "\(directory.path): is a directory, not a file"),
                (URL(fileURLWithPath: ""), "", "'': an empty path names no file"),
            ] {
                do {
                    _ = try RegionFile.read(contentsOf: url, displayName: name)
                    Issue.record("expected an error")
                } catch let error as ConfigFileError {
                    #expect(error.kind == .unreadable && error.description == expected, "\(error)")
                }
            }
        }
    }

    /// Nesting past libyaml's 1,000 levels is one plain error: it quoted libyaml's C API ("set
    /// with yaml_set_max_nest_level())", a stray parenthesis and all).
    @Test func deepNestingIsOnePlainError() {
        for text in [String(repeating: "[", count: 100_000), String(repeating: "{a: ", count: 5_000)] {
            do {
                _ = try RegionFile.parse(text, name: "deep.yaml")
                Issue.record("expected an error")
            } catch {
                #expect(error.description.contains("nested more than 1,000 levels deep"), "\(error)")
                #expect(!error.description.contains("yaml_"), "\(error)")
            }
        }
    }

    @Test func duplicatesAndAliasesAreRefused() throws {
        let duplicate =
            "- {identifier: a, latitude: 1, longitude: 2, radius: 10}\n- {identifier: a, latitude: 1, longitude: 2, radius: 10}\n"
        #expect(throws: ConfigFileError.self) { try RegionFile.parse(duplicate, name: "r.yaml") }
        let alias =
            "- {identifier: a, latitude: 1, longitude: 2, radius: &r 10}\n- {identifier: b, latitude: 1, longitude: 2, radius: *r}\n"
        #expect(throws: ConfigFileError.self) { try RegionFile.parse(alias, name: "r.yaml") }
        // A billion-laughs-style alias bomb is refused at its first anchor, before Yams sees it.
        var bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1..<10 {
            bomb += "a\(i): &a\(i) [" + Array(repeating: "*a\(i - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        do {
            _ = try RegionFile.parse(bomb, name: "bomb.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(error.line == 1 && error.column == 5)
        }
        // The same in a file with Windows line ends, after a comment (a CR LF pair is one Swift
        // Character: a scan by Character never saw the comment end, and let the alias through).
        let crlf = "# regions\r\n- {identifier: a, latitude: 1, longitude: 2, radius: &r 10}\r\n- *r\r\n"
        do {
            _ = try RegionFile.parse(crlf, name: "r.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(error.message.contains("anchors and aliases") && error.line == 2 && error.column == 54)
        }
        // '&' and '*' inside quoted values are fine.
        let quoted = #"- {identifier: "Ben & Jerry's *1", latitude: 1, longitude: 2, radius: 10}"#
        #expect(try RegionFile.parse(quoted, name: "r.yaml").first?.identifier == "Ben & Jerry's *1")
        // So are they after a `-` or `?` that starts no node (a hunt: `walker-*` was an alias);
        // after `- ` they are an alias, in block and flow alike.
        let plain =
            "- identifier: walker-*\n  latitude: 1\n  longitude: 2\n  radius: 10\n- {identifier: a?&b, latitude: 1, longitude: 2, radius: 10}\n"
        #expect(try RegionFile.parse(plain, name: "r.yaml").map(\.identifier) == ["walker-*", "a?&b"])
        for aliased in ["- *r\n", "- [*r]\n", "- {identifier: x, radius: *r}\n", "- {\"identifier\":*r}\n"] {
            #expect(throws: ConfigFileError.self) { try RegionFile.parse(aliased, name: "r.yaml") }
        }
    }
}
