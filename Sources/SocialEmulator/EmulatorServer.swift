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

        public var baseURL: URL { URL(string: "http://\(host):\(port)/") ?? URL(fileURLWithPath: "/") }
        /// Twitter's v1.1 API root.
        public var twitterBaseURL: URL { baseURL.appendingPathComponent("1.1/") }
        /// The Graph API root.
        public var facebookBaseURL: URL { baseURL }

        /// Stops the server: in-flight requests get `grace` to finish (a `hang` fault never
        /// does), then the rest is cancelled. Waits until it has stopped.
        public func stop(grace: Duration = .seconds(1)) async {
            await group.triggerGracefulShutdown()
            let task = self.task
            let watchdog = Task {
                try await Task.sleep(for: grace)
                task.cancel()
            }
            _ = await task.result
            watchdog.cancel()
        }

        /// Waits until the server stops (a signal, or ``stop()`` elsewhere).
        public func wait() async throws {
            try await task.value
        }
    }

    /// Starts listening on `host:port` (0 picks a free port) and returns once it accepts
    /// connections. `shutdownSignals` (e.g. SIGINT, SIGTERM for a command-line server) stop it
    /// gracefully too.
    public func start(
        host: String = "127.0.0.1", port: Int = 0, shutdownSignals: [UnixSignal] = [], logger: Logger? = nil
    ) async throws -> Running {
        let router = Router()
        let core = self.core
        let limit = maximumBodySize
        let headerLimit = maximumHeaderSize
        let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }  // lower case already
            if headers["host"] == nil, let authority = request.head.authority { headers["host"] = authority }
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
                } catch {
                    // Over the limit: the provider's error object, not a dropped connection.
                    answer = await core.tooLarge(received, part: .body)
                }
            }
            if answer.delay > 0 { try await Task.sleep(for: .milliseconds(Int(answer.delay * 1000))) }
            var fields = HTTPFields()
            for (name, value) in answer.headers {
                if let field = HTTPField.Name(name) { fields[field] = value }
            }
            switch answer.transport {
            case .none:
                return Response(
                    status: HTTPResponse.Status(code: answer.status), headers: fields,
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
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
        for method in [HTTPRequest.Method.get, .post, .delete, .put] {  // the core routes and answers 404s
            router.on("/", method: method, use: handler)  // Graph's root: `GET /?ids=a,b`
            router.on("**", method: method, use: handler)
        }
        var quiet = Logger(label: "waypost.emulator")
        quiet.logLevel = .warning
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let (seconds, attoseconds) = idleTimeout.components
        let idle = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        var http1 = HTTP1Channel.Configuration(idleTimeout: idle)
        // Large enough that an oversized header block reaches the handler, which answers it.
        http1.httpDecoder = .init(
            maxHeaderFieldSize: 1 << 20, maxHeaderListSize: 1 << 20, maxHeaderFieldCount: 1000)
        let app = Application(
            router: router, server: .http1(configuration: http1),
            configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? port)
                continuation.finish()
            }, logger: logger ?? quiet)
        let group = ServiceGroup(services: [app], gracefulShutdownSignals: shutdownSignals, logger: logger ?? quiet)
        let task = Task { try await group.run() }
        var iterator = stream.makeAsyncIterator()
        guard let bound = await iterator.next() else {
            await group.triggerGracefulShutdown()
            throw CancellationError()
        }
        return Running(host: host, port: bound, group: group, task: task)
    }
}
