import Foundation
import SimulatedTime
import SocialAPI
import SocialEmulator
import TestSupport
import Testing

/// The clients against the emulator, in memory (``EmulatorTransport``): the same core the socket server runs.
struct EmulatorTests {
    static let demoTwitter = OAuth1Credentials(
        consumerKey: "waypost-demo-consumer", consumerSecret: "waypost-demo-consumer-secret",
        token: "1001-waypost-demo-token", tokenSecret: "waypost-demo-token-secret")
    static let coffee = (latitude: 37.32360, longitude: -122.03150)

    func twitter(
        _ running: TestEmulator, credentials: OAuth1Credentials = demoTwitter, nonce: String? = nil,
        skew: Int = 0
    )
        -> TwitterClient
    {
        if let nonce {
            // A replay repeats the nonce *and* the timestamp: OAuth only requires nonces to be
            // unique per timestamp, so the clock is pinned too.
            return TwitterClient(
                baseURL: running.twitterBaseURL, credentials: credentials, transport: running.transport,
                nonce: { nonce }, clock: SimulatedClock(start: WallClock().now.advanced(by: .seconds(skew))))
        }
        return TwitterClient(
            baseURL: running.twitterBaseURL, credentials: credentials, transport: running.transport,
            clock: SimulatedClock(start: WallClock().now.advanced(by: .seconds(skew)))
        )
    }

    func twitterErrorCode(_ body: () async throws -> Void) async -> (status: Int, code: Int)? {
        do {
            try await body()
            return nil
        } catch let SocialAPIError.twitter(status, errors, _, _) {
            return (status, errors.first?.code ?? 0)
        } catch {
            return nil
        }
    }

    @Test func reverseGeocodeReturnsContainingPlacesFinestFirst() async throws {
        try await withEmulator { running, _ in
            let client = twitter(running)
            let places = try await client.reverseGeocode(
                latitude: Self.coffee.latitude, longitude: Self.coffee.longitude, granularity: "poi")
            #expect(places.map(\.placeType) == ["poi", "neighborhood", "city", "admin", "country"])
            #expect(places.first?.name == "Stevens Creek Coffee House")
            // Only the direct parent, as Twitter answered.
            #expect(places.first?.containedWithin?.map(\.name) == ["Civic Center"])
            #expect(places.first?.containedWithin?.first?.containedWithin == nil)
            #expect(places.last?.containedWithin == [])
            let neighborhoods = try await client.reverseGeocode(
                latitude: Self.coffee.latitude, longitude: Self.coffee.longitude, maxResults: 2)
            #expect(neighborhoods.map(\.name) == ["Civic Center", "Cupertino"])
            let byID = try await client.place(id: "e1a2b3c4d5e6f701")
            #expect(byID.fullName == "Stevens Creek Coffee House, Cupertino")
            // geo/search assumes neighborhood granularity, as Twitter documented: venues need poi.
            #expect(try await client.searchPlaces(query: "espresso").isEmpty)
            let found = try await client.searchPlaces(query: "espresso", granularity: "poi")
            #expect(found.map(\.name) == ["Murphy Avenue Espresso"])
            let similar = try await client.similarPlaces(
                latitude: Self.coffee.latitude, longitude: Self.coffee.longitude, name: "coffee")
            #expect(similar.map(\.name) == ["Stevens Creek Coffee House"])
        }
    }

