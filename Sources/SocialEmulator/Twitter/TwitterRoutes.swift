import Foundation
import SocialAPI
import WaypostSupport

/// Twitter's v1.1 endpoints (and the same under `/1/`, where older clients still call them),
/// answered as Twitter did: objects in Twitter's shape (``TweetObject``, ``UserObject``,
/// ``PlaceObject``), parameters read by Twitter's rules, errors as `{"errors":[{code,message}]}`
/// with Twitter's codes, and each endpoint's documented rate limit with `x-rate-limit-*` headers.
struct TwitterRoutes: Sendable {
    let fixtures: EmulatorFixtures
    let configuration: EmulatorConfiguration
    private let placesByID: [String: EmulatorFixtures.FixturePlace]
    /// Each fixture place's bounding box extent, in the fixtures' order: taken once, as every geo
    /// request asks every place whether it holds the point.
    private let extents: [EmulatorFixtures.FixturePlace.Extent?]

    init(fixtures: EmulatorFixtures, configuration: EmulatorConfiguration) {
        self.fixtures = fixtures
        self.configuration = configuration
        let index = fixtures.placeCache.index(of: fixtures.twitterPlaces)
        self.placesByID = index.byID
        self.extents = index.extents
    }

    /// The API version prefix and the endpoint after it; nil for paths outside Twitter's API.
    static func route(_ path: String) -> (version: String, endpoint: String)? {
        for version in ["1.1", "1"] where path.hasPrefix("/\(version)/") {
            return (version, String(path.dropFirst(version.count + 2)))
        }
        return nil
    }

    /// Tweet ids are 64-bit, past what a double holds exactly — as Twitter's snowflake ids were,
    /// which is why `id_str` exists; clients that read `id` as a double are caught here too.
    static let tweetIDBase: Int64 = 1_100_000_000_000_000_000

    /// Twitter's per-user limits per 15-minute window (v1.1 "Rate limits" table), by the family
    /// name `application/rate_limit_status` reports; nil stands for the configured geo limit.
    /// `statuses/update` has a daily limit instead.
    private static let windowLimits: [(family: String, limit: Int?)] = [
        ("/account/verify_credentials", 75), ("/application/rate_limit_status", 180), ("/geo/id/:place_id", 75),
        ("/geo/reverse_geocode", nil), ("/geo/search", nil), ("/geo/similar_places", nil),
        ("/statuses/show/:id", 900), ("/statuses/user_timeline", 900), ("/users/show/:id", 900),
    ]

    func rateLimit(_ family: String) -> Int? {
        Self.windowLimits.first { $0.family == family }.map { $0.limit ?? configuration.geoRateLimit }
    }

    // MARK: - Routing

