import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// An HTTP request as the clients build it.
public struct HTTPRequestSpec: Sendable, Equatable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// An HTTP response as the clients read it.
public struct HTTPResponseSpec: Sendable, Equatable {
    public var status: Int
    /// Header names in lower case.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A 2xx body decoded as `T`: by ``AnswerDecoder`` where it can, else by `JSONDecoder`, whose
    /// error the caller gets.
    func decoded<T: Decodable>(_ path: String) throws(SocialAPIError) -> T {
        if let value = AnswerDecoder.decode(T.self, from: body) { return value }
        do {
            return try JSONDecoder().decode(T.self, from: body)
        } catch {
            throw .decoding("\(path): \(error)")
        }
    }

    /// A failure answer that is not in the provider's error format. A redirect is said as one:
    /// it is never followed (``AsyncHTTPClientTransport/failingFast``).
    var unexpected: SocialAPIError {
        guard (300..<400).contains(status) else {
            return .http(status: status, body: String(decoding: body, as: UTF8.self), retryAfter: retryAfter)
        }
        return .http(
            status: status,
            body: "a redirect to \(headers["location"] ?? "nowhere"), not followed: posts and credentials go to "
                + "the base URL given and nowhere else")
    }

    /// `Retry-After` in seconds (RFC 9110 §10.2.3): the delay form, or the HTTP-date form as its
    /// distance from the answer's own `Date` (the server's clock against itself, whatever ours
    /// says); nil when absent, negative or unreadable.
    public var retryAfter: Int? {
        guard let value = headers["retry-after"]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Int(value) { return seconds >= 0 ? seconds : nil }
        guard let until = HTTPDate.seconds(value), let sent = headers["date"].flatMap(HTTPDate.seconds) else {
            return nil
        }
        return Int(max(0, until - sent))
    }
}

/// The seam between the clients and the network: AsyncHTTPClient in production and against
/// the emulator; anything else in unit tests.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequestSpec) async throws(SocialAPIError) -> HTTPResponseSpec
}

/// Real HTTP through AsyncHTTPClient.
public struct AsyncHTTPClientTransport: HTTPTransport {
    public let client: HTTPClient
    public var timeout: TimeAmount
    /// Largest response body read, bytes.
    public var maximumBodySize: Int

    public init(
        client: HTTPClient = Self.failingFast, timeout: TimeAmount = .seconds(10), maximumBodySize: Int = 4 << 20
    ) {
        self.client = client
        self.timeout = timeout
        self.maximumBodySize = maximumBodySize
    }

    /// The clients' default: AsyncHTTPClient's shared configuration, except that a connection
    /// refused fails the request at once, and redirects are not followed. The outbox retries on
    /// its own schedule, bounded by `--max-wait`; AsyncHTTPClient's own retries of the connection
    /// held every attempt against a server that is down for the whole timeout (10 s), so that a
    /// replay with `--max-wait 0` spent minutes and gave posts up it meant to leave queued. A
    /// followed redirect sent the post — and Graph's access token in its body — to whatever host
    /// the answer named, and the outbox recorded it sent to the base URL. Never shut down, as `.shared`.
    public static let failingFast = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: failingFastConfiguration)

    /// ``failingFast``'s configuration, for a client of one's own on other loops.
    package static var failingFastConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.redirectConfiguration = .disallow
        return configuration
    }

    public func send(_ request: HTTPRequestSpec) async throws(SocialAPIError) -> HTTPResponseSpec {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let response = try await client.execute(outgoing, timeout: timeout)
            let body = try await response.body.collect(upTo: maximumBodySize)
            var headers: [String: String] = [:]
            for header in response.headers { headers[header.name.lowercased()] = header.value }
            return HTTPResponseSpec(
                status: Int(response.status.code), headers: headers, body: Data(body.readableBytesView))
        } catch {
            throw .transport("\(request.method) \(request.url.path): \(Self.explain(error, url: request.url))")
        }
    }

    /// A failure to reach the server in words: NIO calls a refused connection "connection reset
    /// (error set): Connection refused (errno: 111)", and an unknown host "DNS error:
    /// SocketAddressError.UnknownHost: … (error -2) for host …" (a black-box hunt). Anything
    /// else as AsyncHTTPClient says it — as the in-process emulator's transport says it too.
    static func explain(_ error: any Error, url: URL) -> String {
        // An IPv6 address is written in brackets, as in the URL ("[::1]:9", not "::1:9").
        let host = url.host.map { $0.contains(":") ? "[\($0)]" : $0 }
        let server = host.map { host in url.port.map { "\(host):\($0)" } ?? host } ?? url.absoluteString
        switch error {
        case let connection as NIOConnectionError:
            if connection.dnsAError != nil || connection.dnsAAAAError != nil {
                return "cannot find the host \(connection.host) (no such name, or no DNS answer)"
            }
            return connection.connectionErrors.first.map { explain($0.error, url: url) }
                ?? "cannot connect to \(server)"
        case let io as IOError:
            let reason = String(cString: strerror(io.errnoCode))
            let connecting = [ECONNREFUSED, ETIMEDOUT, EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL].contains(io.errnoCode)
            return connecting ? "cannot connect to \(server): \(reason)" : reason
        default:
            return "\(error)"
        }
    }
}
