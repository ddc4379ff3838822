import Foundation
import SocialAPI
import TestSupport
import Testing

@testable import SocialEmulator

/// OAuth 1.0a wherever RFC 5849 §3.5 lets a client put it: the `Authorization` header, the
/// query string (§3.5.2) or a form body (§3.5.3). Twitter accepted all three, and Python
/// Twitter Tools, Net::Twitter::Lite and liboauth clients sign into the query or the body; the
/// emulator must verify them alike, answer the same errors, and keep the protocol parameters
/// out of the endpoint's own parameters and the signature out of the journal.
struct OAuthTransportTests {
    static let credentials = EmulatorTests.demoTwitter
    static let origin = "http://127.0.0.1:8080"

    /// A request signed as a client signing into `transport` sends it: the protocol parameters
    /// in the header, appended to the query, or appended to the form body.
    static func signed(
        _ method: String, _ path: String, query: String = "", form: String = "", transport: OAuth1Transport,
        credentials: OAuth1Credentials = credentials, nonce: String = OAuth1Signer.randomNonce(),
        timestamp: Int = Int(Date().timeIntervalSince1970)
    ) throws -> EmulatorRequest {
        let url = try #require(URL(string: origin + path + (query.isEmpty ? "" : "?" + query)))
        let formPairs = try #require(PercentEncoding.pairs(form, plusIsSpace: true))
        let signature = OAuth1Signer(credentials: credentials).sign(
            OAuth1Request(method: method, url: url, formParameters: formPairs), nonce: nonce, timestamp: timestamp)
        var headers = ["host": "127.0.0.1:8080"]
        var query = query
        var body = form
        switch transport {
        case .header: headers["authorization"] = signature.authorizationHeader
        case .query: query = Self.joined(query, signature.formEncodedProtocolParameters)
        case .body: body = Self.joined(form, signature.formEncodedProtocolParameters)
        }
        if !body.isEmpty { headers["content-type"] = "application/x-www-form-urlencoded" }
        return EmulatorRequest(method: method, path: path, query: query, headers: headers, body: Data(body.utf8))
    }

    static func joined(_ parts: String...) -> String {
        parts.filter { !$0.isEmpty }.joined(separator: "&")
    }

    static func core() throws -> EmulatorCore {
        EmulatorCore(fixtures: try EmulatorFixtures.shipped(root: Corpus.repositoryRoot))
    }

    static func answer(_ response: EmulatorResponse) -> String {
        "\(response.status) \(String(decoding: response.body, as: UTF8.self))"
    }

    /// Twitter's error as `status/code`, e.g. `401/32`.
    static func error(_ response: EmulatorResponse) throws -> String {
        "\(response.status)/\(try WireTests.twitterCode(response) ?? 0)"
    }

