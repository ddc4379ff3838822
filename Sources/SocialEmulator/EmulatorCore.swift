import Foundation
import SimulatedTime
import SocialAPI

/// The Twitter and Facebook Graph emulator, without the socket: a request in, the answer out.
/// ``EmulatorServer`` puts it on Hummingbird; ``EmulatorTransport`` calls it in memory.
///
/// A request passes, in order, as middleware does in Hummingbird: the control plane
/// (`/__waypost/`, ``ControlRoutes``) answers its own; otherwise the parameters are decoded
/// (``RequestParameters``), a fault may be met (``FaultTable``), the provider's routes answer
/// (``TwitterRoutes`` with ``OAuthVerifier``, or ``GraphRoutes``), and the ``Journal`` records
/// the request with its status. State lives in one ``EmulatorState`` inside this actor.
public actor EmulatorCore {
    public private(set) var fixtures: EmulatorFixtures
    private var twitter: TwitterRoutes
    private var x: XRoutes
    private var graph: GraphRoutes
    private var controlPlane: ControlRoutes
    /// The emulator's time before the control plane's scripted offset.
    private var baseClock: any EpochClock
    /// When set, control-plane requests over HTTP need it in `X-Waypost-Control-Token`.
    private let controlToken: String?
    private var state: EmulatorState

    private func clock() -> EpochInstant { baseClock.now.advanced(bySeconds: state.clockOffset) }

    /// - Parameters:
    ///   - seed: seeds fault probabilities and latencies.
    ///   - journalLimits: entries and bytes the journal keeps; older entries are dropped and
    ///     counted, long values cut short (``JournalLimits``).
    ///   - controlToken: required of control-plane requests over HTTP (`X-Waypost-Control-Token`),
    ///     so that an emulator reachable from elsewhere cannot be reset or read by anyone.
    ///   - clock: the emulator's time (OAuth timestamps, rate-limit windows, fault windows): the
    ///     wall clock standalone, a run's ``SimulatedClock`` in process.
    public init(
        fixtures: EmulatorFixtures, configuration: EmulatorConfiguration = .demo, seed: UInt64 = 0,
        journalLimits: JournalLimits = JournalLimits(), controlToken: String? = nil,
        clock: any EpochClock = WallClock()
    ) {
        self.controlToken = controlToken
        self.fixtures = fixtures
        self.baseClock = clock
        (twitter, x, graph, controlPlane, state) = Self.parts(fixtures, configuration, seed, journalLimits)
    }

    /// Everything a run's configuration and seed decide.
    private static func parts(
        _ fixtures: EmulatorFixtures, _ configuration: EmulatorConfiguration, _ seed: UInt64,
        _ journalLimits: JournalLimits
    ) -> (TwitterRoutes, XRoutes, GraphRoutes, ControlRoutes, EmulatorState) {
        (
            TwitterRoutes(fixtures: fixtures, configuration: configuration),
            XRoutes(fixtures: fixtures, configuration: configuration),
            GraphRoutes(fixtures: fixtures, configuration: configuration),
            ControlRoutes(configuration: configuration, seed: seed, journalLimits: journalLimits),
            EmulatorState(configuration, seed: seed, journalLimits: journalLimits)
        )
    }

    /// Back to the configured accounts: no posts, journal, faults or clock offset; fresh
    /// rate-limit windows; the generator re-seeded.
    public func reset() {
        control("POST", "/__waypost/reset")
    }

    /// Made anew for another run, as `init` makes it (the control token and journal limits
    /// stay): a server already listening serves the next run without being restarted.
    public func renew(
        fixtures: EmulatorFixtures, configuration: EmulatorConfiguration, seed: UInt64,
        clock: any EpochClock
    ) {
        self.fixtures = fixtures
        baseClock = clock
        (twitter, x, graph, controlPlane, state) = Self.parts(
            fixtures, configuration, seed, controlPlane.journalLimits)
    }

    /// Adds a fault; returns it with its id.
    @discardableResult
    public func addFault(_ fault: Fault) -> Fault {
        state.faults.add(fault)
    }

    /// Every request received since the last reset, in order (the newest, within the
    /// ``JournalLimits``).
    public var journal: [JournalEntry] { state.journal.ordered }

    /// The states a Graph access token can be put in (`valid`, `expired`, `password-changed`…).
    public static var graphTokenStates: [String] { GraphRoutes.tokenStates.map(\.key) }

    /// A control-plane call (`/__waypost/…`, form-encoded parameters) without HTTP, as scenarios
    /// and tests script the emulator.
    @discardableResult
    public func control(_ method: String, _ path: String, _ form: String = "") -> EmulatorResponse {
        var headers = ["content-type": "application/x-www-form-urlencoded"]
        headers["x-waypost-control-token"] = controlToken
        return handle(EmulatorRequest(method: method, path: path, headers: headers, body: Data(form.utf8)))
    }

    public func handle(_ request: EmulatorRequest) -> EmulatorResponse {
        let route = TwitterRoutes.route(request.path)
        guard let parameters = RequestParameters(request) else {
            // Nothing can be read or verified: each provider's answer to an undecodable request.
            let response =
                request.path.hasPrefix("/__waypost/")
                ? .json(400, ["error": "malformed percent-encoding or parameters that are not UTF-8"])
                : providerError(
                    request.path,
                    twitter: (401, TwitterErrorCode.couldNotAuthenticate.rawValue, "Could not authenticate you."),
                    graph: (
                        400, GraphErrorCode.invalidParameter.rawValue,
                        "(#100) Malformed parameters: invalid percent-encoding or UTF-8"
                    ))
            if !request.path.hasPrefix("/__waypost/") {
                state.journal.record(
                    request, oauth: nil, parameters: [], status: response.status, fault: nil, time: clock())
            }
            return response
        }
        if request.path.hasPrefix("/__waypost/") {
            if let controlToken, request.headers["x-waypost-control-token"] != controlToken {
                return .json(401, ["error": "the control plane needs this emulator's X-Waypost-Control-Token"])
            }
            return controlPlane.respond(
                to: request.routedMethod, request.path, parameters: parameters, state: &state, clock: baseClock)
        }
        let header = request.headers["authorization"].flatMap(OAuthHeader.init)
        let now = clock()
        let met = state.faults.match(path: request.path, now: now)
        var response: EmulatorResponse
        switch met?.kind {
        case .status?:
            let status = met?.status ?? 503
            response = providerError(
                request.path, twitter: (status, met?.code ?? TwitterErrorCode.overCapacity.rawValue, "Over capacity"),
                graph: (
                    status, met?.code ?? GraphErrorCode.serviceUnavailable.rawValue,
                    "An unexpected error has occurred. Please retry your request later."
                ))
        case .empty?:
            response = .json(200, encoded: Data())
        case .reset?, .hang?:
            response = EmulatorResponse(status: 200)
            response.transport = met?.kind == .reset ? .reset : .hang
        case .latency?, .truncated?, nil:
            if XRoutes.matches(request.path) {
                response = x.respond(
                    to: request, parameters: parameters, header: header, state: &state, now: now.secondsSince1970)
            } else if let route {
                response = twitter.respond(
                    to: request, endpoint: route.endpoint, version: route.version, parameters: parameters,
                    header: header, state: &state, now: now.secondsSince1970)
            } else {
                response = graph.respond(to: request, parameters: parameters, state: &state, now: now.secondsSince1970)
            }
            if let met, met.kind == .latency { response.delay = state.faults.latency(met) }
            if met?.kind == .truncated { response.body = response.body.prefix(response.body.count / 2) }
        }
        state.journal.record(
            request, oauth: header, parameters: parameters.pairs + request.jsonFields, status: response.status,
            fault: met?.kind, time: now)
        return response
    }

    /// The part of a request over the HTTP layer's size limit.
    public enum OversizedPart: Sendable {
        case headers, body
    }

    /// The answer to a request whose headers or body were over the size limit (the HTTP layer
    /// stops there), in the provider's error format: 431 or 413 (Graph: 400/100).
    public func tooLarge(_ request: EmulatorRequest, part: OversizedPart) -> EmulatorResponse {
        part == .headers
            ? unread(request, status: 431, "Request header fields too large.")
            : unread(request, status: 413, "Request entity too large.")
    }

    /// The answer to a request whose body ended before its `Content-Length` (the client closed
    /// its side): 400 in the provider's format (Graph 400/100), as a request that cannot be read
    /// — and, its form unread, not verified — is (RFC 9112 §8 lets a server answer one so).
    func incompleteBody(_ request: EmulatorRequest) -> EmulatorResponse {
        unread(request, status: 400, "Request body incomplete.")
    }

    /// A request the HTTP layer could not read whole, answered and journaled.
    private func unread(_ request: EmulatorRequest, status: Int, _ what: String) -> EmulatorResponse {
        let response = providerError(
            request.path, twitter: (status, TwitterErrorCode.badAuthenticationData.rawValue, what),
            graph: (400, GraphErrorCode.invalidParameter.rawValue, "(#100) \(what)"))
        state.journal.record(request, oauth: nil, parameters: [], status: response.status, fault: nil, time: clock())
        return response
    }

    /// An error in the format of the provider `path` belongs to: Twitter's `errors` list, or
    /// Graph's error object with its version header.
    private func providerError(
        _ path: String, twitter: (status: Int, code: Int, message: String),
        graph answer: (status: Int, code: Int, message: String)
    ) -> EmulatorResponse {
        if TwitterRoutes.route(path) != nil {
            return TwitterRoutes.error(twitter.status, code: twitter.code, twitter.message)
        }
        if XRoutes.matches(path) {
            // X API v2 answers with a problem object whatever went wrong.
            let title =
                twitter.status == 503
                ? "Service Unavailable" : twitter.status >= 500 ? "Internal Server Error" : "Bad Request"
            return XRoutes.problem(twitter.status, title: title, detail: twitter.message)
        }
        return graph.versioned(
            GraphRoutes.error(answer.status, code: answer.code, answer.message, trace: state.makeID()), path: path)
    }
}
