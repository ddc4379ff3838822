/// ASCII text read bytewise, for the fast paths the clients and the emulator take with the ASCII
/// text nearly everything they exchange is (field names, parameters, tweets): there Foundation's
/// and the standard library's Unicode-aware operations cost more than the work around them. Each
/// caller keeps its Unicode path for anything else.
package enum ASCIIText {
    /// Whether every byte of `text` is ASCII.
    @inlinable
    package static func isASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 }
    }

    /// `text`'s UTF-8 with A–Z lowered: what `lowercased()` does to ASCII text. Over the bytes
    /// in hand: mapping a `String.UTF8View` through a generic `Sequence` went unspecialized
    /// (0.7 % of a field trial, perf, for the few field names of its posts).
    package static func lowercased(_ text: Substring) -> [UInt8] {
        var text = text
        return text.withUTF8 { bytes in
            [UInt8](unsafeUninitializedCapacity: bytes.count) { lowered, count in
                for index in bytes.indices {
                    let byte = bytes[index]
                    lowered[index] = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
                }
                count = bytes.count
            }
        }
    }

    /// Whether `text` holds `part`, byte for byte: for ASCII text what Foundation's `contains`
    /// answers, without its round trip through `NSString`.
    package static func contains(_ text: String, _ part: String) -> Bool {
        var (text, part) = (text, part)
        return text.withUTF8 { text in part.withUTF8 { part in contains(text, part) } }
    }

    /// ``contains(_:_:)`` of bytes already in hand.
    @inlinable
    package static func contains(_ text: UnsafeBufferPointer<UInt8>, _ part: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = part.first else { return true }
        guard text.count >= part.count else { return false }
        return (0...text.count - part.count).contains { start in
            text[start] == first && text[start..<start + part.count].elementsEqual(part)
        }
    }
}