    /// A located status update and a credentials check, each in every transport (a GET has no
    /// body, so its body case is a POST that takes one): verified, the status posted with its
    /// point and nothing else, and the protocol parameters journaled with the signature redacted.
    @Test(arguments: OAuth1Transport.allCases)
    func everyTransportVerifies(_ transport: OAuth1Transport) async throws {
        let core = try Self.core()
        let form = "status=Signed+in+the+\(transport.rawValue)%2C+caf%C3%A9&lat=37.3236&long=-122.0315"
        let posted = await core.handle(
            try Self.signed("POST", "/1.1/statuses/update.json", form: form, transport: transport))
        #expect(posted.status == 200, "\(Self.answer(posted))")
        let tweet = try WireTests.object(posted)
        #expect(tweet["text"] as? String == "Signed in the \(transport.rawValue), café")
        #expect((tweet["coordinates"] as? [String: Any])?["coordinates"] as? [Double] == [-122.0315, 37.3236])
        let entry = try #require(await core.journal.last)
        #expect(entry.parameters["status"] == "Signed in the \(transport.rawValue), café")
        if transport == .header {
            #expect(entry.parameters.keys.allSatisfy { !$0.hasPrefix("oauth_") })
            #expect(entry.headers["authorization"]?.contains(#"oauth_signature="REDACTED""#) == true)
        } else {
            #expect(entry.parameters["oauth_signature"] == "REDACTED")
            #expect(entry.parameters["oauth_token"] == Self.credentials.token)
            #expect(entry.headers["authorization"] == nil)
        }
        let text = String(decoding: try JSONEncoder().encode(await core.journal), as: UTF8.self)
        #expect(!text.contains("waypost-demo-token-secret") && !text.contains("waypost-demo-consumer-secret"))

        // The request URL the geo endpoints echo is the client's, without the protocol parameters.
        let geo = await core.handle(
            try Self.signed(
                "GET", "/1.1/geo/reverse_geocode.json", query: "lat=37.3236&long=-122.0315&granularity=poi",
                transport: transport == .body ? .query : transport))
        #expect(geo.status == 200, "\(Self.answer(geo))")
        let echoed = try #require((try WireTests.object(geo)["query"] as? [String: Any])?["url"] as? String)
        #expect(echoed == Self.origin + "/1.1/geo/reverse_geocode.json?lat=37.3236&long=-122.0315&granularity=poi")

        let method = transport == .body ? "POST" : "GET"
        let verified = await core.handle(
            try Self.signed(method, "/1.1/account/verify_credentials.json", transport: transport))
        if transport == .body {
            // Twitter's verify_credentials is a GET: the POST verifies, then is told the method
            // the endpoint takes (code 86; it was 404/34, a page that does not exist).
            #expect(try Self.error(verified) == "403/86", "\(Self.answer(verified))")
            #expect(Self.answer(verified).contains("This method requires a GET or HEAD."))
            let read = await core.handle(try Self.signed("GET", "/1.1/statuses/update.json", transport: .query))
            #expect(try Self.error(read) == "403/86" && Self.answer(read).contains("This method requires a POST."))
            let nowhere = await core.handle(try Self.signed("GET", "/1.1/statuses/nowhere.json", transport: .query))
            #expect(try Self.error(nowhere) == "404/34", "\(Self.answer(nowhere))")
        } else {
            #expect(verified.status == 200, "\(Self.answer(verified))")
            #expect(try WireTests.object(verified)["screen_name"] as? String == "waypost_demo")
        }
    }

    /// The query and the body may both hold the request's own parameters while one of them
    /// holds the protocol parameters: all are signed (§3.4.1.3.1).
    @Test(arguments: [OAuth1Transport.query, .body])
    func queryAndBodyParametersAreSignedWhereverTheProtocolParametersAre(_ transport: OAuth1Transport)
        async throws
    {
        let core = try Self.core()
        let request = try Self.signed(
            "POST", "/1.1/statuses/update.json", query: "lat=37.3236&long=-122.0315&realm=mine",
            form: "status=Both+places+%2B+realm", transport: transport)
        let posted = await core.handle(request)
        #expect(posted.status == 200, "\(Self.answer(posted))")
        #expect(try WireTests.object(posted)["text"] as? String == "Both places + realm")
    }

