import WaypostSupport

/// RFC 3986 percent-encoding as OAuth 1.0a (RFC 5849 §3.6) requires: every byte of the UTF-8
/// form except the unreserved characters `A–Z a–z 0–9 - . _ ~` becomes `%XX`, upper-case hex.
/// Unlike `addingPercentEncoding`, nothing else is spared — not `+`, `/`, `:` or `=`.
public enum PercentEncoding {
    /// `text` with every byte but the unreserved ones as `%XX`.
    public static func encode(_ text: String) -> String {
        // Most names and values (keys, tokens, numbers) need no escaping: hand them back as they
        // are. Checked over the contiguous bytes: through `String.UTF8View`'s iterator, the check
        // alone was 2 % of a signed request's instructions (callgrind).
        var bytes = text
        guard !bytes.withUTF8({ $0.allSatisfy(isUnreserved) }) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3)
        append(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `name=value&…`, each name and value encoded: a query string, or an
    /// `application/x-www-form-urlencoded` body as OAuth signs it (RFC 5849 §3.5.3). Written into
    /// one buffer: a string for each pair and one joining them were most of a request's
    /// allocations before it was signed.
    package static func form(_ pairs: [(String, String)]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        for (index, (name, value)) in pairs.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            append(name, to: &out)
            out.append(UInt8(ascii: "="))
            append(value, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends ``encode(_:)`` of `text` to `out`: each run of unreserved bytes copied whole, not
    /// appended byte by byte (a signature base string is mostly such runs; perf: 1 % of a field
    /// trial).
    static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for index in bytes.indices where !isUnreserved(bytes[index]) {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                out.append(UInt8(ascii: "%"))
                out.append(hexDigit(bytes[index] >> 4))
                out.append(hexDigit(bytes[index] & 0x0F))
                start = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// Upper-case hex, as RFC 3986 §2.1 recommends and OAuth requires.
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }

    /// Decodes `%XX` escapes (and `+` as a space when `plusIsSpace`, as form bodies do); nil
    /// when an escape is malformed or the result is not UTF-8.
    public static func decode(_ text: String, plusIsSpace: Bool = false) -> String? {
        guard text.utf8.contains(where: { isEscaped($0, plusIsSpace: plusIsSpace) }) else { return text }
        var text = text
        return text.withUTF8 { decode($0[...], plusIsSpace: plusIsSpace) }
    }

    /// Whether `byte` stands for another: an escape's `%`, or a form's `+` for a space.
    private static func isEscaped(_ byte: UInt8, plusIsSpace: Bool) -> Bool {
        byte == UInt8(ascii: "%") || (plusIsSpace && byte == UInt8(ascii: "+"))
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// `a=1&b=x%20y` (or a form body with `+`) as decoded name/value pairs, in order; a name
    /// without `=` has an empty value. Split at the bytes `&` and `=`, as a URL's query is (not
    /// at characters: one a combining mark follows is still a separator); every request the
    /// emulator answers comes through here.
    public static func pairs(_ query: String, plusIsSpace: Bool = false) -> [(name: String, value: String)]? {
        guard !query.isEmpty else { return [] }
        var query = query
        return query.withUTF8 { bytes -> [(name: String, value: String)]? in
            var out: [(name: String, value: String)] = []
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
                defer { start = end + 1 }
                guard end > start else { continue }
                let part = bytes[start..<end]
                let equals = part.firstIndex(of: UInt8(ascii: "=")) ?? end
                guard let name = decode(part[..<equals], plusIsSpace: plusIsSpace),
                    let value = decode(bytes[Swift.min(equals + 1, end)..<end], plusIsSpace: plusIsSpace)
                else { return nil }
                out.append((name, value))
            }
            return out
        }
    }

    /// ``decode(_:plusIsSpace:)`` of a piece of a valid UTF-8 string, cut at ASCII bytes (a
    /// query's `&` and `=`, an `Authorization` header's `,` `=` and quotes).
    package static func decode(_ text: Slice<UnsafeBufferPointer<UInt8>>, plusIsSpace: Bool = false) -> String? {
        guard text.contains(where: { isEscaped($0, plusIsSpace: plusIsSpace) }) else {
            return String(decoding: text, as: UTF8.self)
        }
        // Decoded in scratch space on the stack (never longer than the text), then checked and
        // copied into the string once: through an array it was two allocations a value.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: text.count) { out -> String? in
            var count = 0
            var index = text.startIndex
            while index < text.endIndex {
                let byte = text[index]
                index += 1
                switch byte {
                case UInt8(ascii: "%"):
                    guard index + 1 < text.endIndex, let high = hexValue(text[index]),
                        let low = hexValue(text[index + 1])
                    else { return nil }
                    index += 2
                    out[count] = high << 4 | low
                case UInt8(ascii: "+") where plusIsSpace:
                    out[count] = UInt8(ascii: " ")
                default:
                    out[count] = byte
                }
                count += 1
            }
            return UTF8Validation.string(UnsafeBufferPointer(rebasing: out[..<count]))
        }
    }
}
