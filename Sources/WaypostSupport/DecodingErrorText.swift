/// A `DecodingError` in words a user reads — `places[3].bounding_box: expected a list, found a
/// string` — not Swift's debug description of its cases and coding keys.
public enum DecodingErrorText {
    /// Where in the structure, and what (a line and column are the caller's to add).
    public static func explain(_ error: DecodingError) -> String {
        guard let context = context(of: error) else { return "unreadable" }
        let what: String
        switch error {
        case .keyNotFound(let key, _): what = "missing \"\(key.stringValue)\""
        case .typeMismatch(let type, _):
            // "Expected to decode String but found number instead.": the found kind, in words.
            let found = context.debugDescription.firstMatch(of: /found (?:an? )?(\w+)/).map {
                " found " + ("aeiou".contains($0.1.prefix(1)) ? "an " : "a ") + $0.1
            }
            what = "expected \(kind(type))" + (found.map { "," + $0 } ?? "")
        case .valueNotFound(let type, _): what = "expected \(kind(type)), found null"
        default: what = "invalid" + (context.debugDescription.isEmpty ? "" : " (\(context.debugDescription))")
        }
        let path = path(context.codingPath)
        return (path.isEmpty ? "" : "\(path): ") + what
    }

    /// A path into a document as JSON reads it: `places[3].bounding_box`.
    public static func path(_ path: [any CodingKey]) -> String {
        let text = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return text.hasPrefix(".") ? String(text.dropFirst()) : text
    }

    /// Where in the document the error is (nil when Swift does not say).
    public static func codingPath(of error: DecodingError) -> [any CodingKey]? { context(of: error)?.codingPath }

    private static func context(of error: DecodingError) -> DecodingError.Context? {
        switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context),
            .valueNotFound(_, let context):
            context
        @unknown default: nil
        }
    }

    /// A Swift type as JSON calls its values.
    private static func kind(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Double.Type, is Int.Type, is Float.Type, is Int64.Type: "a number"
        case is Bool.Type: "true or false"
        default: "\(type)".hasPrefix("Array") ? "a list" : "\(type)".hasPrefix("Dictionary") ? "an object" : "\(type)"
        }
    }
}
