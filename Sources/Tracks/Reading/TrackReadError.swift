/// Why a route file could not be read: one clear message with where and why.
///
/// `description` reads `FILE:LINE:COLUMN: what was wrong (why)`, the form compilers use, so
/// editors and CI logs can jump to the spot.
public struct TrackReadError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The file does not exist or cannot be opened.
        case missing
        /// The bytes are not well-formed XML, or not UTF-8/declared encoding, or truncated.
        case malformed
        /// Refused for safety: DOCTYPE/entities, nesting too deep, too many attributes, huge text.
        case refused
        /// Well-formed, but not a valid route: bad numbers, coordinates out of range, bad times.
        case invalid
        /// Neither KML, KMZ nor GPX.
        case unsupported
    }

    public var kind: Kind
    /// The file as the user named it.
    public var file: String
    /// 1-based line, 0 when unknown.
    public var line: Int
    /// 1-based column, 0 when unknown.
    public var column: Int
    public var message: String

    public init(_ kind: Kind, file: String, line: Int = 0, column: Int = 0, _ message: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String {
        line > 0 ? "\(file):\(line):\(column): \(message)" : "\(file): \(message)"
    }
}
