/// What went wrong talking to a provider, typed so callers can decide: retry, re-authenticate,
/// or give up.
public enum SocialAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Twitter answered with its error body.
    case twitter(status: Int, errors: [TwitterErrorBody.Entry], rateLimitReset: Int?)
    /// Graph answered with its error body.
    case graph(status: Int, error: GraphErrorBody.Detail)
    /// The server answered with a status and a body that is not the provider's error format.
    case http(status: Int, body: String)
    /// No usable answer: connection refused or reset, timeout, truncated body.
    case transport(String)
    /// A 2xx answer that did not decode.
    case decoding(String)

    /// Whether a retry with backoff may succeed (transport errors, 5xx, rate limits).
    public var isRetryable: Bool {
        switch self {
        case .transport: true
        case .twitter(let status, let errors, _): status >= 500 || status == 429 || errors.contains { $0.code == 88 }
        case .graph(let status, let error): status >= 500 || [4, 17, 32, 613].contains(error.code)
        case .http(let status, _): status >= 500 || status == 429
        case .decoding: false
        }
    }

    public var description: String {
        switch self {
        case .twitter(let status, let errors, _):
            "Twitter \(status): " + errors.map { "\($0.code) \($0.message)" }.joined(separator: "; ")
        case .graph(let status, let error):
            "Graph \(status): (#\(error.code)\(error.errorSubcode.map { "/\($0)" } ?? "")) \(error.message)"
        case .http(let status, let body): "HTTP \(status): \(body.prefix(200))"
        case .transport(let reason): "transport: \(reason)"
        case .decoding(let reason): "unexpected response: \(reason)"
        }
    }
}