    func respond(
        to request: EmulatorRequest, endpoint: String, version: String, parameters: RequestParameters,
        header: OAuthHeader?, state: inout EmulatorState, now: Double
    ) -> EmulatorResponse {
        let oauth = OAuthProtocolParameters(
            authorization: request.headers["authorization"], header: header, parameters: parameters)
        let account: EmulatorConfiguration.TwitterAccount
        switch OAuthVerifier.verify(
            request, oauth: oauth, parameters: parameters, state: &state, now: now,
            window: configuration.timestampWindow)
        {
        case .verified(let found): account = found
        case .refused(let status, let code, let message): return Self.error(status, code, message)
        }
        // Signed, but not the endpoint's: protocol parameters sent in the query or the body.
        let parameters = parameters.withoutProtocolParameters
        let query = RequestParameters.queryWithoutProtocolParameters(request.query)
        let context = Context(
            account: account, parameters: parameters, apiRoot: "\(request.origin)/\(version)/",
            requestURL: request.origin + request.path + (query.isEmpty ? "" : "?" + query),
            consumer: oauth?["oauth_consumer_key"] ?? "", now: now)
        let (method, family, answer): (String, String?, (inout EmulatorState) -> EmulatorResponse) =
            switch endpoint {
            case "geo/reverse_geocode.json": ("GET", "/geo/reverse_geocode", { geo(.reverseGeocode, context, &$0) })
            case "geo/search.json": ("GET", "/geo/search", { geo(.search, context, &$0) })
            case "geo/similar_places.json": ("GET", "/geo/similar_places", { geo(.similarPlaces, context, &$0) })
            case let p where p.hasPrefix("geo/id/") && p.hasSuffix(".json"):
                ("GET", "/geo/id/:place_id", { place(id: String(p.dropFirst(7).dropLast(5)), context, &$0) })
            case "statuses/update.json": ("POST", nil, { updateStatus(context, &$0) })
            case "statuses/user_timeline.json": ("GET", "/statuses/user_timeline", { userTimeline(context, &$0) })
            case "statuses/show.json": ("GET", "/statuses/show/:id", { show(id: parameters["id"], context, &$0) })
            case let p where p.hasPrefix("statuses/show/") && p.hasSuffix(".json"):
                ("GET", "/statuses/show/:id", { show(id: String(p.dropFirst(14).dropLast(5)), context, &$0) })
            case let p where p.hasPrefix("statuses/destroy/") && p.hasSuffix(".json"):
                ("POST", nil, { destroy(id: String(p.dropFirst(17).dropLast(5)), context, &$0) })
            case "users/show.json": ("GET", "/users/show/:id", { showUser(context, &$0) })
            case "account/verify_credentials.json":
                ("GET", "/account/verify_credentials", { verifyCredentials(context, &$0) })
            case "application/rate_limit_status.json":
                ("GET", "/application/rate_limit_status", { rateLimitStatus(context, &$0) })
            default:
                (
                    request.routedMethod, nil,
                    { _ in Self.error(404, .pageDoesNotExist, "Sorry, that page does not exist.") }
                )
            }
        // An endpoint asked with a method it does not take: Twitter's code 86 ("This method
        // requires a POST.", HTTP 403 in its response codes), and for a read "This method
        // requires a GET or HEAD."; it was 404/34, as for a page that does not exist.
        guard request.routedMethod == method else {
            return Self.error(
                403, .methodNotAllowed,
                method == "POST" ? "This method requires a POST." : "This method requires a GET or HEAD.")
        }
        guard let family, let limit = rateLimit(family) else { return answer(&state) }
        let window = state.limiter.count(
            account.userID + " " + family, limit: limit, window: configuration.rateLimitWindow, now: now)
        var response =
            window.isExceeded ? Self.error(429, .rateLimitExceeded, "Rate limit exceeded") : answer(&state)
        response.headers["x-rate-limit-limit"] = String(window.limit)
        response.headers["x-rate-limit-remaining"] = String(window.remaining)
        response.headers["x-rate-limit-reset"] = String(window.reset)
        return response
    }

    /// What every endpoint needs of the request.
    struct Context {
        var account: EmulatorConfiguration.TwitterAccount
        var parameters: RequestParameters
        /// `http://host/1.1/`.
        var apiRoot: String
        var requestURL: String
        var consumer: String
        var now: Double
    }

    static func error(_ status: Int, _ code: TwitterErrorCode, _ message: String) -> EmulatorResponse {
        error(status, code: code.rawValue, message)
    }

    /// Any code: a `status` fault may ask for one Twitter never documented.
    static func error(_ status: Int, code: Int, _ message: String) -> EmulatorResponse {
        .json(status, TwitterErrorBody(errors: [.init(code: code, message: message)]))
    }

    // MARK: - Geo

    enum GeoQuery: String {
        case reverseGeocode = "reverse_geocode"
        case search
        case similarPlaces = "similar_places"
    }

    /// The places of granularity `rank` or coarser whose box holds `point` (all such places
    /// without one), finest first, as `geo/reverse_geocode` and `geo/search` list them.
    private func places(containing point: (latitude: Double, longitude: Double)?, rank: Int)
        -> [EmulatorFixtures.FixturePlace]
    {
        var places = zip(fixtures.twitterPlaces, extents).filter { place, extent in
            (TwitterPlace.granularities.firstIndex(of: place.placeType) ?? 0) >= rank
                && point.map { extent?.contains(latitude: $0.latitude, longitude: $0.longitude) ?? false } ?? true
        }.map(\.0)
        places.sort {
            (TwitterPlace.granularities.firstIndex(of: $0.placeType) ?? 0)
                < (TwitterPlace.granularities.firstIndex(of: $1.placeType) ?? 0)
        }
        return places
    }

    private var neighborhoodRank: Int { TwitterPlace.granularities.firstIndex(of: "neighborhood") ?? 0 }

