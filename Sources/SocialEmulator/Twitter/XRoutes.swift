import Foundation
import SocialAPI
import WaypostSupport

/// X API v2's Tweet endpoints, as X's API reference describes them ("POST /2/tweets",
/// "GET /2/tweets/:id", "DELETE /2/tweets/:id", "GET /2/users/me"): JSON bodies, `{"data": …}`
/// answers with `includes` for expansions, errors as problem objects (`type`, `title`,
/// `detail`, `status`) or, for validation, an `errors` array, and `x-rate-limit-*` headers.
///
/// Authorization is OAuth 1.0a user context (verified as v1.1 does; a JSON body is not signed)
/// or an OAuth 2.0 user-context bearer token (``EmulatorConfiguration/TwitterAccount/bearerToken``).
/// The tweets are the v1.1 routes' tweets: one account, one timeline, whichever API wrote them.
struct XRoutes: Sendable {
    let configuration: EmulatorConfiguration
    private let placesByID: [String: EmulatorFixtures.FixturePlace]

    init(fixtures: EmulatorFixtures, configuration: EmulatorConfiguration) {
        self.configuration = configuration
        self.placesByID = fixtures.placeCache.index(of: fixtures.twitterPlaces).byID
    }

    /// Whether `path` is X API v2's.
    static func matches(_ path: String) -> Bool { path.hasPrefix("/2/") }

    /// Per-user limits per 15-minute window, X's published values for these endpoints.
    static let limits: [String: Int] = [
        "POST /2/tweets": 200, "GET /2/tweets/:id": 900, "DELETE /2/tweets/:id": 50, "GET /2/users/me": 75,
    ]

    static let tweetFields: Set<String> = [
        "attachments", "author_id", "context_annotations", "conversation_id", "created_at", "edit_controls",
        "edit_history_tweet_ids", "entities", "geo", "id", "in_reply_to_user_id", "lang", "non_public_metrics",
        "note_tweet", "organic_metrics", "possibly_sensitive", "promoted_metrics", "public_metrics",
        "referenced_tweets", "reply_settings", "source", "text", "withheld",
    ]
    static let placeFields: Set<String> = [
        "contained_within", "country", "country_code", "full_name", "geo", "id", "name", "place_type",
    ]
    static let userFields: Set<String> = [
        "created_at", "description", "entities", "id", "location", "name", "pinned_tweet_id", "profile_image_url",
        "protected", "public_metrics", "url", "username", "verified", "withheld",
    ]
    static let expansions: Set<String> = [
        "attachments.media_keys", "attachments.poll_ids", "author_id", "edit_history_tweet_ids",
        "entities.mentions.username", "geo.place_id", "in_reply_to_user_id", "referenced_tweets.id",
        "referenced_tweets.id.author_id",
    ]

    // MARK: - Errors

    /// A problem object: `{"type","title","detail","status"}`.
    static func problem(_ status: Int, title: String, detail: String, type: String = "about:blank")
        -> EmulatorResponse
    {
        var w = JSONWriter()
        w.object { w in
            w.field("title", title)
            w.field("detail", detail)
            w.field("type", type)
            w.field("status", status)
        }
        return .json(status, encoded: w.data)
    }

    /// A request that fails validation: 400 with an `errors` array of `{parameters, message}`.
    static func invalid(_ parameter: String, _ values: [String], _ message: String) -> EmulatorResponse {
        var w = JSONWriter()
        w.object { w in
            w.key("errors")
            w.array { w in
                w.object { w in
                    w.key("parameters")
                    w.object { w in
                        w.key(parameter)
                        w.array { w in for value in values { w.string(value) } }
                    }
                    w.field("message", message)
                }
            }
            w.field("title", "Invalid Request")
            w.field("detail", "One or more parameters to your request was invalid.")
            w.field("type", XProblem.invalidRequest)
        }
        return .json(400, encoded: w.data)
    }

    static var unauthorized: EmulatorResponse { problem(401, title: "Unauthorized", detail: "Unauthorized") }

    // MARK: - Routing

