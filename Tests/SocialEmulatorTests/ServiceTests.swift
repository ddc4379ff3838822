import Foundation
import SocialAPI
import TestSupport
import Testing

@testable import SocialEmulator

#if canImport(Glibc)
    import Glibc
#endif

/// The emulator as a service (issue 27, item 3): it says when it cannot listen, stops when
/// asked, keeps a journal bounded in bytes, answers its control plane only under its own name,
/// escapes the HTML it sends and counts tweets as Twitter did.
struct ServiceTests {
    // MARK: - Tweet length

    /// twitter-text v3 (`config/v3.json`: `maxWeightedTweetLength` 280, `scale` 100,
    /// `defaultWeight` 200, ranges 0–4351, 8192–8205, 8208–8223, 8242–8247 at weight 100,
    /// `transformedURLLength` 23, emoji parsing on; `parseTweet` normalises to NFC first), as
    /// Twitter applied it to `statuses/update`: over 280 is 403 with code 186, "Status is over
    /// 280 characters." (v1.1 "Response codes").
    @Test(
        "Statuses are counted by twitter-text's weighted rule; over 280 is 403/186",
        arguments: [
            (String(repeating: "😀", count: 141), false), (String(repeating: "語", count: 141), false),
            (String(repeating: "😀", count: 140), true), (String(repeating: "語", count: 140), true),
            (String(repeating: "a", count: 281), false), (String(repeating: "a", count: 280), true),
            // NFC: 280 decomposed "é" are 280 code points of weight 1, not 560.
            (String(repeating: "e\u{301}", count: 280), true),
            // Every URL counts 23, however long.
            (
                "see https://example.com/" + String(repeating: "x", count: 400) + " "
                    + String(repeating: "b", count: 250),
                true
            ),
        ])
    func statusLength(text: String, accepted: Bool) async throws {
        let core = try WireTests.core()
        let form = "status=" + (text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        let answer = await core.handle(try WireTests.signed("POST", "/1.1/statuses/update.json", form: form))
        if accepted {
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        } else {
            #expect(answer.status == 403)
            #expect(
                String(decoding: answer.body, as: UTF8.self)
                    == #"{"errors":[{"code":186,"message":"Tweet needs to be a bit shorter."}]}"#)
        }
    }

    // MARK: - HTML

    /// `source` is HTML (`<a href=… rel="nofollow">NAME</a>`): an application named with markup
    /// must arrive as text, or a client rendering `source` runs it.
    @Test func sourceEscapesTheApplicationName() async throws {
        let core = try WireTests.core()
        let name = #"<script>alert("x")</script>&'"#
        let key = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        #expect(await core.control("POST", "/__waypost/twitter/consumers", "key=\(key)&secret=s3cret").status == 200)
        let credentials = OAuth1Credentials(
            consumerKey: name, consumerSecret: "s3cret", token: "1001-waypost-demo-token",
            tokenSecret: "waypost-demo-token-secret")
        let posted = await core.handle(
            try WireTests.signed("POST", "/1.1/statuses/update.json", form: "status=hi", credentials: credentials))
        #expect(posted.status == 200, "\(String(decoding: posted.body, as: UTF8.self))")
        #expect(
            try WireTests.object(posted)["source"] as? String
                == #"<a href="https://developer.twitter.com" rel="nofollow">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;'</a>"#
        )
    }

    // MARK: - Journal

    /// 1,000 bodies of 1 MB once took the journal to 1 GB: now each value is cut (its size kept),
    /// the whole is bounded in bytes, and what was dropped is counted in the answer.
    @Test func theJournalIsBoundedInBytes() async throws {
        let limits = JournalLimits(bytes: 64 << 10)
        let core = EmulatorCore(
            fixtures: try EmulatorFixtures.shipped(root: Corpus.repositoryRoot), journalLimits: limits)
        let big = "status=" + String(repeating: "a", count: 1 << 20)
        for _ in 0..<40 {
            _ = await core.handle(
                EmulatorRequest(
                    method: "POST", path: "/1.1/statuses/update.json",
                    headers: ["content-type": "application/x-www-form-urlencoded"], body: Data(big.utf8)))
        }
        let journal = await core.journal
        #expect(journal.count < 40 && journal.count >= 10)
        let last = try #require(journal.last)
        #expect(last.parameters["status"]?.utf8.count == limits.valueBytes)
        #expect(last.truncated?.parameters["status"] == 1 << 20)
        #expect(last.bodyBytes == big.utf8.count)
        let answer = await core.control("GET", "/__waypost/journal")
        #expect(answer.status == 200)
        #expect(answer.body.count <= limits.bytes, "the answer is about the journal's size")
        #expect(Int(answer.headers["x-waypost-journal-dropped"] ?? "") == 40 - journal.count)
        #expect(Int(answer.headers["x-waypost-journal-bytes"] ?? "") ?? .max <= limits.bytes)
        #expect(answer.headers["x-waypost-journal-byte-limit"] == String(limits.bytes))
        // Written by hand, read by JSONDecoder as before.
        #expect(try JSONDecoder().decode([JournalEntry].self, from: answer.body) == journal)
    }

