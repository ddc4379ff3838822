import AsyncHTTPClient
import Foundation
import NIOHTTP1
import SimulatedTime
import SocialAPI

/// The clients' ``HTTPTransport`` answered by an ``EmulatorCore`` in memory — no socket — for
/// runs nobody keeps and for tests that make thousands of requests. Faults that act on the
/// connection (`reset`, `hang`) fail as ``SocialAPI/AsyncHTTPClientTransport`` fails over a
/// socket, with the same error (it reaches the audit; `FaultTests` holds the two to it); a
/// `latency` fault's delay is not slept: past ``timeout`` the client gets the deadline a socket
/// would give it — after the emulator processed the request, so the answer is lost.
///
/// ```swift
/// let core = EmulatorCore(fixtures: fixtures)
/// let twitter = TwitterClient(baseURL: EmulatorTransport.twitterBaseURL, credentials: …,
///                             transport: EmulatorTransport(core: core))
/// ```
public struct EmulatorTransport: HTTPTransport {
    public let core: EmulatorCore
    /// How long the client waits for an answer (AsyncHTTPClient's deadline in `HTTPClientTransport`).
    public var timeout: Duration

    /// The base URLs the clients are given; the host is only a name here.
    public static let baseURL = URL(string: "http://emulator.invalid/") ?? URL(fileURLWithPath: "/")
    public static var twitterBaseURL: URL { EmulatorServer.twitterRoot(of: baseURL) }

    public init(core: EmulatorCore, timeout: Duration = .seconds(10)) {
        self.core = core
        self.timeout = timeout
    }

    public func send(_ request: HTTPRequestSpec) async throws(SocialAPIError) -> HTTPResponseSpec {
        // Read off the URL as it was parsed when made: `URLComponents(url:)` parsed it again,
        // seven times the cost (~1.1 µs a request).
        let url = request.url.absoluteURL
        var headers: [String: String] = [:]
        for (name, value) in request.headers { headers[name.lowercased()] = value }
        let host = url.host(percentEncoded: false) ?? ""
        headers["host"] = url.port.map { "\(host):\($0)" } ?? host
        let path = url.path(percentEncoded: true)
        let answer = await core.handle(
            EmulatorRequest(
                method: request.method, path: path.isEmpty ? "/" : path, query: url.query(percentEncoded: true) ?? "",
                headers: headers, body: request.body ?? Data()))
        // What AsyncHTTPClient reports for each: the deadline passed, or the server dropped the
        // connection in the middle of its answer.
        let failure: any Error
        switch answer.transport {
        case .none where answer.delay > Seconds(timeout): failure = HTTPClientError.deadlineExceeded
        case .none:
            // The answer to a HEAD is its head (RFC 9110 §9.3.2), as over a socket.
            let body = request.method == "HEAD" ? Data() : answer.body
            return HTTPResponseSpec(status: answer.status, headers: answer.headers, body: body)
        case .reset: failure = HTTPParserError.invalidEOFState
        case .hang: failure = HTTPClientError.deadlineExceeded
        }
        throw .transport("\(request.method) \(request.url.path): \(failure)")
    }
}
