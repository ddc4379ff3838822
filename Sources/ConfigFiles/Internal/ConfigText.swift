import Foundation
import WaypostSupport
internal import Yams

/// The text of a configuration file, checked before any YAML is composed.
package enum ConfigText {
    /// The file as UTF-8 text (a leading BOM dropped). A missing or unreadable file is
    /// `unreadable`; bytes that are not UTF-8 are `invalid` at the line and column of the first.
    static func read(
        _ url: URL, name: String, largest: Int = largestFile(physicalMemory: ProcessInfo.processInfo.physicalMemory)
    ) throws(ConfigFileError) -> String {
        try decode(bytes(url, name: name, largest: largest), name: name)
    }

    /// The file's bytes: a regular file, or a pipe, FIFO or standard input read as a stream
    /// (`<(…)`, `/dev/stdin`), no larger than a configuration file may be. A missing or
    /// unreadable file, or a directory, is `unreadable`.
    package static func bytes(
        _ url: URL, name: String, largest: Int = largestFile(physicalMemory: ProcessInfo.processInfo.physicalMemory)
    ) throws(ConfigFileError) -> Data {
        // `URL(fileURLWithPath: "")` is the working directory: an empty argument names no file.
        guard !name.isEmpty else {
            throw ConfigFileError(.unreadable, file: "''", message: "an empty path names no file")
        }
        // One look at the file (through a link): what it is, and how large.
        var status = stat()
        let kind = stat(url.path, &status) == 0 ? status.st_mode & S_IFMT : nil
        if kind == S_IFDIR { throw ConfigFileError(.unreadable, file: name, message: "is a directory, not a file") }
        if kind == S_IFREG, Int(status.st_size) > largest {
            let size = Int(status.st_size)
            throw ConfigFileError(
                file: name,
                message:
                    "\(size / 1_000_000) MB is more than this machine reads as one configuration file "
                    + "(\(largest / 1_000_000) MB: a file is composed whole, about 20 times its size in memory)")
        }
        let data: Data
        do {
            // A pipe, FIFO or standard input has no size to check first: it is read as a stream.
            data =
                try kind == nil || kind == S_IFREG ? Data(contentsOf: url) : stream(url, name: name, largest: largest)
        } catch let error as ConfigFileError {
            throw error
        } catch {
            let exists = FileManager.default.fileExists(atPath: url.path)
            throw ConfigFileError(.unreadable, file: name, message: exists ? "cannot be read" : "no such file")
        }
        return data
    }

    /// A pipe, FIFO or standard input (`--regions -`, `<(…)`), read to its end: no size to check
    /// first, so the limit is kept as it is read.
    private static func stream(_ url: URL, name: String, largest: Int) throws -> Data {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var data = Data()
        while let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
            data.append(chunk)
            guard data.count <= largest else {
                throw ConfigFileError(
                    file: name,
                    message:
                        "more than this machine reads as one configuration file (\(largest / 1_000_000) MB: a file is composed whole, about 20 times its size in memory)"
                )
            }
        }
        return data
    }

    /// The largest configuration file read: composed whole, YAML takes about 20 times the file's
    /// size in memory (100,000 regions, 8.3 MB: 202 MB peak), and that must fit in half of the
    /// machine's memory — a 10-million-region file is one clear error, not an out-of-memory kill.
    static func largestFile(physicalMemory: UInt64) -> Int {
        Int(min(physicalMemory / 40, UInt64(Int.max)))
    }

    package static func decode(_ data: Data, name: String) throws(ConfigFileError) -> String {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if let text = UTF8Validation.string(bytes) { return text }
        // Not UTF-8: decoded again, counting lines and columns, to locate the first bad byte.
        guard let bad = UTF8Validation.firstInvalidByte(in: bytes) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        throw ConfigFileError(
            file: name, line: bad.line, column: bad.column,
            message: "not UTF-8 text (byte 0x\(UTF8Validation.hex(bad.byte))); save the file as UTF-8")
    }

    /// A YAML syntax error as one error at its position: libyaml's problem, and its context.
    static func syntaxError(_ error: any Error, file: String, text: String) -> ConfigFileError {
        guard let yaml = error as? YamlError else {
            return ConfigFileError(file: file, message: "not YAML or JSON: \(error)")
        }
        func at(_ mark: Mark, _ problem: String, _ context: YamlError.Context?) -> ConfigFileError {
            // libyaml's own words name its C API, with a stray parenthesis.
            if problem.hasPrefix("Maximum nesting level reached") {
                return ConfigFileError(
                    file: file, line: mark.line, column: mark.column,
                    message: "nested more than 1,000 levels deep, where the YAML reader stops")
            }
            return ConfigFileError(
                file: file, line: mark.line, column: mark.column,
                message: "not YAML or JSON: \(problem)" + (context.map { " (\($0.text))" } ?? ""))
        }
        switch yaml {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            return at(mark, problem, context)
        case .duplicatedKeysInMapping(let duplicates, let context):
            // At the second time the key is given, as the JSON reader says: Yams marks the mapping.
            let (line, column) =
                duplicates.first.flatMap { secondKey($0, from: context.mark, in: text) }
                ?? (context.mark.line, context.mark.column)
            return ConfigFileError(
                file: file, line: line, column: column,
                message: "the key '\(duplicates.joined(separator: "', '"))' is given twice")
        case .reader(let problem, let offset, _, let text):
            let (line, column) = offset.map { position(of: $0, in: text) } ?? (0, 0)
            return ConfigFileError(file: file, line: line, column: column, message: "not YAML or JSON: \(problem)")
        default:
            return ConfigFileError(file: file, message: "not YAML or JSON: \(yaml)")
        }
    }

    /// Where `key` is given the second time in the block mapping Yams marks at `mark`: a line at
    /// or after it whose text at the mark's column is the key (plain or quoted) and a colon, with
    /// only spaces before it on later lines; the scan ends where the mapping does (text left of
    /// its column). Nil when not found so (a flow mapping): the mark stands.
    private static func secondKey(_ key: String, from mark: Mark, in text: String) -> (Int, Int)? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard mark.line >= 1, mark.column >= 1, mark.line <= lines.count else { return nil }
        var seen = 0
        for number in mark.line...lines.count {
            let line = Array(lines[number - 1])
            let indent = mark.column - 1
            let head = line.prefix(indent)
            if number > mark.line {
                let content = line.drop { $0 == " " }
                if content.isEmpty || content.first == "#" || content.first == "\r" { continue }
                if line.count - content.count < indent { return nil }
                guard head.allSatisfy({ $0 == " " }) else { continue }
            }
            guard line.count > indent else { continue }
            let rest = String(line[indent...])
            let written = ["\(key)", "\"\(key)\"", "'\(key)'"].first { rest.hasPrefix($0) }
            guard let written, rest.dropFirst(written.count).drop(while: { $0 == " " }).first == ":" else { continue }
            seen += 1
            if seen == 2 { return (number, mark.column) }
        }
        return nil
    }

    /// Line and column (1-based, in characters) of the UTF-8 byte `offset` of `text`.
    private static func position(of offset: Int, in text: String) -> (Int, Int) {
        var line = 1
        var column = 1
        for (index, character) in text.utf8.enumerated() {
            if index >= offset { break }
            if character == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if character & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }

    /// Where the first YAML anchor or alias is, outside quoted strings and comments. Yams
    /// resolves aliases while composing, so they are refused before: an alias bomb never expands.
    static func firstAnchorOrAlias(in text: String) -> (Int, Int)? {
        // Bytes, not Characters: Swift reads CR LF as one Character, so a scan by Character saw
        // no line end in a CRLF file, and after its first comment nothing else (an alias bomb
        // in a Windows-edited file went through). Every byte the scan looks for is ASCII.
        let (newline, tab, space, carriageReturn) = (UInt8(0x0A), UInt8(0x09), UInt8(0x20), UInt8(0x0D))
        // `-` and `?` are indicators only before a space (which then precedes the `*`): `walker-*`
        // and `x-&y` are plain text (a hunt: refused as aliases). `:` stays, for `{"a":*b}`.
        let nodeStarts: [UInt8] = Array(" \t\n\r[{,:".utf8)
        var line = 1
        var column = 0
        var quote: UInt8?
        var comment = false
        var previous = newline
        for byte in text.utf8 {
            // Columns count characters as shown: a UTF-8 continuation byte does not start one.
            if byte & 0xC0 != 0x80 { column += 1 }
            defer { previous = byte }
            if byte == newline {
                line += 1
                column = 0
                comment = false
                continue
            }
            if comment { continue }
            if let q = quote {
                if byte == q && previous != UInt8(ascii: "\\") { quote = nil }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = byte
            case UInt8(ascii: "#") where [space, newline, tab, carriageReturn].contains(previous): comment = true
            case UInt8(ascii: "&") where nodeStarts.contains(previous),
                UInt8(ascii: "*") where nodeStarts.contains(previous):
                // Only where a node starts: `a & b` inside a plain value is refused too; quote it.
                return (line, column)
            default: break
            }
        }
        return nil
    }
}
