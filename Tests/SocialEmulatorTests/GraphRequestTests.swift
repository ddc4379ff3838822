import Foundation
import SocialAPI
import Testing

@testable import SocialEmulator

/// Graph's `privacy` parameter ("Privacy" in the Graph API reference): the text clients send,
/// `{"value":"SELF"}`, is known by its text without a JSON parser, and must read as any other
/// spelling of the same object reads through `JSONSerialization`.
struct GraphPrivacyParameterTests {
    /// What the route reads of `text`; `refused` when it answers 400.
    static func read(_ text: String) -> GraphPrivacy? {
        (try? GraphRoutes.privacy(text).get()) ?? refused
    }
    static let refused = GraphPrivacy(value: "(refused)")

    @Test func theClientsTextReadsAsTheSameObjectSpelledOtherwise() throws {
        for value in GraphPrivacy.values {
            let plain = GraphPrivacy.parameter(value)
            #expect(Self.read(plain) == GraphPrivacy(value: value), "\(plain)")
            // Blanks around it: not the clients' text, so read by the JSON parser.
            #expect(Self.read(plain) == Self.read(" \(plain)\n"), "\(plain)")
            #expect(Self.read(plain) == Self.read(#"{ "value" : "\#(value)" }"#), "\(plain)")
        }
        #expect(Self.read(#"{"value":"FRIENDS"}"#) == Self.refused)
        #expect(Self.read(#"{"value":"self"}"#) == Self.refused)
        #expect(Self.read(#"{"value":"CUSTOM","allow":"1,2"}"#) == GraphPrivacy(value: "CUSTOM", allow: "1,2"))
        #expect(try GraphRoutes.privacy(nil).get() == nil)
    }
}

/// Graph's version in a path (`/v19.0/me/feed`): an ASCII path is split at its bytes, and must
/// route as the same path split character by character.
struct GraphRouteTests {
    static let paths = [
        "", "/", "//", "/me", "me", "/me/", "//me//checkins/", "/v19.0/me/feed", "v19.0", "/v19.0", "/v19.0/",
        "/v1.0/search", "/v123.456/x", "/v1234.5/x", "/v1.2345/x", "/v.1/x", "/v1./x", "/v1/x", "/v1.2.3/x",
        "/V19.0/x", "/vv1.0/x", "/v1.0a/x", "/va.b/x", "/v٣.٠/x", "/v1.0/é/x", "/é/v1.0", "/v1.0//me///feed//",
        "/x/v19.0/y", "/v0.0",
    ]

    @Test func bytesRouteAsCharactersDo() {
        for path in Self.paths {
            let bytes = GraphRoutes.route(path, defaultVersion: "v2.0")
            let characters = GraphRoutes.route(byCharacter: path, defaultVersion: "v2.0")
            #expect(bytes.version == characters.version && bytes.path == characters.path, "\(path.debugDescription)")
        }
        #expect(GraphRoutes.route("/v19.0/me//feed/", defaultVersion: "v2.0") == ("v19.0", "me/feed"))
        #expect(GraphRoutes.route("/me/feed", defaultVersion: "v2.0") == ("v2.0", "me/feed"))
    }
}
