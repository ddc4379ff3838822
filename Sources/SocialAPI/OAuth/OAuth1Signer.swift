import Crypto
import Foundation

/// Client credentials and, for user requests, the token (RFC 5849 §1.1).
public struct OAuth1Credentials: Sendable, Equatable {
    public var consumerKey: String
    public var consumerSecret: String
    public var token: String?
    public var tokenSecret: String?

    public init(consumerKey: String, consumerSecret: String, token: String? = nil, tokenSecret: String? = nil) {
        self.consumerKey = consumerKey
        self.consumerSecret = consumerSecret
        self.token = token
        self.tokenSecret = tokenSecret
    }
}

/// The request being signed: method, URL (with its query), and form-encoded body parameters.
public struct OAuth1Request: Sendable, Equatable {
    public var method: String
    public var url: URL
    /// `application/x-www-form-urlencoded` body parameters, decoded. Other bodies are not signed.
    public var formParameters: [(name: String, value: String)]

    public init(method: String, url: URL, formParameters: [(name: String, value: String)] = []) {
        self.method = method
        self.url = url
        self.formParameters = formParameters
    }

    public static func == (lhs: OAuth1Request, rhs: OAuth1Request) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url
            && lhs.formParameters.map { [$0.name, $0.value] } == rhs.formParameters.map { [$0.name, $0.value] }
    }
}

/// Everything a signature is made of, for debugging (`waypost oauth-sign`) and for verifying.
public struct OAuth1Signature: Sendable, Equatable {
    /// The signature base string (RFC 5849 §3.4.1).
    public var baseString: String
    /// Base64 of HMAC-SHA1 over the base string.
    public var signature: String
    /// The `oauth_*` protocol parameters sent, `oauth_signature` included.
    public var protocolParameters: [String: String]
    /// The `Authorization` header value.
    public var authorizationHeader: String

