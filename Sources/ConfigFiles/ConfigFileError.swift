/// Why a configuration file (regions, beacons, rules, privacy profile, credentials, scenario)
/// could not be read: the file, the line and column when there is one, what was wrong and why —
/// printed as one line, `FILE:LINE:COLUMN: message`.
public struct ConfigFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The file is missing or cannot be opened (sysexits 66).
        case unreadable
        /// The file was read and is wrong: not UTF-8, not YAML/JSON, or wrong values (65).
        case invalid
    }

    public var kind: Kind
    public var file: String
    /// 1-based; 0 when the error has no position (an empty file, a duplicate across entries).
    public var line: Int
    public var column: Int
    /// One line: what was wrong and why.
    public var message: String

    public init(_ kind: Kind = .invalid, file: String, line: Int = 0, column: Int = 0, message: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.column = column
        // One error, one line: a message from below (a YAML parser's) never spans several.
        self.message = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }

    public var description: String { line > 0 ? "\(file):\(line):\(column): \(message)" : "\(file): \(message)" }

    /// The message of a file with nothing in it: the one error a reader that withholds the
    /// file's text (credentials) can still give as it is.
    package static let emptyFile = "the file is empty"
}
