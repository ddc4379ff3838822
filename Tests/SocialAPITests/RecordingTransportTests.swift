import Foundation
import SimulatedTime
import Testing

@testable import SocialAPI

/// The recording decorator at the transport seam: it hands back each request as it went out —
/// its query, form and JSON fields decoded — and never a secret.
struct RecordingTransportTests {
    /// Answers every request with one canned body.
    struct Canned: HTTPTransport {
        var body: String

        func send(_ request: HTTPRequestSpec) async throws(SocialAPIError) -> HTTPResponseSpec {
            HTTPResponseSpec(status: 200, headers: ["content-type": "application/json"], body: Data(body.utf8))
        }
    }

    /// A connection reset: the request went, no answer came.
    struct Reset: HTTPTransport {
        func send(_ request: HTTPRequestSpec) async throws(SocialAPIError) -> HTTPResponseSpec {
            throw .transport("connection reset by peer")
        }
    }

    static let credentials = OAuth1Credentials(
        consumerKey: "consumer-key-1", consumerSecret: "consumer-secret-2", token: "1001-access-token-3",
        tokenSecret: "token-secret-4")
    /// What no recorded request may contain.
    static let secrets = [
        "consumer-secret-2", "1001-access-token-3", "token-secret-4", "graph-token-5", "bearer-token-6",
        "oauth_signature", "Authorization",
    ]

