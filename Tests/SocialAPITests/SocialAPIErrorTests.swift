import SocialAPI
import Testing

/// Which answers refuse the credentials rather than the request: an outbox keeps its posts for
/// those (mended credentials send them) and gives up on the others.
@Suite struct SocialAPIErrorTests {
    static func twitter(_ status: Int, _ code: Int) -> SocialAPIError {
        .twitter(status: status, errors: [.init(code: code, message: "m")], rateLimitReset: nil)
    }

    static func graph(_ status: Int, _ code: Int, _ subcode: Int? = nil) -> SocialAPIError {
        .graph(status: status, error: .init(message: "m", type: "OAuthException", code: code, errorSubcode: subcode))
    }

    // Twitter's response codes (developer.x.com "Response codes": 32 "Could not authenticate you",
    // 89 "Invalid or expired token", 215 "Bad authentication data"); Graph's error codes
    // (developers.facebook.com "Handling errors": 190 "Access token has expired"; 104, an access
    // token is required).
    @Test func credentialRefusalsAreTold() {
        let refusing: [SocialAPIError] = [
            Self.twitter(401, 32), Self.twitter(401, 89), Self.twitter(400, 215), Self.twitter(401, 135),
            Self.graph(400, 190, 463), Self.graph(400, 190), Self.graph(400, 104), Self.graph(401, 1),
            .http(status: 401, body: ""),
        ]
        let others: [SocialAPIError] = [
            Self.twitter(403, 261), Self.twitter(403, 187), Self.twitter(429, 88), Self.twitter(503, 130),
            Self.graph(400, 100), Self.graph(403, 200), Self.graph(400, 506), .http(status: 403, body: ""),
            .transport("connection refused"), .decoding("not JSON"),
        ]
        for error in refusing { #expect(error.refusesCredentials, "\(error)") }
        for error in others { #expect(!error.refusesCredentials, "\(error)") }
    }
}
