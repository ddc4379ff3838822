import Foundation
import NIOCore
import TestSupport
import Testing

@testable import SocialAPI

/// A black-box hunt: a server that could not be reached was said in NIO's words — "connection
/// reset (error set): Connection refused (errno: 111)" for a refused connection, which is no
/// reset, its parenthesis left open inside the outbox's own. Said in words, with the server.
struct TransportFailureTests {
    @Test func aRefusedConnectionNamesTheServer() async throws {
        // A port just let go of: nothing listens there.
        let (descriptor, port) = try LoopbackSocket.bound(listening: false)
        close(descriptor)
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/1.1/account/verify_credentials.json"))
        do {
            _ = try await AsyncHTTPClientTransport().send(HTTPRequestSpec(method: "GET", url: url))
            Issue.record("nothing listens on port \(port)")
        } catch {
            #expect(
                "\(error)".contains("cannot connect to 127.0.0.1:\(port): Connection refused"), "\(error)")
            #expect(!"\(error)".contains("errno"), "\(error)")
        }
    }

    @Test func otherSocketErrorsAreTheSystemsWords() throws {
        let url = try #require(URL(string: "http://example.com/"))
        let reset = IOError(errnoCode: ECONNRESET, reason: "read(descriptor:pointer:size:)")
        #expect(AsyncHTTPClientTransport.explain(reset, url: url) == "Connection reset by peer")
        let refused = IOError(errnoCode: ECONNREFUSED, reason: "connection reset (error set)")
        #expect(
            AsyncHTTPClientTransport.explain(refused, url: url) == "cannot connect to example.com: Connection refused")
        // An IPv6 address in brackets, as in its URL (it read "::1:9").
        let loopback6 = try #require(URL(string: "http://[::1]:9/1.1/"))
        #expect(
            AsyncHTTPClientTransport.explain(refused, url: loopback6) == "cannot connect to [::1]:9: Connection refused"
        )
    }
}
