import Foundation
import Testing

/// Locates the shared third-party test corpus (`../shared/corpus` beside the checkout).
///
/// The corpus is read in place and never copied into the project. `WAYPOST_CORPUS` overrides
/// the location.
public enum Corpus {
    /// The checkout's root directory.
    public static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    public static let root: URL = {
        if let override = ProcessInfo.processInfo.environment["WAYPOST_CORPUS"] {
            return URL(fileURLWithPath: override)
        }
        return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
    }()

    /// Whether tests that read the corpus should run: when it is there, and always when
    /// `WAYPOST_REQUIRE_CORPUS=1` (CI sets it), so that its absence is a failure, not a skip.
    /// A user's fresh clone has no `../shared`: those tests are skipped, and `make test` says
    /// how many.
    public static let isAvailable: Bool =
        ProcessInfo.processInfo.environment["WAYPOST_REQUIRE_CORPUS"] == "1"
        || FileManager.default.fileExists(atPath: root.path)

    /// Why a corpus test was skipped, as `make test` counts it.
    public static let skipReason = "needs ../shared/corpus (third-party test data, beside the checkout in CI)"

    /// The corpus file at `path`; tests fail loudly when it is absent.
    public static func url(_ path: String) throws -> URL {
        let url = root.appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CorpusMissing(path: url.path)
        }
        return url
    }

    /// Rows of a CSV file with a header line, as dictionaries keyed by column name.
    /// (The corpus CSVs have no quoted commas except in free-text columns at the end.)
    public static func csv(_ path: String) throws -> [[String: String]] {
        let text = try String(contentsOf: url(path), encoding: .utf8)
        var lines = text.split(whereSeparator: \.isNewline).map(String.init)
        guard !lines.isEmpty else { return [] }
        let header = lines.removeFirst().split(separator: ",").map(String.init)
        return lines.map { line in
            let fields = line.split(separator: ",", maxSplits: header.count - 1, omittingEmptySubsequences: false)
            var row: [String: String] = [:]
            for (name, value) in zip(header, fields) { row[name] = String(value) }
            return row
        }
    }

    public struct CorpusMissing: Error, CustomStringConvertible {
        public var path: String
        public var description: String {
            "test corpus file missing: \(path) (expected ../shared/corpus beside the checkout, or set WAYPOST_CORPUS)"
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// For tests that read `../shared/corpus`: skipped where it is absent, unless required.
    public static var needsCorpus: Self { .enabled(if: Corpus.isAvailable, Comment(rawValue: Corpus.skipReason)) }
}