    @Test func statusesCarryLocationOnlyAsAsked() async throws {
        try await withEmulator { running, core in
            let client = twitter(running)
            let exact = try await client.updateStatus(
                "At the café", latitude: Self.coffee.latitude, longitude: Self.coffee.longitude,
                placeID: "e1a2b3c4d5e6f701")
            #expect(exact.geo?.coordinates == [Self.coffee.latitude, Self.coffee.longitude])
            #expect(exact.coordinates?.coordinates == [Self.coffee.longitude, Self.coffee.latitude])
            #expect(exact.place?.id == "e1a2b3c4d5e6f701")
            let placeOnly = try await client.updateStatus(
                "Place only", latitude: Self.coffee.latitude, longitude: Self.coffee.longitude,
                placeID: "e1a2b3c4d5e6f701", displayCoordinates: false)
            #expect(placeOnly.geo == nil && placeOnly.coordinates == nil && placeOnly.place != nil)
            // Duplicate status: 403/187.
            let duplicate = await twitterErrorCode { _ = try await client.updateStatus("At the café") }
            #expect(duplicate?.status == 403 && duplicate?.code == 187)
            // geo_enabled off: location dropped silently, as Twitter did.
            await core.control("POST", "/__waypost/twitter/geo_enabled", "user_id=1001&enabled=false")
            let dropped = try await client.updateStatus(
                "Geo off", latitude: Self.coffee.latitude, longitude: Self.coffee.longitude, placeID: "e1a2b3c4d5e6f701"
            )
            #expect(dropped.geo == nil && dropped.coordinates == nil && dropped.place == nil)
            #expect(try await client.verifyCredentials().geoEnabled == false)
            #expect(try await client.userTimeline().map(\.text) == ["Geo off", "Place only", "At the café"])
        }
    }

    @Test func oauthIsVerifiedAsTwitterDid() async throws {
        try await withEmulator { running, _ in
            var wrongSecret = Self.demoTwitter
            wrongSecret.consumerSecret = "guess"
            let bad = await twitterErrorCode {
                _ = try await twitter(running, credentials: wrongSecret).verifyCredentials()
            }
            #expect(bad?.status == 401 && bad?.code == 32)
            let skewed = await twitterErrorCode { _ = try await twitter(running, skew: 600).verifyCredentials() }
            #expect(skewed?.status == 401 && skewed?.code == 135)
            var unknownToken = Self.demoTwitter
            unknownToken.token = "nobody"
            let unknown = await twitterErrorCode {
                _ = try await twitter(running, credentials: unknownToken).verifyCredentials()
            }
            #expect(unknown?.status == 401 && unknown?.code == 89)
            let fixed = twitter(running, nonce: "same-nonce-every-time")
            _ = try await fixed.verifyCredentials()
            let replay = await twitterErrorCode { _ = try await fixed.verifyCredentials() }
            #expect(replay?.status == 401 && replay?.code == 32)
        }
    }

    @Test func providerErrorsAreTypedAsTheProvidersSentThem() async throws {
        try await withEmulator { running, core in
            // A read-only application cannot tweet: 403/261.
            #expect(
                await core.control("POST", "/__waypost/twitter/consumers", "key=ro&secret=ro-s&access=read").status
                    == 200)
            var readOnly = Self.demoTwitter
            (readOnly.consumerKey, readOnly.consumerSecret) = ("ro", "ro-s")
            do {
                _ = try await twitter(running, credentials: readOnly).updateStatus("Hello")
                Issue.record("a read-only application should not tweet")
            } catch let SocialAPIError.twitter(status, errors, _, _) {
                #expect(status == 403 && errors.first?.known == .applicationCannotWrite)
            }
            _ = try await twitter(running, credentials: readOnly).verifyCredentials()  // reading still works
            // geo/search with nothing to locate by but the caller's address: 404/13.
            do {
                _ = try await twitter(running).searchPlaces()
                Issue.record("a search without location or query should fail")
            } catch let SocialAPIError.twitter(status, errors, _, _) {
                #expect(status == 404 && errors.first?.known == .noLocationForIP)
            }

            // Graph: a token that was never issued is 190 without a subcode; a refused one says why.
            let facebook = FacebookClient(
                baseURL: running.facebookBaseURL, accessToken: "waypost-demo-graph-token", transport: running.transport)
            let stranger = FacebookClient(
                baseURL: running.facebookBaseURL, accessToken: "stolen", transport: running.transport)
            func graphError(_ body: () async throws -> Void) async -> GraphErrorBody.Detail? {
                do {
                    try await body()
                    return nil
                } catch let SocialAPIError.graph(_, error, _) {
                    return error
                } catch {
                    return nil
                }
            }
            let unknown = await graphError { _ = try await stranger.checkins() }
            #expect(unknown?.known == .invalidToken && unknown?.errorSubcode == nil)
            for (state, subcode) in [
                ("expired", GraphErrorSubcode.expired), ("password-changed", .passwordChanged),
                ("app-not-installed", .applicationNotInstalled),
            ] {
                await core.control(
                    "POST", "/__waypost/facebook/tokens", "access_token=waypost-demo-graph-token&state=\(state)")
                let refused = await graphError { _ = try await facebook.checkins() }
                #expect(refused?.known == .invalidToken && refused?.knownSubcode == subcode, "\(state)")
            }
            #expect(
                await core.control("POST", "/__waypost/facebook/tokens", "access_token=x&state=sleepy").status == 400)
            await core.control(
                "POST", "/__waypost/facebook/tokens", "access_token=waypost-demo-graph-token&state=valid")
            #expect(try await facebook.checkins().data.isEmpty)

