import Foundation
import SocialAPI
import WaypostSupport

/// A request's query and form-body parameters, decoded as `application/x-www-form-urlencoded`
/// (HTML 4.01 §17.13.4: `+` is a space, `%XX` a byte, names and values UTF-8), which is how
/// both providers read them and how RFC 5849 §3.4.1.3.1 has them enter the signature.
///
/// Hummingbird's `URLEncodedFormDecoder` decodes into `Decodable` types; it does not fit here
/// because the providers' rules are not Swift's: Twitter's booleans are true only as `true`,
/// `t` or `1` (and false otherwise, never an error), repeated names are kept for the signature,
/// and numbers are validated with the provider's own error codes.
struct RequestParameters: Sendable {
    /// In order: the query's pairs, then the form body's.
    var pairs: [(name: String, value: String)]
    /// The query's pairs alone.
    var query: [(name: String, value: String)]
    /// The form body's pairs alone (they, not a JSON or binary body, are signed).
    var form: [(name: String, value: String)]

    /// Decodes the query and, for a form body, the body; nil when either holds a malformed
    /// escape or bytes that are not UTF-8.
    init?(_ request: EmulatorRequest) {
        guard let query = PercentEncoding.pairs(request.query, plusIsSpace: true) else { return nil }
        var form: [(name: String, value: String)] = []
        if request.hasFormBody, !request.body.isEmpty {
            guard let text = UTF8Validation.string(request.body),
                let decoded = PercentEncoding.pairs(text, plusIsSpace: true)
            else { return nil }
            form = decoded
        }
        self.pairs = query + form
        self.query = query
        self.form = form
    }

    /// Whether `name` is an OAuth protocol parameter: RFC 5849 §3.5 reserves the `oauth_` prefix
    /// for them, wherever they are sent.
    static func isProtocolParameter(_ name: String) -> Bool {
        name.hasPrefix("oauth_")
    }

    /// The request's own parameters: without the OAuth protocol parameters a client may send in
    /// the query or the body (RFC 5849 §3.5.2, §3.5.3), which are signed but are no endpoint's
    /// fields — a status update must not read `oauth_token` as one of its own.
    var withoutProtocolParameters: RequestParameters {
        var own = self
        own.pairs.removeAll { Self.isProtocolParameter($0.name) }
        own.query.removeAll { Self.isProtocolParameter($0.name) }
        own.form.removeAll { Self.isProtocolParameter($0.name) }
        return own
    }

    /// A raw (percent-encoded) query without its protocol parameters, the rest as the client
    /// spelled it: for the request URL the geo endpoints echo, which must not carry a client's
    /// `oauth_signature` back when it signed into the query (RFC 5849 §3.5.2).
    static func queryWithoutProtocolParameters(_ query: String) -> String {
        // A name can only decode to `oauth_…` if the query spells it or escapes something: the
        // clients that sign in the header send neither, and the query goes back as it came.
        guard ASCIIText.contains(query, "oauth_") || query.utf8.contains(UInt8(ascii: "%")) else { return query }
        return query.split(separator: "&", omittingEmptySubsequences: false).filter { part in
            let name = part.prefix { $0 != "=" }
            return !isProtocolParameter(PercentEncoding.decode(String(name), plusIsSpace: true) ?? String(name))
        }.joined(separator: "&")
    }

    /// The first value given for `name`.
    subscript(_ name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Twitter's boolean parameters: true only when spelled `true`, `t` or `1` (any case), false
    /// for every other value, nil when absent. Twitter's parameter reference for `trim_user`,
    /// `include_entities`, `display_coordinates`…: "When set to either true, t or 1". So
    /// `display_coordinates=False` (Python's spelling of false) hides the coordinates.
    func twitterBool(_ name: String) -> Bool? {
        self[name].map { ["true", "t", "1"].contains($0.lowercased()) }
    }

    /// An integer parameter: nil when absent, `.invalid` when present but not a whole number
    /// within `range`.
    func integer(_ name: String, in range: ClosedRange<Int>) -> Parsed<Int> {
        guard let text = self[name] else { return .absent }
        guard let value = Int(Self.trimmed(text)), range.contains(value) else {
            return .invalid(text)
        }
        return .value(value)
    }

    /// A decimal parameter within `range` (finite numbers only).
    func decimal(_ name: String, in range: ClosedRange<Double>) -> Parsed<Double> {
        guard let text = self[name] else { return .absent }
        guard let value = Double(Self.trimmed(text)), value.isFinite, range.contains(value)
        else { return .invalid(text) }
        return .value(value)
    }

    /// `text` without the whitespace around it (`CharacterSet.whitespaces`: space, tab and the
    /// other Zs characters). A number sent as clients send it has none, and is handed back
    /// without Foundation's scan of it (a tenth of a geo request, perf).
    static func trimmed(_ text: String) -> String {
        func plain(_ byte: UInt8?) -> Bool {
            byte.map { $0 < 0x80 && $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") } ?? false
        }
        guard plain(text.utf8.first), plain(text.utf8.last) else { return text.trimmingCharacters(in: .whitespaces) }
        return text
    }

    enum Parsed<Value> {
        case absent
        case value(Value)
        case invalid(String)

        var value: Value? {
            if case .value(let value) = self { return value }
            return nil
        }

        var isInvalid: Bool {
            if case .invalid = self { return true }
            return false
        }
    }
}
