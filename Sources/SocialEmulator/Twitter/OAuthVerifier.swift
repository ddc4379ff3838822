import Foundation
import SocialAPI

/// The `Authorization: OAuth …` header's protocol parameters (RFC 5849 §3.5.1), decoded.
struct OAuthHeader: Sendable {
    var parameters: [String: String]
    /// A name given twice: RFC 5849 §3.2 answers such a request 400.
    var hasDuplicate = false

    /// Whether the header names the `OAuth` scheme (RFC 5849 §3.5.1; case-insensitive as
    /// RFC 7235 §2.1 has scheme names).
    static func hasScheme(_ header: String) -> Bool {
        // Six characters read, not the whole header counted (a signed header is ~300 bytes of
        // grapheme breaking at every request).
        let scheme = header.prefix(6)
        return scheme.count == 6 && scheme.endIndex < header.endIndex && scheme.lowercased() == "oauth "
    }

    /// nil when the header is not an OAuth header or cannot be read (an escape malformed, a
    /// pair without `=`).
    init?(_ header: String) {
        guard Self.hasScheme(header) else { return nil }
        var text = header
        var out = [String: String](minimumCapacity: 8)
        var duplicate = false
        // Read off the header's bytes in place: split into arrays of slices, the parse was 5 % of
        // a signed request in memory (perf).
        let read = text.withUTF8 { bytes -> Bool in
            func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
            var start = 6  // past `OAuth `
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: ",")) ?? bytes.count
                defer { start = end + 1 }
                guard end > start else { continue }  // an empty pair (`,,`) is skipped
                let pair = bytes[start..<end].drop(while: isBlank)
                guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return false }
                var raw = pair[(equals + 1)...]
                while let last = raw.last, isBlank(last) { raw = raw.dropLast() }
                if raw.count >= 2, raw.first == UInt8(ascii: "\""), raw.last == UInt8(ascii: "\"") {
                    raw = raw.dropFirst().dropLast()
                }
                guard let value = PercentEncoding.decode(raw) else { return false }
                let name = String(decoding: pair[..<equals], as: UTF8.self)
                if out.updateValue(value, forKey: name) != nil { duplicate = true }
            }
            return true
        }
        guard read else { return nil }
        parameters = out
        hasDuplicate = duplicate
    }

    subscript(_ name: String) -> String? { parameters[name] }

    /// The header as the journal shows it: the signature replaced.
    var redacted: String {
        var shown = parameters
        shown["oauth_signature"] = "REDACTED"
        // Appended in place: every signed request is journalled, and interpolating each pair
        // into its own string cost more than the journal's other work (perf).
        var text = "OAuth "
        text.reserveCapacity(320)  // a signed header's length: grown as it is written, it was copied four times
        for (index, pair) in shown.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { text += ", " }
            text += pair.key
            text += "=\""
            text += pair.value
            text += "\""
        }
        return text
    }
}

/// A request's OAuth protocol parameters, wherever RFC 5849 §3.5 lets a client put them: the
/// `Authorization` header (§3.5.1), the query string (§3.5.2) or a form body (§3.5.3). Twitter
/// accepted all three; Python Twitter Tools and Net::Twitter::Lite sign into the query or the
/// body.
struct OAuthProtocolParameters: Sendable {
    /// The place they came from (the first, when ``isAmbiguous``).
    var transport: OAuth1Transport
    /// By name; the header's `realm` among them when the header carried them.
    var parameters: [String: String]
    /// They cannot be read unambiguously: `oauth_*` parameters in more than one place (§3.5:
    /// "only one … method"), a name repeated (§3.2: 400), or an `OAuth` header that does not
    /// parse. Twitter answered such requests 400/215 "Bad Authentication data".
    var isAmbiguous: Bool

    /// nil when the request carries no protocol parameters at all (no OAuth header, no
    /// `oauth_*` in the query or the form body).
    init?(authorization: String?, parameters request: RequestParameters) {
        self.init(authorization: authorization, header: authorization.flatMap(OAuthHeader.init), parameters: request)
    }

