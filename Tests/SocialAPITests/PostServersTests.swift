import Foundation
import Testing

@testable import SocialAPI

/// A post is addressed to the server its run posted to, and delivered there only: the address
/// must name one server however its base URL was spelt (scheme and host case, the default port,
/// a missing last slash — RFC 3986 §6.2.3's scheme-based normalization), never carry what the
/// URL holds besides (user info, a query: secrets go nowhere), and tell servers apart.
struct PostServersTests {
    @Test(arguments: [
        ("https://api.example.com/1.1/", "https://api.example.com/1.1/"),
        ("HTTPS://API.Example.com:443/1.1", "https://api.example.com/1.1/"),
        ("http://127.0.0.1:80/", "http://127.0.0.1/"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080/"),
        ("https://user:secret@graph.example/v19.0/?access_token=t", "https://graph.example/v19.0/"),
    ])
    func oneServerHowEverItsBaseURLIsSpelt(_ given: String, _ address: String) throws {
        #expect(PostServers.address(of: try #require(URL(string: given))) == address)
    }

    @Test func serversAreToldApart() throws {
        let addresses = try ["http://127.0.0.1:8080/1.1/", "http://127.0.0.1:8081/1.1/", "http://127.0.0.1:8080/2/"]
            .map { PostServers.address(of: try #require(URL(string: $0))) }
        #expect(Set(addresses).count == 3)
    }

    /// Clients name their servers unless told they are the in-process emulator's.
    @Test func clientsNameTheirServers() throws {
        let credentials = OAuth1Credentials(consumerKey: "k", consumerSecret: "s")
        let twitter = TwitterClient(
            baseURL: try #require(URL(string: "http://Example.com:8080/1.1/")), credentials: credentials)
        let clients = SocialClients(twitter: twitter, facebook: nil)
        #expect(clients.servers == PostServers(twitter: "http://example.com:8080/1.1/", facebook: nil))
        #expect(
            SocialClients(twitter: twitter, facebook: nil, servers: .inProcessEmulator).servers == .inProcessEmulator)
    }
}
