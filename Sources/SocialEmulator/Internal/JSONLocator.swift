import Foundation

/// Where a value stands in JSON text: `JSONDecoder` says where an error is in the structure
/// (`places[0].id`), not in the file; this walks the text as JSON to the value at that path and
/// gives its line and column (columns count characters, as every other error's do).
enum JSONLocator {
    /// The position of the value at `path` (object keys, array indices) in `data`; nil when the
    /// text does not hold it.
    static func position(of path: [any CodingKey], in data: Data) -> (line: Int, column: Int)? {
        var walker = Walker(bytes: Array(data))
        return walker.find(path[...])
    }

    private struct Walker {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        var column = 1

        init(bytes: [UInt8]) {
            self.bytes = bytes
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        }

        mutating func find(_ path: ArraySlice<any CodingKey>) -> (line: Int, column: Int)? {
            skipSpace()
            guard let key = path.first else { return index < bytes.count ? (line, column) : nil }
            switch current {
            case UInt8(ascii: "{"):
                advance()
                while true {
                    skipSpace()
                    guard current == UInt8(ascii: "\""), let name = string() else { return nil }
                    skipSpace()
                    guard current == UInt8(ascii: ":") else { return nil }
                    advance()
                    if key.intValue == nil, name == key.stringValue { return find(path.dropFirst()) }
                    guard skipValue(), separator() else { return nil }
                }
            case UInt8(ascii: "["):
                advance()
                var element = 0
                while true {
                    if element == key.intValue { return find(path.dropFirst()) }
                    guard skipValue(), separator() else { return nil }
                    element += 1
                }
            default:
                return nil
            }
        }

        private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        private mutating func advance() {
            if bytes[index] == UInt8(ascii: "\n") {
                (line, column) = (line + 1, 1)
            } else if bytes[index] & 0xC0 != 0x80 {
                column += 1  // a character's first byte; its continuation bytes are not counted
            }
            index += 1
        }

        private mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { advance() }
        }

        /// Past a `,` to the next member or element; false at the container's end (or garbage).
        private mutating func separator() -> Bool {
            skipSpace()
            guard current == UInt8(ascii: ",") else { return false }
            advance()
            return true
        }

        /// A string's value, the index past its closing quote.
        private mutating func string() -> String? {
            let start = index
            advance()
            var escaped = false
            while let byte = current {
                advance()
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    return try? JSONDecoder().decode(String.self, from: Data(bytes[start..<index]))
                }
            }
            return nil
        }

        private mutating func skipValue() -> Bool {
            skipSpace()
            guard let byte = current else { return false }
            switch byte {
            case UInt8(ascii: "\""):
                return string() != nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                advance()
                skipSpace()
                if current == close {
                    advance()
                    return true
                }
                while true {
                    if byte == UInt8(ascii: "{") {
                        skipSpace()
                        guard current == UInt8(ascii: "\""), string() != nil else { return false }
                        skipSpace()
                        guard current == UInt8(ascii: ":") else { return false }
                        advance()
                    }
                    guard skipValue() else { return false }
                    skipSpace()
                    if current == close {
                        advance()
                        return true
                    }
                    guard current == UInt8(ascii: ",") else { return false }
                    advance()
                }
            default:
                // A number or a literal: up to the next delimiter.
                while let byte = current, !",]} \t\r\n".utf8.contains(byte) { advance() }
                return true
            }
        }
    }
}