    static func expectNoSecrets(_ sent: [SentRequest]) {
        let text = "\(sent)"
        for secret in Self.secrets { #expect(!text.contains(secret), "\(secret) was recorded") }
    }

    @Test("A v1.1 status update: its form fields, decoded, and the location fields among them")
    func twitterForm() async throws {
        let recorder = RecordingTransport(wrapping: Canned(body: #"{"id_str":"42","text":"x"}"#))
        let twitter = TwitterClient(
            baseURL: URL(string: "http://127.0.0.1:9/1.1/")!, credentials: Self.credentials, transport: recorder,
            nonce: { "nonce" }, clock: SimulatedClock(start: EpochInstant(secondsSince1970: 1_748_960_000)))
        let status = "Café & co = 100% + more ☕️"
        _ = try await twitter.updateStatus(
            status, latitude: 37.3236, longitude: -122.0315, placeID: "e1a2b3c4d5e6f701", displayCoordinates: true)
        let sent = try #require(recorder.sent.first)
        #expect(recorder.sent.count == 1)
        #expect(sent.method == "POST" && sent.path == "/1.1/statuses/update.json")
        #expect(sent.fields["status"] == status)
        #expect(
            sent.locationFields == [
                "lat": "37.3236", "long": "-122.0315", "place_id": "e1a2b3c4d5e6f701", "display_coordinates": "true",
            ])
        Self.expectNoSecrets(recorder.sent)
    }

    @Test("A GET's query is read too; a lookup's coordinates are location fields")
    func query() async throws {
        let recorder = RecordingTransport(wrapping: Canned(body: #"{"result":{"places":[]}}"#))
        let twitter = TwitterClient(
            baseURL: URL(string: "http://127.0.0.1:9/1.1/")!, credentials: Self.credentials, transport: recorder)
        _ = try await twitter.reverseGeocode(latitude: 37.3, longitude: -122.0, granularity: "poi")
        let sent = try #require(recorder.sent.first)
        #expect(sent.method == "GET" && sent.path == "/1.1/geo/reverse_geocode.json")
        #expect(sent.fields == ["lat": "37.3", "long": "-122.0", "granularity": "poi"])
        Self.expectNoSecrets(recorder.sent)
    }

    @Test("A URL relative to a base is read whole: its path decoded, its query's escapes too")
    func relativeURL() throws {
        let base = try #require(URL(string: "http://127.0.0.1:9/1.1/"))
        let url = try #require(URL(string: "geo/id/caf%C3%A9%2Fx.json?q=a%26b&r=%C3%A9", relativeTo: base))
        let sent = SentRequest(HTTPRequestSpec(method: "GET", url: url))
        #expect(sent.path == "/1.1/geo/id/café/x.json")
        #expect(sent.fields == ["q": "a&b", "r": "é"])
    }

    @Test("An X API v2 Tweet: its JSON body as dotted fields; the bearer token is not kept")
    func xJSON() async throws {
        let recorder = RecordingTransport(wrapping: Canned(body: #"{"data":{"id":"7","text":"x"}}"#))
        let x = XClient(
            baseURL: URL(string: "http://127.0.0.1:9/2/")!, authorization: .bearer("bearer-token-6"),
            transport: recorder)
        _ = try await x.createTweet("At \"Philz\"", placeID: "df51dec6f4ee2b2c", inReplyTo: "5")
        let sent = try #require(recorder.sent.first)
        #expect(sent.method == "POST" && sent.path == "/2/tweets")
        #expect(
            sent.fields == [
                "text": "At \"Philz\"", "geo.place_id": "df51dec6f4ee2b2c", "reply.in_reply_to_tweet_id": "5",
            ])
        #expect(sent.locationFields == ["geo.place_id": "df51dec6f4ee2b2c"])
        Self.expectNoSecrets(recorder.sent)
    }

    @Test("A Graph check-in: place and the coordinates' JSON string; the access token is not kept")
    func graphForm() async throws {
        let recorder = RecordingTransport(wrapping: Canned(body: #"{"id":"9"}"#))
        let facebook = FacebookClient(
            baseURL: URL(string: "http://127.0.0.1:9/")!, accessToken: "graph-token-5", transport: recorder)
        _ = try await facebook.checkIn(
            place: "110843418940484", latitude: 37.3236, longitude: -122.0315, message: "Hi", privacy: "SELF")
        let sent = try #require(recorder.sent.first)
        #expect(sent.path == "/me/checkins")
        #expect(sent.fields["access_token"] == nil && sent.fields["message"] == "Hi")
        #expect(
            sent.locationFields == [
                "place": "110843418940484", "coordinates": #"{"latitude":37.3236,"longitude":-122.0315}"#,
            ])
        // A GET carries the token in its query: left out as well.
        _ = try? await facebook.permissions()
        #expect(recorder.sent.count == 2 && recorder.sent[1].fields.isEmpty)
        Self.expectNoSecrets(recorder.sent)
    }

    @Test("A request whose answer never came is recorded: it may have arrived")
    func failedSend() async throws {
        let recorder = RecordingTransport(wrapping: Reset())
        let facebook = FacebookClient(
            baseURL: URL(string: "http://127.0.0.1:9/")!, accessToken: "graph-token-5", transport: recorder)
        await #expect(throws: SocialAPIError.self) {
            try await facebook.checkIn(place: "p1", message: "Hi")
        }
        #expect(recorder.sent.map(\.locationFields) == [["place": "p1"]])
    }

    @Test("Copies share one record, as a client copied with its transport does")
    func copiesShare() async throws {
        let recorder = RecordingTransport(wrapping: Canned(body: #"{"id":"9"}"#))
        let copy = recorder
        _ = try await copy.send(
            HTTPRequestSpec(
                method: "POST", url: URL(string: "http://127.0.0.1:9/me/feed?access_token=graph-token-5")!,
                headers: [
                    "Content-Type": "application/x-www-form-urlencoded", "Authorization": "Bearer bearer-token-6",
                ],
                body: Data("message=a+b%2Bc&oauth_signature=xyz&place=p".utf8)))
        #expect(
            recorder.sent == [
                SentRequest(method: "POST", path: "/me/feed", fields: ["message": "a b+c", "place": "p"])
            ])
        Self.expectNoSecrets(recorder.sent)
    }

    @Test("Fields are split at the bytes & and =, as a server splits them; credential names in any case are left out")
    func bytewiseFieldsAndSecretNames() {
        let request = HTTPRequestSpec(
            method: "POST", url: URL(string: "http://127.0.0.1:9/x?q=1&%CC%81r=2&My_Access_TOKEN=t")!,
            headers: ["content-type": "application/x-www-form-urlencoded"],
            // A raw combining mark after `&` is still a separator (String.split at characters kept
            // the two pairs together); an undecodable pair is dropped, the others kept.
            body: Data("a=1&\u{301}b=2&bad=%ZZ&ClientSecret=s&pass\u{212A}=k&To\u{212A}en=k".utf8))
        let sent = SentRequest(request)
        #expect(
            sent.fields == [
                "q": "1", "\u{301}r": "2", "a": "1", "\u{301}b": "2", "pass\u{212A}": "k",
            ])
    }
}