    /// Twitter's answers do not depend on where the credentials came: a wrong consumer secret
    /// or a tampered request 401/32, an unknown token 401/89, a stale timestamp 401/135, a
    /// replayed nonce 401/32, an unknown consumer 401/32.
    @Test(arguments: OAuth1Transport.allCases)
    func errorsAreTheSameInEveryTransport(_ transport: OAuth1Transport) async throws {
        let core = try Self.core()
        let method = transport == .body ? "POST" : "GET"
        let path = transport == .body ? "/1.1/statuses/update.json" : "/1.1/account/verify_credentials.json"
        let form = transport == .body ? "status=Errors+alike" : ""
        func send(
            credentials: OAuth1Credentials = Self.credentials, nonce: String = OAuth1Signer.randomNonce(),
            skew: Int = 0, tamper: (inout EmulatorRequest) -> Void = { _ in }
        ) async throws -> String {
            var request = try Self.signed(
                method, path, form: form, transport: transport, credentials: credentials, nonce: nonce,
                timestamp: Int(Date().timeIntervalSince1970) + skew)
            tamper(&request)
            return try Self.error(await core.handle(request))
        }
        var wrongSecret = Self.credentials
        wrongSecret.consumerSecret = "guess"
        #expect(try await send(credentials: wrongSecret) == "401/32")
        var wrongTokenSecret = Self.credentials
        wrongTokenSecret.tokenSecret = "guess"
        #expect(try await send(credentials: wrongTokenSecret) == "401/32")
        var unknownToken = Self.credentials
        unknownToken.token = "nobody"
        #expect(try await send(credentials: unknownToken) == "401/89")
        var unknownConsumer = Self.credentials
        unknownConsumer.consumerKey = "nobody"
        #expect(try await send(credentials: unknownConsumer) == "401/32")
        #expect(try await send(skew: 3600) == "401/135")
        #expect(try await send { $0.query = Self.joined($0.query, "extra=1") } == "401/32")
        _ = try await send(nonce: "once")
        #expect(try await send(nonce: "once") == "401/32")
    }

    /// RFC 5849 §3.5: a client uses one place; protocol parameters in two (header and query,
    /// header and body, query and body) or a name repeated in its place (§3.2) are Twitter's
    /// 400/215 "Bad Authentication data", even when every copy is correctly signed.
    @Test func protocolParametersInMoreThanOnePlaceAre215() async throws {
        let core = try Self.core()
        let path = "/1.1/statuses/update.json"
        func answer(_ request: EmulatorRequest) async throws -> String { try Self.error(await core.handle(request)) }

        var headerAndQuery = try Self.signed("POST", path, form: "status=One", transport: .header)
        let queryCopy = try Self.signed("POST", path, form: "status=One", transport: .query)
        headerAndQuery.query = queryCopy.query
        #expect(try await answer(headerAndQuery) == "400/215")

        var headerAndBody = try Self.signed("POST", path, form: "status=Two", transport: .body)
        headerAndBody.headers["authorization"] =
            try Self.signed("POST", path, form: "status=Two", transport: .header).headers["authorization"]
        #expect(try await answer(headerAndBody) == "400/215")

        var queryAndBody = try Self.signed("POST", path, form: "status=Three", transport: .body)
        queryAndBody.query = "oauth_token=\(Self.credentials.token ?? "")"
        #expect(try await answer(queryAndBody) == "400/215")

        // A single stray oauth_ parameter beside the header is a second place too.
        var stray = try Self.signed("GET", "/1.1/account/verify_credentials.json", transport: .header)
        stray.query = "oauth_callback=oob"
        #expect(try await answer(stray) == "400/215")

        var repeated = try Self.signed("GET", "/1.1/account/verify_credentials.json", transport: .query)
        repeated.query += "&oauth_nonce=again"
        #expect(try await answer(repeated) == "400/215")

        // An OAuth header that cannot be read does not give way to the query's parameters.
        var unreadable = try Self.signed("GET", "/1.1/account/verify_credentials.json", transport: .query)
        unreadable.headers["authorization"] = "OAuth oauth_nonce"
        #expect(try await answer(unreadable) == "400/215")

        // Missing pieces are bad data wherever they are missing from.
        let incomplete = EmulatorRequest(
            method: "GET", path: "/1.1/account/verify_credentials.json", query: "oauth_consumer_key=k",
            headers: ["host": "127.0.0.1:8080"])
        #expect(try await answer(incomplete) == "400/215")

        // The emulator still verifies a well-formed request after all that.
        let fine = await core.handle(try Self.signed("GET", "/1.1/account/verify_credentials.json", transport: .query))
        #expect(fine.status == 200, "\(Self.answer(fine))")
    }

