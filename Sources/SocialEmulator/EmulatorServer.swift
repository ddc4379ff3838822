import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// Thrown inside a response body to drop the connection (the `reset` fault).
struct EmulatorConnectionReset: Error {}

/// The emulator on a real socket, on Hummingbird.
///
/// ```swift
/// let running = try await EmulatorServer(core: EmulatorCore(fixtures: fixtures)).start(port: 0)
/// let twitter = TwitterClient(baseURL: running.twitterBaseURL, credentials: …)
/// …
/// await running.stop()
/// ```
public struct EmulatorServer: Sendable {
    public let core: EmulatorCore
    /// Largest request body accepted, bytes.
    public var maximumBodySize = 1 << 20
    /// Largest header block answered normally, bytes; up to 1 MiB more gets the provider's 431
    /// error object, beyond that the HTTP parser's bare 400.
    public var maximumHeaderSize = 64 << 10
    /// A connection with nothing read from it for this long is closed: idle keep-alive and
    /// half-open connections do not pile up.
    public var idleTimeout: Duration = .seconds(60)

    public init(core: EmulatorCore) {
        self.core = core
    }

    /// A started emulator: where it listens, and how to stop it.
    public struct Running: Sendable {
        public let host: String
        public let port: Int
        private let group: ServiceGroup
        private let task: Task<Void, any Error>

        init(host: String, port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
            self.host = host
            self.port = port
            self.group = group
            self.task = task
        }

        /// Where this machine reaches it: a wildcard address (`0.0.0.0`, `::`) is no address
        /// to connect to, and the control plane refuses a Host naming it; loopback stands for it.
        public var baseURL: URL {
            let reachable =
                host == "0.0.0.0" || host.isEmpty ? "127.0.0.1" : host == "::" || host == "[::]" ? "::1" : host
            return URL(string: "http://\(URIHost.bracketed(reachable)):\(port)/") ?? URL(fileURLWithPath: "/")
        }
        /// Twitter's v1.1 API root.
        public var twitterBaseURL: URL { EmulatorServer.twitterRoot(of: baseURL) }
        /// X API v2's root.
        public var xBaseURL: URL { EmulatorServer.xRoot(of: baseURL) }
        /// The Graph API root.
        public var facebookBaseURL: URL { baseURL }

        /// Stops the server: in-flight requests get `grace` to finish (a `hang` fault never
        /// does), then the rest is cancelled. Returns once it has stopped, and at the latest
        /// after twice `grace`, stopped or not: a stop cannot hang its caller.
        public func stop(grace: Duration = .seconds(1)) async {
            await group.triggerGracefulShutdown()
            let task = self.task
            let (ended, end) = AsyncStream<Void>.makeStream()
            Task {
                _ = await task.result
                end.finish()
            }
            let watchdog = Task {
                try await Task.sleep(for: grace)
                task.cancel()
                try await Task.sleep(for: grace)
                end.finish()
            }
            for await _ in ended {}
            watchdog.cancel()
        }

        /// Waits until the server stops (a signal, or ``stop()`` elsewhere).
        public func wait() async throws {
            try await task.value
        }
    }

