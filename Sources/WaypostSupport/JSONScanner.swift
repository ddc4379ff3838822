/// The tokens of JSON text (RFC 8259) read from its bytes: strings, numbers and the literals
/// `true`, `false` and `null`. Waypost's two fast JSON readers scan with it — the clients'
/// answers (SocialAPI's `AnswerJSON`) and configuration files (ConfigFiles' `JSONReader`); what
/// they build, their nesting and their whitespace (one counts lines and columns) stay theirs.
///
/// ```swift
/// var scanner = JSONScanner(bytes: bytes)  // at `"caf\u00e9"`
/// scanner.string()  // "café"; `scanner.index` is past the closing quote
/// ```
@usableFromInline package struct JSONScanner {
    @usableFromInline package let bytes: UnsafeRawBufferPointer
    /// Where the next token starts; past a token once it is read.
    @usableFromInline package var index = 0

    @inlinable package init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    @inlinable package var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Moves past `byte` when it is next.
    @inlinable package mutating func take(_ byte: UInt8) -> Bool {
        guard current == byte else { return false }
        index += 1
        return true
    }

    /// Moves past spaces, tabs and line breaks, for a reader that does not count lines.
    @inlinable package mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    /// Moves past `word` when it is next.
    @inlinable package mutating func literal(_ word: StaticString) -> Bool {
        let length = word.utf8CodeUnitCount
        guard bytes.count - index >= length,
            word.withUTF8Buffer({ $0.elementsEqual(bytes[index..<index + length]) })
        else { return false }
        index += length
        return true
    }

    /// Moves past a number as JSON spells one — `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]?
    /// [0-9]+)?` — false when what is next is not one (the text is then not JSON).
    @inlinable package mutating func number() -> Bool {
        _ = take(UInt8(ascii: "-"))
        guard let first = current, Self.isDigit(first) else { return false }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if take(UInt8(ascii: ".")) {
            guard digits() else { return false }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() else { return false }
        }
        return true
    }

    @inlinable static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    @inlinable mutating func skipDigits() {
        while let byte = current, Self.isDigit(byte) { index += 1 }
    }

    /// One digit or more.
    @inlinable mutating func digits() -> Bool {
        let start = index
        skipDigits()
        return index > start
    }

    /// The string that starts at the opening quote `index` is at, its escapes read; nil when it
    /// is not closed, holds a control character, an escape JSON does not define or a lone
    /// surrogate, or is not UTF-8.
    @inlinable package mutating func string() -> String? {
        index += 1
        let start = index
        var ascii = true
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { return nil }
            ascii = ascii && byte < 0x80
            index += 1
        }
        guard let stop = current else { return nil }
        if stop == UInt8(ascii: "\"") {
            index += 1
            // ASCII needs no validation: most strings, keys included.
            let text = bytes[start..<index - 1]
            return ascii ? String(decoding: text, as: UTF8.self) : Self.validated(text)
        }
        return escapedString(from: start)
    }

    @usableFromInline static func validated(_ text: Slice<UnsafeRawBufferPointer>) -> String? {
        UTF8Validation.string(text)
    }

    /// The rest of a string from its first backslash; its text so far starts at `start`.
    @usableFromInline mutating func escapedString(from start: Int) -> String? {
        var unescaped = Array(bytes[start..<index])
        while let byte = current {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return UTF8Validation.string(unescaped)
            case UInt8(ascii: "\\"):
                guard unescape(into: &unescaped) else { return nil }
            case 0..<0x20:
                return nil
            default:
                unescaped.append(byte)
            }
        }
        return nil
    }

    /// The escape after a backslash, appended as UTF-8.
    mutating func unescape(into out: inout [UInt8]) -> Bool {
        guard let byte = current else { return false }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(byte)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            guard let unit = hex4() else { return false }
            var scalar = UInt32(unit)
            if (0xD800..<0xDC00).contains(unit) {
                // A high surrogate must be followed by an escaped low one.
                guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(),
                    (0xDC00..<0xE000).contains(low)
                else { return false }
                scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            } else if (0xDC00..<0xE000).contains(unit) {
                return false
            }
            guard let character = Unicode.Scalar(scalar) else { return false }
            out.append(contentsOf: String(character).utf8)
        default:
            return false
        }
        return true
    }

    mutating func hex4() -> UInt16? {
        guard bytes.count - index >= 4 else { return nil }
        var unit: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = Self.hexDigit(byte) else { return nil }
            unit = unit << 4 | UInt16(digit)
            index += 1
        }
        return unit
    }

    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