    /// A body of a hundred thousand tiny parameters cannot make one entry large either: the
    /// entry stops at its bound, and says how many it left out.
    @Test func oneEntryIsBoundedWhateverItHolds() async throws {
        let limits = JournalLimits()
        let core = EmulatorCore(fixtures: try EmulatorFixtures.shipped(root: Corpus.repositoryRoot))
        let form = (0..<100_000).map { "p\($0)=v" }.joined(separator: "&")
        _ = await core.handle(
            EmulatorRequest(
                method: "POST", path: "/me/feed", headers: ["content-type": "application/x-www-form-urlencoded"],
                body: Data(form.utf8)))
        let entry = try #require(await core.journal.last)
        let size = entry.parameters.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        #expect(size <= limits.entryBytes)
        #expect((entry.truncated?.omitted ?? 0) > 90_000)
    }

    // MARK: - The control plane's Host

    /// DNS rebinding: a page under another name reaches 127.0.0.1 with its own name in `Host`.
    /// The control plane answers only its own address (and loopback's names); the provider
    /// endpoints stay open.
    @Test func theControlPlaneRefusesOtherHostNames() async throws {
        let core = try WireTests.core()
        let running = try await EmulatorServer(core: core).start(port: 0)
        defer { Task { await running.stop() } }
        let port = running.port
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST:\(port)", "[::1]:\(port)"] {
            let answer = try await RawHTTP.exchange(port: port, "GET /__waypost/journal HTTP/1.1\r\nHost: \(host)\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(host): \(answer)")
        }
        for host in ["rebind.attacker.example:\(port)", "127.0.0.1:\(port + 1)", "127.0.0.1", "localhost.evil:\(port)"]
        {
            let answer = try await RawHTTP.exchange(port: port, "POST /__waypost/reset HTTP/1.1\r\nHost: \(host)\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 403"), "\(host): \(answer)")
            #expect(answer.contains(#"{"error":"the control plane answers only"#), "\(answer)")
        }
        let none = try await RawHTTP.exchange(port: port, "GET /__waypost/journal HTTP/1.0\r\n")
        #expect(none.hasPrefix("HTTP/1.0 403") || none.hasPrefix("HTTP/1.1 403"), "\(none)")
        // A provider endpoint under any name: its own answer (here Graph's missing token).
        let graph = try await RawHTTP.exchange(port: port, "GET /me HTTP/1.1\r\nHost: rebind.attacker.example\r\n")
        #expect(!graph.hasPrefix("HTTP/1.1 403"), "\(graph)")
    }

    // MARK: - What the HTTP layer reads

    /// Every method reaches the provider's routes: HEAD is answered with GET's head — its
    /// Content-Length, no body (RFC 9110 §9.3.2) — and PATCH or OPTIONS with the provider's error
    /// object, not an empty 404. A body that ends short of its Content-Length (the client shut its
    /// side) is a 400 in the provider's format, not 413 "too large" (RFC 9112 §8).
    @Test func everyMethodAndAShortBodyAreAnsweredInTheProvidersFormat() async throws {
        let running = try await EmulatorServer(core: try WireTests.core()).start(port: 0)
        defer { Task { await running.stop() } }
        let (port, host) = (running.port, "Host: 127.0.0.1:\(running.port)\r\n")
        let me = "/me?access_token=waypost-demo-graph-token"
        let get = try await RawHTTP.exchange(port: port, "GET \(me) HTTP/1.1\r\n" + host)
        let head = try await RawHTTP.exchange(port: port, "HEAD \(me) HTTP/1.1\r\n" + host)
        let getBody = try #require(get.components(separatedBy: "\r\n\r\n").last)
        #expect(head.hasPrefix("HTTP/1.1 200") && head.hasSuffix("\r\n\r\n"), "no body: \(head)")
        #expect(head.lowercased().contains("content-length: \(getBody.utf8.count)\r\n"), "\(head)")
        let patch = try await RawHTTP.exchange(port: port, "PATCH \(me) HTTP/1.1\r\n" + host)
        #expect(patch.hasPrefix("HTTP/1.1 400") && patch.contains(#""type":"GraphMethodException""#), "\(patch)")
        let options = try await RawHTTP.exchange(port: port, "OPTIONS /1.1/geo/search.json HTTP/1.1\r\n" + host)
        #expect(options.contains(#"{"errors":[{"code":"#), "\(options)")
        for (path, format) in [
            ("/1.1/statuses/update.json", #"{"errors":[{"code":215,"#), ("/me/feed", #""code":100"#),
        ] {
            let short = try await RawHTTP.exchange(
                port: port,
                "POST \(path) HTTP/1.1\r\n\(host)Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n",
                body: "status=hello")
            #expect(short.hasPrefix("HTTP/1.1 400") && short.contains(format), "\(path): \(short)")
            #expect(short.contains("incomplete"), "\(short)")
        }
    }

    /// RFC 9112 §9.3: an HTTP/1.0 request without the keep-alive option closes the connection
    /// after its response (a client reading to the end, `nc`, waited for the idle timeout); one
    /// with it, or an HTTP/1.1 request, keeps it open. The idle timeout is an hour here, so a
    /// connection that ends was closed for the request. And a head of many small fields is
    /// answered, not cut off with a bare 400 (1,000 fields of 11 bytes were).
    @Test func anHTTP10RequestClosesItsConnection() async throws {
        let running = try await Self.startKeepingIdleConnections()
        defer { Task { await running.stop() } }
        let me = "GET /me?access_token=waypost-demo-graph-token "
        let plain = try await RawHTTP.exchange(port: running.port, me + "HTTP/1.0\r\n", asksToClose: false)
        #expect(plain.closedByServer && plain.answer.contains(#""name":"Waypost Demo""#), "\(plain.answer)")
        // Kept open: a second request on the same connection is answered too (no timing involved).
        for head in ["HTTP/1.0\r\nConnection: keep-alive\r\n", "HTTP/1.1\r\nHost: 127.0.0.1\r\n"] {
            let answers = try await RawHTTP.twice(port: running.port, me + head)
            #expect(answers.count == 2, "\(head): \(answers)")
            #expect(answers.allSatisfy { $0.contains(#""name":"Waypost Demo""#) }, "\(head): \(answers)")
        }
        let fields = (0..<1_200).map { "X-F\($0): v\r\n" }.joined()
        let many = try await RawHTTP.exchange(port: running.port, me + "HTTP/1.1\r\nHost: 127.0.0.1\r\n" + fields)
        #expect(many.hasPrefix("HTTP/1.1 200"), "\(many.prefix(200))")
    }

    /// An emulator whose idle timeout is an hour: a connection that ends was closed for the request.
    static func startKeepingIdleConnections() async throws -> EmulatorServer.Running {
        var server = EmulatorServer(core: try WireTests.core())
        server.idleTimeout = .seconds(3_600)
        return try await server.start(port: 0)
    }

    /// A black-box hunt against RFC 9112: `Connection: Close` (or `keep-alive, close`) left the
    /// connection open for the idle timeout (§9.6; connection options are case-insensitive, RFC
    /// 9110 §7.6.1); an HTTP/1.1 request with no Host, two, or `Host: a b c` was answered 200
    /// (§3.2: 400); a request in absolute form was judged by its Host header, not the host it
    /// names (§3.2.2); an HTTP/1.0 request without Host got paging links without the port; a
    /// client waiting for `100 Continue` got nothing (RFC 9110 §10.1.1; curl waits a second).
    @Test func requestHeadsAsRFC9112Says() async throws {
        let running = try await Self.startKeepingIdleConnections()
        defer { Task { await running.stop() } }
        let own = "127.0.0.1:\(running.port)"
        let me = "GET /me?access_token=waypost-demo-graph-token HTTP/1.1\r\nHost: \(own)\r\n"
        for option in ["Close", "CLOSE", "keep-alive, close"] {
            let closed = try await RawHTTP.exchange(
                port: running.port, me + "Connection: \(option)\r\n", asksToClose: false)
            #expect(closed.closedByServer && closed.answer.hasPrefix("HTTP/1.1 200"), "\(option): \(closed.answer)")
        }
        for (head, reason) in [
            ("", "no Host header"), ("Host: \(own)\r\nHost: \(own)\r\n", "not 2"),
            ("Host: a b c\r\n", "not a host and an optional port"), ("Host: \(own)/x\r\n", "not a host"),
        ] {
            let answer = try await RawHTTP.exchange(port: running.port, "GET /me HTTP/1.1\r\n" + head)
            #expect(answer.hasPrefix("HTTP/1.1 400") && answer.contains(reason), "\(head): \(answer)")
        }
        for host in ["[::1]:8080", "example.com", "10.0.0.1:80"] {
            let answer = try await RawHTTP.exchange(port: running.port, me.replacingOccurrences(of: own, with: host))
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(host): \(answer.prefix(200))")
        }
        let named = try await RawHTTP.exchange(
            port: running.port, "GET http://\(own)/__waypost/journal HTTP/1.1\r\nHost: evil.example\r\n")
        #expect(named.hasPrefix("HTTP/1.1 200"), "\(named.prefix(300))")
        let elsewhere = try await RawHTTP.exchange(
            port: running.port, "GET http://evil.example/__waypost/journal HTTP/1.1\r\nHost: \(own)\r\n")
        #expect(elsewhere.hasPrefix("HTTP/1.1 403"), "\(elsewhere.prefix(300))")
        let continued = try await RawHTTP.continued(
            port: running.port,
            "POST /me/checkins HTTP/1.1\r\nHost: \(own)\r\nContent-Type: application/x-www-form-urlencoded\r\n",
            body: "message=Expecting&place=1001&access_token=waypost-demo-graph-token")
        #expect(continued.count == 2 && continued[0].hasPrefix("HTTP/1.1 100 Continue\r\n"), "\(continued)")
        #expect(continued.last?.hasPrefix("HTTP/1.1 200") == true, "\(continued)")
        let old = try await RawHTTP.exchange(
            port: running.port,
            "GET /v3.1/search?type=place&q=caf&limit=1&access_token=waypost-demo-graph-token HTTP/1.0\r\n")
        #expect(old.contains("\"next\":\"http://\(own)/v3.1/search?"), "\(old)")
    }

    /// With a token, both hold: the right Host and the token.
    @Test func theControlTokenIsStillRequired() async throws {
        let core = EmulatorCore(
            fixtures: try EmulatorFixtures.shipped(root: Corpus.repositoryRoot), controlToken: "let-me-in")
        let running = try await EmulatorServer(core: core).start(port: 0)
        defer { Task { await running.stop() } }
        let host = "Host: 127.0.0.1:\(running.port)\r\n"
        let without = try await RawHTTP.exchange(port: running.port, "GET /__waypost/journal HTTP/1.1\r\n" + host)
        #expect(without.hasPrefix("HTTP/1.1 401"), "\(without)")
        let with = try await RawHTTP.exchange(
            port: running.port, "GET /__waypost/journal HTTP/1.1\r\n\(host)X-Waypost-Control-Token: let-me-in\r\n")
        #expect(with.hasPrefix("HTTP/1.1 200"), "\(with)")
        let elsewhere = try await RawHTTP.exchange(
            port: running.port,
            "GET /__waypost/journal HTTP/1.1\r\nHost: evil.example:\(running.port)\r\nX-Waypost-Control-Token: let-me-in\r\n"
        )
        #expect(elsewhere.hasPrefix("HTTP/1.1 403"), "\(elsewhere)")
    }

    /// On a wildcard address the name is the interface the client reached; loopback's names
    /// only when that interface is loopback.
    @Test func wildcardAddressesAcceptTheInterfaceReached() {
        let lan = ControlPlaneHosts(host: "0.0.0.0", localAddress: "192.168.1.5", port: 8080)
        #expect(lan.allows("192.168.1.5:8080"))
        #expect(!lan.allows("localhost:8080") && !lan.allows("example.com:8080") && !lan.allows("192.168.1.5:80"))
        let loop = ControlPlaneHosts(host: "::", localAddress: "::ffff:127.0.0.1", port: 8080)
        #expect(loop.allows("127.0.0.1:8080") && loop.allows("localhost:8080") && loop.allows("[::1]:8080"))
        let named = ControlPlaneHosts(host: "emulator.test", localAddress: "10.0.0.2", port: 80)
        #expect(named.allows("emulator.test") && named.allows("Emulator.Test.:80") && named.allows("10.0.0.2"))
        #expect(!named.allows("emulator.test:8080") && !named.allows(nil) && !named.allows(""))
    }

    // MARK: - What the clients send where

    /// Found by a black-box hunt: AsyncHTTPClient followed a 307 from the base URL to another
    /// host, with the check-in and Graph's access token in its body, and the outbox recorded the
    /// post sent to the base URL. A redirect is an answer, said as one, and nothing goes on.
    @Test func theClientsFollowNoRedirect() async throws {
        let core = try WireTests.core()
        let elsewhere = try await EmulatorServer(core: core).start(port: 0)
        defer { Task { await elsewhere.stop() } }
        let redirecting = try CannedServer(
            answer: "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:\(elsewhere.port)/me/checkins\r\n"
                + "Content-Length: 0\r\nConnection: close\r\n\r\n")
        defer { redirecting.stop() }
        let facebook = FacebookClient(
            baseURL: try #require(URL(string: "http://127.0.0.1:\(redirecting.port)/")),
            accessToken: "waypost-demo-graph-token", transport: AsyncHTTPClientTransport())
        do {
            _ = try await facebook.checkIn(place: "1004", latitude: nil, longitude: nil, message: "m", privacy: nil)
            Issue.record("a redirect answered as a check-in")
        } catch {
            #expect(!error.isRetryable && !error.answerWasLost)
            #expect(
                "\(error)"
                    == "HTTP 307: a redirect to http://127.0.0.1:\(elsewhere.port)/me/checkins, not followed: posts and "
                    + "credentials go to the base URL given and nowhere else")
        }
        #expect(await core.journal.isEmpty, "the other host was sent nothing")
    }

    // MARK: - Listening and stopping

    /// A port already taken is an error at once, not a server without a socket.
    @Test func aBusyPortIsAnErrorAtOnce() async throws {
        let core = try WireTests.core()
        let first = try await EmulatorServer(core: core).start(port: 0)
        defer { Task { await first.stop() } }
        do {
            let second = try await EmulatorServer(core: core).start(port: first.port)
            await second.stop()
            Issue.record("a second server on port \(first.port) started")
        } catch let error as EmulatorListenError {
            #expect(error.description == "cannot listen on 127.0.0.1:\(first.port) (address already in use)")
        }
        do {
            _ = try await EmulatorServer(core: core).start(host: "192.0.2.1", port: 0)  // TEST-NET-1: not ours
            Issue.record("listening on 192.0.2.1")
        } catch let error as EmulatorListenError {
            #expect(error.description == "cannot listen on 192.0.2.1:0 (cannot assign requested address)")
        }
    }

    /// A request inside a `hang` fault never finishes by itself; stopping does not wait for it.
    @Test func stoppingDoesNotWaitForAHang() async throws {
        let core = try WireTests.core()
        let running = try await EmulatorServer(core: core).start(port: 0)
        await core.addFault(Fault(kind: .hang))
        let port = running.port
        let request = Task.detached { try? await RawHTTP.exchange(port: port, "GET /me HTTP/1.1\r\nHost: x\r\n") }
        for _ in 0..<1_500 where await core.journal.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        try #require(await !core.journal.isEmpty, "the request never reached the emulator within 30 s")
        // A guard, not a timing: before the fix, stop() waited for the hang forever.
        let stopped = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await running.stop(grace: .milliseconds(200))
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(60))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(stopped, "stop() waited for a request that never ends")
        _ = await request.value
    }
}

