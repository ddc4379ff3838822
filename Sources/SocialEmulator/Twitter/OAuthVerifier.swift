import Foundation
import SocialAPI

/// The `Authorization: OAuth …` header's protocol parameters (RFC 5849 §3.5.1), decoded.
struct OAuthHeader: Sendable {
    var parameters: [String: String]
    /// A name given twice: RFC 5849 §3.2 answers such a request 400.
    var hasDuplicate = false

    /// nil when the header is not an OAuth header or cannot be read (an escape malformed, a
    /// pair without `=`).
    init?(_ header: String) {
        guard header.count > 6, header.prefix(6).lowercased() == "oauth " else { return nil }
        var out: [String: String] = [:]
        for part in header.utf8.dropFirst(6).split(separator: UInt8(ascii: ",")) {
            let pair = part.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            var raw = pair[pair.index(after: equals)...]
            while raw.last == UInt8(ascii: " ") || raw.last == UInt8(ascii: "\t") { raw = raw.dropLast() }
            if raw.count >= 2, raw.first == UInt8(ascii: "\""), raw.last == UInt8(ascii: "\"") {
                raw = raw.dropFirst().dropLast()
            }
            guard let value = PercentEncoding.decode(String(decoding: raw, as: UTF8.self)) else { return nil }
            let name = String(decoding: pair[..<equals], as: UTF8.self)
            if out[name] != nil { hasDuplicate = true }
            out[name] = value
        }
        parameters = out
    }

    subscript(_ name: String) -> String? { parameters[name] }

    /// The header as the journal shows it: the signature replaced.
    var redacted: String {
        var shown = parameters
        shown["oauth_signature"] = "REDACTED"
        return "OAuth " + shown.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ", ")
    }
}

/// The nonces seen inside the timestamp window, per consumer: a nonce may be used once with its
/// timestamp (RFC 5849 §3.3). Expired ones are pruned in arrival order; past `capacity` live
/// nonces the oldest go first, so a flood cannot grow it without bound.
struct NonceCache: Sendable {
    private var seen: [String: Double] = [:]
    private var queue: [(key: String, timestamp: Double)] = []
    private var queueStart = 0
    let capacity: Int

    init(capacity: Int = 1 << 20) {
        self.capacity = max(1, capacity)
    }

    /// Records the nonce; false when it was already used with this timestamp.
    mutating func admit(
        consumer: String, nonce: String, timestamp: String, seconds: Double, now: Double, window: Double
    )
        -> Bool
    {
        while queueStart < queue.count,
            now - queue[queueStart].timestamp > 2 * window || queue.count - queueStart >= capacity
        {
            seen[queue[queueStart].key] = nil
            queueStart += 1
        }
        if queueStart > 4096 {
            queue.removeFirst(queueStart)
            queueStart = 0
        }
        let key = consumer + "\u{0}" + nonce + "\u{0}" + timestamp
        guard seen[key] == nil else { return false }
        seen[key] = seconds
        queue.append((key, seconds))
        return true
    }
}

/// OAuth 1.0a as Twitter checked it: parameters present and not repeated, consumer and token
/// known, timestamp within the window, nonce not replayed, HMAC-SHA1 signature over the
/// request as received (query and form decoded as forms, RFC 5849 §3.4.1.3.1).
struct OAuthVerifier: Sendable {
    /// Longest nonce accepted: real clients send 32–43 characters.
    static let maximumNonceLength = 256

    enum Outcome {
        case verified(EmulatorConfiguration.TwitterAccount)
        case refused(status: Int, TwitterErrorCode, String)
    }

    static func verify(
        _ request: EmulatorRequest, header: OAuthHeader?, parameters: RequestParameters, state: inout EmulatorState,
        now: Double, window: Double
    ) -> Outcome {
        let badData = Outcome.refused(status: 400, .badAuthenticationData, "Bad Authentication data.")
        let notAuthenticated = Outcome.refused(status: 401, .couldNotAuthenticate, "Could not authenticate you.")
        guard let header, !header.hasDuplicate,
            !parameters.pairs.contains(where: { $0.name.hasPrefix("oauth_") && header[$0.name] != nil }),
            let consumerKey = header["oauth_consumer_key"], let nonce = header["oauth_nonce"],
            let signature = header["oauth_signature"], let timestampText = header["oauth_timestamp"],
            let timestamp = Double(timestampText), timestamp.isFinite, header["oauth_signature_method"] == "HMAC-SHA1"
        else { return badData }
        guard !nonce.isEmpty, nonce.utf8.count <= maximumNonceLength else { return notAuthenticated }
        guard let consumerSecret = state.consumers[consumerKey] else { return notAuthenticated }
        guard let token = header["oauth_token"], let account = state.twitterAccounts.first(where: { $0.token == token })
        else { return .refused(status: 401, .invalidOrExpiredToken, "Invalid or expired token.") }
        guard abs(now - timestamp) <= window else {
            return .refused(status: 401, .timestampOutOfBounds, "Timestamp out of bounds.")
        }
        // The base string URI is the URL as addressed (Host header and path), without the query.
        guard let url = URL(string: request.origin + request.path) else { return notAuthenticated }
        var protocolParameters = header.parameters
        protocolParameters["oauth_signature"] = nil
        let base = OAuth1Signer.baseString(
            method: request.method, baseURL: OAuth1Signer.baseURL(url).base, parameters: parameters.pairs,
            protocolParameters: protocolParameters)
        let expected = OAuth1Signer.hmacSHA1(base, consumerSecret: consumerSecret, tokenSecret: account.tokenSecret)
        guard expected == signature else { return notAuthenticated }
        guard
            state.nonces.admit(
                consumer: consumerKey, nonce: nonce, timestamp: timestampText, seconds: timestamp, now: now,
                window: window)
        else { return notAuthenticated }
        return .verified(account)
    }
}
