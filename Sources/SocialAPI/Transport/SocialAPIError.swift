import SimulatedTime

/// What went wrong talking to a provider, typed so callers can decide: retry, re-authenticate,
/// or give up.
public enum SocialAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Twitter answered with its error body; `rateLimitReset` from `x-rate-limit-reset` (epoch
    /// seconds), `retryAfter` from a `Retry-After` header (seconds).
    case twitter(status: Int, errors: [TwitterErrorBody.Entry], rateLimitReset: Int?, retryAfter: Int? = nil)
    /// X API v2 answered with a problem object or a validation `errors` array.
    case x(status: Int, problem: XProblem, rateLimitReset: Int?, retryAfter: Int? = nil)
    /// Graph answered with its error body; `retryAfter` from a `Retry-After` header, seconds.
    case graph(status: Int, error: GraphErrorBody.Detail, retryAfter: Int? = nil)
    /// The server answered with a status and a body that is not the provider's error format.
    case http(status: Int, body: String, retryAfter: Int? = nil)
    /// No usable answer: connection refused or reset, timeout, truncated body.
    case transport(String)
    /// A 2xx answer that did not decode.
    case decoding(String)

    /// Whether a retry with backoff may succeed (transport errors, 5xx, rate limits).
    public var isRetryable: Bool {
        switch self {
        case .transport: true
        case .twitter(let status, let errors, _, _):
            status >= 500 || status == 429 || errors.contains { $0.known == .rateLimitExceeded }
        case .x(let status, _, _, _): status >= 500 || status == 429
        case .graph(let status, let error, _): status >= 500 || error.known?.isThrottling == true
        case .http(let status, _, _): status >= 500 || status == 429
        case .decoding: false
        }
    }

    /// Whether a request that met this error may still have been carried out: the answer was
    /// lost (a timeout, a reset connection) or unreadable. A post that meets it is in doubt.
    public var answerWasLost: Bool {
        switch self {
        case .transport, .decoding: true
        case .twitter, .x, .graph, .http: false
        }
    }

    /// Whether the provider refused the credentials, not the request: a signature that does not
    /// check out, an expired or revoked token (Twitter and X 401, Twitter 89 and 215; Graph 190
    /// and 104). Every request is refused alike until the user mends them, so the post that met
    /// it is not at fault: an outbox holds its posts rather than failing them.
    public var refusesCredentials: Bool {
        switch self {
        case .twitter(let status, let errors, _, _):
            status == 401
                || errors.contains { $0.known == .invalidOrExpiredToken || $0.known == .badAuthenticationData }
        case .x(let status, _, _, _), .http(let status, _, _): status == 401
        case .graph(let status, let error, _):
            status == 401 || error.known == .invalidToken || error.known == .accessTokenRequired
        case .transport, .decoding: false
        }
    }

    /// The provider refused the post as one it already has (Twitter 187, Graph 506): after a
    /// retry of a request whose answer was lost, that means the first one landed.
    public var isDuplicate: Bool {
        switch self {
        case .twitter(_, let errors, _, _): errors.contains { $0.known == .duplicateStatus }
        case .x(_, let problem, _, _): problem.isDuplicate
        case .graph(_, let error, _): error.known == .duplicatePost
        default: false
        }
    }

    /// How long from now before a retry makes sense, when the server said so: Twitter's
    /// `x-rate-limit-reset` (an absolute time, read against `now`) or a `Retry-After` header —
    /// the later of the two where both are given.
    public func retryDelay(now: EpochInstant) -> Seconds? {
        let (reset, after): (Int?, Int?) =
            switch self {
            case .twitter(_, _, let reset, let after), .x(_, _, let reset, let after): (reset, after)
            case .graph(_, _, let after), .http(_, _, let after): (nil, after)
            case .transport, .decoding: (nil, nil)
            }
        let untilReset = reset.map { max(0, Double($0) - now.secondsSince1970) }
        guard let wait = [untilReset, after.map(Double.init)].compactMap({ $0 }).max() else { return nil }
        return Seconds(wait)
    }

    public var description: String {
        switch self {
        case .twitter(let status, let errors, _, _):
            "Twitter \(status): " + errors.map { "\($0.code) \($0.message)" }.joined(separator: "; ")
        case .x(let status, let problem, _, _):
            "X API v2 \(status): \(problem.summary)"
        case .graph(let status, let error, _):
            // Graph's own messages often begin with their code ("(#506) Duplicate status message"):
            // the code is said once, with the subcode where there is one.
            "Graph \(status): (#\(error.code)\(error.errorSubcode.map { "/\($0)" } ?? "")) "
                + (error.message.hasPrefix("(#\(error.code)) ")
                    ? String(error.message.dropFirst("(#\(error.code)) ".count)) : error.message)
        case .http(let status, let body, _): "HTTP \(status): \(body.prefix(200))"
        case .transport(let reason): "transport: \(reason)"
        case .decoding(let reason): "unexpected response: \(reason)"
        }
    }
}