            // Unknown edges of `me`, and `me` without a token: 2500, on the wire.
            let transport = running.transport
            let me = try await transport.send(
                HTTPRequestSpec(
                    method: "GET", url: running.facebookBaseURL.appendingPathComponent("me"),
                    headers: ["Authorization": "Bearer waypost-demo-graph-token"]))
            #expect(
                me.status == 200 && String(decoding: me.body, as: UTF8.self) == #"{"id":"2001","name":"Waypost Demo"}"#)
            for (path, message) in [
                ("me/likes?access_token=waypost-demo-graph-token", "Unknown path components: /likes"),
                ("me/checkins", "An active access token must be used to query information about the current user."),
            ] {
                let url = try #require(URL(string: running.facebookBaseURL.absoluteString + path))
                let answer = try await transport.send(HTTPRequestSpec(method: "GET", url: url))
                let body = try JSONDecoder().decode(GraphErrorBody.self, from: answer.body)
                #expect(answer.status == 400 && body.error.known == .unknownPath && body.error.message == message)
            }
            // A method the user or one of its edges lacks is Graph's GraphMethodException 100/33,
            // as for a page; `DELETE me` said "Unknown path components: /".
            for (method, path) in [("DELETE", "me"), ("POST", "me"), ("DELETE", "me/checkins"), ("PUT", "me/feed")] {
                let url = try #require(
                    URL(
                        string: running.facebookBaseURL.absoluteString + path + "?access_token=waypost-demo-graph-token"
                    ))
                let answer = try await transport.send(HTTPRequestSpec(method: method, url: url))
                let error = try JSONDecoder().decode(GraphErrorBody.self, from: answer.body).error
                #expect(answer.status == 400 && error.type == "GraphMethodException", "\(method) \(path)")
                #expect(error.code == 100 && error.errorSubcode == 33, "\(method) \(path)")
                #expect(
                    error.message.hasPrefix("Unsupported \(method.lowercased()) request. Object with ID 'me' does not"),
                    "\(error.message)")
            }
        }
    }

    @Test func geoEndpointsAreRateLimited() async throws {
        try await withEmulator { running, _ in
            let client = twitter(running)
            for _ in 0..<15 {
                _ = try await client.reverseGeocode(latitude: Self.coffee.latitude, longitude: Self.coffee.longitude)
            }
            do {
                _ = try await client.reverseGeocode(latitude: Self.coffee.latitude, longitude: Self.coffee.longitude)
                Issue.record("the 16th request should be limited")
            } catch let SocialAPIError.twitter(status, errors, reset, _) {
                #expect(status == 429 && errors.first?.code == 88)
                #expect((reset ?? 0) > Int(Date().timeIntervalSince1970))
            }
        }
    }

    @Test func graphPlacesAndCheckins() async throws {
        try await withEmulator { running, core in
            let facebook = FacebookClient(
                baseURL: running.facebookBaseURL, accessToken: "waypost-demo-graph-token", transport: running.transport)
            let near = try await facebook.searchPlaces(
                latitude: Self.coffee.latitude, longitude: Self.coffee.longitude, distance: 1500)
            #expect(near.data.first?.name == "Stevens Creek Coffee House")  // nearest first
            #expect(near.data.contains { $0.name == "Cupertino Memorial Park" })
            let cafes = try await facebook.searchPlaces(
                latitude: Self.coffee.latitude, longitude: Self.coffee.longitude, distance: 50_000, query: "café",
                limit: 2)
            #expect(cafes.data.count == 2)
            let rest = try await facebook.searchPlaces(
                latitude: Self.coffee.latitude, longitude: Self.coffee.longitude, distance: 50_000, query: "café",
                limit: 2,
                after: cafes.paging?.cursors?.after)
            #expect(rest.data.count == 1)
            #expect(Set((cafes.data + rest.data).map(\.name)).count == 3)
            // Coordinates as strings in some pages decode as numbers.
            #expect(near.data.allSatisfy { $0.location?.latitude != nil })

            let id = try await facebook.checkIn(
                place: "1001", latitude: Self.coffee.latitude, longitude: Self.coffee.longitude, message: "Espresso")
            #expect(id.hasPrefix("2001_"))
            let listed = try await facebook.checkins()
            #expect(listed.data.first?.coordinates?.latitude == Self.coffee.latitude)
            #expect(listed.data.first?.place?.name == "Stevens Creek Coffee House")
            do {
                _ = try await facebook.checkIn(place: "1001", message: "Espresso")
                Issue.record("duplicate message should fail")
            } catch let SocialAPIError.graph(status, error, _) {
                #expect(status == 400 && error.code == 506)
            }
            await core.control(
                "POST", "/__waypost/facebook/permissions", "user_id=2001&permission=publish_checkins&status=declined")
            await core.control(
                "POST", "/__waypost/facebook/permissions", "user_id=2001&permission=publish_actions&status=declined")
            do {
                _ = try await facebook.checkIn(place: "1002", message: "Latte")
                Issue.record("missing permission should fail")
            } catch let SocialAPIError.graph(status, error, _) {
                #expect(status == 403 && error.code == 200)
                #expect(error.message == "(#200) Requires extended permission: publish_checkins")
            }
            #expect(
                try await facebook.permissions().first { $0.permission == "publish_checkins" }?.status == "declined")
            let stranger = FacebookClient(
                baseURL: running.facebookBaseURL, accessToken: "stolen", transport: running.transport)
            do {
                _ = try await stranger.checkins()
                Issue.record("bad token should fail")
            } catch let SocialAPIError.graph(_, error, _) {
                #expect(error.code == 190 && error.type == "OAuthException")
            }
        }
    }

    @Test func feedPostsV1PathsAndLimits() async throws {
        var configuration = EmulatorConfiguration.demo
        configuration.statusUpdateLimit = 2
        configuration.graphUserRateLimit = 3
        try await withEmulator(configuration: configuration) { (running, _) async throws in
            // Twitter's v1 paths answer too.
            let v1 = TwitterClient(
                baseURL: running.baseURL.appendingPathComponent("1/"), credentials: Self.demoTwitter,
                transport: running.transport)
            #expect(try await v1.verifyCredentials().screenName == "waypost_demo")
            _ = try await v1.updateStatus("one")
            _ = try await v1.updateStatus("two")
            let limited = await twitterErrorCode { _ = try await v1.updateStatus("three") }
            #expect(limited?.status == 403 && limited?.code == 185)
            // Graph feed posts at a place, then user throttling (code 17) after three calls.
            let facebook = FacebookClient(
                baseURL: running.facebookBaseURL, accessToken: "waypost-demo-graph-token", transport: running.transport)
            let id = try await facebook.postToFeed(message: "At the library", place: "1007")
            #expect(id.hasPrefix("2001_"))
            #expect(try await facebook.checkins().data.first?.place?.name == "Cupertino Library")
            // The feed lists it too: a post whose answer was lost is looked for there.
            #expect(try await facebook.feed().data.map(\.id) == [id])
            var throttled: Int?
            do throws(SocialAPIError) {
                _ = try await facebook.permissions()
            } catch {
                if case .graph(_, let detail, _) = error { throttled = detail.code }
            }
            #expect(throttled == 17)
        }
    }

    @Test func journalKeepsEveryRequestWithSecretsRedacted() async throws {
        try await withEmulator { running, core in
            _ = try await twitter(running).updateStatus(
                "Journal", latitude: Self.coffee.latitude, longitude: Self.coffee.longitude)
            let facebook = FacebookClient(
                baseURL: running.facebookBaseURL, accessToken: "waypost-demo-graph-token", transport: running.transport)
            _ = try await facebook.checkIn(place: "1003", latitude: 37.3368, longitude: -122.0322)
            let journal = await core.journal
            #expect(journal.map(\.path) == ["/1.1/statuses/update.json", "/me/checkins"])
            #expect(journal[0].parameters["lat"] == String(Self.coffee.latitude))
            #expect(journal[1].parameters["coordinates"] == #"{"latitude":37.3368,"longitude":-122.0322}"#)
            let text = String(decoding: try JSONEncoder().encode(journal), as: UTF8.self)
            #expect(!text.contains("waypost-demo-graph-token"))
            #expect(!text.contains("waypost-demo-token-secret") && !text.contains("waypost-demo-consumer-secret"))
            #expect(journal[0].headers["authorization"]?.contains(#"oauth_signature="REDACTED""#) == true)
        }
    }

    /// Found at stop 80: Graph's app secret and proofs, cookies and the control token were
    /// journalled as sent (docs/emulator.md: "the journal (secrets redacted)").
    @Test func journalRedactsEverySecretAClientMaySend() async throws {
        try await withEmulator { running, core in
            let secrets = [
                "client_secret", "appsecret_proof", "input_token", "fb_exchange_token", "x_auth_password",
                "refresh_token",
            ]
            let query = secrets.map { "\($0)=hidden-\($0)" }.joined(separator: "&")
            let url = try #require(URL(string: running.facebookBaseURL.absoluteString + "debug_token?" + query))
            _ = try await running.transport.send(
                HTTPRequestSpec(
                    method: "GET", url: url,
                    headers: [
                        "Cookie": "c_user=hidden-cookie", "Proxy-Authorization": "Basic hidden-proxy",
                        "X-Waypost-Control-Token": "hidden-control", "User-Agent": "kept",
                    ]))
            let entry = try #require(await core.journal.last)
            let text = String(decoding: try JSONEncoder().encode(entry), as: UTF8.self)
            #expect(!text.contains("hidden"), "\(text)")
            #expect(secrets.allSatisfy { entry.parameters[$0] == "REDACTED" })
            #expect(entry.headers["user-agent"] == "kept" && entry.headers["cookie"] == "REDACTED")
        }
    }
}

