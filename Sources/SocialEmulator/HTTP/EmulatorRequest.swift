import Foundation
import SimulatedTime
import SocialAPI

/// A request as the emulator sees it on the wire.
public struct EmulatorRequest: Sendable {
    public var method: String
    /// The path, without the query.
    public var path: String
    /// The raw (percent-encoded) query.
    public var query: String
    /// Header names in lower case.
    public var headers: [String: String]
    public var body: Data

    public init(method: String, path: String, query: String = "", headers: [String: String] = [:], body: Data = Data())
    {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The method the routes answer: HEAD is answered as GET is, and the HTTP layer sends the head
    /// alone (RFC 9110 §9.3.2). The signature is still checked against the method sent.
    var routedMethod: String { method == "HEAD" ? "GET" : method }

    /// Whether the body is a form (`application/x-www-form-urlencoded`), whose parameters count
    /// as request parameters and are signed (RFC 5849 §3.4.1.3.1).
    var hasFormBody: Bool {
        headers["content-type"]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
    }

    /// A JSON object body's fields as dotted names (`text`, `geo.place_id`), for the journal:
    /// X API v2 takes JSON, and what a request carried must show there as a form's parameters
    /// do. Empty for other bodies.
    var jsonFields: [(name: String, value: String)] {
        guard headers["content-type"]?.lowercased().hasPrefix("application/json") == true, !body.isEmpty
        else { return [] }
        return JSONFields.dotted(body)
    }

    /// `scheme://host` the client addressed, for the absolute URLs the providers put in answers
    /// (place `url`, Graph `paging.next`).
    var origin: String { "http://" + (headers["host"] ?? "127.0.0.1") }
}

/// The emulator's answer, with what the HTTP layer must add: a delay, or a broken connection.
public struct EmulatorResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data
    /// How long to wait before answering (drawn at random under a latency fault).
    public var delay = Seconds.zero
    public var transport: TransportFault = .none

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON answer from bytes already encoded.
    static func json(_ status: Int, encoded body: Data) -> EmulatorResponse {
        EmulatorResponse(status: status, headers: ["content-type": "application/json; charset=utf-8"], body: body)
    }

    static func json<T: Encodable>(_ status: Int, _ value: T) -> EmulatorResponse {
        json(status, encoded: JSONBody.encode(value))
    }
}

/// JSON as the emulator writes it: keys sorted (stable bytes for tests and journals), slashes
/// unescaped as both providers sent them.
enum JSONBody {
    static func encode<T: Encodable>(_ value: T) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }
}
