/// The network clients a delivery uses; a network without credentials has no client, and its
/// posts fail with a clear reason instead of being sent unauthenticated.
public struct SocialClients: Sendable {
    public var twitter: TwitterClient?
    public var facebook: FacebookClient?

    public init(twitter: TwitterClient?, facebook: FacebookClient?) {
        self.twitter = twitter
        self.facebook = facebook
    }
}
