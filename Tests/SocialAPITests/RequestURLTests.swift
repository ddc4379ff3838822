import Foundation
import Testing

@testable import SocialAPI

/// `RequestURL` resolves a client's path against its base exactly as Foundation's
/// `URL(string:relativeTo:)` and `absoluteURL` do, whether it joins the strings or asks
/// Foundation — over bases with and without a trailing slash, a query or a fragment, and
/// references with dot segments, a scheme-like first segment, a leading slash, queries and
/// percent-escapes (RFC 3986 §5.2, §5.4's examples among them).
struct RequestURLTests {
    static let bases = [
        "http://127.0.0.1:8080/1.1/", "https://api.twitter.com/1.1/", "http://localhost:9000/",
        "https://graph.facebook.com/v19.0/", "http://a/b/c/d;p?q", "http://a/b/c/", "http://a/b/c",
        "https://api.x.com/2/#frag", "http://[::1]:8080/api/", "http://example.com/base%20dir/",
    ]
    static let references = [
        "geo/reverse_geocode.json?lat=37.331&long=-122.03&accuracy=65.0m",
        "statuses/update.json", "geo/id/df51dec6f4ee2b2c.json", "me/permissions?access_token=a%2Bb",
        "search?type=place&q=caf%C3%A9&center=37.3,-122.0&distance=200",
        "g", "./g", "g/", "../g", "g/./h", "g/../h", "..", ".", "/g", "//g", "?y", "#s", "g?y#s", "g;x=1/./y",
        "a:b/c", "a/b:c", "g?y/./x", "g#s/../x", ".g", "g..", "..g",
    ]

    @Test(arguments: bases)
    func resolvesAsFoundationDoes(base: String) throws {
        let baseURL = try #require(URL(string: base))
        for reference in Self.references {
            let expected = URL(string: reference, relativeTo: baseURL)?.absoluteURL
            let resolved = RequestURL.resolve(reference, against: baseURL)
            #expect(resolved == expected, "\(reference) against \(base)")
            #expect(resolved?.absoluteString == expected?.absoluteString, "\(reference) against \(base)")
        }
    }

    /// The clients' own requests take the joined path (else the test above would hold with
    /// Foundation answering every case); dot segments, absolute paths and schemes do not.
    @Test func joinsOnlyPlainPaths() {
        #expect(RequestURL.isJoinable(base: "http://127.0.0.1:8080/1.1/"))
        #expect(RequestURL.isJoinable(base: "https://graph.facebook.com/v19.0/"))
        #expect(!RequestURL.isJoinable(base: "http://a/b/c"))
        #expect(!RequestURL.isJoinable(base: "http://a/b/?q=/"))
        #expect(RequestURL.isPlainRelativePath("geo/reverse_geocode.json?lat=37.3&long=-122.0"))
        #expect(RequestURL.isPlainRelativePath("me/permissions?next=../x"))
        for reference in ["./g", "../g", "g/./h", "g/..", "/g", "//g", "a:b/c", "?y", "#s", ""] {
            #expect(!RequestURL.isPlainRelativePath(reference), "\(reference)")
        }
    }
}