    func respond(
        to request: EmulatorRequest, parameters: RequestParameters, header: OAuthHeader?,
        state: inout EmulatorState, now: Double
    ) -> EmulatorResponse {
        let authorization = request.headers["authorization"] ?? ""
        let account: EmulatorConfiguration.TwitterAccount
        let consumer: String
        if authorization.lowercased().hasPrefix("bearer ") {
            let token = String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)
            guard !token.isEmpty, let found = state.twitterAccounts.first(where: { $0.bearerToken == token }) else {
                return Self.unauthorized
            }
            account = found
            consumer = ""
        } else {
            let oauth = OAuthProtocolParameters(
                authorization: request.headers["authorization"], header: header, parameters: parameters)
            switch OAuthVerifier.verify(
                request, oauth: oauth, parameters: parameters, state: &state, now: now,
                window: configuration.timestampWindow)
            {
            case .verified(let found):
                account = found
                consumer = oauth?["oauth_consumer_key"] ?? ""
            case .refused:
                return Self.unauthorized
            }
        }
        let parameters = parameters.withoutProtocolParameters
        let path = String(request.path.dropFirst(3))  // after "/2/"
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let family: String
        let answer: (inout EmulatorState) -> EmulatorResponse
        switch (request.routedMethod, parts.count, parts.first ?? "") {
        case ("POST", 1, "tweets"):
            family = "POST /2/tweets"
            answer = { create(request, account: account, consumer: consumer, &$0, now: now) }
        case ("GET", 2, "tweets"):
            family = "GET /2/tweets/:id"
            answer = { lookup(id: parts[1], parameters, viewer: account, &$0) }
        case ("DELETE", 2, "tweets"):
            family = "DELETE /2/tweets/:id"
            answer = { delete(id: parts[1], account: account, consumer: consumer, &$0) }
        case ("GET", 2, "users") where parts[1] == "me":
            family = "GET /2/users/me"
            answer = { me(account, parameters, $0) }
        default:
            return Self.problem(404, title: "Not Found Error", detail: "Not Found")
        }
        let window = state.limiter.count(
            account.userID + " " + family, limit: Self.limits[family] ?? 900, window: configuration.rateLimitWindow,
            now: now)
        var response =
            window.isExceeded
            ? Self.problem(429, title: "Too Many Requests", detail: "Too Many Requests") : answer(&state)
        response.headers["x-rate-limit-limit"] = String(window.limit)
        response.headers["x-rate-limit-remaining"] = String(window.remaining)
        response.headers["x-rate-limit-reset"] = String(window.reset)
        return response
    }

    // MARK: - POST /2/tweets

    private func create(
        _ request: EmulatorRequest, account: EmulatorConfiguration.TwitterAccount, consumer: String,
        _ state: inout EmulatorState, now: Double
    ) -> EmulatorResponse {
        if state.readOnlyConsumers.contains(consumer) {
            return Self.problem(
                403, title: "Forbidden",
                detail:
                    "Your client app is not configured with the appropriate oauth1 app permissions for this endpoint.")
        }
        guard request.headers["content-type"]?.lowercased().hasPrefix("application/json") == true,
            let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any]
        else {
            return Self.invalid("body", [], "Request body must be a JSON object (Content-Type: application/json)")
        }
        let known: Set<String> = [
            "text", "geo", "reply", "reply_settings", "quote_tweet_id", "for_super_followers_only", "media", "poll",
            "direct_message_deep_link", "nullcast",
        ]
        for key in body.keys.sorted() where !known.contains(key) {
            return Self.invalid(
                key, [], "$.\(key): is not defined in the schema and the schema does not allow additional properties")
        }
        guard let text = body["text"] as? String, !text.isEmpty else {
            return Self.invalid("text", [], "$.text: Your Tweet text must be a non-empty string")
        }
        guard TweetLength.fits(text) else {
            return Self.problem(
                403, title: "Forbidden",
                detail:
                    "Your Tweet text is too long. For more information on how Twitter determines text length see https://github.com/twitter/twitter-text."
            )
        }
        var placeID: String?
        if let geo = body["geo"] {
            guard let fields = geo as? [String: Any], Set(fields.keys).isSubset(of: ["place_id"]),
                let id = fields["place_id"] as? String
            else { return Self.invalid("geo", [], "$.geo: must be an object with a string place_id") }
            placeID = id
        }
        var replyTo: StoredTweet?
        if let reply = body["reply"] {
            guard let fields = reply as? [String: Any], let text = fields["in_reply_to_tweet_id"] as? String else {
                return Self.invalid("reply", [], "$.reply.in_reply_to_tweet_id: is missing but it is required")
            }
            guard let id = Int64(text), let target = state.tweets[id] else {
                return Self.problem(
                    403, title: "Forbidden",
                    detail: "You attempted to reply to a Tweet that is deleted or not visible to you.")
            }
            replyTo = target
        }
        let dayAgo = now - 86_400
        state.postTimes[account.userID]?.removeAll { $0 <= dayAgo }
        guard (state.postTimes[account.userID]?.count ?? 0) < configuration.statusUpdateLimit else {
            return Self.problem(429, title: "Too Many Requests", detail: "Too Many Requests")
        }
        if state.postedTexts[account.userID]?.contains(text) == true {
            return Self.problem(
                403, title: "Forbidden", detail: "You are not allowed to create a Tweet with duplicate content.")
        }
        var tweet = StoredTweet(
            id: TwitterRoutes.tweetIDBase + state.makeID(), text: text, createdAt: now, userID: account.userID,
            point: nil, placeID: nil, application: consumer.isEmpty ? "Waypost OAuth 2.0 app" : consumer)
        tweet.inReplyTo = replyTo.map { ($0.id, $0.userID) }
        // X: "You can only add a location to Tweets if you have geo enabled in your profile
        // settings. If you don't have geo enabled, you can still add a location parameter in
        // your request body, but it won't get attached to your Tweet." Unknown ids likewise.
        if let placeID, state.geoEnabled[account.userID] == true, placesByID[placeID] != nil {
            tweet.placeID = placeID
        }
        state.tweets[tweet.id] = tweet
        state.timelines[account.userID, default: []].append(tweet.id)
        state.postTimes[account.userID, default: []].append(now)
        state.postedTexts[account.userID, default: []].insert(text)
        var w = JSONWriter()
        w.object { w in
            w.key("data")
            w.object { w in
                w.key("edit_history_tweet_ids")
                w.array { $0.string(String(tweet.id)) }
                w.field("id", String(tweet.id))
                w.field("text", AnsweredTweetText(tweet.text, tweetID: tweet.id).text)
            }
        }
        // 201 Created names what it created (RFC 9110 §15.3.2), as X's answers do
        // (`location: https://api.twitter.com/2/tweets/ID`, tweepy's recorded create_tweet).
        var created = EmulatorResponse.json(201, encoded: w.data)
        created.headers["location"] = "\(request.origin)/2/tweets/\(tweet.id)"
        return created
    }

    // MARK: - GET /2/tweets/:id

    /// A comma-separated list parameter checked against what X accepts; the failure answer
    /// names the first value outside it.
    private func list(_ parameters: RequestParameters, _ name: String, allowed: Set<String>)
        -> Result<[String], ListError>
    {
        guard let text = parameters[name] else { return .success([]) }
        let values = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        if let bad = values.first(where: { !allowed.contains($0) }) {
            return .failure(
                ListError(
                    response: Self.invalid(
                        name, [bad],
                        "The `\(name)` query parameter value [\(bad)] is not one of [\(allowed.sorted().joined(separator: ","))]"
                    )))
        }
        return .success(values)
    }

    struct ListError: Error {
        var response: EmulatorResponse
    }

    private func lookup(
        id: String, _ parameters: RequestParameters, viewer: EmulatorConfiguration.TwitterAccount,
        _ state: inout EmulatorState
    ) -> EmulatorResponse {
        guard !id.isEmpty, id.count <= 19, id.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return Self.invalid("id", [id], "The `id` query parameter value [\(id)] does not match ^[0-9]{1,19}$")
        }
        let expansions: [String]
        let tweetFields: [String]
        let placeFields: [String]
        let userFields: [String]
        switch (
            list(parameters, "expansions", allowed: Self.expansions),
            list(parameters, "tweet.fields", allowed: Self.tweetFields),
            list(parameters, "place.fields", allowed: Self.placeFields),
            list(parameters, "user.fields", allowed: Self.userFields)
        ) {
        case (.success(let e), .success(let t), .success(let p), .success(let u)):
            (expansions, tweetFields, placeFields, userFields) = (e, t, p, u)
        case (.failure(let error), _, _, _), (_, .failure(let error), _, _), (_, _, .failure(let error), _),
            (_, _, _, .failure(let error)):
            return error.response
        }
        guard let number = Int64(id), let tweet = state.tweets[number] else {
            return Self.missing(id, title: "Not Found Error", detail: "Could not find tweet with id: [\(id)].")
        }
        // A protected account's Tweets are seen by its approved followers only; the emulator's
        // accounts follow nobody, so only the author sees them.
        if state.protected[tweet.userID] == true && tweet.userID != viewer.userID {
            return Self.missing(
                id, title: "Authorization Error",
                detail: "Sorry, you are not authorized to see the Tweet with id: [\(id)].",
                type: "https://api.twitter.com/2/problems/not-authorized-for-resource")
        }
        let author = state.twitterAccounts.account(id: tweet.userID)
        let place = tweet.placeID.flatMap { placesByID[$0] }
        let wantsGeo = expansions.contains("geo.place_id") || tweetFields.contains("geo")
        var w = JSONWriter()
        w.object { w in
            w.key("data")
            w.object { w in
                w.key("edit_history_tweet_ids")
                w.array { $0.string(String(tweet.id)) }
                w.field("id", String(tweet.id))
                let answered = AnsweredTweetText(tweet.text, tweetID: tweet.id)
                w.field("text", answered.text)
                if tweetFields.contains("author_id") || expansions.contains("author_id") {
                    w.field("author_id", tweet.userID)
                }
                if tweetFields.contains("created_at") { w.field("created_at", XDate.text(tweet.createdAt)) }
                if tweetFields.contains("conversation_id") {
                    w.field("conversation_id", String(tweet.inReplyTo?.id ?? tweet.id))
                }
                if let reply = tweet.inReplyTo, tweetFields.contains("in_reply_to_user_id") {
                    w.field("in_reply_to_user_id", reply.userID)
                }
                if let reply = tweet.inReplyTo, tweetFields.contains("referenced_tweets") {
                    w.key("referenced_tweets")
                    w.array { w in
                        w.object { w in
                            w.field("type", "replied_to")
                            w.field("id", String(reply.id))
                        }
                    }
                }
                if tweetFields.contains("entities") {
                    Self.writeEntities(answered.entities, accounts: state.twitterAccounts, to: &w)
                }
                if tweetFields.contains("lang") { w.field("lang", "und") }
                if tweetFields.contains("source") { w.field("source", tweet.application) }
                if wantsGeo, let placeID = tweet.placeID {
                    w.key("geo")
                    w.object { $0.field("place_id", placeID) }
                }
            }
            let users = expansions.contains("author_id") ? [author].compactMap { $0 } : []
            let places = expansions.contains("geo.place_id") ? [place].compactMap { $0 } : []
            guard !users.isEmpty || !places.isEmpty else { return }
            w.key("includes")
            w.object { w in
                if !places.isEmpty {
                    w.key("places")
                    w.array { w in for place in places { write(place, fields: placeFields, to: &w) } }
                }
                if !users.isEmpty {
                    w.key("users")
                    w.array { w in for user in users { write(user, fields: userFields, state, to: &w) } }
                }
            }
        }
        return .json(200, encoded: w.data)
    }

    /// A Tweet that cannot be returned: 200 with an `errors` array, no `data` (partial errors).
    private static func missing(_ id: String, title: String, detail: String, type: String = XProblem.resourceNotFound)
        -> EmulatorResponse
    {
        var w = JSONWriter()
        w.object { w in
            w.key("errors")
            w.array { w in
                w.object { w in
                    w.field("value", id)
                    w.field("detail", detail)
                    w.field("title", title)
                    w.field("resource_type", "tweet")
                    w.field("parameter", "id")
                    w.field("resource_id", id)
                    w.field("type", type)
                }
            }
        }
        return .json(200, encoded: w.data)
    }

    /// A v2 Tweet's `entities` (X's Tweet object): `urls` with `start`, `end`, `url` (the t.co
    /// link), `expanded_url` and `display_url`; `hashtags` with `tag`; `mentions` with `username`
    /// and, for an account here, `id` — offsets in code points of the answered text, as v1.1's
    /// `indices`; a kind with none is left out, and `entities` when the text has none.
    private static func writeEntities(
        _ entities: TweetEntities, accounts: [EmulatorConfiguration.TwitterAccount], to w: inout JSONWriter
    ) {
        guard !(entities.urls.isEmpty && entities.hashtags.isEmpty && entities.userMentions.isEmpty) else { return }
        /// `name: [{start, end, …}]`, each token's own fields written by `fields`; nothing for none.
        func list(
            _ name: String, _ tokens: [TweetEntities.Token], _ w: inout JSONWriter,
            fields: (TweetEntities.Token, inout JSONWriter) -> Void
        ) {
            guard !tokens.isEmpty else { return }
            w.key(name)
            w.array { w in
                for token in tokens {
                    w.object { w in
                        w.field("start", token.indices.0)
                        w.field("end", token.indices.1)
                        fields(token, &w)
                    }
                }
            }
        }
        w.key("entities")
        w.object { w in
            list("hashtags", entities.hashtags, &w) { tag, w in w.field("tag", tag.text) }
            list("mentions", entities.userMentions, &w) { mention, w in
                w.field("username", mention.text)
                if let account = accounts.account(screenName: mention.text) { w.field("id", account.userID) }
            }
            list("urls", entities.urls, &w) { link, w in
                w.field("url", link.text)
                w.field("expanded_url", link.expanded ?? link.text)
                w.field("display_url", AnsweredTweetText.displayURL(link.expanded ?? link.text))
            }
        }
    }

    /// A v2 Place: `id` and `full_name` always, the rest as `place.fields` asks.
    private func write(_ fixture: EmulatorFixtures.FixturePlace, fields: [String], to w: inout JSONWriter) {
        let place = fixture.place
        w.object { w in
            w.field("full_name", place.fullName)
            w.field("id", place.id)
            if fields.contains("contained_within") {
                w.key("contained_within")
                w.array { w in if let parent = fixture.parent { w.string(parent) } }
            }
            if fields.contains("country") { w.field("country", place.country) }
            if fields.contains("country_code") { w.field("country_code", place.countryCode) }
            if fields.contains("name") { w.field("name", place.name) }
            if fields.contains("place_type") { w.field("place_type", place.placeType) }
            if fields.contains("geo") {
                let ring = place.boundingBox?.coordinates.first ?? []
                let lons = ring.compactMap(\.first)
                let lats = ring.compactMap { $0.count > 1 ? $0[1] : nil }
                w.key("geo")
                w.object { w in
                    w.field("type", "Feature")
                    w.key("bbox")
                    w.array { w in
                        for value in [lons.min(), lats.min(), lons.max(), lats.max()] { w.number(value ?? 0) }
                    }
                    w.key("properties")
                    w.object { _ in }
                }
            }
        }
    }

    /// A v2 User: `id`, `name`, `username` always, `protected` (and others) as `user.fields` asks.
    private func write(
        _ account: EmulatorConfiguration.TwitterAccount, fields: [String], _ state: EmulatorState,
        to w: inout JSONWriter
    ) {
        w.object { w in
            w.field("id", account.userID)
            w.field("name", account.name)
            w.field("username", account.screenName)
            if fields.contains("protected") { w.field("protected", state.protected[account.userID] ?? false) }
            if fields.contains("verified") { w.field("verified", false) }
            if fields.contains("created_at") { w.field("created_at", XDate.text(0)) }
            if fields.contains("description") { w.field("description", "") }
            if fields.contains("location") { w.field("location", "") }
        }
    }

    // MARK: - DELETE /2/tweets/:id, GET /2/users/me

    private func delete(
        id: String, account: EmulatorConfiguration.TwitterAccount, consumer: String, _ state: inout EmulatorState
    ) -> EmulatorResponse {
        if state.readOnlyConsumers.contains(consumer) {
            return Self.problem(
                403, title: "Forbidden",
                detail:
                    "Your client app is not configured with the appropriate oauth1 app permissions for this endpoint.")
        }
        guard let number = Int64(id), id.count <= 19 else {
            return Self.invalid("id", [id], "The `id` query parameter value [\(id)] does not match ^[0-9]{1,19}$")
        }
        guard let tweet = state.tweets[number] else {
            return Self.missing(id, title: "Not Found Error", detail: "Could not find tweet with id: [\(id)].")
        }
        guard tweet.userID == account.userID else {
            return Self.problem(
                403, title: "Forbidden", detail: "You are not allowed to delete a Tweet that is not yours.")
        }
        state.tweets[number] = nil
        state.timelines[tweet.userID]?.removeAll { $0 == number }
        state.postedTexts[tweet.userID]?.remove(tweet.text)
        return .json(200, encoded: Data(#"{"data":{"deleted":true}}"#.utf8))
    }

    private func me(
        _ account: EmulatorConfiguration.TwitterAccount, _ parameters: RequestParameters, _ state: EmulatorState
    )
        -> EmulatorResponse
    {
        let fields: [String]
        switch list(parameters, "user.fields", allowed: Self.userFields) {
        case .success(let values): fields = values
        case .failure(let error): return error.response
        }
        var w = JSONWriter()
        w.object { w in
            w.key("data")
            write(account, fields: fields, state, to: &w)
        }
        return .json(200, encoded: w.data)
    }
}

/// X API v2's `created_at`: ISO 8601 in UTC with milliseconds, `2025-06-02T08:14:05.000Z`.
enum XDate {
    static func text(_ seconds: Double) -> String {
        let (dayNumber, secondOfDay) = CivilTime.split(seconds)
        let (y, m, d) = CivilCalendar.date(days: dayNumber)
        return "\(y)-\(CivilTime.two(m))-\(CivilTime.two(d))T\(CivilTime.clock(secondOfDay)).000Z"
    }
}
