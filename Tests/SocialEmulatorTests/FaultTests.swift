import Foundation
import NIOCore
import SocialAPI
import SocialEmulator
import TestSupport
import Testing

/// Faults injected by the emulator, as the clients meet them over real sockets.
struct FaultTests {
    func client(_ running: TestEmulator, timeout: TimeAmount = .seconds(120)) -> TwitterClient {
        TwitterClient(
            baseURL: running.twitterBaseURL, credentials: EmulatorTests.demoTwitter,
            transport: AsyncHTTPClientTransport(timeout: timeout))
    }

    @Test func statusFaultsByCountAreRetryable() async throws {
        try await withEmulator(loopback: true) { (running, core) async throws in
            await core.addFault(Fault(kind: .status, pathContains: "statuses/update", remaining: 2, status: 503))
            let twitter = client(running)
            for attempt in 1...2 {
                do throws(SocialAPIError) {
                    _ = try await twitter.updateStatus("Retry me")
                    Issue.record("attempt \(attempt) should fail")
                } catch {
                    #expect(
                        error
                            == .twitter(
                                status: 503, errors: [.init(code: 130, message: "Over capacity")], rateLimitReset: nil))
                    #expect(error.isRetryable)
                }
            }
            #expect(try await twitter.updateStatus("Retry me").text == "Retry me")
            #expect(await core.journal.map(\.fault) == [.status, .status, nil])
        }
    }

    @Test func brokenConnectionsAreTransportErrors() async throws {
        try await withEmulator(loopback: true) { (running, core) async throws in
            await core.addFault(Fault(kind: .reset, pathContains: "verify_credentials", remaining: 1))
            await core.addFault(Fault(kind: .hang, pathContains: "user_timeline", remaining: 1))
            await core.addFault(Fault(kind: .empty, pathContains: "geo/id", remaining: 1))
            // A short timeout only where the answer never comes: on a loaded machine an ordinary
            // answer may take longer than that.
            let twitter = client(running)
            await #expect(throws: SocialAPIError.self) { _ = try await twitter.verifyCredentials() }
            do throws(SocialAPIError) {
                _ = try await client(running, timeout: .milliseconds(500)).userTimeline()
                Issue.record("a hung request should time out")
            } catch {
                guard case .transport = error else {
                    Issue.record("expected a transport error, got \(error)")
                    return
                }
                #expect(error.isRetryable)
            }
            do throws(SocialAPIError) {
                _ = try await twitter.place(id: "e1a2b3c4d5e6f701")
                Issue.record("an empty body should not decode")
            } catch {
                guard case .decoding = error else {
                    Issue.record("expected a decoding error, got \(error)")
                    return
                }
            }
            // Each fault was used up once; the next requests are served.
            #expect(try await twitter.verifyCredentials().screenName == "waypost_demo")
        }
    }

    /// Runs nobody keeps reach the emulator in memory (``EmulatorTransport``): a fault must fail
    /// there exactly as it fails over a socket — the same error, word for word, since it reaches
    /// the audit — or the two run paths would tell different stories.
    @Test(arguments: [
        Fault(kind: .reset), Fault(kind: .hang), Fault(kind: .latency, milliseconds: 2_000), Fault(kind: .empty),
        Fault(kind: .truncated), Fault(kind: .status, status: 503),
    ])
    func theInMemoryTransportFailsAsTheSocketDoes(_ fault: Fault) async throws {
        func failure(loopback: Bool) async throws -> String {
            var message = "no error"
            try await withEmulator(loopback: loopback) { (emulator, core) async throws in
                var fault = fault
                fault.pathContains = "statuses/update"
                await core.addFault(fault)
                // A short deadline only where it must fire: under the parallel suite an ordinary
                // answer over loopback can take longer than that.
                let late = fault.kind == .hang || fault.kind == .latency
                let transport: any HTTPTransport =
                    loopback
                    ? AsyncHTTPClientTransport(timeout: late ? .milliseconds(500) : .seconds(120))
                    : EmulatorTransport(core: core, timeout: late ? .milliseconds(500) : .seconds(120))
                let twitter = TwitterClient(
                    baseURL: emulator.twitterBaseURL, credentials: EmulatorTests.demoTwitter, transport: transport)
                do throws(SocialAPIError) {
                    _ = try await twitter.updateStatus("Lost?")
                } catch {
                    message = "\(error)"
                }
            }
            return message
        }
        let socket = try await failure(loopback: true)
        #expect(socket != "no error")
        #expect(try await failure(loopback: false) == socket)
    }

    @Test func truncatedAnswersLeaveTheOutcomeUnknown() async throws {
        try await withEmulator(loopback: true) { (running, core) async throws in
            await core.addFault(Fault(kind: .truncated, pathContains: "statuses/update", remaining: 1))
            let twitter = client(running)
            do throws(SocialAPIError) {
                _ = try await twitter.updateStatus("Did it post?")
                Issue.record("a truncated body should not decode")
            } catch {
                guard case .decoding = error else {
                    Issue.record("expected a decoding error, got \(error)")
                    return
                }
            }
            // The post went through although the client could not read the answer.
            #expect(try await twitter.userTimeline().map(\.text) == ["Did it post?"])
        }
    }

    @Test func probabilitiesAreReproducibleBySeed() async throws {
        func pattern(seed: UInt64) async throws -> [Bool] {
            var outcomes: [Bool] = []
            try await withEmulator(seed: seed, loopback: true) { (running, core) async throws in
                await core.addFault(
                    Fault(kind: .status, pathContains: "reverse_geocode", probability: 0.5, status: 500))
                let twitter = client(running)
                for _ in 0..<12 {
                    do throws(SocialAPIError) {
                        _ = try await twitter.reverseGeocode(latitude: 37.3236, longitude: -122.0315)
                        outcomes.append(true)
                    } catch {
                        outcomes.append(false)
                    }
                }
            }
            return outcomes
        }
        let first = try await pattern(seed: 42)
        #expect(try await pattern(seed: 42) == first)
        #expect(first.contains(true) && first.contains(false))
        #expect(try await pattern(seed: 7) != first)
    }

    @Test func latencyFaultsStillAnswer() async throws {
        try await withEmulator(loopback: true) { (running, core) async throws in
            await core.addFault(
                Fault(kind: .latency, pathContains: "verify_credentials", distribution: .fixed, milliseconds: 50))
            #expect(try await client(running).verifyCredentials().screenName == "waypost_demo")
            #expect(await core.journal.last?.fault == .latency)
        }
    }

    @Test func controlPlaneSetsFaultsAndTheClock() async throws {
        try await withEmulator(loopback: true) { (running, core) async throws in
            #expect(
                await core.control("POST", "/__waypost/faults", "kind=status&path=verify&status=502&count=1").status
                    == 200)
            #expect(await core.control("POST", "/__waypost/faults", "kind=teleport").status == 400)
            #expect(await core.control("POST", "/__waypost/faults", "kind=status&probability=2").status == 400)
            // A 1xx is no final answer (RFC 9110 §15.2): a client sent one as such would wait on.
            #expect(await core.control("POST", "/__waypost/faults", "kind=status&status=100").status == 400)
            #expect(await core.control("POST", "/__waypost/faults", "kind=status&status=199").status == 400)
            let listed = await core.control("GET", "/__waypost/faults")
            #expect(String(decoding: listed.body, as: UTF8.self).contains(#""kind":"status""#))
            #expect(await core.control("DELETE", "/__waypost/faults").status == 200)
            // Ten minutes ahead: the client's timestamps are now out of bounds (135).
            #expect(await core.control("POST", "/__waypost/clock", "offset=600").status == 200)
            do throws(SocialAPIError) {
                _ = try await client(running).verifyCredentials()
                Issue.record("a skewed clock should fail")
            } catch {
                #expect(
                    error
                        == .twitter(
                            status: 401, errors: [.init(code: 135, message: "Timestamp out of bounds.")],
                            rateLimitReset: nil))
            }
            #expect(await core.control("POST", "/__waypost/reset").status == 200)
            #expect(try await client(running).verifyCredentials().screenName == "waypost_demo")
            // New consumers, users and tokens.
            #expect(await core.control("POST", "/__waypost/twitter/consumers", "key=ck&secret=cs").status == 200)
            #expect(
                await core.control(
                    "POST", "/__waypost/twitter/users",
                    "user_id=7&screen_name=second&token=7-token&token_secret=7-secret&geo_enabled=false"
                ).status == 200)
            let second = TwitterClient(
                baseURL: running.twitterBaseURL,
                credentials: OAuth1Credentials(
                    consumerKey: "ck", consumerSecret: "cs", token: "7-token", tokenSecret: "7-secret"),
                transport: running.transport)
            let user = try await second.verifyCredentials()
            #expect(user.screenName == "second" && user.geoEnabled == false)
            #expect(
                await core.control(
                    "POST", "/__waypost/facebook/users", "user_id=8&access_token=t8&permissions=public_profile"
                )
                .status == 200)
            let reader = FacebookClient(
                baseURL: running.facebookBaseURL, accessToken: "t8", transport: running.transport)
            #expect(try await reader.permissions().map(\.permission) == ["public_profile"])
        }
    }

    /// Oversized headers and bodies over a real connection: the provider's error object (Twitter
    /// 431/413, Graph 400/100), and the emulator keeps serving.
    @Test func oversizedRequestsGetTheProvidersErrorObject() async throws {
        try await withEmulator(loopback: true) { (running, _) async throws in
            let transport = running.transport
            let big = String(repeating: "b", count: 100_000)
            let header = try await transport.send(
                HTTPRequestSpec(
                    method: "GET",
                    url: running.twitterBaseURL.appendingPathComponent("account/verify_credentials.json"),
                    headers: ["X-Big": big]))
            #expect(header.status == 431)
            #expect(String(decoding: header.body, as: UTF8.self).contains(#""errors""#))
            let body = try await transport.send(
                HTTPRequestSpec(
                    method: "POST", url: running.facebookBaseURL.appendingPathComponent("v3.1/me/feed"),
                    headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: Data(repeating: UInt8(ascii: "a"), count: 2 << 20)))
            #expect(body.status == 400)
            #expect(body.headers["facebook-api-version"] == "v3.1")
            #expect(String(decoding: body.body, as: UTF8.self).contains(#""code":100"#))
            let after = try await transport.send(
                HTTPRequestSpec(
                    method: "GET",
                    url: try #require(
                        URL(string: running.facebookBaseURL.absoluteString + "me?access_token=waypost-demo-graph-token")
                    )))
            #expect(after.status == 200)
        }
    }
}