/// One HTTP exchange on a raw socket, for what clients will not send (another `Host`, none, a
/// body cut short): the request head (without its final blank line), `Connection: close` added,
/// then `body`, then the sending side shut; the answer as text, read until the server closes or
/// 10 seconds pass.
enum RawHTTP {
    struct Failure: Error {}

    /// One request over a plain socket, on a thread of its own: blocking calls on the
    /// concurrency pool (two threads on two cores) starve the server under test.
    static func exchange(port: Int, _ head: String, body: String = "") async throws -> String {
        try await exchange(port: port, head, body: body, asksToClose: true).answer
    }

    /// One request, its answer read until the server closes the connection or nothing comes for
    /// 10 seconds; `asksToClose` adds `Connection: close` and shuts the client's side.
    static func exchange(port: Int, _ head: String, body: String = "", asksToClose: Bool)
        async throws -> (answer: String, closedByServer: Bool)
    {
        try await onItsOwnThread { try blockingExchange(port: port, head, body: body, asksToClose: asksToClose) }
    }

    /// The same bodiless request twice on one connection, each answer read to its Content-Length:
    /// the answers that came before the server closed the connection (two when it kept it open).
    static func twice(port: Int, _ head: String) async throws -> [String] {
        try await onItsOwnThread {
            let fd = try LoopbackSocket.connected(to: port, timeout: 10)
            defer { close(fd) }
            let request = Array((head + "\r\n").utf8)
            var answers: [String] = []
            for _ in 0..<2 {
                guard write(fd, request, request.count) == request.count, let answer = readMessage(fd) else { break }
                answers.append(answer)
            }
            return answers
        }
    }

