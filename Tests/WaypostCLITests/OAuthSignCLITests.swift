import Foundation
import SimulatedTime
import SocialAPI
import SocialEmulator
import TestSupport
import Testing

/// `waypost oauth-sign --transport header|query|body`: the request signed into each place RFC
/// 5849 §3.5 allows, printed so that it can be sent as is — and the emulator accepts it.
struct OAuthSignCLITests {
    /// Twitter's "Creating a signature" walk-through, signed into each transport.
    static func twitterExample(_ transport: String) throws -> CLITests.Run {
        try CLITests.waypost(
            "oauth-sign", "--method", "POST", "--transport", transport, "--url",
            "https://api.twitter.com/1.1/statuses/update.json?include_entities=true", "--param",
            "status=Hello Ladies + Gentlemen, a signed OAuth request!", "--consumer-key", "xvz1evFS4wEEPTGEFPHBog",
            "--consumer-secret", "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw", "--token",
            "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", "--token-secret",
            "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE", "--nonce", "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg",
            "--timestamp", "1318622958")
    }

    static let protocolParameters =
        "oauth_consumer_key=xvz1evFS4wEEPTGEFPHBog&oauth_nonce=kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg"
        + "&oauth_signature=hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D&oauth_signature_method=HMAC-SHA1"
        + "&oauth_timestamp=1318622958&oauth_token=370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb"
        + "&oauth_version=1.0"
    static let status = "status=Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21"

