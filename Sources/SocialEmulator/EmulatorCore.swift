import Foundation
import Geo
import SocialAPI

/// A request as the emulator sees it on the wire.
public struct EmulatorRequest: Sendable {
    public var method: String
    /// The path, without the query.
    public var path: String
    /// The raw (percent-encoded) query.
    public var query: String
    /// Header names in lower case.
    public var headers: [String: String]
    public var body: Data

    public init(method: String, path: String, query: String = "", headers: [String: String] = [:], body: Data = Data())
    {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }
}

/// The emulator's answer, with what the HTTP layer must add: a delay, or a broken connection.
public struct EmulatorResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data
    /// Seconds to wait before answering.
    public var delay: Double = 0
    public var transport: TransportFault = .none
}

/// Accounts and limits the emulator starts with; ``demo`` is what `waypost emulator` prints.
public struct EmulatorConfiguration: Sendable {
    public struct TwitterAccount: Sendable {
        public var userID: String
        public var screenName: String
        public var token: String
        public var tokenSecret: String
        public var geoEnabled: Bool
    }

    public struct FacebookAccount: Sendable {
        public var userID: String
        public var accessToken: String
        /// Granted permissions, e.g. `publish_checkins`.
        public var permissions: Set<String>
    }

    /// Twitter consumer keys and their secrets.
    public var consumers: [String: String]
    /// Consumers with read-only access: their status updates get 403/261.
    public var readOnlyConsumers: Set<String> = []
    public var twitterAccounts: [TwitterAccount]
    public var facebookAccounts: [FacebookAccount]
    /// Requests per window to each geo endpoint, per user (Twitter: 15 per 15 minutes).
    public var geoRateLimit = 15
    public var rateLimitWindow = 900.0
    /// Accepted clock skew for `oauth_timestamp`, seconds (Twitter: 5 minutes).
    public var timestampWindow = 300.0
    /// Status updates per user per day before 403/185.
    public var statusUpdateLimit = 2400
    /// Graph calls per user per window before throttling with code 17, and per app with code 4.
    public var graphUserRateLimit = 200
    public var graphAppRateLimit = 4800
    public var graphRateLimitWindow = 3600.0

    /// One consumer, one Twitter user with geo on, one Facebook user with check-in permission.
    public static let demo = EmulatorConfiguration(
        consumers: ["waypost-demo-consumer": "waypost-demo-consumer-secret"],
        twitterAccounts: [
            TwitterAccount(
                userID: "1001", screenName: "waypost_demo", token: "1001-waypost-demo-token",
                tokenSecret: "waypost-demo-token-secret", geoEnabled: true)
        ],
        facebookAccounts: [
            FacebookAccount(
                userID: "2001", accessToken: "waypost-demo-graph-token",
                permissions: ["public_profile", "publish_checkins", "publish_actions"])
        ])
}

/// One request as received, for the journal: secrets redacted.
public struct JournalEntry: Sendable, Codable, Equatable {
    public var sequence: Int
    public var time: Double
    public var method: String
    public var path: String
    /// Query and form parameters, decoded; `access_token` redacted.
    public var parameters: [String: String]
    /// Headers in lower case; the OAuth signature and Bearer tokens redacted.
    public var headers: [String: String]
    public var status: Int
    /// The fault the request met, if any.
    public var fault: Fault.Kind?
}

