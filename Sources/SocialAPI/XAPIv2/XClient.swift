import Foundation
import SimulatedTime

/// How a v2 request is authorized: OAuth 1.0a user context (signed; a JSON body is not part of
/// the signature, RFC 5849 §3.4.1.3.1 signs form bodies only), or an OAuth 2.0 user-context
/// bearer token.
public enum XAuthorization: Sendable {
    case oauth1(OAuth1Signer)
    case bearer(String)
}

/// X API v2's Tweet endpoints: `POST /2/tweets`, `GET /2/tweets/:id`, `DELETE /2/tweets/:id`.
///
/// ```swift
/// let x = XClient(baseURL: URL(string: "http://127.0.0.1:8080/2/")!, authorization: .bearer(token))
/// let created = try await x.createTweet("Coffee ☕️", placeID: "df51dec6f4ee2b2c")
/// let lookup = try await x.tweet(id: created.id, expansions: ["geo.place_id"], placeFields: ["name"])
/// ```
public struct XClient: Sendable {
    /// Ends with the API version: `https://api.x.com/2/`.
    public var baseURL: URL
    public var authorization: XAuthorization
    public var transport: any HTTPTransport
    public var nonce: @Sendable () -> String
    /// The clock `oauth_timestamp` is read from (whole seconds since 1970): the wall clock, or a
    /// run's ``SimulatedClock`` against the in-process emulator.
    public var clock: any EpochClock

    public init(
        baseURL: URL, authorization: XAuthorization, transport: any HTTPTransport = AsyncHTTPClientTransport(),
        nonce: @escaping @Sendable () -> String = OAuth1Signer.randomNonce,
        clock: any EpochClock = WallClock()
    ) {
        self.baseURL = baseURL
        self.authorization = authorization
        self.transport = transport
        self.nonce = nonce
        self.clock = clock
    }

    /// Posts a Tweet; `placeID` goes as `geo.place_id`, the only location v2 takes.
    public func createTweet(_ text: String, placeID: String? = nil, inReplyTo: String? = nil)
        async throws(SocialAPIError) -> XCreatedTweet
    {
        struct Body: Encodable {
            struct Geo: Encodable {
                var place_id: String
            }
            struct Reply: Encodable {
                var in_reply_to_tweet_id: String
            }
            var text: String
            var geo: Geo?
            var reply: Reply?
        }
        let body = Body(
            text: text, geo: placeID.map { Body.Geo(place_id: $0) },
            reply: inReplyTo.map { Body.Reply(in_reply_to_tweet_id: $0) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json: Data
        do { json = try encoder.encode(body) } catch { throw .transport("cannot encode the Tweet: \(error)") }
        let answer: XData<XCreatedTweet> = try await send("POST", "tweets", query: [], json: json)
        return answer.data
    }

    /// One Tweet, with `expansions` (e.g. `geo.place_id`, `author_id`) and the fields asked for.
    public func tweet(
        id: String, expansions: [String] = [], tweetFields: [String] = [], placeFields: [String] = [],
        userFields: [String] = []
    ) async throws(SocialAPIError) -> XTweetLookup {
        var query: [(String, String)] = []
        if !expansions.isEmpty { query.append(("expansions", expansions.joined(separator: ","))) }
        if !tweetFields.isEmpty { query.append(("tweet.fields", tweetFields.joined(separator: ","))) }
        if !placeFields.isEmpty { query.append(("place.fields", placeFields.joined(separator: ","))) }
        if !userFields.isEmpty { query.append(("user.fields", userFields.joined(separator: ","))) }
        return try await send("GET", "tweets/\(PercentEncoding.encode(id))", query: query, json: nil)
    }

    /// Deletes one of the user's Tweets; whether it was deleted.
    public func deleteTweet(id: String) async throws(SocialAPIError) -> Bool {
        struct Deleted: Codable, Sendable {
            var deleted: Bool
        }
        let answer: XData<Deleted> = try await send(
            "DELETE", "tweets/\(PercentEncoding.encode(id))", query: [], json: nil)
        return answer.data.deleted
    }

    /// The authenticated user (`GET /2/users/me`), `protected` among the fields.
    public func me() async throws(SocialAPIError) -> XUser {
        let answer: XData<XUser> = try await send(
            "GET", "users/me", query: [("user.fields", "protected")], json: nil)
        return answer.data
    }

    private func send<T: Decodable>(_ method: String, _ path: String, query: [(String, String)], json: Data?)
        async throws(SocialAPIError) -> T
    {
        let encodedQuery = PercentEncoding.form(query)
        guard let url = RequestURL.resolve(path + (encodedQuery.isEmpty ? "" : "?" + encodedQuery), against: baseURL)
        else { throw .transport("bad URL for \(path)") }
        var headers = ["Accept": "application/json"]
        switch authorization {
        case .oauth1(let signer):
            headers["Authorization"] =
                signer.sign(
                    OAuth1Request(method: method, url: url), nonce: nonce(), timestamp: Int(clock.now.secondsSince1970)
                )
                .authorizationHeader
        case .bearer(let token):
            headers["Authorization"] = "Bearer " + token
        }
        if json != nil { headers["Content-Type"] = "application/json" }
        let response = try await transport.send(HTTPRequestSpec(method: method, url: url, headers: headers, body: json))
        let reset = response.headers["x-rate-limit-reset"].flatMap { Int($0) }
        guard (200..<300).contains(response.status) else {
            if let problem = try? JSONDecoder().decode(XProblem.self, from: response.body),
                problem.title != nil || problem.errors != nil
            {
                throw .x(
                    status: response.status, problem: problem, rateLimitReset: reset, retryAfter: response.retryAfter)
            }
            throw response.unexpected
        }
        // A 200 that carries only `errors` (a Tweet not found) is a failure too.
        if let problem = try? JSONDecoder().decode(XProblem.self, from: response.body), problem.errors != nil,
            (try? JSONDecoder().decode(XDataProbe.self, from: response.body))?.data == nil
        {
            throw .x(status: response.status, problem: problem, rateLimitReset: reset, retryAfter: response.retryAfter)
        }
        return try response.decoded(path)
    }

    private struct XDataProbe: Decodable {
        var data: EmptyObject?
        struct EmptyObject: Decodable {}
    }
}
