import CheckinEngine
import Foundation
import SocialAPI
import Store
import Testing

/// What a server says of when to come back (`Retry-After`, `x-rate-limit-reset`) is honoured as
/// the least wait, on every network and in both of RFC 9110's forms; a wait the post cannot
/// outlive expires it at once (black-box hunt: Twitter and X ignored `Retry-After`, Graph its
/// date form, and a wait of years kept a post queued, then stopped `outbox list` with a trap).
@Suite("A server's Retry-After")
struct RetryHintTests {
    static let twitterBusy = Data(#"{"errors":[{"code":88,"message":"Rate limit exceeded"}]}"#.utf8)

    /// One check-in on `network`, whose first post request is answered `status` with `headers`
    /// and `body`; the run ends without waiting for retries.
    static func run(
        _ network: Network, status: Int, headers: [String: String], body: Data = Data(),
        twitterAPI: TwitterAPIVersion = .v1_1
    ) async throws -> RunResult {
        let answered = Counter()
        return try await runEngine(
            rules: [rule([network])], profile: .permissive, events: enters([(2, 1)]), twitterAPI: twitterAPI,
            maxWait: .zero,
            answering: { request in
                guard request.method == "POST", answered.next() == 0 else { return nil }
                return HTTPResponseSpec(status: status, headers: headers, body: body)
            })
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func next() -> Int {
            lock.lock()
            defer { lock.unlock() }
            count += 1
            return count - 1
        }
    }

    /// The wait the post was queued for after its first attempt.
    static func wait(_ run: RunResult) throws -> Double {
        let entry = try #require(run.outbox.first)
        #expect(entry.state == .pending, "\(run.audit.map(\.detail))")
        return entry.createdAt.seconds(to: entry.notBefore)
    }

    @Test(
        "Twitter v1.1 and X API v2: a Retry-After is the least wait",
        arguments: [TwitterAPIVersion.v1_1, .v2])
    func twitterHonoursRetryAfter(_ api: TwitterAPIVersion) async throws {
        let run = try await Self.run(
            .twitter, status: 429, headers: ["retry-after": "600"], body: Self.twitterBusy, twitterAPI: api)
        #expect(try Self.wait(run) >= 600)
    }

    /// RFC 9110 §10.2.3: "either an HTTP-date or a number of seconds"; the date is read against
    /// the answer's own `Date`.
    @Test func theDateFormIsReadAgainstTheAnswersDate() async throws {
        let run = try await Self.run(
            .facebook, status: 503,
            headers: ["retry-after": "Sun, 06 Nov 1994 08:51:07 GMT", "date": "Sun, 06 Nov 1994 08:49:37 GMT"])
        #expect(try Self.wait(run) >= 90)
        #expect(HTTPResponseSpec(status: 503, headers: ["retry-after": "-5"]).retryAfter == nil)
        #expect(
            HTTPResponseSpec(status: 503, headers: ["retry-after": "Sun, 06 Nov 1994 08:51:07 GMT"]).retryAfter == nil)
    }

    /// A wait past the post's maximum age (an hour here): expired now, said why; the outbox
    /// lists what it holds.
    @Test func aWaitThePostCannotOutliveExpiresIt() async throws {
        let run = try await Self.run(.facebook, status: 503, headers: ["retry-after": "9223372036854775807"])
        #expect(run.outbox.map(\.state) == [.expired])
        #expect(run.audit.map(\.decision) == [.expired])
        #expect(run.audit.first?.detail?.contains("past the post's maximum age of 60 min: expired unsent") == true)
    }
}
