import Foundation
import SimulatedTime

/// Twitter's v1.1 (or v1) geo and status endpoints, OAuth 1.0a-signed.
///
/// ```swift
/// let twitter = TwitterClient(baseURL: URL(string: "http://127.0.0.1:8080/1.1/")!, credentials: credentials)
/// let places = try await twitter.reverseGeocode(latitude: 37.3236, longitude: -122.0315, granularity: "poi")
/// let tweet = try await twitter.updateStatus("Coffee ☕️", placeID: places[0].id, displayCoordinates: false)
/// ```
public struct TwitterClient: Sendable {
    /// Ends with the API version: `https://api.twitter.com/1.1/`.
    public var baseURL: URL
    public var signer: OAuth1Signer
    public var transport: any HTTPTransport
    /// A fresh nonce per request.
    public var nonce: @Sendable () -> String
    /// The clock `oauth_timestamp` is read from (whole seconds since 1970): the wall clock, or a
    /// run's ``SimulatedClock`` against the in-process emulator.
    public var clock: any EpochClock

    public init(
        baseURL: URL, credentials: OAuth1Credentials, transport: any HTTPTransport = AsyncHTTPClientTransport(),
        nonce: @escaping @Sendable () -> String = OAuth1Signer.randomNonce,
        clock: any EpochClock = WallClock()
    ) {
        self.baseURL = baseURL
        self.signer = OAuth1Signer(credentials: credentials)
        self.transport = transport
        self.nonce = nonce
        self.clock = clock
    }

    // MARK: Geo

    /// Places containing the point, at or above `granularity` (poi, neighborhood, city, admin, country).
    public func reverseGeocode(
        latitude: Double, longitude: Double, accuracy: Double? = nil, granularity: String? = nil, maxResults: Int? = nil
    ) async throws(SocialAPIError) -> [TwitterPlace] {
        var query = [("lat", "\(latitude)"), ("long", "\(longitude)")]
        if let accuracy { query.append(("accuracy", "\(accuracy)m")) }
        if let granularity { query.append(("granularity", granularity)) }
        if let maxResults { query.append(("max_results", "\(maxResults)")) }
        let result: TwitterPlaceResult = try await get("geo/reverse_geocode.json", query)
        return result.result.places
    }

    /// Places matching a name or near a point.
    public func searchPlaces(
        query text: String? = nil, latitude: Double? = nil, longitude: Double? = nil, granularity: String? = nil,
        maxResults: Int? = nil
    ) async throws(SocialAPIError) -> [TwitterPlace] {
        var query: [(String, String)] = []
        if let text { query.append(("query", text)) }
        if let latitude, let longitude { query += [("lat", "\(latitude)"), ("long", "\(longitude)")] }
        if let granularity { query.append(("granularity", granularity)) }
        if let maxResults { query.append(("max_results", "\(maxResults)")) }
        let result: TwitterPlaceResult = try await get("geo/search.json", query)
        return result.result.places
    }

    /// Places with a similar name near a point.
    public func similarPlaces(latitude: Double, longitude: Double, name: String) async throws(SocialAPIError)
        -> [TwitterPlace]
    {
        let result: TwitterPlaceResult = try await get(
            "geo/similar_places.json", [("lat", "\(latitude)"), ("long", "\(longitude)"), ("name", name)])
        return result.result.places
    }

    /// One place by id.
    public func place(id: String) async throws(SocialAPIError) -> TwitterPlace {
        try await get("geo/id/\(PercentEncoding.encode(id)).json", [])
    }

    // MARK: Statuses and account

    /// Posts a tweet; `latitude`/`longitude`/`placeID` attach location, which Twitter drops
    /// silently when the user's `geo_enabled` is off.
    public func updateStatus(
        _ status: String, latitude: Double? = nil, longitude: Double? = nil, placeID: String? = nil,
        displayCoordinates: Bool? = nil
    ) async throws(SocialAPIError) -> Tweet {
        var form = [("status", status)]
        if let latitude, let longitude { form += [("lat", "\(latitude)"), ("long", "\(longitude)")] }
        if let placeID { form.append(("place_id", placeID)) }
        if let displayCoordinates { form.append(("display_coordinates", displayCoordinates ? "true" : "false")) }
        return try await send("POST", "statuses/update.json", query: [], form: form)
    }

    /// The user's tweets, newest first, each with its whole text (`tweet_mode=extended`: in the
    /// default mode Twitter cuts a text past 140 characters, and a tweet could not be found again
    /// by what was written).
    public func userTimeline(count: Int? = nil) async throws(SocialAPIError) -> [Tweet] {
        try await get(
            "statuses/user_timeline.json", (count.map { [("count", "\($0)")] } ?? []) + [("tweet_mode", "extended")])
    }

    public func verifyCredentials() async throws(SocialAPIError) -> TwitterUser {
        try await get("account/verify_credentials.json", [])
    }

    // MARK: Plumbing

    private func get<T: Decodable>(_ path: String, _ query: [(String, String)]) async throws(SocialAPIError) -> T {
        try await send("GET", path, query: query, form: [])
    }

    private func send<T: Decodable>(
        _ method: String, _ path: String, query: [(String, String)], form: [(String, String)]
    )
        async throws(SocialAPIError) -> T
    {
        let encodedQuery = PercentEncoding.form(query)
        guard let url = RequestURL.resolve(path + (encodedQuery.isEmpty ? "" : "?" + encodedQuery), against: baseURL)
        else { throw .transport("bad URL for \(path)") }
        let signed = signer.sign(
            OAuth1Request(method: method, url: url, formParameters: form.map { (name: $0.0, value: $0.1) }),
            nonce: nonce(), timestamp: Int(clock.now.secondsSince1970))
        var headers = ["Authorization": signed.authorizationHeader, "Accept": "application/json"]
        var body: Data?
        if method == "POST" {
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = Data(PercentEncoding.form(form).utf8)
        }
        let response = try await transport.send(HTTPRequestSpec(method: method, url: url, headers: headers, body: body))
        guard (200..<300).contains(response.status) else {
            if let error = try? JSONDecoder().decode(TwitterErrorBody.self, from: response.body) {
                throw .twitter(
                    status: response.status, errors: error.errors,
                    rateLimitReset: response.headers["x-rate-limit-reset"].flatMap { Int($0) },
                    retryAfter: response.retryAfter)
            }
            throw response.unexpected
        }
        return try response.decoded(path)
    }
}
