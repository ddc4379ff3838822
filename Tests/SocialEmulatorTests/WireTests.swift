import Foundation
import SocialAPI
import SocialEmulator
import TestSupport
import Testing

/// What real clients read off the wire: Twitter's and Graph's shapes, parameter rules and
/// errors, checked on the raw JSON the emulator answers (not through our own models, which
/// ignore fields they do not need). Sources: Twitter's v1.1 API reference (data dictionary,
/// "Response codes", the endpoint pages), RFC 5849, Graph API "Paginated results" and
/// "Handling errors". The real client libraries run in Tests/ClientConformance.
struct WireTests {
    static let credentials = EmulatorTests.demoTwitter
    static let origin = "http://127.0.0.1:8080"

    /// A request signed as a client would sign it, for `core.handle`.
    static func signed(
        _ method: String, _ path: String, query: String = "", form: String = "",
        credentials: OAuth1Credentials = credentials, nonce: String = OAuth1Signer.randomNonce(),
        extraHeader: String = ""
    ) throws -> EmulatorRequest {
        let url = try #require(URL(string: origin + path + (query.isEmpty ? "" : "?" + query)))
        let formPairs = try #require(PercentEncoding.pairs(form, plusIsSpace: true))
        let signature = OAuth1Signer(credentials: credentials).sign(
            OAuth1Request(method: method, url: url, formParameters: formPairs), nonce: nonce,
            timestamp: Int(Date().timeIntervalSince1970))
        var headers = ["host": "127.0.0.1:8080", "authorization": signature.authorizationHeader + extraHeader]
        if !form.isEmpty { headers["content-type"] = "application/x-www-form-urlencoded" }
        return EmulatorRequest(method: method, path: path, query: query, headers: headers, body: Data(form.utf8))
    }

    static func object(_ response: EmulatorResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    static func twitterCode(_ response: EmulatorResponse) throws -> Int? {
        ((try object(response)["errors"] as? [[String: Any]])?.first?["code"] as? NSNumber)?.intValue
    }

    static func core() throws -> EmulatorCore {
        EmulatorCore(fixtures: try EmulatorFixtures.shipped(root: Corpus.repositoryRoot))
    }

    // MARK: - Twitter objects

    /// Twitter's data dictionary: `id` (Int64) and `id_str`, `created_at` as
    /// "Wed Oct 10 20:19:24 +0000 2018", and `coordinates`, `geo`, `place` nullable but present.
    @Test func tweetsCarryEveryFieldClientsReadInTwittersShape() async throws {
        let core = try Self.core()
        let posted = await core.handle(
            try Self.signed(
                "POST", "/1.1/statuses/update.json",
                form: "status=Hello+%23coffee+%40waypost_demo+https%3A%2F%2Fexample.com%2Fa"))
        #expect(posted.status == 200)
        let tweet = try Self.object(posted)
        let id = try #require(tweet["id"] as? NSNumber)
        #expect(tweet["id_str"] as? String == id.stringValue)
        #expect(id.int64Value > 1 << 53, "snowflake-sized: clients must read id_str")
        let created = try #require(tweet["created_at"] as? String)
        #expect(created.wholeMatch(of: /[A-Z][a-z]{2} [A-Z][a-z]{2} \d\d \d\d:\d\d:\d\d \+0000 \d{4}/) != nil)
        for key in ["coordinates", "geo", "place", "in_reply_to_status_id", "in_reply_to_user_id", "contributors"] {
            #expect(tweet[key] is NSNull, "\(key) present as null")
        }
        // Every link comes back wrapped in a t.co link ("t.co link wrapper", all links since 2011).
        let text = try #require(tweet["text"] as? String)
        #expect(text.wholeMatch(of: /Hello #coffee @waypost_demo https:\/\/t\.co\/[0-9A-Za-z]{10}/) != nil, "\(text)")
        #expect(tweet["truncated"] as? Bool == false)
        #expect((tweet["source"] as? String)?.contains("waypost-demo-consumer") == true)
        let entities = try #require(tweet["entities"] as? [String: Any])
        #expect((entities["hashtags"] as? [[String: Any]])?.first?["text"] as? String == "coffee")
        #expect((entities["hashtags"] as? [[String: Any]])?.first?["indices"] as? [Int] == [6, 13])
        // A user mention object: screen_name, name, id, id_str, indices (Twitter's data dictionary).
        let mention = try #require((entities["user_mentions"] as? [[String: Any]])?.first)
        #expect(mention["screen_name"] as? String == "waypost_demo" && mention["id_str"] as? String == "1001")
        #expect(mention["id"] as? Int == 1001 && mention["name"] as? String == "Waypost Demo")
        let link = try #require((entities["urls"] as? [[String: Any]])?.first)
        #expect(link["url"] as? String == String(text.suffix(23)) && link["indices"] as? [Int] == [28, 51])
        #expect(
            link["expanded_url"] as? String == "https://example.com/a"
                && link["display_url"] as? String == "example.com/a")
        let user = try #require(tweet["user"] as? [String: Any])
        #expect((user["id"] as? NSNumber)?.int64Value == 1001)
        #expect(user["id_str"] as? String == "1001")
        #expect(user["screen_name"] as? String == "waypost_demo")
        #expect(user["name"] as? String == "Waypost Demo")
        #expect(user["geo_enabled"] as? Bool == true)
        #expect(user["url"] is NSNull && user["statuses_count"] as? Int == 1)
    }

