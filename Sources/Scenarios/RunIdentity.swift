import Crypto
import Foundation
import LocationSimulation

/// One file (or folder) a scenario read, by the name the scenario gives it, and the SHA-256 of
/// its bytes: shards of a scenario whose route was edited between them are two runs, not one.
public struct InputDigest: Sendable, Codable, Equatable {
    public var file: String
    public var sha256: String

    public init(file: String, sha256: String) { (self.file, self.sha256) = (file, sha256) }

    /// The digest of a file's bytes; of a folder, of its regular files' names and bytes in name
    /// order (a places folder). Unreadable: the digest of nothing, which the run itself refuses.
    public init(_ input: ScenarioInput) {
        var hash = SHA256()
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        if manager.fileExists(atPath: input.url.path, isDirectory: &isFolder), isFolder.boolValue {
            let names = ((try? manager.contentsOfDirectory(atPath: input.url.path)) ?? []).sorted()
            for name in names {
                let url = input.url.appendingPathComponent(name)
                guard let data = manager.contents(atPath: url.path) else { continue }
                hash.update(data: Data(name.utf8) + [0])
                hash.update(data: data)
            }
        } else if let data = manager.contents(atPath: input.url.path) {
            hash.update(data: data)
        }
        self.init(file: input.name, sha256: hash.finalize().map { String(format: "%02x", $0) }.joined())
    }
}

/// What makes two results files parts of one run, and the first way in which they are not.
package enum RunIdentity {
    /// The field mechanism's fitted parameters (``LocationSimulation/RegionMechanism/field`` and
    /// `.device`, which `make calibrate` rewrites), as a digest: shards run by two builds fitted
    /// differently are two runs, though their scenarios, seeds and options are the same.
    package static let mechanismDigest: String = {
        let text = String(describing: RegionMechanism.field) + "\n" + String(describing: RegionMechanism.device)
        return "sha256:" + SHA256.hash(data: Data(text.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
    }()

    /// Why `other` cannot be merged with `first`, in words naming the field, or nil when it can.
    static func difference(_ other: TrialResultsFile, from first: TrialResultsFile) -> String? {
        if other.shards != first.shards { return "\(other.shards) shards against \(first.shards)" }
        if other.options != first.options {
            let keys = Set(other.options.keys).union(first.options.keys).sorted()
            let key = keys.first { other.options[$0] != first.options[$0] } ?? ""
            return "\(key) \(other.options[key] ?? "not given") against \(first.options[key] ?? "not given")"
        }
        if other.scenarios.map(\.name) != first.scenarios.map(\.name) {
            return "scenarios \(list(other.scenarios.map(\.name))) against \(list(first.scenarios.map(\.name)))"
        }
        for (a, b) in zip(other.scenarios, first.scenarios) {
            if let why = difference(a, from: b) { return "scenario '\(a.name)': \(why)" }
        }
        return nil
    }

    private static func difference(_ a: ScenarioHeader, from b: ScenarioHeader) -> String? {
        if a.seed != b.seed { return "seed \(a.seed) against \(b.seed)" }
        if a.realism != b.realism { return "realism \(list(a.realism)) against \(list(b.realism))" }
        if a.trials != b.trials {
            return "trials \(a.trials.map(String.init) ?? "none") against \(b.trials.map(String.init) ?? "none")"
        }
        if a.inputs.map(\.file) != b.inputs.map(\.file) {
            return "reads \(list(a.inputs.map(\.file))) against \(list(b.inputs.map(\.file)))"
        }
        if let (x, y) = zip(a.inputs, b.inputs).first(where: { $0.sha256 != $1.sha256 }) {
            return "\(x.file) differs (sha256 \(x.sha256.prefix(12))… against \(y.sha256.prefix(12))…)"
        }
        if a.expectations != b.expectations { return "other expectations" }
        return nil
    }

    private static func list(_ items: [String]) -> String { "[\(items.joined(separator: ", "))]" }
}