/// The Twitter and Facebook Graph emulator's logic: routing, authentication as the providers
/// did it, state, rate limits and the request journal. ``EmulatorServer`` puts it on a socket.
public actor EmulatorCore {
    public let fixtures: EmulatorFixtures
    /// Each fixture place as `geo/*` answers carry it, encoded once: places never change, and
    /// encoding them per request was most of the emulator's cost.
    private let encodedPlaces: [String: Data]
    private let configuration: EmulatorConfiguration
    private let wallClock: @Sendable () -> Double
    private let seed: UInt64

    private func clock() -> Double { wallClock() + state.clockOffset }

    /// Everything a reset clears.
    private struct State {
        var consumers: [String: String]
        var readOnlyConsumers: Set<String>
        /// Graph access tokens refused, and why (the 190 subcode).
        var refusedTokens: [String: GraphErrorSubcode] = [:]
        var twitterAccounts: [EmulatorConfiguration.TwitterAccount]
        var facebookAccounts: [EmulatorConfiguration.FacebookAccount]
        var geoEnabled: [String: Bool]
        var permissions: [String: Set<String>]
        var tweets: [String: [Tweet]] = [:]
        /// Texts already posted per user, for the duplicate check.
        var postedTexts: [String: Set<String>] = [:]
        /// Post times per user, oldest first, pruned to the last day.
        var postTimes: [String: [Double]] = [:]
        var checkins: [String: [GraphCheckin]] = [:]
        var lastGraphMessage: [String: String] = [:]
        var seenNonces: [String: Double] = [:]
        /// The same nonces in arrival order, so expired ones are pruned from the front.
        var nonceQueue: [(key: String, timestamp: Double)] = []
        var nonceQueueStart = 0
        var rateWindows: [String: (start: Double, count: Int)] = [:]
        var nextID = 100_000
        var journal: [JournalEntry] = []
        var faults: [Fault] = []
        var nextFaultID = 1
        var random: FaultRandom
        /// Added to the real clock: lets a test move the emulator's "now".
        var clockOffset = 0.0

        init(_ configuration: EmulatorConfiguration, seed: UInt64) {
            random = FaultRandom(seed: seed)
            consumers = configuration.consumers
            readOnlyConsumers = configuration.readOnlyConsumers
            twitterAccounts = configuration.twitterAccounts
            facebookAccounts = configuration.facebookAccounts
            geoEnabled = Dictionary(
                uniqueKeysWithValues: configuration.twitterAccounts.map { ($0.userID, $0.geoEnabled) })
            permissions = Dictionary(
                uniqueKeysWithValues: configuration.facebookAccounts.map { ($0.userID, $0.permissions) })
        }
    }
    private var state: State

    /// - Parameters:
    ///   - seed: seeds fault probabilities and latencies.
    ///   - clock: the emulator's time (OAuth timestamps, rate-limit windows, fault windows).
    public init(
        fixtures: EmulatorFixtures, configuration: EmulatorConfiguration = .demo, seed: UInt64 = 0,
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.fixtures = fixtures
        self.encodedPlaces = Dictionary(
            fixtures.twitterPlaces.map { ($0.id, Self.encode(fixtures.twitterPlace($0, baseURL: "/1.1/"))) },
            uniquingKeysWith: { first, _ in first })
        self.configuration = configuration
        self.wallClock = clock
        self.seed = seed
        self.state = State(configuration, seed: seed)
    }

    /// Back to the configured accounts: no posts, journal, faults or clock offset; fresh
    /// rate-limit windows; the generator re-seeded.
    public func reset() {
        state = State(configuration, seed: seed)
    }

    /// Adds a fault; returns it with its id.
    @discardableResult
    public func addFault(_ fault: Fault) -> Fault {
        var fault = fault
        fault.id = state.nextFaultID
        state.nextFaultID += 1
        state.faults.append(fault)
        return fault
    }

    public func clearFaults() {
        state.faults = []
    }

    /// The first active fault for `path` that this request meets, drawing its probability.
    private func fault(for path: String) -> Fault? {
        let now = clock()
        for index in state.faults.indices {
            let fault = state.faults[index]
            guard fault.pathContains.isEmpty || path.contains(fault.pathContains),
                fault.remaining.map({ $0 > 0 }) ?? true, fault.from.map({ now >= $0 }) ?? true,
                fault.until.map({ now < $0 }) ?? true
            else { continue }
            guard fault.probability >= 1 || state.random.next() < fault.probability else { continue }
            if let remaining = fault.remaining { state.faults[index].remaining = remaining - 1 }
            return fault
        }
        return nil
    }

    /// Every request received since the last reset, in order.
    public var journal: [JournalEntry] { state.journal }

    /// A control-plane call (`/__waypost/…`, form-encoded parameters) without HTTP, as scenarios
    /// and tests script the emulator.
    @discardableResult
    public func control(_ method: String, _ path: String, _ form: String = "") -> EmulatorResponse {
        handle(
            EmulatorRequest(
                method: method, path: path, headers: ["content-type": "application/x-www-form-urlencoded"],
                body: Data(form.utf8)))
    }

    public func handle(_ request: EmulatorRequest) -> EmulatorResponse {
        let form =
            request.headers["content-type"]?.hasPrefix("application/x-www-form-urlencoded") == true
            ? PercentEncoding.pairs(String(decoding: request.body, as: UTF8.self), plusIsSpace: true) ?? [] : []
        let query = PercentEncoding.pairs(request.query) ?? []
        if request.path.hasPrefix("/__waypost/") { return control(request, parameters: query + form) }
        // Parsed once: authentication checks it, the journal records it with the signature redacted.
        let oauth = request.headers["authorization"].flatMap(Self.oauthParameters)
        let twitterPath = Self.twitterPath(request.path)
        let met = fault(for: request.path)
        var response: EmulatorResponse
        switch met?.kind {
        case .status?:
            let status = met?.status ?? 503
            response =
                twitterPath != nil
                ? twitterError(status, code: met?.code ?? TwitterErrorCode.overCapacity.rawValue, "Over capacity")
                : graphError(
                    status, code: met?.code ?? GraphErrorCode.serviceUnavailable.rawValue,
                    "An unexpected error has occurred. Please retry your request later.")
        case .empty?:
            response = EmulatorResponse(
                status: 200, headers: ["content-type": "application/json; charset=utf-8"], body: Data())
        case .reset?, .hang?:
            response = EmulatorResponse(status: 200, headers: [:], body: Data())
            response.transport = met?.kind == .reset ? .reset : .hang
        case .latency?, .truncated?, nil:
            if let twitterPath {
                response = twitter(request, path: twitterPath, oauth: oauth, query: query, form: form)
            } else {
                response = graph(request, path: Self.graphPath(request.path), parameters: query + form)
            }
            if let met, met.kind == .latency { response.delay = state.random.latency(met) }
            if met?.kind == .truncated { response.body = response.body.prefix(response.body.count / 2) }
        }
        record(request, oauth: oauth, parameters: query + form, status: response.status, fault: met?.kind)
        return response
    }

    // MARK: - Twitter

    static func twitterPath(_ path: String) -> String? {
        for prefix in ["/1.1/", "/1/"] where path.hasPrefix(prefix) { return String(path.dropFirst(prefix.count)) }
        return nil
    }

    private func twitter(
        _ request: EmulatorRequest, path: String, oauth: [String: String]?, query: [(name: String, value: String)],
        form: [(name: String, value: String)]
    ) -> EmulatorResponse {
        let account: EmulatorConfiguration.TwitterAccount
        switch authenticateTwitter(request, oauth: oauth, form: form) {
        case .success(let found): account = found
        case .failure(let response): return response
        }
        let parameters = Dictionary(query + form, uniquingKeysWith: { first, _ in first })
        switch (request.method, path) {
        case ("GET", "geo/reverse_geocode.json"), ("GET", "geo/search.json"), ("GET", "geo/similar_places.json"):
            if let limited = rateLimit(account.userID, endpoint: path) { return limited }
            return withRateHeaders(geo(path, parameters: parameters), user: account.userID, endpoint: path)
        case ("GET", let p) where p.hasPrefix("geo/id/") && p.hasSuffix(".json"):
            let id = String(p.dropFirst("geo/id/".count).dropLast(".json".count))
            guard let place = encodedPlaces[id] else {
                return twitterError(404, .pageDoesNotExist, "Sorry, that page does not exist.")
            }
            return json(200, encoded: place)
        case ("POST", "statuses/update.json"):
            if let consumer = oauth?["oauth_consumer_key"], state.readOnlyConsumers.contains(consumer) {
                return twitterError(403, .applicationCannotWrite, "Application cannot perform write actions.")
            }
            return updateStatus(account, parameters: parameters)
        case ("GET", "statuses/user_timeline.json"):
            let count = parameters["count"].flatMap { Int($0) } ?? 20
            return json(200, Array((state.tweets[account.userID] ?? []).reversed().prefix(max(1, min(count, 200)))))
        case ("GET", "account/verify_credentials.json"):
            return json(
                200,
                TwitterUser(
                    idStr: account.userID, screenName: account.screenName, geoEnabled: state.geoEnabled[account.userID])
            )
        default:
            return twitterError(404, .pageDoesNotExist, "Sorry, that page does not exist.")
        }
    }

    private enum Authenticated<T> {
        case success(T)
        case failure(EmulatorResponse)
    }

    /// OAuth 1.0a as Twitter checked it: parameters present, consumer and token known,
    /// timestamp within the window, nonce not replayed, HMAC-SHA1 signature correct.
    private func authenticateTwitter(
        _ request: EmulatorRequest, oauth: [String: String]?, form: [(name: String, value: String)]
    ) -> Authenticated<EmulatorConfiguration.TwitterAccount> {
        guard let oauth, let consumerKey = oauth["oauth_consumer_key"], let nonce = oauth["oauth_nonce"],
            let signature = oauth["oauth_signature"], let timestampText = oauth["oauth_timestamp"],
            let timestamp = Double(timestampText), oauth["oauth_signature_method"] == "HMAC-SHA1"
        else { return .failure(twitterError(400, .badAuthenticationData, "Bad Authentication data.")) }
        guard let consumerSecret = state.consumers[consumerKey] else {
            return .failure(twitterError(401, .couldNotAuthenticate, "Could not authenticate you."))
        }
        guard let token = oauth["oauth_token"],
            let account = state.twitterAccounts.first(where: { $0.token == token })
        else { return .failure(twitterError(401, .invalidOrExpiredToken, "Invalid or expired token.")) }
        let now = clock()
        guard abs(now - timestamp) <= configuration.timestampWindow else {
            return .failure(twitterError(401, .timestampOutOfBounds, "Timestamp out of bounds."))
        }
        let host = request.headers["host"] ?? "localhost"
        let url = URL(string: "http://\(host)\(request.path)" + (request.query.isEmpty ? "" : "?\(request.query)"))
        guard let url else { return .failure(twitterError(400, .badAuthenticationData, "Bad Authentication data.")) }
        var protocolParameters = oauth
        protocolParameters["oauth_signature"] = nil
        let base = OAuth1Signer.baseString(
            OAuth1Request(method: request.method, url: url, formParameters: form),
            protocolParameters: protocolParameters)
        let expected = OAuth1Signer.hmacSHA1(base, consumerSecret: consumerSecret, tokenSecret: account.tokenSecret)
        guard expected == signature else {
            return .failure(twitterError(401, .couldNotAuthenticate, "Could not authenticate you."))
        }
        // A nonce may be used once per consumer while its timestamp is inside the window.
        while state.nonceQueueStart < state.nonceQueue.count,
            now - state.nonceQueue[state.nonceQueueStart].timestamp > 2 * configuration.timestampWindow
        {
            state.seenNonces[state.nonceQueue[state.nonceQueueStart].key] = nil
            state.nonceQueueStart += 1
        }
        if state.nonceQueueStart > 4096 {
            state.nonceQueue.removeFirst(state.nonceQueueStart)
            state.nonceQueueStart = 0
        }
        let key = consumerKey + "\u{0}" + nonce + "\u{0}" + timestampText
        guard state.seenNonces[key] == nil else {
            return .failure(twitterError(401, .couldNotAuthenticate, "Could not authenticate you."))
        }
        state.seenNonces[key] = timestamp
        state.nonceQueue.append((key, timestamp))
        return .success(account)
    }

    /// `OAuth k="v", …` as decoded parameters.
    static func oauthParameters(_ header: String) -> [String: String]? {
        guard header.hasPrefix("OAuth ") else { return nil }
        var out: [String: String] = [:]
        for part in header.utf8.dropFirst(6).split(separator: UInt8(ascii: ",")) {
            let pair = part.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            var raw = pair[pair.index(after: equals)...]
            while raw.last == UInt8(ascii: " ") || raw.last == UInt8(ascii: "\t") { raw = raw.dropLast() }
            if raw.count >= 2, raw.first == UInt8(ascii: "\""), raw.last == UInt8(ascii: "\"") {
                raw = raw.dropFirst().dropLast()
            }
            guard let value = PercentEncoding.decode(String(decoding: raw, as: UTF8.self)) else { return nil }
            out[String(decoding: pair[..<equals], as: UTF8.self)] = value
        }
        return out
    }

    private func geo(_ path: String, parameters: [String: String]) -> EmulatorResponse {
        let latitude = parameters["lat"].flatMap(Double.init)
        let longitude = parameters["long"].flatMap(Double.init)
        // reverse_geocode defaults to neighborhoods, as Twitter's did; search and similar_places find venues.
        let granularity = parameters["granularity"] ?? (path == "geo/reverse_geocode.json" ? "neighborhood" : "poi")
        guard let rank = TwitterPlace.granularities.firstIndex(of: granularity) else {
            return twitterError(400, .invalidParameter, "Invalid granularity: \(granularity)")
        }
        let maxResults = max(1, min(parameters["max_results"].flatMap { Int($0) } ?? 20, 100))
        var places = fixtures.twitterPlaces.filter {
            (TwitterPlace.granularities.firstIndex(of: $0.placeType) ?? 0) >= rank
        }
        if path == "geo/reverse_geocode.json" || path == "geo/similar_places.json" {
            guard let latitude, let longitude, abs(latitude) <= 90, abs(longitude) <= 180 else {
                return twitterError(400, .invalidParameter, "Invalid coordinates.")
            }
            places = places.filter { $0.contains(latitude: latitude, longitude: longitude) }
        } else if let latitude, let longitude {
            places = places.filter { $0.contains(latitude: latitude, longitude: longitude) }
        } else if (parameters["query"] ?? "").isEmpty {
            // Nothing to search by but the caller's IP address, which Twitter could not place.
            return twitterError(404, .noLocationForIP, "No location associated with the specified IP address.")
        }
        if let name = parameters[path == "geo/similar_places.json" ? "name" : "query"], !name.isEmpty {
            places = places.filter { $0.name.localizedCaseInsensitiveContains(name) }
        } else if path == "geo/similar_places.json" {
            return twitterError(400, .invalidParameter, "Missing name.")
        }
        // Twitter's order: finest granularity first.
        places.sort {
            (TwitterPlace.granularities.firstIndex(of: $0.placeType) ?? 0)
                < (TwitterPlace.granularities.firstIndex(of: $1.placeType) ?? 0)
        }
        // `{"result":{"places":[…],"token":…}}` spliced from the pre-encoded places, keys sorted
        // as the encoder would.
        var body = Data(#"{"result":{"places":["#.utf8)
        for (index, place) in places.prefix(maxResults).enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(encodedPlaces[place.id] ?? Data("{}".utf8))
        }
        body.append(Data("]".utf8))
        if path == "geo/similar_places.json" {
            state.nextID += 1
            body.append(Data(#","token":"wp\#(state.nextID)""#.utf8))
        }
        body.append(Data("}}".utf8))
        return json(200, encoded: body)
    }

    private func updateStatus(_ account: EmulatorConfiguration.TwitterAccount, parameters: [String: String])
        -> EmulatorResponse
    {
        guard let status = parameters["status"], !status.isEmpty else {
            return twitterError(403, .missingParameter, "Missing required parameter: status.")
        }
        guard status.count <= 280 else { return twitterError(403, .statusTooLong, "Status is over 280 characters.") }
        let dayAgo = clock() - 86_400
        if let first = state.postTimes[account.userID]?.first, first <= dayAgo {
            state.postTimes[account.userID]?.removeAll { $0 <= dayAgo }
        }
        guard (state.postTimes[account.userID]?.count ?? 0) < configuration.statusUpdateLimit else {
            return twitterError(403, .statusUpdateLimit, "User is over daily status update limit.")
        }
        if state.postedTexts[account.userID]?.contains(status) == true {
            return twitterError(403, .duplicateStatus, "Status is a duplicate.")
        }
        state.nextID += 1
        var tweet = Tweet(
            idStr: String(state.nextID), text: status, createdAt: Self.twitterDate(clock()), geo: nil, coordinates: nil,
            place: nil,
            user: TwitterUser(
                idStr: account.userID, screenName: account.screenName, geoEnabled: state.geoEnabled[account.userID]))
        // With geo_enabled off, Twitter dropped location silently.
        if state.geoEnabled[account.userID] == true {
            if let lat = parameters["lat"].flatMap(Double.init), let long = parameters["long"].flatMap(Double.init),
                parameters["display_coordinates"] != "false"
            {
                tweet.geo = Tweet.Point(coordinates: [lat, long])
                tweet.coordinates = Tweet.Point(coordinates: [long, lat])
            }
            if let id = parameters["place_id"], let place = fixtures.twitterPlaces.first(where: { $0.id == id }) {
                tweet.place = fixtures.twitterPlace(place, baseURL: "/1.1/")
            }
        }
        state.tweets[account.userID, default: []].append(tweet)
        state.postTimes[account.userID, default: []].append(clock())
        state.postedTexts[account.userID, default: []].insert(status)
        return json(200, tweet)
    }

    /// Twitter's `created_at`: `Wed Aug 27 13:08:45 +0000 2008`, in UTC.
    static func twitterDate(_ seconds: Double) -> String {
        let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let (dayNumber, secondOfDay) = split(seconds)
        let (y, m, d) = civil(fromDays: dayNumber)
        return "\(days[((dayNumber % 7) + 7) % 7]) \(months[m - 1]) \(two(d)) \(clockText(secondOfDay)) +0000 \(y)"
    }

    /// Graph's `created_time`: `2014-04-12T14:26:16+0000`.
    static func graphDate(_ seconds: Double) -> String {
        let (dayNumber, secondOfDay) = split(seconds)
        let (y, m, d) = civil(fromDays: dayNumber)
        return "\(y)-\(two(m))-\(two(d))T\(clockText(secondOfDay))+0000"
    }

    private static func split(_ seconds: Double) -> (day: Int, second: Int) {
        let whole = Int(seconds.rounded(.down))
        let day = Int((Double(whole) / 86_400).rounded(.down))
        return (day, whole - day * 86_400)
    }

    private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    private static func clockText(_ second: Int) -> String {
        "\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))"
    }

    /// Year, month, day of a day count since 1970-01-01 (Hinnant's civil_from_days).
    static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    // MARK: Rate limits

    /// Counts the request in its user's window; the 429 answer once the window is full.
    private func rateLimit(_ user: String, endpoint: String) -> EmulatorResponse? {
        let now = clock()
        let key = user + " " + endpoint
        var window = state.rateWindows[key] ?? (now, 0)
        if now - window.start >= configuration.rateLimitWindow { window = (now, 0) }
        window.count += 1
        state.rateWindows[key] = window
        guard window.count > configuration.geoRateLimit else { return nil }
        var response = twitterError(429, .rateLimitExceeded, "Rate limit exceeded")
        response.headers.merge(rateHeaders(window), uniquingKeysWith: { _, new in new })
        return response
    }

    private func withRateHeaders(_ response: EmulatorResponse, user: String, endpoint: String) -> EmulatorResponse {
        guard let window = state.rateWindows[user + " " + endpoint] else { return response }
        var response = response
        response.headers.merge(rateHeaders(window), uniquingKeysWith: { _, new in new })
        return response
    }

    private func rateHeaders(_ window: (start: Double, count: Int)) -> [String: String] {
        [
            "x-rate-limit-limit": String(configuration.geoRateLimit),
            "x-rate-limit-remaining": String(max(0, configuration.geoRateLimit - window.count)),
            "x-rate-limit-reset": String(Int((window.start + configuration.rateLimitWindow).rounded(.up))),
        ]
    }

    // MARK: - Graph

    static func graphPath(_ path: String) -> String {
        // Graph paths may carry a version: /v2.12/me/checkins.
        let parts = path.split(separator: "/")
        if let first = parts.first, first.hasPrefix("v"), first.dropFirst().allSatisfy({ $0.isNumber || $0 == "." }) {
            return parts.dropFirst().joined(separator: "/")
        }
        return parts.joined(separator: "/")
    }

    private func graph(_ request: EmulatorRequest, path: String, parameters: [(name: String, value: String)])
        -> EmulatorResponse
    {
        let values = Dictionary(parameters, uniquingKeysWith: { first, _ in first })
        var token = values["access_token"]
        if token == nil, let header = request.headers["authorization"], header.hasPrefix("Bearer ") {
            token = String(header.dropFirst(7))
        }
        let aboutMe = path == "me" || path.hasPrefix("me/")
        guard let token else {
            return aboutMe
                ? graphError(
                    400, .unknownPath,
                    "An active access token must be used to query information about the current user.")
                : graphError(400, .accessTokenRequired, "An access token is required to request this resource.")
        }
        if let why = state.refusedTokens[token] {
            return graphError(400, .invalidToken, "Error validating access token: \(Self.describe(why))", subcode: why)
        }
        guard let account = state.facebookAccounts.first(where: { $0.accessToken == token }) else {
            return graphError(400, .invalidToken, "Invalid OAuth access token - Cannot parse access token")
        }
        if let throttled = graphThrottle(account.userID) { return throttled }
        let granted = state.permissions[account.userID] ?? []
        switch (request.method, path) {
        case ("GET", "search"):
            return searchPlaces(values)
        case ("GET", "me/checkins"):
            return json(200, GraphList(data: Array((state.checkins[account.userID] ?? []).reversed())))
        case ("POST", "me/checkins"):
            guard granted.contains("publish_checkins") || granted.contains("publish_actions") else {
                return graphError(403, .permissionMissing, "(#200) Requires extended permission: publish_checkins")
            }
            return postCheckin(account, values, feed: false)
        case ("POST", "me/feed"):
            guard granted.contains("publish_actions") else {
                return graphError(403, .permissionMissing, "(#200) Requires extended permission: publish_actions")
            }
            return postCheckin(account, values, feed: true)
        case ("GET", "me"):
            return json(200, ["id": account.userID])
        case ("GET", "me/permissions"):
            let all = state.facebookAccounts.first { $0.userID == account.userID }?.permissions ?? []
            let list = all.union(granted).sorted().map {
                GraphPermission(permission: $0, status: granted.contains($0) ? "granted" : "declined")
            }
            return json(200, GraphList(data: list))
        default:
            if aboutMe {
                return graphError(400, .unknownPath, "Unknown path components: /\(path.dropFirst("me/".count))")
            }
            return graphError(404, .unknownAlias, "(#803) Some of the aliases you requested do not exist: \(path)")
        }
    }

    /// The states a Graph access token can be put in (`/__waypost/facebook/tokens`, scenario
    /// `graphToken` changes): valid, or refused with that 190 subcode.
    public static let graphTokenStates: KeyValuePairs<String, GraphErrorSubcode?> = [
        "valid": nil, "expired": .expired, "password-changed": .passwordChanged,
        "app-not-installed": .applicationNotInstalled, "checkpoint": .userCheckpointed,
        "unconfirmed": .unconfirmedUser, "logged-out": .invalidToken,
    ]

    /// Graph's wording for a refused token.
    private static func describe(_ why: GraphErrorSubcode) -> String {
        switch why {
        case .applicationNotInstalled: "The user has not authorized the application."
        case .userCheckpointed: "You cannot access the app till you log in to www.facebook.com."
        case .passwordChanged:
            "The session has been invalidated because the user changed their password."
        case .expired: "Session has expired."
        case .unconfirmedUser: "Sessions for the user are not allowed because the user is not a confirmed user."
        case .invalidToken: "The session is invalid because the user logged out."
        }
    }

    /// Graph's throttling: per user (code 17) and per app (code 4), in fixed windows.
    private func graphThrottle(_ user: String) -> EmulatorResponse? {
        let now = clock()
        for (key, limit) in [
            ("graph-user " + user, configuration.graphUserRateLimit), ("graph-app", configuration.graphAppRateLimit),
        ] {
            var window = state.rateWindows[key] ?? (now, 0)
            if now - window.start >= configuration.graphRateLimitWindow { window = (now, 0) }
            window.count += 1
            state.rateWindows[key] = window
            if window.count > limit {
                return key == "graph-app"
                    ? graphError(400, .applicationRateLimit, "(#4) Application request limit reached")
                    : graphError(400, .userRateLimit, "(#17) User request limit reached")
            }
        }
        return nil
    }

    private func searchPlaces(_ values: [String: String]) -> EmulatorResponse {
        guard values["type"] == "place" else {
            return graphError(400, .invalidParameter, "(#100) Unsupported type: \(values["type"] ?? "")")
        }
        let center = values["center"]?.split(separator: ",").compactMap { Double($0) } ?? []
        guard center.count == 2, abs(center[0]) <= 90, abs(center[1]) <= 180 else {
            return graphError(400, .invalidParameter, "(#100) Invalid center parameter")
        }
        let here = Coordinate(latitude: center[0], longitude: center[1])
        let distance = min(Double(values["distance"].flatMap { Int($0) } ?? 1000), 50_000)
        let limit = max(1, min(values["limit"].flatMap { Int($0) } ?? 25, 100))
        let offset =
            values["after"].flatMap { Data(base64Encoded: $0) }.flatMap { Int(String(decoding: $0, as: UTF8.self)) }
            ?? 0
        var found: [(GraphPage, Double)] = fixtures.facebookPages.compactMap { page in
            guard let lat = page.location?.latitude, let lon = page.location?.longitude else { return nil }
            let d = ShortDistance.distance(here, Coordinate(latitude: lat, longitude: lon))
            return d <= distance ? (page, d) : nil
        }
        if let q = values["q"], !q.isEmpty { found = found.filter { $0.0.name.localizedCaseInsensitiveContains(q) } }
        found.sort { $0.1 < $1.1 }
        let page = Array(found.dropFirst(offset).prefix(limit).map(\.0))
        let after =
            offset + page.count < found.count ? Data(String(offset + page.count).utf8).base64EncodedString() : nil
        let paging = GraphList<GraphPage>.Paging(
            cursors: .init(before: Data(String(offset).utf8).base64EncodedString(), after: after))
        return json(200, GraphList(data: page, paging: paging))
    }

    private func postCheckin(_ account: EmulatorConfiguration.FacebookAccount, _ values: [String: String], feed: Bool)
        -> EmulatorResponse
    {
        let page = values["place"].flatMap { id in fixtures.facebookPages.first { $0.id == id } }
        if !feed && page == nil {
            return graphError(400, .invalidParameter, "(#100) param place must be a valid place ID")
        }
        let message = values["message"]
        if let message, state.lastGraphMessage[account.userID] == message {
            return graphError(400, .duplicatePost, "(#506) Duplicate status message")
        }
        var coordinates: GraphCheckin.Coordinates?
        if let text = values["coordinates"] {
            guard let decoded = try? JSONDecoder().decode(GraphCheckin.Coordinates.self, from: Data(text.utf8)) else {
                return graphError(400, .invalidParameter, "(#100) coordinates must be a JSON object")
            }
            coordinates = decoded
        }
        state.nextID += 1
        let id = "\(account.userID)_\(state.nextID)"
        state.lastGraphMessage[account.userID] = message
        state.checkins[account.userID, default: []].append(
            GraphCheckin(
                id: id, message: message, place: page,
                createdTime: Self.graphDate(clock()),
                coordinates: coordinates))
        return json(200, GraphCreated(id: id))
    }

    // MARK: - Control plane

    private func control(_ request: EmulatorRequest, parameters: [(name: String, value: String)]) -> EmulatorResponse {
        let values = Dictionary(parameters, uniquingKeysWith: { first, _ in first })
        switch (request.method, request.path) {
        case ("POST", "/__waypost/reset"):
            reset()
            return json(200, ["status": "reset"])
        case ("GET", "/__waypost/journal"):
            let journal =
                values["path"].map { filter in state.journal.filter { $0.path.contains(filter) } } ?? state.journal
            return json(200, journal)
        case ("POST", "/__waypost/twitter/geo_enabled"):
            guard let user = values["user_id"], state.geoEnabled[user] != nil,
                let on = values["enabled"].map({ $0 == "true" })
            else { return json(400, ["error": "user_id of a known user and enabled=true|false are required"]) }
            state.geoEnabled[user] = on
            return json(200, ["user_id": user, "geo_enabled": String(on)])
        case ("POST", "/__waypost/facebook/permissions"):
            guard let user = values["user_id"], state.permissions[user] != nil, let permission = values["permission"],
                let status = values["status"], status == "granted" || status == "declined"
            else { return json(400, ["error": "user_id, permission and status=granted|declined are required"]) }
            if status == "granted" {
                state.permissions[user]?.insert(permission)
            } else {
                state.permissions[user]?.remove(permission)
            }
            return json(200, ["user_id": user, "permission": permission, "status": status])
        case ("POST", "/__waypost/twitter/consumers"):
            guard let key = values["key"], !key.isEmpty, let secret = values["secret"], !secret.isEmpty else {
                return json(400, ["error": "key and secret are required"])
            }
            let access = values["access"] ?? "read-write"
            guard access == "read" || access == "read-write" else {
                return json(400, ["error": "access is read or read-write"])
            }
            state.consumers[key] = secret
            if access == "read" {
                state.readOnlyConsumers.insert(key)
            } else {
                state.readOnlyConsumers.remove(key)
            }
            return json(200, ["key": key, "access": access])
        case ("POST", "/__waypost/twitter/users"):
            guard let user = values["user_id"], let name = values["screen_name"], let token = values["token"],
                let secret = values["token_secret"], ![user, name, token, secret].contains("")
            else { return json(400, ["error": "user_id, screen_name, token and token_secret are required"]) }
            let geo = values["geo_enabled"].map { $0 == "true" } ?? true
            state.twitterAccounts.removeAll { $0.userID == user || $0.token == token }
            state.twitterAccounts.append(
                .init(userID: user, screenName: name, token: token, tokenSecret: secret, geoEnabled: geo))
            state.geoEnabled[user] = geo
            return json(200, ["user_id": user, "screen_name": name, "geo_enabled": String(geo)])
        case ("POST", "/__waypost/facebook/users"):
            guard let user = values["user_id"], !user.isEmpty, let token = values["access_token"], !token.isEmpty else {
                return json(400, ["error": "user_id and access_token are required"])
            }
            let granted = Set((values["permissions"] ?? "").split(separator: ",").map(String.init))
            state.facebookAccounts.removeAll { $0.userID == user || $0.accessToken == token }
            state.facebookAccounts.append(.init(userID: user, accessToken: token, permissions: granted))
            state.permissions[user] = granted
            return json(200, ["user_id": user, "permissions": granted.sorted().joined(separator: ",")])
        case ("POST", "/__waypost/facebook/tokens"):
            guard let token = values["access_token"], !token.isEmpty, let name = values["state"],
                let entry = Self.graphTokenStates.first(where: { $0.key == name })
            else {
                let names = Self.graphTokenStates.map(\.key).joined(separator: "|")
                return json(400, ["error": "access_token and state=\(names) are required"])
            }
            state.refusedTokens[token] = entry.value  // nil: valid again
            return json(200, ["state": name])
        case ("POST", "/__waypost/faults"):
            switch Fault.parse(values) {
            case .success(let fault): return json(200, addFault(fault))
            case .failure(let error): return json(400, ["error": error.message])
            }
        case ("GET", "/__waypost/faults"):
            return json(200, state.faults)
        case ("DELETE", "/__waypost/faults"):
            clearFaults()
            return json(200, ["status": "cleared"])
        case ("POST", "/__waypost/clock"):
            guard let offset = values["offset"].flatMap(Double.init), offset.isFinite else {
                return json(400, ["error": "offset (seconds added to the emulator's clock) is required"])
            }
            state.clockOffset = offset
            return json(200, ["offset": String(offset), "now": String(clock())])
        default:
            return json(404, ["error": "unknown control endpoint \(request.method) \(request.path)"])
        }
    }

    // MARK: - Journal and responses

    private func record(
        _ request: EmulatorRequest, oauth: [String: String]?, parameters: [(name: String, value: String)], status: Int,
        fault: Fault.Kind?
    ) {
        var values: [String: String] = [:]
        for (name, value) in parameters where values[name] == nil {
            values[name] = name == "access_token" ? "REDACTED" : value
        }
        var headers = request.headers
        if headers["authorization"] != nil {
            if var oauth {
                oauth["oauth_signature"] = "REDACTED"
                headers["authorization"] =
                    "OAuth "
                    + oauth.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ", ")
            } else {
                headers["authorization"] = "REDACTED"
            }
        }
        state.journal.append(
            JournalEntry(
                sequence: state.journal.count + 1, time: clock(), method: request.method, path: request.path,
                parameters: values, headers: headers, status: status, fault: fault))
    }

    private func json<T: Encodable>(_ status: Int, _ value: T) -> EmulatorResponse {
        json(status, encoded: Self.encode(value))
    }

    private func json(_ status: Int, encoded body: Data) -> EmulatorResponse {
        EmulatorResponse(status: status, headers: ["content-type": "application/json; charset=utf-8"], body: body)
    }

    private static func encode<T: Encodable>(_ value: T) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }

    private func twitterError(_ status: Int, _ code: TwitterErrorCode, _ message: String) -> EmulatorResponse {
        twitterError(status, code: code.rawValue, message)
    }

    /// Any code: a `status` fault may ask for one Twitter never documented.
    private func twitterError(_ status: Int, code: Int, _ message: String) -> EmulatorResponse {
        json(status, TwitterErrorBody(errors: [.init(code: code, message: message)]))
    }

    private func graphError(
        _ status: Int, _ code: GraphErrorCode, _ message: String, subcode: GraphErrorSubcode? = nil
    ) -> EmulatorResponse {
        graphError(status, code: code.rawValue, message, subcode: subcode?.rawValue)
    }

    /// Graph's errors are all of type `OAuthException` on these endpoints.
    private func graphError(_ status: Int, code: Int, _ message: String, subcode: Int? = nil) -> EmulatorResponse {
        state.nextID += 1
        return json(
            status,
            GraphErrorBody(
                error: .init(
                    message: message, type: "OAuthException", code: code, errorSubcode: subcode,
                    fbtraceID: "Wp\(state.nextID)")))
    }
}
