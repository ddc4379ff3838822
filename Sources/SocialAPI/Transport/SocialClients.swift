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

    public init(
        twitter: TwitterClient?, facebook: FacebookClient?, x: XClient? = nil,
        twitterAPI: TwitterAPIVersion = .v1_1
    ) {
        self.twitter = twitter
        self.facebook = facebook
        self.x = x
        self.twitterAPI = twitterAPI
    }
}