    /// The protocol parameters, `oauth_signature` included, form-encoded and sorted by name:
    /// what a client sends in the query (RFC 5849 §3.5.2) or the form body (§3.5.3) instead of
    /// the header. The signature is the same whichever place carries them, because the base
    /// string holds the protocol parameters either way (§3.4.1.3.1); a `realm` has no place
    /// outside the header and is left out.
    public var formEncodedProtocolParameters: String {
        PercentEncoding.form(protocolParameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// `url` with the protocol parameters added to its query (RFC 5849 §3.5.2): the URL to
    /// request when they travel in the query string.
    public func url(addingProtocolParametersTo url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        let query = [components.percentEncodedQuery, formEncodedProtocolParameters]
            .compactMap { $0.flatMap { $0.isEmpty ? nil : $0 } }
        components.percentEncodedQuery = query.joined(separator: "&")
        return components.url ?? url
    }

    /// `formParameters` and then the protocol parameters as one `application/x-www-form-urlencoded`
    /// body (RFC 5849 §3.5.3): the body to send when they travel in it.
    public func formBody(_ formParameters: [(name: String, value: String)]) -> String {
        formParameters.isEmpty
            ? formEncodedProtocolParameters
            : PercentEncoding.form(formParameters) + "&" + formEncodedProtocolParameters
    }
}

/// Where a request carries its OAuth protocol parameters (RFC 5849 §3.5): the `Authorization`
/// header (§3.5.1, what Twitter documented), the query string (§3.5.2) or an
/// `application/x-www-form-urlencoded` body (§3.5.3), which Twitter accepted too.
public enum OAuth1Transport: String, Sendable, CaseIterable {
    case header, query, body
}

/// OAuth 1.0a HMAC-SHA1 signing (RFC 5849), as Twitter's v1.1 API requires.
///
/// ```swift
/// let signer = OAuth1Signer(credentials: credentials)
/// let signed = try signer.sign(OAuth1Request(method: "POST", url: url, formParameters: [("status", "Hello")]),
///                              nonce: "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", timestamp: 1_318_622_958)
/// request.headers["Authorization"] = signed.authorizationHeader
/// ```
///
/// The nonce and timestamp are parameters so that signing is deterministic in tests; callers
/// pass a fresh random nonce and the current time.
public struct OAuth1Signer: Sendable {
    public var credentials: OAuth1Credentials
    /// An optional `realm` for the header; never part of the signature (RFC 5849 §3.4.1.3.1).
    public var realm: String?

    public init(credentials: OAuth1Credentials, realm: String? = nil) {
        self.credentials = credentials
        self.realm = realm
    }

    /// `extra`: protocol parameters a step of the flow adds, sent and signed with the others —
    /// `oauth_callback` asking for temporary credentials, `oauth_verifier` exchanging them (RFC
    /// 5849 §2.1, §2.3).
    public func sign(
        _ request: OAuth1Request, nonce: String, timestamp: Int, extra: [String: String] = [:]
    ) -> OAuth1Signature {
        var oauth: [String: String] = [
            "oauth_consumer_key": credentials.consumerKey,
            "oauth_nonce": nonce,
            "oauth_signature_method": "HMAC-SHA1",
            "oauth_timestamp": String(timestamp),
            "oauth_version": "1.0",
        ]
        oauth.merge(extra) { own, _ in own }
        if let token = credentials.token { oauth["oauth_token"] = token }
        let base = Self.baseString(request, protocolParameters: oauth)
        let signature = Self.hmacSHA1(
            base, consumerSecret: credentials.consumerSecret, tokenSecret: credentials.tokenSecret ?? "")
        oauth["oauth_signature"] = signature
        return OAuth1Signature(
            baseString: base, signature: signature, protocolParameters: oauth,
            authorizationHeader: Self.authorizationHeader(oauth, realm: realm))
    }

    /// `OAuth realm="…", name="value", …` (RFC 5849 §3.5.1): the parameters sorted by name, each
    /// encoded. Written into one buffer: a string for each field, then one joining them, were
    /// a fifth of signing's allocations.
    private static func authorizationHeader(_ parameters: [String: String], realm: String?) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(400)
        out.append(contentsOf: "OAuth ".utf8)
        if let realm {
            out.append(contentsOf: "realm=\"".utf8)
            out.append(contentsOf: realm.replacingOccurrences(of: "\"", with: "").utf8)
            out.append(UInt8(ascii: "\""))
        }
        for (index, (name, value)) in parameters.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 || realm != nil { out.append(contentsOf: ", ".utf8) }
            PercentEncoding.append(name, to: &out)
            out.append(contentsOf: "=\"".utf8)
            PercentEncoding.append(value, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 5849 §3.4.1: `METHOD&base-URL&normalized-parameters`, each part percent-encoded.
    /// Parameters come from the query and the form body — both decoded as
    /// `application/x-www-form-urlencoded`, so `+` is a space (§3.4.1.3.1) — and the protocol
    /// parameters, with `realm` and `oauth_signature` excluded, sorted by encoded name and then
    /// encoded value.
    public static func baseString(_ request: OAuth1Request, protocolParameters: [String: String]) -> String {
        let (baseURL, query) = Self.baseURL(request.url)
        let queryPairs = PercentEncoding.pairs(query, plusIsSpace: true) ?? []
        return baseString(
            method: request.method, baseURL: baseURL, parameters: queryPairs + request.formParameters,
            protocolParameters: protocolParameters)
    }

    /// The same from parts already taken apart: the base string URI (§3.4.1.2) and the decoded
    /// query and form parameters. A verifier, which has the request as received, starts here.
    ///
    /// `oauth_signature` is left out wherever it is (§3.4.1.3.1: "excluded … if present"), so a
    /// request whose protocol parameters came in the query or the body (§3.5.2, §3.5.3) passes
    /// them in `parameters` as received and an empty `protocolParameters`. `realm` is left out
    /// of `protocolParameters` only: it is the header's; a query parameter of that name is the
    /// request's own and signed.
    public static func baseString(
        method: String, baseURL: String, parameters: [(name: String, value: String)],
        protocolParameters: [String: String]
    ) -> String {
        var encoded: [(name: String, value: String)] = []
        encoded.reserveCapacity(parameters.count + protocolParameters.count)
        for (name, value) in parameters where name != "oauth_signature" {
            encoded.append((PercentEncoding.encode(name), PercentEncoding.encode(value)))
        }
        for (name, value) in protocolParameters where name != "oauth_signature" && name != "realm" {
            encoded.append((PercentEncoding.encode(name), PercentEncoding.encode(value)))
        }
        encoded.sort { $0.name == $1.name ? $0.value < $1.value : $0.name < $1.name }
        // Encoding is byte by byte, so the normalized parameters' encoding is written pair by
        // pair — `=` as %3D, `&` as %26 — without joining them into a string first.
        var out: [UInt8] = []
        out.reserveCapacity(256)
        out.append(contentsOf: method.uppercased().utf8)
        out.append(UInt8(ascii: "&"))
        PercentEncoding.append(baseURL, to: &out)
        out.append(UInt8(ascii: "&"))
        for (index, pair) in encoded.enumerated() {
            if index > 0 { out.append(contentsOf: "%26".utf8) }
            PercentEncoding.append(pair.name, to: &out)
            out.append(contentsOf: "%3D".utf8)
            PercentEncoding.append(pair.value, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 5849 §3.4.1.2: scheme and host in lower case, the default port left out, no query or
    /// fragment; and the query, still percent-encoded.
    public static func baseURL(_ url: URL) -> (base: String, query: String) {
        if url.baseURL == nil, let plain = plainBaseURL(url.absoluteString) { return plain }
        return componentsBaseURL(url)
    }

    /// ``baseURL(_:)`` by `URLComponents`, for any URL.
    package static func componentsBaseURL(_ url: URL) -> (base: String, query: String) {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return (url.absoluteString, "")
        }
        let query = components.percentEncodedQuery ?? ""
        components.query = nil
        components.fragment = nil
        // The host as the Host header carries it: no user info (RFC 5849 §3.4.1.2).
        components.user = nil
        components.password = nil
        let scheme = components.scheme?.lowercased()
        components.scheme = scheme
        components.host = components.host?.lowercased()
        if (scheme == "http" && components.port == 80) || (scheme == "https" && components.port == 443) {
            components.port = nil
        }
        if components.path.isEmpty { components.path = "/" }
        return (components.string ?? url.absoluteString, query)
    }

    /// ``baseURL(_:)`` of the URLs clients send — `scheme://host[:port][/path][?query][#fragment]`
    /// with a host of letters, digits, dots and hyphens — read off the text: `URLComponents` was
    /// a fifth of signing a request (perf, in-memory signed pairs). nil for anything else (user
    /// info, an IP literal, a port with a leading zero…), which `URLComponents` reads;
    /// `OAuth1SignerTests` hold the two to the same answers.
    package static func plainBaseURL(_ text: String) -> (base: String, query: String)? {
        var text = text
        return text.withUTF8 { bytes -> (base: String, query: String)? in
            func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") }
            func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
            /// A host's bytes here; a scheme's are these and `+`.
            func isHostByte(_ b: UInt8) -> Bool {
                isLetter(b) || isDigit(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
            }
            var index = 0
            guard !bytes.isEmpty, isLetter(bytes[0]) else { return nil }
            while index < bytes.count, isHostByte(bytes[index]) || bytes[index] == UInt8(ascii: "+") { index += 1 }
            let scheme = String(decoding: bytes[..<index], as: UTF8.self).lowercased()
            guard index + 2 < bytes.count, bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"),
                bytes[index + 2] == UInt8(ascii: "/")
            else { return nil }
            index += 3
            let hostStart = index
            while index < bytes.count, isHostByte(bytes[index]) { index += 1 }
            guard index > hostStart else { return nil }
            var base = scheme + "://" + String(decoding: bytes[hostStart..<index], as: UTF8.self).lowercased()
            if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
                let portStart = index + 1
                index = portStart
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
                guard (1...5).contains(index - portStart), bytes[portStart] != UInt8(ascii: "0"),
                    let port = Int(String(decoding: bytes[portStart..<index], as: UTF8.self)), port <= 65_535
                else { return nil }
                if !(scheme == "http" && port == 80) && !(scheme == "https" && port == 443) { base += ":\(port)" }
            }
            let pathStart = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "?"), bytes[index] != UInt8(ascii: "#") {
                index += 1
            }
            guard pathStart == index || bytes[pathStart] == UInt8(ascii: "/") else { return nil }
            base += pathStart == index ? "/" : String(decoding: bytes[pathStart..<index], as: UTF8.self)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "?") else { return (base, "") }
            let queryStart = index + 1
            let queryEnd = bytes[queryStart...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
            return (base, String(decoding: bytes[queryStart..<queryEnd], as: UTF8.self))
        }
    }

    /// A fresh `oauth_nonce`: 128 random bits as 32 hex digits, so a replay check never trips by chance.
    public static func randomNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        let words = (generator.next() as UInt64, generator.next() as UInt64)
        // Written in place: through two arrays (the digits and the text) a nonce cost as much as
        // its base string's encoding (perf: 0.5 % of a field trial).
        return String(unsafeUninitializedCapacity: 32) { out in
            for position in 0..<32 {
                // Each word's digits from its lowest four bits up.
                let word = position < 16 ? words.0 : words.1
                let digit = UInt8(truncatingIfNeeded: word >> UInt64(4 * (position % 16)) & 0xF)
                out[position] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
            }
            return 32
        }
    }

    /// Base64 HMAC-SHA1 of `base` with the key `consumerSecret&tokenSecret` (each encoded).
    ///
    /// HMAC as RFC 2104 §2 defines it, over swift-crypto's SHA-1 fed raw bytes: `HMAC<Insecure.SHA1>`
    /// took its key through `SymmetricKey` and `Data` and its generic paths at every request, which
    /// cost three times the hashing (perf: 2 % of a field trial, signed and verified).
    public static func hmacSHA1(_ base: String, consumerSecret: String, tokenSecret: String) -> String {
        let blockSize = 64
        // The key written, padded and masked in one buffer (a string, an array and two masked
        // copies of it were most of the allocations of signing a request).
        var key: [UInt8] = []
        key.reserveCapacity(blockSize)
        PercentEncoding.append(consumerSecret, to: &key)
        key.append(UInt8(ascii: "&"))
        PercentEncoding.append(tokenSecret, to: &key)
        func hashing(_ bytes: [UInt8]) -> Insecure.SHA1 {
            var hash = Insecure.SHA1()
            bytes.withUnsafeBytes { hash.update(bufferPointer: $0) }
            return hash
        }
        if key.count > blockSize { key = Array(hashing(key).finalize()) }
        key += repeatElement(0, count: blockSize - key.count)
        func keyed(_ mask: UInt8) -> Insecure.SHA1 {
            for index in key.indices { key[index] ^= mask }
            return hashing(key)
        }
        var inner = keyed(0x36)
        // The base string's bytes as they are, not a `Data` copy of them for every request.
        var base = base
        base.withUTF8 { inner.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        var outer = keyed(0x36 ^ 0x5C)  // the inner pad undone and the outer one applied
        inner.finalize().withUnsafeBytes { outer.update(bufferPointer: $0) }
        return outer.finalize().withUnsafeBytes { Data($0).base64EncodedString() }
    }
}
