import CheckinEngine
import ConfigFiles
import Foundation
import SocialAPI
import TestSupport
import Testing
import WorldFiles

@Suite("Credentials files, read strictly and never shown")
struct CredentialsFileTests {
    /// The file, mode 0600, in a fresh directory.
    static func read(_ text: String) throws -> Credentials {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("credentials.yaml")
            try Data(text.utf8).write(to: file)
            chmod(file.path, 0o600)
            return try Credentials.read(contentsOf: file)
        }
    }

    /// A stop-93 leftover: the keys were documented only in the source. The example in
    /// docs/checkins-and-privacy.md is read as printed.
    @Test func theDocumentedExampleReads() throws {
        let doc = try String(
            contentsOf: Corpus.repositoryRoot.appendingPathComponent("docs/checkins-and-privacy.md"), encoding: .utf8)
        let section = try #require(doc.range(of: "## Real servers and credentials"))
        let opening = try #require(doc.range(of: "```yaml\n", range: section.upperBound..<doc.endIndex))
        let closing = try #require(doc.range(of: "```", range: opening.upperBound..<doc.endIndex))
        let credentials = try Self.read(String(doc[opening.upperBound..<closing.lowerBound]))
        let twitter = try #require(credentials.twitter)
        #expect(!twitter.consumerKey.isEmpty && !twitter.consumerSecret.isEmpty)
        #expect(twitter.token?.isEmpty == false && twitter.tokenSecret?.isEmpty == false)
        #expect(credentials.facebookAccessToken?.isEmpty == false)
    }
}