    /// The same, with the `Authorization` header already read (`OAuthHeader(authorization)`, as
    /// ``EmulatorCore`` reads it once a request for its journal too).
    init?(authorization: String?, header: OAuthHeader?, parameters request: RequestParameters) {
        let malformedHeader = header == nil && authorization.map(OAuthHeader.hasScheme) == true
        let query = request.query.filter { RequestParameters.isProtocolParameter($0.name) }
        let form = request.form.filter { RequestParameters.isProtocolParameter($0.name) }
        let places = [header != nil || malformedHeader, !query.isEmpty, !form.isEmpty].filter { $0 }.count
        guard places > 0 else { return nil }
        if let header {
            (transport, parameters, isAmbiguous) = (.header, header.parameters, header.hasDuplicate)
        } else {
            let pairs = query.isEmpty ? form : query
            transport = query.isEmpty ? .body : .query
            parameters = Dictionary(pairs, uniquingKeysWith: { first, _ in first })
            isAmbiguous = parameters.count < pairs.count
        }
        if places > 1 || malformedHeader { isAmbiguous = true }
    }

    subscript(_ name: String) -> String? { parameters[name] }

    /// What goes into the signature base string beside the request's query and form parameters:
    /// the header's parameters (§3.4.1.3.1; `realm` and `oauth_signature` are left out there).
    /// Parameters sent in the query or the body are among the request's parameters already.
    var headerParameters: [String: String] {
        transport == .header ? parameters : [:]
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

/// OAuth 1.0a as Twitter checked it: parameters present, in one place and not repeated,
/// consumer and token known, timestamp within the window, nonce not replayed, HMAC-SHA1
/// signature over the request as received (query and form decoded as forms, RFC 5849
/// §3.4.1.3.1). The protocol parameters may come in the header, the query or the form body
/// (§3.5), and every check answers the same whichever carried them.
struct OAuthVerifier: Sendable {
    /// Longest nonce accepted: real clients send 32–43 characters.
    static let maximumNonceLength = 256

    enum Outcome {
        case verified(EmulatorConfiguration.TwitterAccount)
        case refused(status: Int, TwitterErrorCode, String)
    }

    /// - Parameters:
    ///   - oauth: the protocol parameters found (``OAuthProtocolParameters``).
    ///   - parameters: the query and form parameters as received, protocol parameters included
    ///     when they came there: all of them are signed (§3.4.1.3.1).
    static func verify(
        _ request: EmulatorRequest, oauth: OAuthProtocolParameters?, parameters: RequestParameters,
        state: inout EmulatorState, now: Double, window: Double
    ) -> Outcome {
        let badData = Outcome.refused(status: 400, .badAuthenticationData, "Bad Authentication data.")
        let notAuthenticated = Outcome.refused(status: 401, .couldNotAuthenticate, "Could not authenticate you.")
        guard let oauth, !oauth.isAmbiguous,
            let consumerKey = oauth["oauth_consumer_key"], let nonce = oauth["oauth_nonce"],
            let signature = oauth["oauth_signature"], let timestampText = oauth["oauth_timestamp"],
            let timestamp = Double(timestampText), timestamp.isFinite, oauth["oauth_signature_method"] == "HMAC-SHA1"
        else { return badData }
        guard !nonce.isEmpty, nonce.utf8.count <= maximumNonceLength else { return notAuthenticated }
        guard let consumerSecret = state.consumers[consumerKey] else { return notAuthenticated }
        guard let token = oauth["oauth_token"], let account = state.twitterAccounts.first(where: { $0.token == token })
        else { return .refused(status: 401, .invalidOrExpiredToken, "Invalid or expired token.") }
        guard abs(now - timestamp) <= window else {
            return .refused(status: 401, .timestampOutOfBounds, "Timestamp out of bounds.")
        }
        // The base string URI is the URL as addressed (Host header and path), without the query.
        guard let url = URL(string: request.origin + request.path) else { return notAuthenticated }
        let base = OAuth1Signer.baseString(
            method: request.method, baseURL: OAuth1Signer.baseURL(url).base, parameters: parameters.pairs,
            protocolParameters: oauth.headerParameters)
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