    /// Found at stop 80: the secrets could only be given on the command line, which every user of
    /// the machine reads (ps). The environment replay reads gives the same signature; a half pair
    /// is refused.
    @Test func theSecretsMayComeFromTheEnvironment() throws {
        let fromOptions = try Self.twitterExample("header")
        let fromEnvironment = try CLITests.waypost(
            [
                "oauth-sign", "--method", "POST", "--url",
                "https://api.twitter.com/1.1/statuses/update.json?include_entities=true", "--param",
                "status=Hello Ladies + Gentlemen, a signed OAuth request!", "--nonce",
                "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", "--timestamp", "1318622958",
            ],
            environment: [
                "WAYPOST_TWITTER_CONSUMER_KEY": "xvz1evFS4wEEPTGEFPHBog",
                "WAYPOST_TWITTER_CONSUMER_SECRET": "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw",
                "WAYPOST_TWITTER_TOKEN": "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
                "WAYPOST_TWITTER_TOKEN_SECRET": "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE",
            ])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
        #expect(
            fromEnvironment.stdout == fromOptions.stdout
                && fromOptions.stdout.contains("hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D"))
        let half = try CLITests.waypost(
            ["oauth-sign", "--url", "https://example.com/", "--consumer-key", "a", "--consumer-secret", "b"],
            environment: ["WAYPOST_TWITTER_TOKEN": "t"])
        #expect(half.status == 64 && half.stderr.contains("the token and its secret go together"), "\(half.stderr)")
        let none = try CLITests.waypost(["oauth-sign", "--url", "https://example.com/"], environment: [:])
        #expect(none.status == 64 && none.stderr.contains("WAYPOST_TWITTER_CONSUMER_KEY"), "\(none.stderr)")
        // An empty key (a variable exported from an unset one) names no consumer (RFC 5849 §3.1).
        let empty = try CLITests.waypost(
            ["oauth-sign", "--url", "https://example.com/"],
            environment: ["WAYPOST_TWITTER_CONSUMER_KEY": "", "WAYPOST_TWITTER_CONSUMER_SECRET": "s"])
        #expect(empty.status == 64 && empty.stderr.contains("(not empty)"), "\(empty.stderr)")
    }

    /// A black-box hunt against oauthlib and RFC 5849: user info in the URL was signed (and
    /// printed); `HTTPS://` was "not an http(s) URL" (schemes are case-insensitive, RFC 3986
    /// §3.1); a timestamp of 0 or -5 was signed (§3.3: "a positive integer"); a GET's --param
    /// values were signed into a query no printed line showed, so the request sent failed.
    @Test func urlsAndTimestampsAsTheRFCsHaveThem() throws {
        func sign(_ url: String, _ extra: String...) throws -> CLITests.Run {
            try CLITests.waypost(
                ["oauth-sign", "--url", url, "--consumer-key", "k", "--consumer-secret", "s", "--nonce", "n"]
                    + (extra.isEmpty ? ["--timestamp", "1318622958"] : extra))
        }
        let upper = try sign("HTTPS://API.example.com/1.1/x.json")
        #expect(upper.status == 0, "\(upper.stderr)")
        #expect(upper.stdout.contains("signature base string: GET&https%3A%2F%2Fapi.example.com%2F1.1%2Fx.json&"))
        let userInfo = try sign("https://user:pw@api.example.com/1.1/x.json")
        #expect(userInfo.status == 64 && userInfo.stderr.contains("--url has user info"), "\(userInfo.stderr)")
        #expect(!userInfo.stdout.contains("pw") && !userInfo.stderr.contains(":pw@"))
        for timestamp in ["0", "-5"] {
            let refused = try sign("https://api.example.com/x", "--timestamp", timestamp)
            #expect(refused.status == 64 && refused.stderr.contains("is not a positive integer"), "\(refused.stderr)")
        }
        let get = try CLITests.waypost(
            "oauth-sign", "--url", "https://api.example.com/1.1/search.json", "--param", "q=a b", "--consumer-key",
            "k", "--consumer-secret", "s", "--nonce", "n", "--timestamp", "1")
        #expect(get.stdout.contains("\nURL: https://api.example.com/1.1/search.json?q=a%20b\n"), "\(get.stdout)")
        // Protocol parameters are oauth-sign's to add: given again they were signed twice.
        let twice = try sign("https://api.example.com/x", "--timestamp", "1", "--param", "oauth_nonce=old")
        #expect(
            twice.status == 64 && twice.stderr.contains("--param oauth_nonce: oauth-sign sets it"), "\(twice.stderr)")
        let inURL = try sign("https://api.example.com/x?oauth_timestamp=5")
        #expect(inURL.status == 64 && inURL.stderr.contains("--url carries oauth_timestamp"), "\(inURL.stderr)")
        // A method is a token (RFC 9110 §9.1): no request carries `''` or `G ET` to be checked.
        for method in ["", "G ET", "GET\r\n"] {
            let refused = try sign("https://api.example.com/x", "--timestamp", "1", "--method", method)
            #expect(refused.status == 64 && refused.stderr.contains("is not an HTTP method"), "\(refused.stderr)")
        }
        #expect(try sign("https://api.example.com/x", "--timestamp", "1", "--method", "PROPFIND").status == 0)
    }

    @Test func eachTransportPrintsTheSameSignatureInItsPlace() throws {
        let header = try Self.twitterExample("header")
        let query = try Self.twitterExample("query")
        let body = try Self.twitterExample("body")
        for run in [header, query, body] { #expect(run.status == 0, "\(run.stderr)") }
        let lines = [header, query, body].map { $0.stdout.split(separator: "\n").map(String.init) }
        // The base string and the signature do not depend on where the parameters travel.
        #expect(Set(lines.map { $0.prefix(2) }).count == 1)
        #expect(lines[0].count == 4 && lines[0][2].hasPrefix("Authorization: OAuth "))
        #expect(lines[0][3] == "body: " + Self.status)
        #expect(
            lines[1].dropFirst(2) == [
                "URL: https://api.twitter.com/1.1/statuses/update.json?include_entities=true&"
                    + Self.protocolParameters,
                "body: " + Self.status,
            ])
        #expect(
            lines[2].dropFirst(2) == [
                "URL: https://api.twitter.com/1.1/statuses/update.json?include_entities=true",
                "body: " + Self.status + "&" + Self.protocolParameters,
            ])
        for run in [header, query, body] {
            #expect(!run.stdout.contains("kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw"))
            #expect(!run.stdout.contains("LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"))
        }
        // A GET has no form body to carry them; an unknown transport is a usage error.
        let get = try CLITests.waypost(
            "oauth-sign", "--transport", "body", "--url", "https://example.com/", "--consumer-key", "a",
            "--consumer-secret", "b")
        #expect(get.status == 64 && get.stderr.contains("--transport body"))
        let unknown = try CLITests.waypost(
            "oauth-sign", "--transport", "cookie", "--url", "https://example.com/", "--consumer-key", "a",
            "--consumer-secret", "b")
        #expect(unknown.status == 64)
    }

    /// What `oauth-sign` prints for the demo account, sent as printed, verifies at the emulator
    /// in every transport: a located status update, then the credentials read back.
    @Test(arguments: ["header", "query", "body"])
    func printedRequestsVerifyAtTheEmulator(_ transport: String) async throws {
        let credentials = [
            "--consumer-key", "waypost-demo-consumer", "--consumer-secret", "waypost-demo-consumer-secret",
            "--token", "1001-waypost-demo-token", "--token-secret", "waypost-demo-token-secret",
        ]
        let base = "http://127.0.0.1:8080/1.1/"
        // The subprocesses run on a thread of their own, never blocking the concurrency pool.
        let (post, get, signedAt) = try await Self.onThread {
            let post = try CLITests.waypost(
                [
                    "oauth-sign", "--method", "POST", "--transport", transport, "--url", base + "statuses/update.json",
                    "--param", "status=Signed by oauth-sign into the \(transport)", "--param", "lat=37.3236",
                    "--param", "long=-122.0315",
                ] + credentials)
            let get = try CLITests.waypost(
                [
                    "oauth-sign", "--transport", transport == "body" ? "query" : transport, "--url",
                    base + "account/verify_credentials.json",
                ] + credentials)
            return (post, get, Date().timeIntervalSince1970)
        }
        // Checked as of the signing: under a loaded test run this task may resume minutes later,
        // past OAuth's timestamp window.
        let core = EmulatorCore(
            fixtures: try EmulatorFixtures.shipped(root: Corpus.repositoryRoot),
            clock: SimulatedClock(start: EpochInstant(secondsSince1970: signedAt)))
        let posted = await core.handle(try Self.request("POST", from: post, url: base + "statuses/update.json"))
        #expect(posted.status == 200, "\(String(decoding: posted.body, as: UTF8.self))")
        let read = await core.handle(try Self.request("GET", from: get, url: base + "account/verify_credentials.json"))
        #expect(read.status == 200, "\(String(decoding: read.body, as: UTF8.self))")
        let user = try #require(try JSONSerialization.jsonObject(with: read.body) as? [String: Any])
        let latest = try #require(user["status"] as? [String: Any])
        #expect(latest["text"] as? String == "Signed by oauth-sign into the \(transport)")
        #expect((latest["coordinates"] as? [String: Any])?["coordinates"] as? [Double] == [-122.0315, 37.3236])
    }

    /// The request `oauth-sign` printed: its `Authorization:`, `URL:` and `body:` lines.
    static func request(_ method: String, from run: CLITests.Run, url fallback: String) throws -> EmulatorRequest {
        #expect(run.status == 0, "\(run.stderr)")
        var printed: [String: String] = [:]
        for line in run.stdout.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            printed[String(line[..<colon])] = String(line[line.index(colon, offsetBy: 2)...])
        }
        let url = try #require(URLComponents(string: printed["URL"] ?? fallback))
        var headers = ["host": "127.0.0.1:8080"]
        headers["authorization"] = printed["Authorization"]
        if printed["body"] != nil { headers["content-type"] = "application/x-www-form-urlencoded" }
        return EmulatorRequest(
            method: method, path: url.percentEncodedPath, query: url.percentEncodedQuery ?? "", headers: headers,
            body: Data((printed["body"] ?? "").utf8))
    }

    /// `body` on a new thread; the caller awaits its result without holding a pool thread.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}
