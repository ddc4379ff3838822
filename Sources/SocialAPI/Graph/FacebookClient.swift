import Foundation

/// The Facebook Graph endpoints for places and check-ins, authenticated by access token.
///
/// ```swift
/// let facebook = FacebookClient(baseURL: URL(string: "http://127.0.0.1:8080/")!, accessToken: token)
/// let pages = try await facebook.searchPlaces(latitude: 37.3236, longitude: -122.0315, distance: 200)
/// let id = try await facebook.checkIn(place: pages[0].id, latitude: 37.3236, longitude: -122.0315, message: "☕️")
/// ```
public struct FacebookClient: Sendable {
    public var baseURL: URL
    public var accessToken: String
    public var transport: any HTTPTransport

    public init(baseURL: URL, accessToken: String, transport: any HTTPTransport = AsyncHTTPClientTransport()) {
        self.baseURL = baseURL
        self.accessToken = accessToken
        self.transport = transport
    }

    /// Pages within `distance` metres of the point, nearest first, optionally matching `query`.
    public func searchPlaces(
        latitude: Double, longitude: Double, distance: Int, query: String? = nil, limit: Int? = nil,
        after: String? = nil
    ) async throws(SocialAPIError) -> GraphList<GraphPage> {
        var parameters = [("type", "place"), ("center", "\(latitude),\(longitude)"), ("distance", "\(distance)")]
        if let query { parameters.append(("q", query)) }
        if let limit { parameters.append(("limit", "\(limit)")) }
        if let after { parameters.append(("after", after)) }
        return try await send("GET", "search", parameters)
    }

    public func checkins() async throws(SocialAPIError) -> GraphList<GraphCheckin> {
        try await send("GET", "me/checkins", [])
    }

    /// The user's posts, check-ins among them, newest first (`GET me/feed`).
    public func feed() async throws(SocialAPIError) -> GraphList<GraphCheckin> {
        try await send("GET", "me/feed", [])
    }

    /// Checks in at a page; `coordinates` go as the JSON string Graph expects, and so does
    /// `privacy` (a ``GraphPrivacy/values`` value: who may see it).
    public func checkIn(
        place: String, latitude: Double? = nil, longitude: Double? = nil, message: String? = nil, tags: [String] = [],
        privacy: String? = nil
    ) async throws(SocialAPIError) -> String {
        var form = [("place", place)]
        if let latitude, let longitude {
            form.append(("coordinates", "{\"latitude\":\(latitude),\"longitude\":\(longitude)}"))
        }
        if let message { form.append(("message", message)) }
        if !tags.isEmpty { form.append(("tags", tags.joined(separator: ","))) }
        if let privacy { form.append(("privacy", GraphPrivacy.parameter(privacy))) }
        let created: GraphCreated = try await send("POST", "me/checkins", form)
        return created.id
    }

    /// Posts to the feed, optionally at a place.
    public func postToFeed(message: String, place: String? = nil, privacy: String? = nil)
        async throws(SocialAPIError) -> String
    {
        var form = [("message", message)]
        if let place { form.append(("place", place)) }
        if let privacy { form.append(("privacy", GraphPrivacy.parameter(privacy))) }
        let created: GraphCreated = try await send("POST", "me/feed", form)
        return created.id
    }

    /// One post or check-in by id, as Graph stores it (its `privacy` among the fields).
    public func object(id: String) async throws(SocialAPIError) -> GraphCheckin {
        try await send(
            "GET", PercentEncoding.encode(id), [("fields", "id,message,place,created_time,coordinates,privacy")])
    }

    public func permissions() async throws(SocialAPIError) -> [GraphPermission] {
        let list: GraphList<GraphPermission> = try await send("GET", "me/permissions", [])
        return list.data
    }

    private func send<T: Decodable>(_ method: String, _ path: String, _ parameters: [(String, String)])
        async throws(SocialAPIError) -> T
    {
        let encoded = PercentEncoding.form(parameters + [("access_token", accessToken)])
        let isPost = method == "POST"
        guard let url = RequestURL.resolve(path + (isPost ? "" : "?" + encoded), against: baseURL) else {
            throw .transport("bad URL for \(path)")
        }
        let request = HTTPRequestSpec(
            method: method, url: url,
            headers: isPost ? ["Content-Type": "application/x-www-form-urlencoded"] : [:],
            body: isPost ? Data(encoded.utf8) : nil)
        let response = try await transport.send(request)
        guard (200..<300).contains(response.status) else {
            if let error = try? JSONDecoder().decode(GraphErrorBody.self, from: response.body) {
                throw .graph(status: response.status, error: error.error, retryAfter: response.retryAfter)
            }
            throw response.unexpected
        }
        return try response.decoded(path)
    }
}
