/// Accounts and limits the emulator starts with; ``demo`` is what `waypost emulator` prints.
public struct EmulatorConfiguration: Sendable {
    public struct TwitterAccount: Sendable {
        public var userID: String
        public var screenName: String
        /// The display name (`name`); the screen name when not given.
        public var name: String
        public var token: String
        public var tokenSecret: String
        public var geoEnabled: Bool
        /// Whether the account is protected: its tweets are seen by approved followers only.
        public var protected: Bool
        /// An OAuth 2.0 user-context access token for X API v2 (`Authorization: Bearer …`).
        public var bearerToken: String?

        public init(
            userID: String, screenName: String, name: String? = nil, token: String, tokenSecret: String,
            geoEnabled: Bool, protected: Bool = false, bearerToken: String? = nil
        ) {
            self.userID = userID
            self.screenName = screenName
            self.name = name ?? screenName
            self.token = token
            self.tokenSecret = tokenSecret
            self.geoEnabled = geoEnabled
            self.protected = protected
            self.bearerToken = bearerToken
        }
    }

    public struct FacebookAccount: Sendable {
        public var userID: String
        /// The display name Graph answers `me` with.
        public var name: String
        public var accessToken: String
        /// Granted permissions, e.g. `publish_checkins`.
        public var permissions: Set<String>
        /// The app's default audience, as the user chose it when logging in: posts without a
        /// `privacy` parameter get it, and none is more public (a ``GraphPrivacy/values`` value).
        public var defaultAudience: String

        public init(
            userID: String, name: String? = nil, accessToken: String, permissions: Set<String>,
            defaultAudience: String = "EVERYONE"
        ) {
            self.userID = userID
            self.name = name ?? "User \(userID)"
            self.accessToken = accessToken
            self.permissions = permissions
            self.defaultAudience = defaultAudience
        }
    }

    /// Twitter consumer keys and their secrets.
    public var consumers: [String: String]
    /// Consumers with read-only access: their status updates get 403/261.
    public var readOnlyConsumers: Set<String> = []
    public var twitterAccounts: [TwitterAccount]
    public var facebookAccounts: [FacebookAccount]
    /// Requests per window to each geo search endpoint (`reverse_geocode`, `search`,
    /// `similar_places`), per user: Twitter's 15 per 15 minutes.
    public var geoRateLimit = 15
    /// Twitter's rate-limit window, seconds.
    public var rateLimitWindow = 900.0
    /// Accepted clock skew for `oauth_timestamp`, seconds (Twitter: 5 minutes).
    public var timestampWindow = 300.0
    /// Status updates per user per day before 403/185.
    public var statusUpdateLimit = 2400
    /// Graph calls per user per window before throttling with code 17, and per app with code 4.
    public var graphUserRateLimit = 200
    public var graphAppRateLimit = 4800
    public var graphRateLimitWindow = 3600.0
    /// The Graph version that answers unversioned paths (an app's default version), as
    /// `facebook-api-version` reports it.
    public var graphDefaultVersion = "v3.1"

    public init(
        consumers: [String: String], readOnlyConsumers: Set<String> = [], twitterAccounts: [TwitterAccount],
        facebookAccounts: [FacebookAccount]
    ) {
        self.consumers = consumers
        self.readOnlyConsumers = readOnlyConsumers
        self.twitterAccounts = twitterAccounts
        self.facebookAccounts = facebookAccounts
    }

    /// One consumer, one Twitter user with geo on, one Facebook user with check-in permission.
    public static let demo = EmulatorConfiguration(
        consumers: ["waypost-demo-consumer": "waypost-demo-consumer-secret"],
        twitterAccounts: [
            TwitterAccount(
                userID: "1001", screenName: "waypost_demo", name: "Waypost Demo", token: "1001-waypost-demo-token",
                tokenSecret: "waypost-demo-token-secret", geoEnabled: true,
                bearerToken: "waypost-demo-oauth2-user-token")
        ],
        facebookAccounts: [
            FacebookAccount(
                userID: "2001", name: "Waypost Demo", accessToken: "waypost-demo-graph-token",
                permissions: ["public_profile", "publish_checkins", "publish_actions"])
        ])
}

extension [EmulatorConfiguration.TwitterAccount] {
    /// The account with this user id.
    func account(id: String) -> Element? { first { $0.userID == id } }

    /// The account with this screen name, in any case: Twitter's screen names are not
    /// case-sensitive (`@WAYPOST_demo` is @waypost_demo).
    func account(screenName: String) -> Element? {
        let name = screenName.lowercased()
        return first { $0.screenName.lowercased() == name }
    }
}