/// The places compiled into the tool are fixtures/places, byte for byte (`make embed`).
struct BuiltInPlacesTests {
    @Test func builtInPlacesAreTheFixtureFiles() throws {
        let directory = Corpus.repositoryRoot.appendingPathComponent("fixtures/places")
        let builtIn = try EmulatorFixtures.builtIn()
        let files = try EmulatorFixtures.load(from: directory)
        #expect(builtIn.twitterPlaces == files.twitterPlaces)
        #expect(builtIn.facebookPages == files.facebookPages)
        #expect(!builtIn.twitterPlaces.isEmpty && !builtIn.facebookPages.isEmpty)
    }

    /// A places directory is checked beyond JSON's types before anything is served: positions on
    /// the Earth, unique ids, parents that are places, Twitter's place types — one error at the
    /// value's line and column. A latitude of 137 was served as it was.
    @Test(arguments: [
        (
            "twitter-places.json", "\"place_type\": \"city\"", "\"place_type\": \"galaxy\"",
            "place_type 'galaxy' is not one of Twitter's"
        ),
        ("twitter-places.json", "-122.0", "-925.0", "longitude -925"),
        ("twitter-places.json", "\"parent\": null", "\"parent\": \"nowhere\"", "parent 'nowhere' is no place's id"),
        ("facebook-pages.json", "\"latitude\": 37.", "\"latitude\": 137.", "latitude 137."),
        // A black-box hunt: the places reader took what every other JSON reader refuses, and
        // gave no reason (or no position) for what it refused.
        ("twitter-places.json", "\"parent\": null", "\"parent\": null,}", "not JSON (RFC 8259): a comma before '}'"),
        (
            "twitter-places.json", "\"parent\": null", "\"parent\": null, \"parent\": null",
            "the key 'parent' is given twice"
        ),
        ("twitter-places.json", "-122.0", "-1e400", "a number past what a double holds"),
        (
            "twitter-places.json", "\"type\": \"Polygon\"", "\"type\": \"Point\"",
            "a bounding box is a Polygon, not 'Point'"
        ),
        ("facebook-pages.json", "\"id\": \"1001\"", "\"id\": \"\"", "an id is not empty"),
        ("facebook-pages.json", "\"latitude\": 37.", "\"latitude\": \"0x25\", \"x\": 37.", "'0x25' is not a number"),
    ])
    func placesFilesAreCheckedBeforeTheyAreServed(_ file: String, _ from: String, _ to: String, _ message: String)
        throws
    {
        let source = Corpus.repositoryRoot.appendingPathComponent("fixtures/places")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("places-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: source, to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent(file)
        let text = try String(contentsOf: url, encoding: .utf8)
        let range = try #require(text.range(of: from))
        try text.replacingCharacters(in: range, with: to).write(to: url, atomically: true, encoding: .utf8)
        let line = text[..<range.lowerBound].count { $0 == "\n" } + 1
        do {
            _ = try EmulatorFixtures.load(from: directory)
            Issue.record("\(file) with \(to) was loaded")
        } catch {
            #expect(error.description.hasPrefix("\(url.path):\(line):"), "\(error)")
            #expect(error.description.contains(message), "\(error)")
        }
    }
}

extension BuiltInPlacesTests {
    /// A hunt: parents in a circle were served — a country `contained_within` its own state.
    @Test func placesWhoseParentsGoRoundAreRefused() throws {
        let source = Corpus.repositoryRoot.appendingPathComponent("fixtures/places")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("places-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: source, to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("twitter-places.json")
        var root = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var places = try #require(root["places"] as? [[String: Any]])
        let country = try #require(places.firstIndex { $0["place_type"] as? String == "country" })
        let admin = try #require(places.firstIndex { $0["parent"] as? String == places[country]["id"] as? String })
        places[country]["parent"] = places[admin]["id"]
        root["places"] = places
        try JSONSerialization.data(withJSONObject: root).write(to: url)
        #expect(throws: EmulatorFixtures.LoadError.self) { try EmulatorFixtures.load(from: directory) }
        do {
            _ = try EmulatorFixtures.load(from: directory)
        } catch {
            #expect(error.description.contains("parents go round in a circle: "), "\(error)")
        }
        // A directory where a file should be is missing input (66), as for every other file.
        try FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        do {
            _ = try EmulatorFixtures.load(from: directory)
            Issue.record("a directory was read as the places")
        } catch {
            #expect(error.isMissing && error.description.contains("is a directory"), "\(error)")
        }
    }
}

extension EmulatorTests {
    /// The in-memory transport hands the emulator what a server reads off the wire: the path and
    /// query still percent-encoded, the host with its port — the same entry a socket's request
    /// makes (the host apart: the loopback server's own).
    @Test func theInMemoryTransportReadsAURLAsTheServerDoes() async throws {
        let url = try #require(
            URL(string: "http://emulator.invalid:8080/1.1/geo/id/caf%C3%A9%2Fx.json?q=a%26b&r=%C3%A9+1&s"))
        var entries: [JournalEntry] = []
        for loopback in [false, true] {
            try await withEmulator(loopback: loopback) { emulator, core in
                let onWire = url.path(percentEncoded: true) + "?" + (url.query(percentEncoded: true) ?? "")
                let target = loopback ? try #require(URL(string: onWire, relativeTo: emulator.baseURL)) : url
                _ = try await emulator.transport.send(HTTPRequestSpec(method: "GET", url: target.absoluteURL))
                entries += await core.journal
            }
        }
        try #require(entries.count == 2)
        #expect(entries[0].headers["host"] == "emulator.invalid:8080")
        #expect(entries[0].path == "/1.1/geo/id/caf%C3%A9%2Fx.json")
        #expect(entries[0].parameters == ["q": "a&b", "r": "é 1", "s": ""])
        #expect(entries[1].path == entries[0].path && entries[1].parameters == entries[0].parameters)
        #expect(entries[1].status == entries[0].status)
    }
}
