import Foundation
import SocialAPI

/// Credentials for the real networks (or any compatible server), from the environment or a
/// file readable by its owner only. They are never printed; errors name the file, not the values.
///
/// Environment: `WAYPOST_TWITTER_CONSUMER_KEY`, `WAYPOST_TWITTER_CONSUMER_SECRET`,
/// `WAYPOST_TWITTER_TOKEN`, `WAYPOST_TWITTER_TOKEN_SECRET`, `WAYPOST_FACEBOOK_ACCESS_TOKEN`.
///
/// File (YAML or JSON, mode 0600):
///
/// ```yaml
/// twitter:
///   consumerKey: …
///   consumerSecret: …
///   token: …
///   tokenSecret: …
/// facebook:
///   accessToken: …
/// ```
public struct Credentials: Sendable, Equatable {
    public var twitter: OAuth1Credentials?
    public var facebookAccessToken: String?

    public init(twitter: OAuth1Credentials?, facebookAccessToken: String?) {
        self.twitter = twitter
        self.facebookAccessToken = facebookAccessToken
    }

    public static func fromEnvironment(_ environment: [String: String]) -> Credentials {
        var twitter: OAuth1Credentials?
        if let key = environment["WAYPOST_TWITTER_CONSUMER_KEY"],
            let secret = environment["WAYPOST_TWITTER_CONSUMER_SECRET"]
        {
            twitter = OAuth1Credentials(
                consumerKey: key, consumerSecret: secret, token: environment["WAYPOST_TWITTER_TOKEN"],
                tokenSecret: environment["WAYPOST_TWITTER_TOKEN_SECRET"])
        }
        return Credentials(twitter: twitter, facebookAccessToken: environment["WAYPOST_FACEBOOK_ACCESS_TOKEN"])
    }
}
