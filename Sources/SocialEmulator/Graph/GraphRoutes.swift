import Foundation
import Geo
import SocialAPI
import WaypostSupport

/// Facebook Graph's endpoints as the emulator serves them: places search, `me`, check-ins,
/// the feed and permissions, under any version prefix (`/v2.0/…`, `/v3.1/…`) or none (the
/// app's default version), each answer carrying `facebook-api-version`; lists with `paging`
/// cursors and working `next`/`previous` URLs; every failure as Graph's error object.
struct GraphRoutes: Sendable {
    let fixtures: EmulatorFixtures
    let configuration: EmulatorConfiguration

    /// The version a path asks for (`v3.1`) and the path after it, without its leading slash.
    ///
    /// An ASCII path (every path a client percent-encodes) is split at its bytes, where each `/`
    /// is a character of its own: split character by character, routing was most of what Graph's
    /// routes did before answering (perf, a field trial). Any other path is read by character.
    static func route(_ path: String, defaultVersion: String) -> (version: String, path: String) {
        guard ASCIIText.isASCII(path) else {
            return route(byCharacter: path, defaultVersion: defaultVersion)
        }
        var segments = path.utf8.split(separator: UInt8(ascii: "/"))[...]
        var version = defaultVersion
        if let first = segments.first, isVersion(first) {
            version = String(Substring(first))
            segments = segments.dropFirst()
        }
        var rest = ""
        rest.reserveCapacity(path.utf8.count)
        for segment in segments {
            if !rest.isEmpty { rest += "/" }
            rest += Substring(segment)
        }
        return (version, rest)
    }

    /// ``route(_:defaultVersion:)`` character by character, for any path.
    static func route(byCharacter path: String, defaultVersion: String) -> (version: String, path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        if let first = parts.first, isVersion(first) {
            return (String(first), parts.dropFirst().joined(separator: "/"))
        }
        return (defaultVersion, parts.joined(separator: "/"))
    }