    /// `geo/reverse_geocode`, `geo/search` and `geo/similar_places`: places containing the point
    /// (or matching the query), at or above the granularity, finest first, with Twitter's
    /// `query` object beside `result`.
    private func geo(_ kind: GeoQuery, _ context: Context, _ state: inout EmulatorState) -> EmulatorResponse {
        let parameters = context.parameters
        let latitude = parameters.decimal("lat", in: -90...90)
        let longitude = parameters.decimal("long", in: -180...180)
        // Made only when answered: encoding it for every request was a fifth of this route's time.
        func invalidCoordinates() -> EmulatorResponse { Self.error(400, .invalidParameter, "Invalid coordinates.") }
        // Both or neither, and numbers within range; reverse_geocode and similar_places need them.
        if latitude.isInvalid || longitude.isInvalid || (latitude.value == nil) != (longitude.value == nil) {
            return invalidCoordinates()
        }
        let point = latitude.value.flatMap { lat in longitude.value.map { (latitude: lat, longitude: $0) } }
        if kind != .search && point == nil { return invalidCoordinates() }
        // reverse_geocode and search: "If no granularity is provided for the request neighborhood
        // is assumed." similar_places takes none: it matches venues by name.
        let granularity = parameters["granularity"] ?? (kind == .similarPlaces ? "poi" : "neighborhood")
        guard let rank = TwitterPlace.granularities.firstIndex(of: granularity) else {
            return Self.error(400, .invalidParameter, "Invalid granularity: \(granularity)")
        }
        guard let accuracy = Self.accuracy(parameters["accuracy"]) else {
            return Self.error(400, .invalidParameter, "Invalid accuracy: \(parameters["accuracy"] ?? "")")
        }
        // A hint, as Twitter documented it: out-of-range values are clamped, not refused.
        let maxResults = max(1, min(parameters.integer("max_results", in: Int.min...Int.max).value ?? 20, 100))
        var places = places(containing: point, rank: rank)
        let text = parameters[kind == .similarPlaces ? "name" : "query"].flatMap { $0.isEmpty ? nil : $0 }
        if kind == .similarPlaces && text == nil {
            return Self.error(403, .parameterMissing, "name parameter is missing.")
        }
        if kind == .search && point == nil && text == nil {
            // Nothing to search by but the caller's IP address, which Twitter could not place.
            return Self.error(404, .noLocationForIP, "No location associated with the specified IP address.")
        }
        if let text { places = places.filter { $0.name.localizedCaseInsensitiveContains(text) } }
        let within = parameters["contained_within"].flatMap { $0.isEmpty ? nil : $0 }
        if let within { places = places.filter { ancestors(of: $0).contains(within) } }
        // `{"query":{url,type,params},"result":{"places":[…],"token":…}}`: the query as Twitter
        // echoed it, the places spliced from their encodings, which never change.
        var query = JSONWriter()
        query.object { w in
            w.field("url", context.requestURL)
            w.field("type", kind.rawValue)
            w.key("params")
            w.object { w in
                w.key("accuracy")
                w.number(accuracy)
                w.field("granularity", granularity)
                if let point {
                    w.key("coordinates")
                    w.object { w in
                        w.field("type", "Point")
                        w.key("coordinates")
                        w.array { w in
                            w.number(point.longitude)
                            w.number(point.latitude)
                        }
                    }
                }
                if let text { w.field(kind == .similarPlaces ? "name" : "query", text) }
                if let within { w.field("contained_within", within) }
                if kind == .search {
                    w.field("autocomplete", false)
                    w.field("trim_place", false)
                }
            }
        }
        var body = Data(#"{"query":"#.utf8)
        body.append(contentsOf: query.bytes)
        body.append(Data(#","result":{"places":["#.utf8))
        for (index, place) in places.prefix(maxResults).enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(encodedPlace(place.id, apiRoot: context.apiRoot, form: .listed))
        }
        body.append(UInt8(ascii: "]"))
        if kind == .similarPlaces {
            body.append(Data(#","token":"wp\#(state.makeID())""#.utf8))
        }
        body.append(Data("}}".utf8))
        return .json(200, encoded: body)
    }

    /// Twitter's `accuracy`: metres, or feet with an `ft` suffix (`m` allowed); 0 when absent.
    static func accuracy(_ text: String?) -> Double? {
        guard let text else { return 0 }
        // ASCII, as clients send it, is trimmed and lowered bytewise: Foundation's character sets
        // cost more than the rest of a reverse geocode (perf).
        guard ASCIIText.isASCII(text) else { return accuracy(unicode: text) }
        let blank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        var bytes = Substring(text).utf8.drop(while: blank)
        while let last = bytes.last, blank(last) { bytes = bytes.dropLast() }
        var lowered = ASCIIText.lowercased(Substring(bytes))
        if lowered.isEmpty { return 0 }
        var factor = 1.0
        if lowered.suffix(2).elementsEqual("ft".utf8) {
            factor = 0.3048
            lowered.removeLast(2)
        } else if lowered.last == UInt8(ascii: "m") {
            lowered.removeLast()
        }
        return metres(Double(String(decoding: lowered, as: UTF8.self)), factor)
    }

    static func accuracy(unicode text: String) -> Double? {
        var text = text.trimmingCharacters(in: .whitespaces).lowercased()
        if text.isEmpty { return 0 }
        var factor = 1.0
        if text.hasSuffix("ft") {
            factor = 0.3048
            text.removeLast(2)
        } else if text.hasSuffix("m") {
            text.removeLast()
        }
        return metres(Double(text), factor)
    }

    private static func metres(_ value: Double?, _ factor: Double) -> Double? {
        guard let value, value.isFinite, value >= 0, value <= 1e8 else { return nil }
        return value * factor
    }

    /// Ids of the place's parents, nearest first.
    private func ancestors(of place: EmulatorFixtures.FixturePlace) -> [String] {
        var out: [String] = []
        var next = place.parent
        while let id = next, !out.contains(id), let parent = placesByID[id] {
            out.append(id)
            next = parent.parent
        }
        return out
    }

    private func placeObject(_ id: String, apiRoot: String, form: PlaceObject.Form) -> PlaceObject? {
        guard let fixture = placesByID[id] else { return nil }
        return PlaceObject(
            place: fixture.place, parent: fixture.parent.flatMap { placesByID[$0]?.place }, apiRoot: apiRoot,
            form: form)
    }

    /// A place's encoding, made once per API root and form for these fixtures: places never change.
    private func encodedPlace(_ id: String, apiRoot: String, form: PlaceObject.Form) -> Data {
        fixtures.placeCache.encoding((form == .inTweet ? "tweet " : "") + apiRoot + id) {
            placeObject(id, apiRoot: apiRoot, form: form).map(JSONBody.encode) ?? Data("{}".utf8)
        }
    }

    private func place(id: String, _ context: Context, _ state: inout EmulatorState) -> EmulatorResponse {
        guard let place = placeObject(id, apiRoot: context.apiRoot, form: .detailed) else {
            return Self.error(404, .pageDoesNotExist, "Sorry, that page does not exist.")
        }
        return .json(200, place)
    }

    // MARK: - Statuses

    private func updateStatus(_ context: Context, _ state: inout EmulatorState) -> EmulatorResponse {
        let parameters = context.parameters
        let account = context.account
        if state.readOnlyConsumers.contains(context.consumer) {
            return Self.error(403, .applicationCannotWrite, "Application cannot perform write actions.")
        }
        guard let status = parameters["status"], !status.isEmpty else {
            return Self.error(403, .missingParameter, "Missing required parameter: status.")
        }
        // twitter-text's weighted count, as Twitter applied it: 141 emoji or CJK characters are
        // over, a long URL counts 23.
        guard TweetLength.fits(status) else {
            return Self.error(403, .statusTooLong, "Tweet needs to be a bit shorter.")
        }
        // "in_reply_to_status_id: The ID of an existing status that the update is in reply to.
        // Note: This parameter will be ignored unless the author of the Tweet this parameter
        // references is mentioned within the status text" — or auto_populate_reply_metadata
        // mentions them. One that does not exist is error 385 (v1.1 "Response codes").
        var replyTo: StoredTweet?
        if let text = parameters["in_reply_to_status_id"], !text.isEmpty {
            guard let id = Int64(text), let target = state.tweets[id] else {
                return Self.error(
                    403, .replyToUnavailableTweet,
                    "You attempted to reply to a Tweet that is deleted or not visible to you.")
            }
            if parameters.twitterBool("auto_populate_reply_metadata") == true
                || TweetEntities(text: status).userMentions.contains(where: {
                    state.twitterAccounts.account(screenName: $0.text)?.userID == target.userID
                })
            {
                replyTo = target
            }
        }
        let dayAgo = context.now - 86_400
        if let first = state.postTimes[account.userID]?.first, first <= dayAgo {
            state.postTimes[account.userID]?.removeAll { $0 <= dayAgo }
        }
        guard (state.postTimes[account.userID]?.count ?? 0) < configuration.statusUpdateLimit else {
            return Self.error(403, .statusUpdateLimit, "User is over daily status update limit.")
        }
        if state.postedTexts[account.userID]?.contains(status) == true {
            return Self.error(403, .duplicateStatus, "Status is a duplicate.")
        }
        var tweet = StoredTweet(
            id: Self.tweetIDBase + state.makeID(), text: status, createdAt: context.now, userID: account.userID,
            point: nil, placeID: nil, application: context.consumer)
        tweet.inReplyTo = replyTo.map { ($0.id, $0.userID) }
        // With geo_enabled off, Twitter dropped location silently. lat and long are "ignored"
        // unless both are given and within range; display_coordinates=false (any spelling but
        // true, t or 1) keeps the exact point off the tweet.
        if state.geoEnabled[account.userID] == true {
            let lat = parameters.decimal("lat", in: -90...90).value
            let long = parameters.decimal("long", in: -180...180).value
            if let lat, let long, parameters.twitterBool("display_coordinates") ?? true {
                tweet.point = (lat, long)
            }
            if let id = parameters["place_id"], placesByID[id] != nil {
                tweet.placeID = id
            } else if let lat, let long {
                // "If no place_id was explicitly provided, but latitude and longitude are, the API
                // attempts to implicitly provide a place by calling geo/reverse_geocode" — at its
                // default granularity (neighborhood), its first answer; the place shows whether or
                // not the exact point does.
                tweet.placeID = places(containing: (lat, long), rank: neighborhoodRank).first?.id
            }
        }
        state.tweets[tweet.id] = tweet
        state.timelines[account.userID, default: []].append(tweet.id)
        state.postTimes[account.userID, default: []].append(context.now)
        state.postedTexts[account.userID, default: []].insert(status)
        return answer([tweet], array: false, context, &state)
    }

    /// The tweet as answered: `trim_user` and `include_entities` as the request asked; inside a
    /// user's `status`, without the user.
    private func write(
        _ tweet: StoredTweet, _ context: Context, _ state: inout EmulatorState, to w: inout JSONWriter,
        embedded: Bool = false
    ) {
        var user: UserObject?
        if !embedded, let author = state.twitterAccounts.account(id: tweet.userID) {
            user = userObject(author, state)
            user?.trimmed = context.parameters.twitterBool("trim_user") ?? false
        }
        let place = tweet.placeID.map { encodedPlace($0, apiRoot: context.apiRoot, form: .inTweet) }
        TweetObject(
            tweet: tweet, user: user, place: place,
            includeEntities: context.parameters.twitterBool("include_entities") ?? true,
            extended: context.parameters["tweet_mode"] == "extended", accounts: state.twitterAccounts
        ).write(to: &w)
    }

    /// Tweets as a JSON answer: one, or an array.
    private func answer(_ tweets: [StoredTweet], array: Bool, _ context: Context, _ state: inout EmulatorState)
        -> EmulatorResponse
    {
        var w = JSONWriter()
        if array {
            w.array { w in for tweet in tweets { write(tweet, context, &state, to: &w) } }
        } else if let tweet = tweets.first {
            write(tweet, context, &state, to: &w)
        }
        return .json(200, encoded: w.data)
    }

    private func userObject(_ account: EmulatorConfiguration.TwitterAccount, _ state: EmulatorState) -> UserObject {
        UserObject(
            account: account, geoEnabled: state.geoEnabled[account.userID] ?? false,
            protected: state.protected[account.userID] ?? false,
            statusesCount: state.timelines[account.userID]?.count ?? 0)
    }

    /// A user with their latest tweet embedded (`users/show`, `verify_credentials`), unless
    /// `skip_status`.
    private func answer(
        user account: EmulatorConfiguration.TwitterAccount, _ context: Context,
        _ state: inout EmulatorState
    ) -> EmulatorResponse {
        var w = JSONWriter()
        var latest: StoredTweet?
        if !(context.parameters.twitterBool("skip_status") ?? false), let id = state.timelines[account.userID]?.last {
            latest = state.tweets[id]
        }
        let user = userObject(account, state)
        if let latest {
            var embedded = JSONWriter()
            write(latest, context, &state, to: &embedded, embedded: true)
            user.write(to: &w) { $0.raw(embedded.data) }
        } else {
            user.write(to: &w)
        }
        return .json(200, encoded: w.data)
    }

    private func userTimeline(_ context: Context, _ state: inout EmulatorState) -> EmulatorResponse {
        let parameters = context.parameters
        var owner = context.account
        if parameters["user_id"] != nil || parameters["screen_name"] != nil {
            guard let found = findUser(parameters, state) else {
                return Self.error(404, .pageDoesNotExist, "Sorry, that page does not exist.")
            }
            owner = found
        }
        // count: "up to 200"; larger values give 200, nonsense the default.
        let count = max(1, min(parameters.integer("count", in: Int.min...Int.max).value ?? 20, 200))
        let sinceID = parameters.integer("since_id", in: 1...Int.max).value.map(Int64.init)
        let maxID = parameters.integer("max_id", in: 1...Int.max).value.map(Int64.init)
        let tweets = (state.timelines[owner.userID] ?? []).reversed()
            .filter { id in sinceID.map { id > $0 } ?? true }
            .filter { id in maxID.map { id <= $0 } ?? true }
            .prefix(count)
            .compactMap { state.tweets[$0] }
        return answer(Array(tweets), array: true, context, &state)
    }

    private func show(id text: String?, _ context: Context, _ state: inout EmulatorState) -> EmulatorResponse {
        guard let text else { return Self.error(403, .parameterMissing, "id parameter is missing.") }
        guard let id = Int64(text), let tweet = state.tweets[id] else {
            return Self.error(404, .noStatusFound, "No status found with that ID.")
        }
        return answer([tweet], array: false, context, &state)
    }

    private func destroy(id text: String, _ context: Context, _ state: inout EmulatorState) -> EmulatorResponse {
        if state.readOnlyConsumers.contains(context.consumer) {
            return Self.error(403, .applicationCannotWrite, "Application cannot perform write actions.")
        }
        guard let id = Int64(text), let tweet = state.tweets[id] else {
            return Self.error(404, .noStatusFound, "No status found with that ID.")
        }
        guard tweet.userID == context.account.userID else {
            return Self.error(403, .cannotDeleteOthersStatus, "You may not delete another user's status.")
        }
        let deleted = answer([tweet], array: false, context, &state)
        state.tweets[id] = nil
        state.timelines[tweet.userID]?.removeAll { $0 == id }
        state.postedTexts[tweet.userID]?.remove(tweet.text)
        return deleted
    }

    // MARK: - Users and the application

    private func findUser(_ parameters: RequestParameters, _ state: EmulatorState)
        -> EmulatorConfiguration.TwitterAccount?
    {
        if let id = parameters["user_id"] { return state.twitterAccounts.account(id: id) }
        return state.twitterAccounts.account(screenName: parameters["screen_name"] ?? "")
    }

    private func showUser(_ context: Context, _ state: inout EmulatorState) -> EmulatorResponse {
        guard context.parameters["user_id"] != nil || context.parameters["screen_name"] != nil else {
            return Self.error(403, .parameterMissing, "user_id or screen_name parameter is missing.")
        }
        guard let user = findUser(context.parameters, state) else {
            return Self.error(404, .userNotFound, "User not found.")
        }
        return answer(user: user, context, &state)
    }

    private func verifyCredentials(_ context: Context, _ state: inout EmulatorState) -> EmulatorResponse {
        answer(user: context.account, context, &state)
    }

    private struct RateLimitStatus: Encodable {
        struct Entry: Encodable {
            var limit: Int
            var remaining: Int
            var reset: Int
        }
        var rateLimitContext: [String: String]
        var resources: [String: [String: Entry]]
        enum CodingKeys: String, CodingKey {
            case resources
            case rateLimitContext = "rate_limit_context"
        }
    }

    /// `application/rate_limit_status`: each family's window for this user, grouped by resource
    /// (`resources=geo,statuses` narrows it), as python-twitter reads it before sleeping on limits.
    private func rateLimitStatus(_ context: Context, _ state: inout EmulatorState) -> EmulatorResponse {
        let wanted = context.parameters["resources"].map { Set($0.split(separator: ",").map(String.init)) }
        var resources: [String: [String: RateLimitStatus.Entry]] = [:]
        for (family, _) in Self.windowLimits {
            let resource = String(family.dropFirst().prefix { $0 != "/" })
            guard wanted.map({ $0.contains(resource) }) ?? true, let limit = rateLimit(family) else { continue }
            let window = state.limiter.peek(
                context.account.userID + " " + family, limit: limit, window: configuration.rateLimitWindow,
                now: context.now)
            resources[resource, default: [:]][family] = .init(
                limit: window.limit, remaining: window.remaining, reset: window.reset)
        }
        return .json(
            200,
            RateLimitStatus(rateLimitContext: ["access_token": context.account.token], resources: resources))
    }
}