    /// A request whose client waits for `100 Continue` before sending `body` (RFC 9110 §10.1.1):
    /// the interim answer, then the final one; what came before the server went quiet.
    static func continued(port: Int, _ head: String, body: String) async throws -> [String] {
        try await onItsOwnThread {
            let fd = try LoopbackSocket.connected(to: port, timeout: 10)
            defer { close(fd) }
            let request = Array((head + "Content-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n").utf8)
            guard write(fd, request, request.count) == request.count, let interim = readMessage(fd) else { return [] }
            let bytes = Array(body.utf8)
            guard write(fd, bytes, bytes.count) == bytes.count, let final = readMessage(fd) else { return [interim] }
            return [interim, final]
        }
    }

    private static func onItsOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// One message (a request, or an answer that gives its Content-Length) read whole — its
    /// head, and the body its Content-Length says (none without one); nil if the connection ends
    /// first.
    static func readMessage(_ fd: Int32) -> String? {
        var answer: [UInt8] = []
        var byte: UInt8 = 0
        while !answer.suffix(4).elementsEqual("\r\n\r\n".utf8) {
            guard read(fd, &byte, 1) == 1 else { return nil }
            answer.append(byte)
        }
        let head = String(decoding: answer, as: UTF8.self).lowercased()
        let line = head.components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }
        guard let length = Int(line?.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces) ?? "0")
        else { return nil }
        var body = [UInt8](repeating: 0, count: length)
        var filled = 0
        while filled < length {
            let count = body[filled...].withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return nil }
            filled += count
        }
        return String(decoding: answer + body, as: UTF8.self)
    }

    private static func blockingExchange(port: Int, _ head: String, body: String, asksToClose: Bool)
        throws -> (answer: String, closedByServer: Bool)
    {
        let fd = try LoopbackSocket.connected(to: port, timeout: 10)
        defer { close(fd) }
        let bytes = Array((head + (asksToClose ? "Connection: close\r\n" : "") + "\r\n" + body).utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw Failure() }
        if asksToClose { shutdown(fd, Int32(SHUT_WR)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count == 0 { return (String(decoding: answer, as: UTF8.self), true) }
            if count < 0 { return (String(decoding: answer, as: UTF8.self), false) }
            answer += buffer[..<count]
        }
    }
}

/// A server on 127.0.0.1 that answers every request with `answer` and closes, on a thread of its
/// own: for what the emulator never answers (a redirect).
final class CannedServer: @unchecked Sendable {
    let port: Int
    private let fd: Int32

    init(answer: String) throws {
        let (listener, port) = try LoopbackSocket.bound(listening: true)
        (fd, self.port) = (listener, port)
        let bytes = Array(answer.utf8)
        Thread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                if RawHTTP.readMessage(client) != nil { _ = write(client, bytes, bytes.count) }
                close(client)
            }
        }.start()
    }

    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}