    /// A body that is not a form is not where protocol parameters can be (§3.5.2 requires
    /// `application/x-www-form-urlencoded`): oauth_* in a JSON body is no authentication.
    @Test func protocolParametersInABodyThatIsNotAFormAreNotRead() async throws {
        let core = try Self.core()
        var request = try Self.signed("POST", "/1.1/statuses/update.json", form: "status=Json", transport: .body)
        request.headers["content-type"] = "application/json"
        #expect(try Self.error(await core.handle(request)) == "400/215")
    }

    /// The endpoint's parameters are the request's own: protocol parameters are signed but
    /// dropped before the endpoint reads them.
    @Test func protocolParametersAreNotTheEndpointsParameters() throws {
        let request = try Self.signed(
            "POST", "/1.1/statuses/update.json", query: "lat=1", form: "status=Own", transport: .body)
        let parameters = try #require(RequestParameters(request))
        #expect(parameters.pairs.contains { $0.name == "oauth_signature" })
        let own = parameters.withoutProtocolParameters
        #expect(own.pairs.map(\.name) == ["lat", "status"])
        #expect(own.form.map(\.name) == ["status"])
        #expect(own.query.map(\.name) == ["lat"])
        let located = try #require(
            OAuthProtocolParameters(authorization: request.headers["authorization"], parameters: parameters))
        #expect(located.transport == .body && !located.isAmbiguous)
        #expect(located.headerParameters.isEmpty)
        #expect(located["oauth_consumer_key"] == Self.credentials.consumerKey)
    }

    /// The query a geo answer echoes loses only the protocol parameters, whichever way a name is
    /// spelled, and comes back byte for byte otherwise (the path that splits it, and the one that
    /// returns a query with no `oauth_` and no escape as it came, agree).
    @Test func echoedQueriesLoseOnlyProtocolParameters() {
        let cases: [(query: String, echoed: String)] = [
            ("lat=37.3&long=-122.0&granularity=poi", "lat=37.3&long=-122.0&granularity=poi"),
            ("lat=1&oauth_token=t&long=2&oauth_signature=s%3D", "lat=1&long=2"),
            ("%6Fauth_nonce=n&lat=1", "lat=1"),
            ("query=Caf%C3%A9&&lat=1&", "query=Caf%C3%A9&&lat=1&"),
            ("a=1&\u{301}b=2&oauth", "a=1&\u{301}b=2&oauth"),
            ("", ""),
        ]
        for (query, echoed) in cases {
            #expect(RequestParameters.queryWithoutProtocolParameters(query) == echoed, "\(query)")
        }
    }

    /// The `Authorization` header read as RFC 5849 §3.5.1 writes it — `name="value"` pairs split
    /// at commas, blanks around a pair tolerated, quotes taken off, values percent-decoded — and
    /// what it refuses: a pair without `=`, a malformed escape, another scheme. A name given twice
    /// is kept (the last value) and marked, for the 400 §3.2 asks.
    @Test func theAuthorizationHeaderIsReadPairByPair() throws {
        let header = try #require(
            OAuthHeader(#"OAuth realm="x", oauth_nonce="a%20b" ,,\#toauth_version=1.0 , oauth_token="""#))
        #expect(header.parameters == ["realm": "x", "oauth_nonce": "a b", "oauth_version": "1.0", "oauth_token": ""])
        #expect(!header.hasDuplicate)
        let twice = try #require(OAuthHeader(#"oauth a="1",a="2""#))
        #expect(twice.hasDuplicate && twice["a"] == "2")
        #expect(OAuthHeader(#"OAuth a ="1""#)?["a "] == "1")  // the name is what stands before `=`
        #expect(OAuthHeader(#"OAuth a=""#)?["a"] == "\"")  // one quote is not a quoted value
        for refused in [#"OAuth a"#, #"OAuth a="%zz""#, #"OAuth a="1", b"#, #"Basic YTpi"#, "OAuth"] {
            #expect(OAuthHeader(refused) == nil, "\(refused)")
        }
    }
}
