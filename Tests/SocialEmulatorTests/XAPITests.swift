import Foundation
import SocialAPI
import SocialEmulator
import TestSupport
import Testing

/// X API v2's Tweet endpoints in the emulator, through ``XClient``, against X's API reference:
/// - POST /2/tweets: https://developer.x.com/en/docs/x-api/tweets/manage-tweets/api-reference/post-tweets
/// - GET /2/tweets/:id: https://developer.x.com/en/docs/x-api/tweets/lookup/api-reference/get-tweets-id
/// - DELETE /2/tweets/:id: https://developer.x.com/en/docs/x-api/tweets/manage-tweets/api-reference/delete-tweets-id
/// - errors: https://developer.x.com/en/support/x-api/error-troubleshooting (problem objects with
///   `type`, `title`, `detail`; a 400's `errors` array of `{parameters, message}`)
/// - rate limits: https://developer.x.com/en/docs/x-api/rate-limits (`x-rate-limit-*` headers)
@Suite("X API v2 in the emulator")
struct XAPITests {
    static let poi = "e1a2b3c4d5e6f701"
    static let bearer = "waypost-demo-oauth2-user-token"

    func x(_ running: TestEmulator, _ authorization: XAuthorization? = nil) -> XClient {
        XClient(
            baseURL: running.baseURL.appendingPathComponent("2/"),
            authorization: authorization ?? .oauth1(OAuth1Signer(credentials: EmulatorTests.demoTwitter)),
            transport: running.transport)
    }

    func problem(_ body: () async throws -> Void) async -> (status: Int, problem: XProblem)? {
        do {
            try await body()
            return nil
        } catch let SocialAPIError.x(status, problem, _, _) {
            return (status, problem)
        } catch {
            return nil
        }
    }

    @Test("POST /2/tweets with geo.place_id, then GET with expansions=geo.place_id and place.fields")
    func createAndLookUp() async throws {
        try await withEmulator { running, _ in
            let client = x(running)
            let created = try await client.createTweet("Coffee ☕️", placeID: Self.poi)
            #expect(created.text == "Coffee ☕️" && created.editHistoryTweetIDs == [created.id])
            // X too answers `&`, `<` and `>` as HTML entities (kbravh.dev/html-entities-twitter-api-v2).
            let escaped = try await client.createTweet("Coffee & cake <3")
            #expect(escaped.text == "Coffee &amp; cake &lt;3")
            #expect(try await client.tweet(id: escaped.id).data.writtenText == "Coffee & cake <3")
            let lookup = try await client.tweet(
                id: created.id, expansions: ["geo.place_id"], placeFields: ["name", "place_type", "country_code"])
            #expect(lookup.data.geo?.placeID == Self.poi)
            let place = try #require(lookup.includes?.places?.first)
            #expect(place.id == Self.poi && place.fullName == "Stevens Creek Coffee House, Cupertino")
            #expect(place.name == "Stevens Creek Coffee House" && place.placeType == "poi" && place.countryCode == "US")
            // Without the expansion: no includes, and `geo` only when tweet.fields asks for it.
            let plain = try await client.tweet(id: created.id)
            #expect(plain.includes == nil && plain.data.geo == nil)
            let geo = try await client.tweet(id: created.id, tweetFields: ["geo"])
            #expect(geo.data.geo?.placeID == Self.poi)
        }
    }

    @Test("An OAuth 2.0 user-context bearer token posts as its user; a wrong one is a 401 problem")
    func bearerToken() async throws {
        try await withEmulator(loopback: true) { running, core in
            let client = x(running, .bearer(Self.bearer))
            let created = try await client.createTweet("bearer")
            let lookup = try await client.tweet(id: created.id, expansions: ["author_id"], userFields: ["protected"])
            #expect(lookup.data.authorID == "1001" && lookup.includes?.users?.first?.username == "waypost_demo")
            #expect(try await client.me().protected == false)
            let refused = await problem { _ = try await x(running, .bearer("nope")).createTweet("no") }
            #expect(refused?.status == 401)
            #expect(refused?.problem.title == "Unauthorized" && refused?.problem.type == "about:blank")
            #expect(refused?.problem.status == 401 && refused?.problem.detail != nil)
            // The journal keeps no token.
            let journal = await core.journal
            #expect(journal.allSatisfy { $0.headers["authorization"] == "REDACTED" })
        }
    }

