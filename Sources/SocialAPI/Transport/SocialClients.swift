import Foundation

/// The network clients a delivery uses; a network without credentials has no client, and its
/// posts fail with a clear reason instead of being sent unauthenticated.
public struct SocialClients: Sendable {
    public var twitter: TwitterClient?
    public var facebook: FacebookClient?
    /// X API v2 (`POST /2/tweets`), used to post tweets when ``twitterAPI`` is v2; place lookup
    /// and the account's settings still come through ``twitter`` (v2 has no geo endpoints).
    public var x: XClient?
    /// Which API tweets are posted through.
    public var twitterAPI: TwitterAPIVersion
    /// The servers these clients post to, as an outbox addresses its posts.
    public var servers: PostServers

    /// - Parameter servers: nil: the clients' base URLs (``PostServers/init(twitterClient:facebookClient:)``);
    ///   the in-process emulator passes ``PostServers/inProcessEmulator``.
    public init(
        twitter: TwitterClient?, facebook: FacebookClient?, x: XClient? = nil,
        twitterAPI: TwitterAPIVersion = .v1_1, servers: PostServers? = nil
    ) {
        self.twitter = twitter
        self.facebook = facebook
        self.x = x
        self.twitterAPI = twitterAPI
        self.servers = servers ?? PostServers(twitterClient: twitter, facebookClient: facebook)
    }
}

/// Which server each network's posts go to, as the outbox records it beside each post: a base
/// URL, or nil for the in-process emulator (whose port changes from run to run). A post queued
/// for one server is delivered to it and to no other: `outbox flush` given other base URLs, or
/// none, leaves it queued.
public struct PostServers: Sendable, Equatable {
    public var twitter: String?
    public var facebook: String?

    /// Posts to the emulator in this process.
    public static let inProcessEmulator = PostServers(twitter: nil, facebook: nil)

    public init(twitter: String?, facebook: String?) {
        self.twitter = twitter
        self.facebook = facebook
    }

    /// The servers the clients' base URLs name (``address(of:)``).
    public init(twitterClient twitter: TwitterClient?, facebookClient facebook: FacebookClient?) {
        self.init(
            twitter: twitter.map { Self.address(of: $0.baseURL) },
            facebook: facebook.map { Self.address(of: $0.baseURL) })
    }

    /// A base URL as one server's address: scheme and host in lower case, the default port and
    /// any query left out (RFC 5849 §3.4.1.2's base string URI), the path ending in `/` — so
    /// `HTTPS://API.example.com:443/1.1` and `https://api.example.com/1.1/` are one server.
    public static func address(of baseURL: URL) -> String {
        let base = OAuth1Signer.baseURL(baseURL.absoluteURL).base
        return base.hasSuffix("/") ? base : base + "/"
    }
}
