import Foundation
import WaypostSupport

/// A request as it was handed to the transport, with its secrets left out: what an audit may
/// keep of what went out.
///
/// The fields are read back from the request itself — its query, its form body
/// (`application/x-www-form-urlencoded`) and its JSON object body (as dotted names, `geo.place_id`)
/// — so they are what the server receives, not what the caller meant. Headers are not kept
/// (`Authorization` carries the OAuth signature or a bearer token), nor is any field that names
/// a credential (`access_token`, `oauth_…`, anything with `token` or `secret` in its name).
public struct SentRequest: Sendable, Equatable {
    public var method: String
    /// The URL's path, without the query.
    public var path: String
    /// Query, form and JSON fields, decoded; the first of a repeated name wins (as the
    /// emulator's journal keeps them).
    public var fields: [String: String]

    /// The names of the fields that say where the user is, in the posts Waypost sends: Twitter
    /// v1.1 `statuses/update` (`lat`, `long`, `place_id`, and `display_coordinates`, which says
    /// whether the coordinates are shown), X API v2 `POST /2/tweets` (`geo.…`), Graph
    /// `me/checkins` and `me/feed` (`place`, `coordinates`).
    public static let locationFieldNames: Set<String> = [
        "lat", "long", "place_id", "display_coordinates", "place", "coordinates",
    ]

    /// The fields of this request that say where the user is (``locationFieldNames``, and every
    /// `geo.` field of a v2 JSON body); empty when it carried none.
    public var locationFields: [String: String] {
        fields.filter { Self.locationFieldNames.contains($0.key) || $0.key.hasPrefix("geo.") }
    }

    public init(method: String, path: String, fields: [String: String]) {
        self.method = method
        self.path = path
        self.fields = fields
    }

    /// Reads `request` as it goes out, leaving its secrets out.
    public init(_ request: HTTPRequestSpec) {
        var pairs: [(String, String)] = []
        // Read off the URL as it was parsed when made, not parsed again by `URLComponents`.
        let url = request.url.absoluteURL
        if let query = url.query(percentEncoded: true) { pairs += Self.form(query, plusIsSpace: false) }
        if let body = request.body, !body.isEmpty {
            let type = request.headers.first { $0.key.lowercased() == "content-type" }?.value.lowercased() ?? ""
            if type.hasPrefix("application/x-www-form-urlencoded") {
                pairs += Self.form(String(decoding: body, as: UTF8.self), plusIsSpace: true)
            } else if type.hasPrefix("application/json") {
                pairs += JSONFields.dotted(body).map { ($0.name, $0.value) }
            }
        }
        var fields: [String: String] = [:]
        for (name, value) in pairs where fields[name] == nil && !Self.isSecret(name) { fields[name] = value }
        self.init(method: request.method, path: url.path(percentEncoded: false), fields: fields)
    }

    /// Whether a field names a credential, which no record of the request may keep.
    static func isSecret(_ name: String) -> Bool {
        // Every field of every request passes here: ASCII names (all the clients send) are
        // lowercased and searched bytewise, anything else as Unicode text. By hand: Foundation's
        // `String.contains` and the standard library's `Collection.contains(_:)` each cost more
        // than the rest of reading the request (perf, a field trial).
        guard ASCIIText.isASCII(name) else {
            let name = name.lowercased()
            return name.hasPrefix("oauth_") || name.contains("token") || name.contains("secret")
                || name.contains("password")
        }
        let lowered = ASCIIText.lowercased(Substring(name))
        func contains(_ word: StaticString) -> Bool {
            lowered.withUnsafeBufferPointer { lowered in word.withUTF8Buffer { ASCIIText.contains(lowered, $0) } }
        }
        return lowered.starts(with: "oauth_".utf8) || contains("token") || contains("secret") || contains("password")
    }

    /// `a=1&b=2`, percent-decoded, split at the bytes `&` and `=` as the emulator splits them; an
    /// undecodable pair is left out (the clients never send one).
    private static func form(_ text: String, plusIsSpace: Bool) -> [(String, String)] {
        if let pairs = PercentEncoding.pairs(text, plusIsSpace: plusIsSpace) {
            return pairs.map { ($0.name, $0.value) }
        }
        return text.utf8.split(separator: UInt8(ascii: "&")).compactMap { pair in
            PercentEncoding.pairs(String(decoding: pair, as: UTF8.self), plusIsSpace: plusIsSpace)?.first.map {
                ($0.name, $0.value)
            }
        }
    }
}

/// A transport that sends through another and keeps a ``SentRequest`` of every request it was
/// handed — before sending, so a request whose answer never came is recorded too.
///
/// Put it at the seam where an audit needs to know what went out: a client given a
/// `RecordingTransport` builds and signs its requests as always, and ``sent`` hands them back.
/// Copies share one record (the clients are values and copy their transport).
///
/// ```swift
/// let recorder = RecordingTransport(wrapping: twitter.transport)
/// var sending = twitter
/// sending.transport = recorder
/// _ = try await sending.updateStatus("Coffee", placeID: "df51dec6f4ee2b2c")
/// recorder.sent.last?.locationFields  // ["place_id": "df51dec6f4ee2b2c"]
/// ```
public struct RecordingTransport: HTTPTransport {
    public let base: any HTTPTransport
    private let record = Record()

    public init(wrapping base: any HTTPTransport) {
        self.base = base
    }

    /// The requests handed to this transport so far, oldest first, secrets left out.
    public var sent: [SentRequest] { record.requests }

    public func send(_ request: HTTPRequestSpec) async throws(SocialAPIError) -> HTTPResponseSpec {
        record.append(SentRequest(request))
        return try await base.send(request)
    }

    /// The requests, shared by the copies of one transport; a lock keeps concurrent sends apart.
    private final class Record: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [SentRequest] = []

        var requests: [SentRequest] {
            lock.lock()
            defer { lock.unlock() }
            return list
        }

        func append(_ request: SentRequest) {
            lock.lock()
            defer { lock.unlock() }
            list.append(request)
        }
    }
}

/// A JSON object body's leaves as dotted names (`text`, `geo.place_id`): strings as they are,
/// other values as their JSON. What an X API v2 request carried, shown as a form's parameters
/// are — in the emulator's journal and in the audit's wire fields alike.
public enum JSONFields {
    public static func dotted(_ body: Data) -> [(name: String, value: String)] {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return [] }
        var out: [(name: String, value: String)] = []
        func walk(_ value: Any, _ name: String, depth: Int) {
            switch value {
            case let object as [String: Any] where depth < 4:
                for key in object.keys.sorted() { walk(object[key] as Any, name + "." + key, depth: depth + 1) }
            case let text as String: out.append((name, text))
            case let number as NSNumber: out.append((name, number.stringValue))
            default:
                if let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]) {
                    out.append((name, String(decoding: data, as: UTF8.self)))
                }
            }
        }
        for key in object.keys.sorted() { walk(object[key] as Any, key, depth: 1) }
        return out
    }
}