    /// `trim_user`: "When set to either true, t or 1, each Tweet returned … will include a user
    /// object including only the status authors numerical ID".
    /// Twitter answered a tweet's text with `&`, `<` and `>` as HTML entities and nothing else
    /// escaped (twittercommunity.com/t/68810: `&lt;script&gt;` in `text`, quotes as typed), and
    /// counted the entities' indices in that text (Twitter4J#349, Penicillin#36): a client slicing
    /// `text` by them finds the token. A `&lt;` the user typed comes back as `&amp;lt;`; a link
    /// comes back wrapped in a t.co link, its own URL (with its `&`) as `expanded_url`, its
    /// `display_url` without scheme or `www.`, cut at 26 characters with "…" (Twitter's Field
    /// Guide: `youtube.com/watch?v=oHg5SJ…`).
    @Test func tweetTextComesBackHTMLEscapedWithIndicesIntoIt() async throws {
        let core = try Self.core()
        let posted = try Self.object(
            await core.handle(
                try Self.signed(
                    "POST", "/1.1/statuses/update.json",
                    form: "status="
                        + PercentEncoding.encode(
                            "1 < 2 & \"3 > 2\" &lt; #coffee @waypost_demo http://www.youtube.com/watch?v=oHg5SJYRHA0&t=1 <3"
                        ))
            ))
        let text = try #require(posted["text"] as? String)
        let entities = try #require(posted["entities"] as? [String: Any])
        let link = try #require((entities["urls"] as? [[String: Any]])?.first)
        let tco = try #require(link["url"] as? String)
        #expect(tco.wholeMatch(of: /https:\/\/t\.co\/[0-9A-Za-z]{10}/) != nil)
        #expect(text == "1 &lt; 2 &amp; \"3 &gt; 2\" &amp;lt; #coffee @waypost_demo \(tco) &lt;3")
        let scalars = Array(text.unicodeScalars)
        for (key, token) in [("hashtags", "#coffee"), ("user_mentions", "@waypost_demo"), ("urls", tco)] {
            let indices = try #require((entities[key] as? [[String: Any]])?.first?["indices"] as? [Int])
            #expect(String(String.UnicodeScalarView(scalars[indices[0]..<indices[1]])) == token, "\(key)")
        }
        #expect(link["expanded_url"] as? String == "http://www.youtube.com/watch?v=oHg5SJYRHA0&t=1")
        #expect(link["display_url"] as? String == "youtube.com/watch?v=oHg5SJ…")
        // The client reads it back as written.
        let tweet = try JSONDecoder().decode(Tweet.self, from: JSONSerialization.data(withJSONObject: posted))
        #expect(
            tweet.writtenText
                == "1 < 2 & \"3 > 2\" &lt; #coffee @waypost_demo http://www.youtube.com/watch?v=oHg5SJYRHA0&t=1 <3")
    }

    @Test func trimUserAndIncludeEntitiesFollowTwittersBooleans() async throws {
        let core = try Self.core()
        let trimmed = try Self.object(
            await core.handle(
                try Self.signed(
                    "POST", "/1.1/statuses/update.json", form: "status=one&trim_user=t&include_entities=false")))
        #expect((trimmed["user"] as? [String: Any]).map { Set($0.keys) } == ["id", "id_str"])
        #expect(trimmed["entities"] == nil)
        let full = try Self.object(
            await core.handle(try Self.signed("POST", "/1.1/statuses/update.json", form: "status=two&trim_user=False")))
        #expect((full["user"] as? [String: Any])?["screen_name"] as? String == "waypost_demo")
    }

    /// The privacy bug real clients found: tweepy and python-twitter send `display_coordinates=False`.
    /// Twitter's booleans are true only as true, t or 1; anything else keeps the point off the tweet.
    @Test(arguments: [
        ("False", false), ("false", false), ("0", false), ("no", false), ("f", false), ("", false),
        ("true", true), ("True", true), ("t", true), ("1", true),
    ])
    func displayCoordinatesIsTrueOnlyForTwittersTrueSpellings(_ value: String, _ shown: Bool) async throws {
        let core = try Self.core()
        let answer = await core.handle(
            try Self.signed(
                "POST", "/1.1/statuses/update.json",
                form: "status=here&lat=37.3236&long=-122.0315&display_coordinates=\(value)"))
        let tweet = try Self.object(answer)
        #expect((tweet["coordinates"] is NSNull) == !shown)
        #expect((tweet["geo"] is NSNull) == !shown)
        if shown {
            #expect((tweet["coordinates"] as? [String: Any])?["coordinates"] as? [Double] == [-122.0315, 37.3236])
            #expect((tweet["geo"] as? [String: Any])?["coordinates"] as? [Double] == [37.3236, -122.0315])
        }
        // What the user's timeline shows afterwards is the same.
        let timeline = try #require(
            try JSONSerialization.jsonObject(
                with: await core.handle(try Self.signed("GET", "/1.1/statuses/user_timeline.json")).body)
                as? [[String: Any]])
        #expect((timeline.first?["coordinates"] is NSNull) == !shown)
    }

    /// statuses/update: lat "will be ignored unless it is inside the range -90.0 to +90.0 …
    /// It will also be ignored if there is no corresponding long parameter."
    @Test func outOfRangeOrLoneCoordinatesAreIgnored() async throws {
        let core = try Self.core()
        for form in ["status=a&lat=91&long=-122", "status=b&lat=37.3", "status=c&lat=north&long=-122"] {
            let tweet = try Self.object(
                await core.handle(try Self.signed("POST", "/1.1/statuses/update.json", form: form)))
            #expect(tweet["coordinates"] is NSNull, "\(form)")
        }
    }

    /// Emulators made from one fixture set share their places' encodings and index (a scenario's
    /// trials make one each); a copy whose places changed answers with its own, never the cached ones.
    @Test func placeCacheFollowsTheFixturesItCameFrom() async throws {
        let shipped = try EmulatorFixtures.shipped(root: Corpus.repositoryRoot)
        var renamed = shipped
        let index = try #require(renamed.twitterPlaces.firstIndex { $0.id == "e1a2b3c4d5e6f701" })
        renamed.twitterPlaces[index].place.name = "Renamed Roasters"
        func names(_ fixtures: EmulatorFixtures) async throws -> [String] {
            let answer = try Self.object(
                await EmulatorCore(fixtures: fixtures).handle(
                    try Self.signed(
                        "GET", "/1.1/geo/reverse_geocode.json", query: "lat=37.3236&long=-122.0315&granularity=poi")))
            let places = (answer["result"] as? [String: Any])?["places"] as? [[String: Any]] ?? []
            return places.compactMap { $0["name"] as? String }
        }
        let original = try await names(shipped)
        #expect(!original.contains("Renamed Roasters") && !original.isEmpty)
        #expect(try await names(renamed).contains("Renamed Roasters"), "the cached encoding of the old name")
        #expect(try await names(shipped) == original, "another emulator of the same fixtures")
        var removed = shipped
        removed.twitterPlaces.remove(at: index)
        #expect(try await names(removed) == original.filter { $0 != shipped.twitterPlaces[index].name })

        // Graph's pages likewise.
        func pageNames(_ fixtures: EmulatorFixtures) async throws -> [String] {
            let answer = try Self.object(
                await EmulatorCore(fixtures: fixtures).handle(
                    EmulatorRequest(
                        method: "GET", path: "/search",
                        query: "type=place&center=37.3236,-122.0315&distance=50000&limit=100"
                            + "&access_token=waypost-demo-graph-token")))
            return (answer["data"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        }
        let pages = try await pageNames(shipped)
        var renamedPage = shipped
        let page = try #require(renamedPage.facebookPages.firstIndex { $0.name == pages.first })
        renamedPage.facebookPages[page].name = "Renamed Page"
        #expect(try await pageNames(renamedPage).first == "Renamed Page", "the cached encoding of the old name")
        #expect(try await pageNames(shipped) == pages, "another emulator of the same fixtures")
    }

    /// Places: an absolute `url` to geo/id, `attributes`, the bounding box, `contained_within`;
    /// geo answers with Twitter's `query` object beside `result`.
    @Test func geoAnswersCarryTwittersQueryObjectAndPlaceShape() async throws {
        let core = try Self.core()
        let answer = try Self.object(
            await core.handle(
                try Self.signed(
                    "GET", "/1.1/geo/reverse_geocode.json", query: "lat=37.3236&long=-122.0315&granularity=poi")))
        let query = try #require(answer["query"] as? [String: Any])
        #expect(query["type"] as? String == "reverse_geocode")
        #expect((query["url"] as? String)?.hasPrefix("\(Self.origin)/1.1/geo/reverse_geocode.json?") == true)
        let params = try #require(query["params"] as? [String: Any])
        #expect(params["granularity"] as? String == "poi")
        #expect((params["coordinates"] as? [String: Any])?["coordinates"] as? [Double] == [-122.0315, 37.3236])
        let places = try #require((answer["result"] as? [String: Any])?["places"] as? [[String: Any]])
        let cafe = try #require(places.first)
        #expect(cafe["url"] as? String == "\(Self.origin)/1.1/geo/id/e1a2b3c4d5e6f701.json")
        #expect(cafe["attributes"] as? [String: String] == [:])
        #expect((cafe["bounding_box"] as? [String: Any])?["type"] as? String == "Polygon")
        #expect(((cafe["contained_within"] as? [[String: Any]])?.first)?["place_type"] as? String == "neighborhood")
        // geo/search without granularity assumes neighborhood: no venues.
        let search = try Self.object(
            await core.handle(try Self.signed("GET", "/1.1/geo/search.json", query: "query=Stevens+Creek")))
        #expect(
            ((search["query"] as? [String: Any])?["params"] as? [String: Any])?["granularity"] as? String
                == "neighborhood")
        let detail = try Self.object(
            await core.handle(try Self.signed("GET", "/1/geo/id/e1a2b3c4d5e6f701.json")))
        #expect(detail["url"] as? String == "\(Self.origin)/1/geo/id/e1a2b3c4d5e6f701.json")
        #expect((detail["centroid"] as? [Double])?.count == 2 && detail["geometry"] is NSNull)
    }

    // MARK: - Endpoints

    @Test func statusesShowAndDestroyAsTwitterAnswered() async throws {
        let core = try Self.core()
        let posted = try Self.object(
            await core.handle(try Self.signed("POST", "/1.1/statuses/update.json", form: "status=mine")))
        let id = try #require(posted["id_str"] as? String)
        let byPath = await core.handle(try Self.signed("GET", "/1.1/statuses/show/\(id).json"))
        let byQuery = await core.handle(try Self.signed("GET", "/1.1/statuses/show.json", query: "id=\(id)"))
        #expect(try Self.object(byPath)["text"] as? String == "mine")
        #expect(byPath.body == byQuery.body)
        #expect(try Self.twitterCode(await core.handle(try Self.signed("GET", "/1.1/statuses/show/42.json"))) == 144)
        // Someone else's tweet cannot be deleted: 403/183.
        await core.control(
            "POST", "/__waypost/twitter/users", "user_id=1002&screen_name=other&token=t2&token_secret=s2")
        let other = OAuth1Credentials(
            consumerKey: Self.credentials.consumerKey, consumerSecret: Self.credentials.consumerSecret, token: "t2",
            tokenSecret: "s2")
        let refused = await core.handle(try Self.signed("POST", "/1.1/statuses/destroy/\(id).json", credentials: other))
        #expect(try refused.status == 403 && Self.twitterCode(refused) == 183)
        let destroyed = await core.handle(try Self.signed("POST", "/1.1/statuses/destroy/\(id).json"))
        #expect(try destroyed.status == 200 && Self.object(destroyed)["id_str"] as? String == id)
        #expect(try Self.twitterCode(await core.handle(try Self.signed("GET", "/1.1/statuses/show/\(id).json"))) == 144)
        // Deleted, the same text may be posted again.
        #expect(
            await core.handle(try Self.signed("POST", "/1.1/statuses/update.json", form: "status=mine")).status == 200)
    }

    @Test func usersShowAndVerifyCredentialsEmbedTheLatestStatus() async throws {
        let core = try Self.core()
        _ = await core.handle(try Self.signed("POST", "/1.1/statuses/update.json", form: "status=latest"))
        let user = try Self.object(
            await core.handle(try Self.signed("GET", "/1.1/users/show.json", query: "screen_name=Waypost_Demo")))
        #expect(user["id_str"] as? String == "1001")
        #expect((user["status"] as? [String: Any])?["text"] as? String == "latest")
        #expect((user["status"] as? [String: Any])?["user"] == nil)
        let skipped = try Self.object(
            await core.handle(try Self.signed("GET", "/1.1/account/verify_credentials.json", query: "skip_status=1")))
        #expect(skipped["status"] == nil && skipped["screen_name"] as? String == "waypost_demo")
        let missing = await core.handle(try Self.signed("GET", "/1.1/users/show.json", query: "screen_name=nobody"))
        #expect(try missing.status == 404 && Self.twitterCode(missing) == 50)
        let neither = await core.handle(try Self.signed("GET", "/1.1/users/show.json"))
        #expect(try neither.status == 403 && Self.twitterCode(neither) == 38)
    }

    /// `application/rate_limit_status` reports the same windows the endpoints enforce.
    @Test func rateLimitStatusReportsTheWindowsInForce() async throws {
        let core = try Self.core()
        for _ in 0..<2 {
            let answer = await core.handle(
                try Self.signed("GET", "/1.1/geo/reverse_geocode.json", query: "lat=37.3236&long=-122.0315"))
            #expect(answer.headers["x-rate-limit-limit"] == "15")
        }
        let status = try Self.object(
            await core.handle(
                try Self.signed("GET", "/1.1/application/rate_limit_status.json", query: "resources=geo,statuses")))
        let resources = try #require(status["resources"] as? [String: [String: [String: Int]]])
        #expect(Set(resources.keys) == ["geo", "statuses"])
        #expect(resources["geo"]?["/geo/reverse_geocode"]?["remaining"] == 13)
        #expect(resources["geo"]?["/geo/search"]?["remaining"] == 15)
        #expect(resources["statuses"]?["/statuses/user_timeline"]?["limit"] == 900)
    }

    // MARK: - OAuth on the wire

    /// RFC 5849 §3.4.1.3.1: the query is decoded as a form, so `+` and `%20` are both a space and
    /// sign alike; repeated and empty parameters, reserved and non-ASCII characters are kept.
    @Test(arguments: [
        "query=Stevens+Creek&granularity=poi", "query=Stevens%20Creek&granularity=poi",
        "query=Stevens+Creek&granularity=poi&x=1&x=2&empty=", "query=caf%C3%A9+%E2%98%95&granularity=poi",
        "query=%21%2A%27%28%29%3B%3A%40%26%3D%2B%24%2C%2F%3F%23%5B%5D&granularity=poi",
    ])
    func formEncodedQueriesVerify(_ query: String) async throws {
        let core = try Self.core()
        let answer = await core.handle(try Self.signed("GET", "/1.1/geo/search.json", query: query))
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        #expect(
            await core.journal.last?.parameters["query"]
                == PercentEncoding.pairs(query, plusIsSpace: true)?.first?.value)
    }

    @Test func plusAndPercentTwentySignTheSame() throws {
        let signer = OAuth1Signer(credentials: Self.credentials)
        let plus = signer.sign(
            OAuth1Request(method: "GET", url: try #require(URL(string: "http://h/x?q=a+b"))), nonce: "n", timestamp: 1)
        let percent = signer.sign(
            OAuth1Request(method: "GET", url: try #require(URL(string: "http://h/x?q=a%20b"))), nonce: "n", timestamp: 1
        )
        #expect(plus.baseString == percent.baseString)
        #expect(plus.baseString.contains("q%3Da%2520b"))
    }

    /// RFC 5849 §3.2: a repeated protocol parameter is a 400; unreadable parameters cannot be
    /// verified (401/32); both keep the emulator serving.
    @Test func malformedRequestsGetTheProvidersErrorObject() async throws {
        let core = try Self.core()
        let duplicate = await core.handle(
            try Self.signed("GET", "/1.1/account/verify_credentials.json", extraHeader: ", oauth_nonce=\"again\""))
        #expect(try duplicate.status == 400 && Self.twitterCode(duplicate) == 215)
        for query in ["q=%zz", "q=%FF%FE", "q=%"] {
            var request = try Self.signed("GET", "/1.1/geo/search.json")
            request.query = query
            let answer = await core.handle(request)
            #expect(try answer.status == 401 && Self.twitterCode(answer) == 32, "\(query)")
            let graph = await core.handle(EmulatorRequest(method: "GET", path: "/v3.1/search", query: query))
            #expect(graph.status == 400)
            #expect(((try Self.object(graph))["error"] as? [String: Any])?["code"] as? Int == 100)
        }
        let long = await core.handle(
            try Self.signed("GET", "/1.1/account/verify_credentials.json", nonce: String(repeating: "n", count: 300)))
        #expect(long.status == 401)
        #expect(await core.handle(try Self.signed("GET", "/1.1/account/verify_credentials.json")).status == 200)
    }

    @Test(arguments: ["count=1e300", "status=1e20", "ms=1e300", "sigma=1e300", "count=-1", "code=2.5"])
    func controlPlaneNumbersOutOfRangeAreRefusedNotFatal(_ field: String) async throws {
        let core = try Self.core()
        let answer = await core.control("POST", "/__waypost/faults", "kind=status&\(field)")
        #expect(answer.status == 400)
        #expect(await core.control("POST", "/__waypost/clock", "offset=1e300").status == 400)
    }

    // MARK: - Graph

    /// `GET /?ids=a,b` answers a map from id to object ("Multiple ID Read Requests"); an id asked
    /// for twice is one key (RFC 8259 §4: names unique; most readers keep only one).
    @Test func graphMultipleIDReadsAnswerEachIDOnce() async throws {
        let core = try Self.core()
        let answer = await core.handle(
            EmulatorRequest(
                method: "GET", path: "/", query: "ids=1001,1002,1001&access_token=waypost-demo-graph-token",
                headers: ["host": "127.0.0.1:8080"]))
        #expect(answer.status == 200)
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(text.components(separatedBy: #""1001":"#).count == 2, "one key for 1001: \(text)")
        #expect(try Set(Self.object(answer).keys) == ["1001", "1002"])
    }

    /// Graph "Paginated results": cursors and a `next` URL that, followed, walks the whole list;
    /// `previous` back. A forged cursor is Graph's 400/100, never a crash (a cursor decoding to
    /// -1 used to stop the emulator).
    @Test func graphPagingWalksTheWholeListByItsNextURLs() async throws {
        let core = try Self.core()
        let token = "access_token=waypost-demo-graph-token"
        var url: String? =
            "\(Self.origin)/v2.12/search?type=place&center=37.3236,-122.0315&distance=50000&limit=2&\(token)"
        var names: [String] = []
        var pages = 0
        while let next = url, pages < 20 {
            let components = try #require(URLComponents(string: next))
            let answer = await core.handle(
                EmulatorRequest(
                    method: "GET", path: components.percentEncodedPath, query: components.percentEncodedQuery ?? "",
                    headers: ["host": "127.0.0.1:8080"]))
            #expect(answer.status == 200)
            #expect(answer.headers["facebook-api-version"] == "v2.12")
            try Self.expectEncodedAsOneList(answer)
            let page = try Self.object(answer)
            names += (page["data"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            let paging = page["paging"] as? [String: Any]
            if pages > 0 { #expect(paging?["previous"] is String) }
            url = paging?["next"] as? String
            pages += 1
        }
        let whole = await core.handle(
            EmulatorRequest(
                method: "GET", path: "/search",
                query: "type=place&center=37.3236,-122.0315&distance=50000&limit=100&\(token)"))
        try Self.expectEncodedAsOneList(whole)
        let all = try Self.object(whole)
        let expected = (all["data"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(names == expected && expected.count > 2)
        let none = await core.handle(
            EmulatorRequest(method: "GET", path: "/search", query: "type=place&center=0,0&distance=10&\(token)"))
        #expect(String(decoding: none.body, as: UTF8.self) == #"{"data":[]}"#)
        for cursor in ["LTE%3D", "garbage", "d3A6OTk5OQ%3D%3D"] {
            let answer = await core.handle(
                EmulatorRequest(
                    method: "GET", path: "/search", query: "type=place&center=37.3,-122.0&after=\(cursor)&\(token)"))
            #expect(answer.status == 400)
            #expect(((try Self.object(answer))["error"] as? [String: Any])?["code"] as? Int == 100)
            #expect(answer.headers["facebook-api-version"] == "v3.1")
        }
    }

    /// A list's bytes are those `JSONEncoder` (keys sorted, slashes as sent) writes for the whole
    /// list, though the emulator writes each page's encoding, made once, into it.
    static func expectEncodedAsOneList(_ answer: EmulatorResponse) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let list = try JSONDecoder().decode(GraphList<GraphPage>.self, from: answer.body)
        #expect(!list.data.isEmpty)
        #expect(answer.body == (try encoder.encode(list)))
    }

    /// With a control token, the control plane over HTTP needs it; the in-process scripting
    /// (`control`) carries it; the providers' endpoints are unaffected.
    @Test func aControlTokenGuardsTheControlPlane() async throws {
        let core = EmulatorCore(
            fixtures: try EmulatorFixtures.shipped(root: Corpus.repositoryRoot), controlToken: "let-me-in")
        let anonymous = await core.handle(EmulatorRequest(method: "GET", path: "/__waypost/journal"))
        #expect(anonymous.status == 401)
        let wrong = await core.handle(
            EmulatorRequest(method: "POST", path: "/__waypost/reset", headers: ["x-waypost-control-token": "guess"]))
        #expect(wrong.status == 401)
        let right = await core.handle(
            EmulatorRequest(
                method: "GET", path: "/__waypost/journal", headers: ["x-waypost-control-token": "let-me-in"]))
        #expect(right.status == 200)
        #expect(await core.control("POST", "/__waypost/reset").status == 200)
        #expect(await core.handle(try Self.signed("GET", "/1.1/account/verify_credentials.json")).status == 200)
    }
}