    @Test("OAuth 1.0a: a bad signature is the same 401 problem")
    func oauthRefused() async throws {
        try await withEmulator { running, _ in
            var wrong = EmulatorTests.demoTwitter
            wrong.tokenSecret = "wrong"
            let refused = await problem { _ = try await x(running, .oauth1(OAuth1Signer(credentials: wrong))).me() }
            #expect(refused?.status == 401 && refused?.problem.title == "Unauthorized")
        }
    }

    @Test("Validation failures: 400 with an errors array, title, detail and the invalid-request type")
    func validation() async throws {
        try await withEmulator { running, _ in
            let client = x(running)
            let created = try await client.createTweet("fields")
            let bad = await problem { _ = try await client.tweet(id: created.id, placeFields: ["latitude"]) }
            #expect(bad?.status == 400)
            #expect(bad?.problem.type == XProblem.invalidRequest && bad?.problem.title == "Invalid Request")
            #expect(bad?.problem.errors?.first?.parameters == ["place.fields": ["latitude"]])
            let badID = await problem { _ = try await client.tweet(id: "abc") }
            #expect(badID?.status == 400 && badID?.problem.errors?.first?.message?.contains("[abc]") == true)
            // A body field X does not know, sent by hand.
            let request = HTTPRequestSpec(
                method: "POST", url: running.baseURL.appendingPathComponent("2/tweets"),
                headers: ["Authorization": "Bearer \(Self.bearer)", "Content-Type": "application/json"],
                body: Data(#"{"text":"hi","lat":37.3}"#.utf8))
            let answer = try await running.transport.send(request)
            #expect(answer.status == 400)
            let body = try JSONDecoder().decode(XProblem.self, from: answer.body)
            #expect(body.errors?.first?.message?.contains("$.lat") == true)
        }
    }

    @Test("A duplicate is a 403 problem the client reads as a duplicate; rate-limit headers on every answer")
    func duplicateAndHeaders() async throws {
        try await withEmulator { running, _ in
            let request = HTTPRequestSpec(
                method: "POST", url: running.baseURL.appendingPathComponent("2/tweets"),
                headers: ["Authorization": "Bearer \(Self.bearer)", "Content-Type": "application/json"],
                body: Data(#"{"text":"once"}"#.utf8))
            let first = try await running.transport.send(request)
            #expect(first.status == 201)
            #expect(first.headers["x-rate-limit-limit"] == "200" && first.headers["x-rate-limit-remaining"] == "199")
            #expect(Int(first.headers["x-rate-limit-reset"] ?? "") != nil)
            let second = await problem { _ = try await x(running).createTweet("once") }
            #expect(second?.status == 403 && second?.problem.isDuplicate == true)
            let error = SocialAPIError.x(status: 403, problem: second?.problem ?? XProblem(), rateLimitReset: nil)
            #expect(error.isDuplicate)
        }
    }

    @Test("DELETE /2/tweets/:id, then the Tweet is not found (200 with a resource-not-found error)")
    func delete() async throws {
        try await withEmulator { running, _ in
            let client = x(running)
            let created = try await client.createTweet("gone soon")
            #expect(try await client.deleteTweet(id: created.id))
            let missing = await problem { _ = try await client.tweet(id: created.id) }
            #expect(missing?.status == 200)
            #expect(missing?.problem.errors?.first?.type == XProblem.resourceNotFound)
        }
    }

    @Test("geo_enabled off: the place id is accepted and not attached, as X documents")
    func geoDisabled() async throws {
        try await withEmulator { running, core in
            await core.control("POST", "/__waypost/twitter/geo_enabled", "user_id=1001&enabled=false")
            let client = x(running)
            let created = try await client.createTweet("no geo", placeID: Self.poi)
            let lookup = try await client.tweet(id: created.id, expansions: ["geo.place_id"])
            #expect(lookup.data.geo == nil && lookup.includes == nil)
        }
    }

    @Test("protected: in verify_credentials, users/show, the tweet's user, and v2's user; others cannot read it")
    func protectedAccount() async throws {
        try await withEmulator { running, core in
            let twitter = EmulatorTests().twitter(running)
            #expect(try await twitter.verifyCredentials().protected == false)
            let set = await core.control("POST", "/__waypost/twitter/protected", "user_id=1001&protected=true")
            #expect(set.status == 200)
            #expect(try await twitter.verifyCredentials().protected == true)
            let tweet = try await twitter.updateStatus("private", placeID: Self.poi)
            #expect(tweet.user?.protected == true)
            let show = try #require(
                URL(string: "users/show.json?screen_name=waypost_demo", relativeTo: running.twitterBaseURL)?.absoluteURL
            )
            let signed = OAuth1Signer(credentials: EmulatorTests.demoTwitter).sign(
                OAuth1Request(method: "GET", url: show), nonce: OAuth1Signer.randomNonce(),
                timestamp: Int(Date().timeIntervalSince1970))
            let shown = try await running.transport.send(
                HTTPRequestSpec(method: "GET", url: show, headers: ["Authorization": signed.authorizationHeader]))
            #expect(try JSONDecoder().decode(TwitterUser.self, from: shown.body).protected == true)
            #expect(try await x(running).me().protected == true)
            // Another account cannot see it (v2's not-authorized-for-resource partial error).
            await core.control(
                "POST", "/__waypost/twitter/users",
                "user_id=1002&screen_name=other&token=1002-t&token_secret=s&bearer_token=other-bearer")
            let hidden = await problem { _ = try await x(running, .bearer("other-bearer")).tweet(id: tweet.idStr) }
            #expect(hidden?.problem.errors?.first?.title == "Authorization Error")
            let bad = await core.control("POST", "/__waypost/twitter/protected", "user_id=1001&protected=maybe")
            #expect(bad.status == 400)
        }
    }

    @Test("Graph privacy: echoed on the created object, capped by the app's default audience; bad JSON is (#100)")
    func graphPrivacy() async throws {
        // Graph API reference, "Privacy": value EVERYONE, ALL_FRIENDS, FRIENDS_OF_FRIENDS, SELF, CUSTOM.
        // https://developers.facebook.com/docs/graph-api/reference/privacy/
        try await withEmulator { running, core in
            let graph = FacebookClient(
                baseURL: running.facebookBaseURL, accessToken: "waypost-demo-graph-token",
                transport: running.transport)
            let friends = try await graph.checkIn(place: "1001", message: "friends", privacy: "ALL_FRIENDS")
            let object = try await graph.object(id: friends)
            #expect(object.privacy?.value == "ALL_FRIENDS" && object.privacy?.description == "Your friends")
            let unspecified = try await graph.postToFeed(message: "default")
            #expect(try await graph.object(id: unspecified).privacy?.value == "EVERYONE")
            await core.control("POST", "/__waypost/facebook/audience", "user_id=2001&value=SELF")
            let capped = try await graph.checkIn(place: "1001", message: "capped", privacy: "EVERYONE")
            #expect(try await graph.object(id: capped).privacy?.value == "SELF")
            do {
                _ = try await graph.postToFeed(message: "bad", privacy: "NOBODY")
                Issue.record("an unknown privacy value was accepted")
            } catch let SocialAPIError.graph(status, error, _) {
                #expect(status == 400 && error.code == 100)
            }
        }
    }
}
