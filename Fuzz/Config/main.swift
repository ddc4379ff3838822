import CheckinEngine
import Foundation
import FuzzDriver
import Scenarios
import WorldFiles

// Configuration files through their readers. The input's first line names the reader (regions,
// beacons, rules, privacy, scenario, credentials); the rest is the file. Scenarios and
// credentials are read from a file (their readers resolve paths and check permissions).
try? FileManager.default.createDirectory(
    at: FileManager.default.temporaryDirectory.appendingPathComponent("waypost-fuzz-\(getpid())"),
    withIntermediateDirectories: true)

runFuzzer { data, count in
    let buffer = input(data, count)
    let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) ?? buffer.endIndex
    let kind = String(decoding: buffer[..<newline], as: UTF8.self)
    let body = Data(buffer[min(newline + 1, buffer.endIndex)...])
    let text = String(decoding: body, as: UTF8.self)
    switch kind {
    case "regions": _ = try? RegionFile.parse(text, name: "fuzz.yaml")
    case "beacons": _ = try? BeaconFile.parse(text, name: "fuzz.yaml")
    case "rules": _ = try? CheckinRuleFile.parse(text, name: "fuzz.yaml")
    case "privacy": _ = try? PrivacyProfileFile.parse(text, name: "fuzz.yaml")
    case "scenario", "credentials":
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-fuzz-\(getpid())")
        let file = directory.appendingPathComponent(kind == "scenario" ? "fuzz.yaml" : "credentials.yaml")
        guard (try? body.write(to: file)) != nil else { return 0 }
        if kind == "scenario" {
            _ = try? ScenarioFile.read(contentsOf: file)
        } else {
            chmod(file.path, 0o600)
            _ = try? Credentials.read(contentsOf: file)
        }
    default: break
    }
    return 0
}