    /// Starts listening on `host:port` (0 picks a free port) and returns once it accepts
    /// connections; throws ``EmulatorListenError`` at once when it cannot (the port is taken,
    /// the address is not this machine's, no permission). `shutdownSignals` (e.g. SIGINT,
    /// SIGTERM for a command-line server) stop it as ``Running/stop(grace:)`` does.
    /// `network` is where its connections run and its requests are handled (nil: connections on
    /// NIO's shared loops, handling on Swift's global executor).
    public func start(
        host: String = "127.0.0.1", port: Int = 0, shutdownSignals: [UnixSignal] = [], logger: Logger? = nil,
        network: LoopbackNetwork? = nil
    ) async throws -> Running {
        let router = Router(context: EmulatorRequestContext.self)
        let core = self.core
        let limit = maximumBodySize
        let headerLimit = maximumHeaderSize
        let handler: @Sendable (Request, EmulatorRequestContext) async throws -> Response = { request, context in
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }  // lower case already
            // The server's own refusals, before any provider sees the request: `{"error": …}`.
            func refusal(_ status: HTTPResponse.Status, _ error: String) -> Response {
                Response(
                    status: status, headers: [.contentType: "application/json; charset=utf-8"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONBody.encode(["error": error]))))
            }
            if let problem = headers.removeValue(forKey: RequestHeadCheck.problemHeader) {
                return refusal(.badRequest, problem)
            }
            if headers["host"] == nil, let authority = request.head.authority { headers["host"] = authority }
            if request.uri.path.hasPrefix("/__waypost/"),
                !ControlPlaneHosts(host: host, localAddress: context.localIP, port: context.localPort ?? port)
                    .allows(headers["host"])
            {
                return refusal(
                    .forbidden,
                    "the control plane answers only requests addressed to this emulator's own host and port (Host: \(headers["host"] ?? "none"))"
                )
            }
            // An HTTP/1.0 request may name no host (RFC 9112 §3.3): the links in answers name
            // the server's own authority, its port with it (the control plane, above, trusts no
            // request without one).
            if headers["host"] == nil, let address = context.localIP {
                headers["host"] = "\(URIHost.bracketed(address)):\(context.localPort ?? port)"
            }
            var received = EmulatorRequest(
                method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? "",
                headers: headers)
            let answer: EmulatorResponse
            let headerBytes = headers.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 4 }
            if headerBytes > headerLimit {
                answer = await core.tooLarge(received, part: .headers)
            } else {
                do {
                    received.body = Data(buffer: try await request.body.collect(upTo: limit))
                    answer = await core.handle(received)
                } catch is NIOTooManyBytesError {
                    // Over the limit: the provider's error object, not a dropped connection.
                    answer = await core.tooLarge(received, part: .body)
                } catch {
                    // The body ended short of its Content-Length: unread, not too large.
                    answer = await core.incompleteBody(received)
                }
            }
            if answer.delay > .zero { try await Task.sleep(for: answer.delay.duration) }
            var fields = HTTPFields()
            for (name, value) in answer.headers {
                if let field = HTTPField.Name(name) { fields[field] = value }
            }
            switch answer.transport {
            case .none:
                let response = Response(
                    status: HTTPResponse.Status(code: answer.status), headers: fields,
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
                // A HEAD's answer is the GET's head, its Content-Length included (RFC 9110 §9.3.2).
                return request.method == .head ? response.createHeadResponse() : response
            case .hang:
                try await Task.sleep(for: .seconds(3600))  // until the client gives up or the server stops
                throw CancellationError()
            case .reset:
                // The head goes out announcing a body that never comes; the connection is dropped.
                return Response(
                    status: .ok, headers: fields,
                    body: ResponseBody(contentLength: 64) { _ in throw EmulatorConnectionReset() })
            }
        }
        // Every method HTTP defines for a resource reaches the core, which answers in the
        // provider's format (an unknown route is the provider's 404, not an empty one).
        for method in [HTTPRequest.Method.get, .head, .post, .put, .delete, .patch, .options, .trace, .connect] {
            router.on("/", method: method, use: handler)  // Graph's root: `GET /?ids=a,b`
            router.on("**", method: method, use: handler)
        }
        var quiet = Logger(label: "waypost.emulator")
        quiet.logLevel = .warning
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let (seconds, attoseconds) = idleTimeout.components
        let idle = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        var http1 = HTTP1Channel.Configuration(idleTimeout: idle)
        // Large enough that an oversized header block reaches the handler, which answers it; the
        // field count as many as a 1 MiB block can hold (1,000 fields of 11 bytes got a bare 400).
        http1.httpDecoder = .init(
            maxHeaderFieldSize: 1 << 20, maxHeaderListSize: 1 << 20, maxHeaderFieldCount: 1 << 18)
        let server = HTTPServerBuilder { [http1] responder in
            EmulatorHTTP1Channel(base: HTTP1Channel(responder: responder, configuration: http1))
        }
        let app = Application(
            router: router, server: server,
            configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? port)
                continuation.finish()
            }, eventLoopGroupProvider: network.map { .shared($0.loop) } ?? .singleton, logger: logger ?? quiet)
        // Signals are trapped here, not by the service group: its graceful shutdown waits for
        // every request, and a `hang` fault never ends.
        let group = ServiceGroup(services: [app], logger: logger ?? quiet)
        let serve: @Sendable () async throws -> Void = {
            defer { continuation.finish() }  // a failed bind ends the wait below too
            try await group.run()
        }
        let task = network?.task(serve) ?? Task(operation: serve)
        var iterator = stream.makeAsyncIterator()
        guard let bound = await iterator.next() else {
            await group.triggerGracefulShutdown()
            switch await task.result {
            case .failure(let error): throw EmulatorListenError(host: host, port: port, underlying: error)
            case .success: throw EmulatorListenError(host: host, port: port, reason: "stopped before listening")
            }
        }
        let running = Running(host: host, port: bound, group: group, task: task)
        if !shutdownSignals.isEmpty {
            let signals = await UnixSignalsSequence(trapping: shutdownSignals)
            Task {
                for await _ in signals {
                    await running.stop()
                    return
                }
            }
        }
        return running
    }
}

/// The request context: Hummingbird's, and the address the connection reached, which the
/// control plane's `Host` check needs.
struct EmulatorRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The socket's local IP and port.
    let localIP: String?
    let localPort: Int?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        localIP = source.channel.localAddress?.ipAddress
        localPort = source.channel.localAddress?.port
    }
}

/// The emulator could not listen: the port is taken, the address is not one of this
/// machine's, or listening there needs a privilege.
public struct EmulatorListenError: Error, CustomStringConvertible, Sendable {
    public var host: String
    public var port: Int
    /// What the system said, e.g. "address already in use".
    public var reason: String

    public init(host: String, port: Int, reason: String) {
        self.host = host
        self.port = port
        self.reason = reason
    }

    init(host: String, port: Int, underlying error: any Error) {
        let reason: String
        if let io = error as? IOError {
            reason = String(cString: strerror(io.errnoCode)).lowercased()
        } else if error is SocketAddressError {
            reason = "no such host"
        } else {
            reason = String(describing: error)
        }
        self.init(host: host, port: port, reason: reason)
    }

    public var description: String { "cannot listen on \(host):\(port) (\(reason))" }
}

extension EmulatorServer {
    /// Twitter's v1.1 API root under an emulator's base URL, over a socket or in memory.
    public static func twitterRoot(of base: URL) -> URL { base.appendingPathComponent("1.1/") }
    /// X API v2's root under an emulator's base URL (the Graph API's is the base itself).
    public static func xRoot(of base: URL) -> URL { base.appendingPathComponent("2/") }
}