    /// `vN.M`, as Graph spelled its versions.
    private static func isVersion(_ text: Substring) -> Bool {
        let parts = text.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
        return text.first == "v" && parts.count == 2
            && parts.allSatisfy {
                !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber)
            }
    }

    /// ``isVersion(_:)`` of ASCII bytes: `v`, one to three digits, `.`, one to three digits.
    private static func isVersion(_ bytes: Substring.UTF8View) -> Bool {
        guard bytes.first == UInt8(ascii: "v"), let dot = bytes.firstIndex(of: UInt8(ascii: ".")) else { return false }
        func isNumber(_ digits: Substring.UTF8View.SubSequence) -> Bool {
            (1...3).contains(digits.count) && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        }
        return isNumber(bytes[bytes.index(after: bytes.startIndex)..<dot])
            && isNumber(bytes[bytes.index(after: dot)...])
    }

    func respond(
        to request: EmulatorRequest, parameters: RequestParameters, state: inout EmulatorState, now: Double
    ) -> EmulatorResponse {
        let (version, path) = Self.route(request.path, defaultVersion: configuration.graphDefaultVersion)
        return Self.versioned(
            answer(request, version: version, path: path, parameters: parameters, state: &state, now: now),
            version: version)
    }

    /// Every Graph answer says which version served it.
    func versioned(_ response: EmulatorResponse, path: String) -> EmulatorResponse {
        Self.versioned(response, version: Self.route(path, defaultVersion: configuration.graphDefaultVersion).version)
    }

    private static func versioned(_ response: EmulatorResponse, version: String) -> EmulatorResponse {
        var response = response
        response.headers["facebook-api-version"] = version
        return response
    }

    private func answer(
        _ request: EmulatorRequest, version: String, path: String, parameters: RequestParameters,
        state: inout EmulatorState, now: Double
    ) -> EmulatorResponse {
        var token = parameters["access_token"]
        if token == nil, let header = request.headers["authorization"] {
            for scheme in ["Bearer ", "OAuth "] where header.hasPrefix(scheme) {
                token = String(header.dropFirst(scheme.count))
            }
        }
        let aboutMe = path == "me" || path.hasPrefix("me/")
        guard let token else {
            return aboutMe
                ? Self.error(
                    400, .unknownPath,
                    "An active access token must be used to query information about the current user.",
                    state: &state)
                : Self.error(
                    400, .accessTokenRequired, "An access token is required to request this resource.", state: &state)
        }
        if let why = state.refusedTokens[token] {
            return Self.error(
                400, .invalidToken, "Error validating access token: \(Self.describe(why))", subcode: why, state: &state)
        }
        guard let account = state.facebookAccounts.first(where: { $0.accessToken == token }) else {
            return Self.error(
                400, .invalidToken, "Invalid OAuth access token - Cannot parse access token", state: &state)
        }
        if let throttled = throttle(account.userID, state: &state, now: now) { return throttled }
        let granted = state.permissions[account.userID] ?? []
        let page = Paging(request: request, version: version, path: path, parameters: parameters)
        let fields = GraphFields(parameters["fields"])
        func nonexisting(_ node: GraphFields.Node) -> EmulatorResponse? {
            fields.unknown(on: node).map { Self.nonexistingField($0, on: node, state: &state) }
        }
        func posts(_ list: [GraphCheckin]) -> EmulatorResponse {
            nonexisting(.post)
                ?? page.list(
                    list, key: \.id, encodedBy: { fields.select(JSONBody.encode($0), node: .post) }, state: &state)
        }
        switch (request.routedMethod, path) {
        case ("GET", "search"):
            return nonexisting(.page) ?? searchPlaces(parameters, page, fields: fields, state: &state)
        case ("GET", "me"):
            return nonexisting(.user)
                ?? .json(
                    200,
                    encoded: fields.select(JSONBody.encode(["id": account.userID, "name": account.name]), node: .user))
        case ("GET", "me/checkins"):
            // A check-in "represents a single visit to a location": posts without a place are not.
            let visits = (state.checkins[account.userID] ?? []).filter { $0.place != nil }
            return posts(visits.reversed())
        case ("GET", "me/feed"):
            // The feed holds every post, check-ins among them, newest first.
            return posts((state.checkins[account.userID] ?? []).reversed())
        case ("POST", "me/checkins"):
            guard granted.contains("publish_checkins") || granted.contains("publish_actions") else {
                return Self.error(
                    403, .permissionMissing, "(#200) Requires extended permission: publish_checkins", state: &state)
            }
            return postCheckin(account, parameters, feed: false, state: &state, now: now)
        case ("POST", "me/feed"):
            guard granted.contains("publish_actions") else {
                return Self.error(
                    403, .permissionMissing, "(#200) Requires extended permission: publish_actions", state: &state)
            }
            return postCheckin(account, parameters, feed: true, state: &state, now: now)
        case ("GET", "me/permissions"):
            let all = state.facebookAccounts.first { $0.userID == account.userID }?.permissions ?? []
            let list = all.union(granted).sorted().map {
                GraphPermission(permission: $0, status: granted.contains($0) ? "granted" : "declined")
            }
            return .json(200, encoded: GraphAnswers.encode(GraphList(data: list)))
        case ("GET", let edge) where edge.hasPrefix("me/permissions/"):
            // One permission's status, as the list gives it (empty when the app never asked for it).
            let name = String(edge.dropFirst("me/permissions/".count))
            let all = state.facebookAccounts.first { $0.userID == account.userID }?.permissions ?? []
            let list =
                all.union(granted).contains(name)
                ? [GraphPermission(permission: name, status: granted.contains(name) ? "granted" : "declined")] : []
            return .json(200, encoded: GraphAnswers.encode(GraphList(data: list)))
        case ("DELETE", let edge) where edge.hasPrefix("me/permissions/"):
            // "User permissions": DELETE /{user-id}/permissions/{permission-name} revokes one; it
            // is listed `declined` after.
            state.permissions[account.userID]?.remove(String(edge.dropFirst("me/permissions/".count)))
            return .json(200, ["success": true])
        case ("DELETE", "me/permissions"):
            // Facebook Login's "Revoking Login": every permission goes, and the app's authorization
            // with them — the user's tokens are refused after (190/458).
            state.permissions[account.userID] = []
            for user in state.facebookAccounts where user.userID == account.userID {
                state.refusedTokens[user.accessToken] = .applicationNotInstalled
            }
            return .json(200, ["success": true])
        case ("GET", "") where parameters["ids"] != nil:
            return objects(ids: parameters["ids"] ?? "", of: account, fields: fields, state: &state)
        // An object's id is one path segment: routed by the path's bytes, as a server splits it
        // (Foundation's `String.contains` went through `NSString` at every request, perf).
        case ("GET", let id) where !id.utf8.contains(UInt8(ascii: "/")) && !aboutMe:
            if let page = fixtures.facebookPages.first(where: { $0.id == id }) {
                return nonexisting(.page) ?? .json(200, encoded: fields.select(JSONBody.encode(page), node: .page))
            }
            if let checkin = state.checkins[account.userID]?.first(where: { $0.id == id }) {
                return nonexisting(.post)
                    ?? .json(200, encoded: fields.select(GraphAnswers.encode(checkin, place: encoded), node: .post))
            }
        case ("DELETE", let id) where !id.utf8.contains(UInt8(ascii: "/")) && !aboutMe:
            if state.checkins[account.userID]?.contains(where: { $0.id == id }) == true {
                state.checkins[account.userID]?.removeAll { $0.id == id }
                return .json(200, ["success": true])
            }
        default:
            break
        }
        if aboutMe {
            // The user and its edges answer a method they lack as an object does; an edge the
            // user does not have is an unknown path component.
            let edge = path.dropFirst("me".count).drop { $0 == "/" }
            guard edge.isEmpty || Self.userEdges.contains(where: { edge == $0 || edge.hasPrefix($0 + "/") }) else {
                return Self.error(400, .unknownPath, "Unknown path components: /\(edge)", state: &state)
            }
            return Self.unsupported(request.routedMethod, id: "me", state: &state)
        }
        let parts = path.split(separator: "/", maxSplits: 1).map(String.init)
        if parts.count == 2, fixtures.facebookPages.contains(where: { $0.id == parts[0] }) {
            return Self.nonexistingField(parts[1], on: .page, state: &state)
        }
        // An id that could name an object (digits, or a post's user_post) is Graph's
        // "Unsupported get request" (100/33); anything else is an alias that does not exist.
        if let id = parts.first, !id.isEmpty, id.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "_") }) {
            return Self.unsupported(request.routedMethod, id: id, state: &state)
        }
        return Self.error(
            404, .unknownAlias, "(#803) Some of the aliases you requested do not exist: \(path)", state: &state)
    }

    /// The user's edges this emulator serves.
    private static let userEdges = ["checkins", "feed", "permissions"]

    /// Graph's answer to a method an object (or its edge) does not take, or to an object that
    /// cannot be loaded: GraphMethodException 100/33.
    private static func unsupported(_ method: String, id: String, state: inout EmulatorState) -> EmulatorResponse {
        error(
            400, code: GraphErrorCode.invalidParameter.rawValue,
            "Unsupported \(method.lowercased()) request. Object with ID '\(id)' does not exist, cannot be loaded "
                + "due to missing permissions, or does not support this operation. Please read the Graph API "
                + "documentation at https://developers.facebook.com/docs/graph-api",
            subcode: 33, type: "GraphMethodException", trace: state.makeID())
    }

    // MARK: - Places and check-ins

    /// `GET /?ids=a,b`: several objects at once, as a map from id to object ("Multiple ID Read
    /// Requests"); any unknown id fails the whole request, as Graph did. An id asked for twice is
    /// answered once: an object's names are unique (RFC 8259 §4), and a reader keeps one of them.
    private func objects(
        ids: String, of account: EmulatorConfiguration.FacebookAccount, fields: GraphFields,
        state: inout EmulatorState
    ) -> EmulatorResponse {
        var body = Data("{".utf8)
        var seen: Set<String> = []
        for (index, id) in ids.split(separator: ",").map(String.init).filter({ seen.insert($0).inserted })
            .enumerated()
        {
            let (object, node): (Data, GraphFields.Node)
            if let page = fixtures.facebookPages.first(where: { $0.id == id }) {
                (object, node) = (JSONBody.encode(page), .page)
            } else if let checkin = state.checkins[account.userID]?.first(where: { $0.id == id }) {
                (object, node) = (GraphAnswers.encode(checkin, place: encoded), .post)
            } else {
                return Self.error(
                    404, .unknownAlias, "(#803) Some of the aliases you requested do not exist: \(id)", state: &state)
            }
            if let name = fields.unknown(on: node) { return Self.nonexistingField(name, on: node, state: &state) }
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(JSONBody.encode(id))
            body.append(UInt8(ascii: ":"))
            body.append(fields.select(object, node: node))
        }
        body.append(UInt8(ascii: "}"))
        return .json(200, encoded: body)
    }

    private func searchPlaces(
        _ parameters: RequestParameters, _ page: Paging, fields: GraphFields, state: inout EmulatorState
    ) -> EmulatorResponse {
        guard parameters["type"] == "place" else {
            return Self.error(
                400, .invalidParameter, "(#100) Unsupported type: \(parameters["type"] ?? "")", state: &state)
        }
        // "Either the q or center parameter must be included in your query … center: Required if
        // you omit q" (Places Search): by name alone, pages anywhere, in the fixtures' order.
        let q = parameters["q"].flatMap { $0.isEmpty ? nil : $0 }
        let center = parameters["center"]?.split(separator: ",").compactMap { Double($0) } ?? []
        guard
            (q != nil && parameters["center"] == nil)
                || (center.count == 2 && abs(center[0]) <= 90 && abs(center[1]) <= 180)
        else {
            return Self.error(400, .invalidParameter, "(#100) Invalid center parameter", state: &state)
        }
        let distance = parameters.decimal("distance", in: 0...Double.greatestFiniteMagnitude)
        if distance.isInvalid {
            return Self.error(400, .invalidParameter, "(#100) Param distance must be a number", state: &state)
        }
        let here = center.count == 2 ? Coordinate(latitude: center[0], longitude: center[1]) : nil
        let radius = min(distance.value ?? 1000, 50_000)
        // Pages by their place in the fixtures, whose encoding is made once (ids need not be unique).
        var found: [(index: Int, distance: Double)] = fixtures.facebookPages.indices.compactMap { index in
            guard let here else { return (index, 0) }
            let page = fixtures.facebookPages[index]
            guard let lat = page.location?.latitude, let lon = page.location?.longitude else { return nil }
            let d = ShortDistance.distance(here, Coordinate(latitude: lat, longitude: lon))
            return d <= radius ? (index, d) : nil
        }
        if let q {
            found = found.filter { fixtures.facebookPages[$0.index].name.localizedCaseInsensitiveContains(q) }
        }
        if here != nil { found.sort { $0.distance < $1.distance } }
        return page.list(
            found.map(\.index), key: { "\($0)" }, encodedBy: { fields.select(encodedPage($0), node: .page) },
            state: &state)
    }

    /// The fixtures' page at `index` as `JSONBody` writes it, made once for these fixtures.
    private func encodedPage(_ index: Int) -> Data {
        fixtures.placeCache.encoding("graph/page/\(index)") { JSONBody.encode(fixtures.facebookPages[index]) }
    }

    /// `page` as `JSONBody` writes it: the cached encoding when it is one of the fixtures' pages.
    private func encoded(_ page: GraphPage) -> Data {
        fixtures.facebookPages.firstIndex(of: page).map(encodedPage) ?? JSONBody.encode(page)
    }

    private func postCheckin(
        _ account: EmulatorConfiguration.FacebookAccount, _ parameters: RequestParameters, feed: Bool,
        state: inout EmulatorState, now: Double
    ) -> EmulatorResponse {
        let page = parameters["place"].flatMap { id in fixtures.facebookPages.first { $0.id == id } }
        if !feed && page == nil {
            return Self.error(400, .invalidParameter, "(#100) param place must be a valid place ID", state: &state)
        }
        let message = parameters["message"]
        if feed && page == nil && (message ?? "").isEmpty && (parameters["link"] ?? "").isEmpty {
            return Self.error(400, .invalidParameter, "(#100) Missing message or attachment", state: &state)
        }
        if let message, state.lastGraphMessage[account.userID] == message {
            return Self.error(400, .duplicatePost, "(#506) Duplicate status message", state: &state)
        }
        var coordinates: GraphCheckin.Coordinates?
        if let text = parameters["coordinates"] {
            guard let decoded = try? JSONDecoder().decode(GraphCheckin.Coordinates.self, from: Data(text.utf8)),
                abs(decoded.latitude) <= 90, abs(decoded.longitude) <= 180
            else {
                return Self.error(
                    400, .invalidParameter, "(#100) coordinates must be a JSON object with latitude and longitude",
                    state: &state)
            }
            coordinates = decoded
        }
        let requested: GraphPrivacy?
        switch Self.privacy(parameters["privacy"]) {
        case .success(let value): requested = value
        case .failure:
            return Self.error(
                400, .invalidParameter,
                "(#100) privacy must be a JSON object whose value is one of \(GraphPrivacy.values.joined(separator: ", "))",
                state: &state)
        }
        let privacy = Self.audience(
            requested, appDefault: state.facebookAudience[account.userID] ?? "EVERYONE")
        let id = "\(account.userID)_\(state.makeID())"
        state.lastGraphMessage[account.userID] = message
        state.checkins[account.userID, default: []].append(
            GraphCheckin(
                id: id, message: message, place: page, createdTime: GraphDate.text(now), coordinates: coordinates,
                privacy: privacy))
        return .json(200, encoded: GraphAnswers.encode(GraphCreated(id: id)))
    }

    // MARK: - Privacy

    struct BadPrivacy: Error {}

    /// The `privacy` parameter: a JSON object in a string, `{"value": "ALL_FRIENDS"}`, with
    /// `allow`/`deny` for CUSTOM ("Privacy" in the Graph API reference); nil when absent.
    static func privacy(_ text: String?) -> Result<GraphPrivacy?, BadPrivacy> {
        guard let text else { return .success(nil) }
        // The parameter as clients write it, `{"value":"SELF"}`, is known by its text: parsing it
        // with JSONSerialization was most of this route's privacy check (perf, a field trial).
        if let value = plainPrivacy[text] { return .success(GraphPrivacy(value: value)) }
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let value = object["value"] as? String, GraphPrivacy.values.contains(value),
            Set(object.keys).isSubset(of: ["value", "allow", "deny", "friends", "description"])
        else { return .failure(BadPrivacy()) }
        func list(_ key: String) -> String? {
            if let text = object[key] as? String { return text }
            return (object[key] as? [Any])?.map { "\($0)" }.joined(separator: ",")
        }
        return .success(GraphPrivacy(value: value, allow: list("allow"), deny: list("deny")))
    }

    /// ``GraphPrivacy/parameter(_:)`` of each of Graph's values, to its value.
    private static let plainPrivacy = Dictionary(
        uniqueKeysWithValues: GraphPrivacy.values.map { (GraphPrivacy.parameter($0), $0) })

    /// Graph's predefined audiences, narrowest first; CUSTOM names people, not a width.
    private static let widths = ["SELF", "ALL_FRIENDS", "FRIENDS_OF_FRIENDS", "EVERYONE"]

    /// The audience a post gets: what it asked for, but never more public than the app's default
    /// audience the user chose; without a `privacy` parameter, that default. Echoed on the
    /// created object with Graph's `description`.
    static func audience(_ requested: GraphPrivacy?, appDefault: String) -> GraphPrivacy {
        var privacy = requested ?? GraphPrivacy(value: appDefault)
        if let asked = widths.firstIndex(of: privacy.value), let cap = widths.firstIndex(of: appDefault), asked > cap {
            privacy = GraphPrivacy(value: appDefault)
        } else if privacy.value == "CUSTOM", appDefault == "SELF" {
            privacy = GraphPrivacy(value: "SELF")
        }
        privacy.description =
            [
                "EVERYONE": "Public", "ALL_FRIENDS": "Your friends", "FRIENDS_OF_FRIENDS": "Your friends of friends",
                "SELF": "Only me", "CUSTOM": "Custom",
            ][privacy.value]
        privacy.allow = privacy.allow ?? ""
        privacy.deny = privacy.deny ?? ""
        privacy.friends = privacy.value == "CUSTOM" ? "SOME_FRIENDS" : ""
        return privacy
    }

    // MARK: - Throttling and errors

    /// Graph's throttling: per user (code 17) and per app (code 4), in fixed windows; the app's
    /// use reported in `x-app-usage` as Graph did (percent of the limit).
    private func throttle(_ user: String, state: inout EmulatorState, now: Double) -> EmulatorResponse? {
        let window = configuration.graphRateLimitWindow
        let app = state.limiter.count("graph-app", limit: configuration.graphAppRateLimit, window: window, now: now)
        let person = state.limiter.count(
            "graph-user " + user, limit: configuration.graphUserRateLimit, window: window, now: now)
        var response: EmulatorResponse?
        if app.isExceeded {
            response = Self.error(400, .applicationRateLimit, "(#4) Application request limit reached", state: &state)
        } else if person.isExceeded {
            response = Self.error(400, .userRateLimit, "(#17) User request limit reached", state: &state)
        }
        let percent = min(100, app.count * 100 / max(1, app.limit))
        response?.headers["x-app-usage"] = #"{"call_count":\#(percent),"total_cputime":0,"total_time":0}"#
        return response
    }

    static func error(
        _ status: Int, _ code: GraphErrorCode, _ message: String, subcode: GraphErrorSubcode? = nil,
        state: inout EmulatorState
    ) -> EmulatorResponse {
        error(status, code: code.rawValue, message, subcode: subcode?.rawValue, trace: state.makeID())
    }

    /// A field (or edge) the node type does not have.
    static func nonexistingField(_ name: String, on node: GraphFields.Node, state: inout EmulatorState)
        -> EmulatorResponse
    {
        error(
            400, .invalidParameter,
            "(#100) Tried accessing nonexisting field (\(name)) on node type (\(node.rawValue))",
            state: &state)
    }

    /// Graph's errors on these endpoints are of type `OAuthException`, but for requests about
    /// objects that do not exist (`GraphMethodException`).
    /// A token refused or missing is said in `WWW-Authenticate` too (RFC 6750 §3's error codes, in
    /// Graph's own form), which clients such as fb_graph read to tell an invalid token from a
    /// missing one: `OAuth "Facebook Platform" "invalid_token" "message"`.
    static func error(
        _ status: Int, code: Int, _ message: String, subcode: Int? = nil, type: String = "OAuthException",
        trace: Int64
    ) -> EmulatorResponse {
        var response = EmulatorResponse.json(
            status,
            GraphErrorBody(
                error: .init(message: message, type: type, code: code, errorSubcode: subcode, fbtraceID: "Wp\(trace)")
            ))
        let challenge: String? =
            switch GraphErrorCode(rawValue: code) {
            case .invalidToken: "invalid_token"
            case .accessTokenRequired: "invalid_request"
            // `me` without a token (2500) is a missing token too.
            case .unknownPath where message.contains("access token"): "invalid_request"
            default: nil
            }
        if let challenge {
            let quoted = message.replacingOccurrences(of: "\"", with: "'")
            response.headers["www-authenticate"] = #"OAuth "Facebook Platform" "\#(challenge)" "\#(quoted)""#
        }
        return response
    }

    /// The states a Graph access token can be put in (`/__waypost/facebook/tokens`, scenario
    /// `graphToken` changes): valid, or refused with that 190 subcode.
    static let tokenStates: KeyValuePairs<String, GraphErrorSubcode?> = [
        "valid": nil, "expired": .expired, "password-changed": .passwordChanged,
        "app-not-installed": .applicationNotInstalled, "checkpoint": .userCheckpointed,
        "unconfirmed": .unconfirmedUser, "logged-out": .invalidToken,
    ]

    /// Graph's wording for a refused token.
    private static func describe(_ why: GraphErrorSubcode) -> String {
        switch why {
        case .applicationNotInstalled: "The user has not authorized the application."
        case .userCheckpointed: "You cannot access the app till you log in to www.facebook.com."
        case .passwordChanged: "The session has been invalidated because the user changed their password."
        case .expired: "Session has expired."
        case .unconfirmedUser: "Sessions for the user are not allowed because the user is not a confirmed user."
        case .invalidToken: "The session is invalid because the user logged out."
        }
    }
}
