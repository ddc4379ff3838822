/// JSON string escaping for every JSON the project writes by hand: the event stream, GeoJSON
/// exports, the emulator's answers. RFC 8259: quote, backslash and control characters escaped;
/// everything else, non-ASCII included, as UTF-8.
public enum JSONEscaping {
    /// `text` as a JSON string, quotes included.
    public static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        append(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text` as a JSON string, quotes included, as UTF-8: the runs between characters
    /// that need escaping are copied whole.
    public static func append(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated()
            where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                switch byte {
                case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                default:
                    bytes.append(contentsOf: [
                        UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                        hex[Int(byte >> 4)],
                        hex[Int(byte & 0xF)],
                    ])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hex = Array("0123456789abcdef".utf8)
}

/// XML 1.0 escaping for every XML the project writes: GPX and KML here, JUnit reports and SVG
/// maps elsewhere.
public enum XMLEscaping {
    /// `text` escaped for XML 1.0 text and attributes. The control characters XML 1.0 cannot
    /// carry (C0 but tab and line breaks) are written as ``DisplayEscaping`` writes them (`\e`,
    /// `\x07`): the document stays valid, and a name that held one shows that it did rather than
    /// losing a character unseen. U+FFFE and U+FFFF, which no text holds, are dropped. A carriage
    /// return is a character reference everywhere (a parser reads a raw one as a line feed, XML
    /// 1.0 §2.11); with `attribute`, tab and line feed too, which survive attribute-value
    /// normalisation as references (a parser would read them as spaces otherwise, §3.3.3).
    public static func escape(_ text: String, attribute: Bool = false) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\r": out += "&#13;"
            case "\t", "\n":
                if attribute { out += "&#\(scalar.value);" } else { out.unicodeScalars.append(scalar) }
            case let c where c.value < 0x20: out += DisplayEscaping.escape(String(c))
            case let c where c.value == 0xFFFE || c.value == 0xFFFF: continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// Text that came from a file or a server, made harmless where it is shown: a terminal, a text
/// report, a spreadsheet cell, an SVG map.
///
/// A terminal obeys the escape sequences in whatever it prints: a place name holding
/// `ESC ] 0; … BEL` retitles the window, colour sequences restyle or hide what follows, and the
/// C1 controls (U+0080–U+009F; U+009B is a one-character CSI) do the same on terminals that
/// read them. Bidirectional embeddings, overrides and isolates make a line read differently from
/// its bytes (Trojan Source, CVE-2021-42574). Each of these characters is written visibly
/// instead, in one scheme everywhere:
///
/// | character                                           | written          |
/// |-----------------------------------------------------|------------------|
/// | ESC (U+001B)                                        | `\e`             |
/// | tab, line feed, carriage return                     | `\t`, `\n`, `\r` |
/// | any other C0 control (U+0000–U+001F), DEL (U+007F)  | `\x07`, `\x7F`   |
/// | C1 controls (U+0080–U+009F)                         | `\u{9B}`         |
/// | U+202A–U+202E, U+2066–U+2069 (bidi controls)        | `\u{202E}`       |
///
/// Hex digits are upper case. A line break inside a field is escaped too, so a value can never
/// start a line of its own; a writer whose format carries line breaks inside a field and is not
/// read line by line (JUnit XML's failure text) keeps tab and line breaks with
/// `keepingLineBreaks`.
///
/// Everything else — ASCII, a backslash, accented letters, emoji, CJK — is written unchanged,
/// byte for byte: ordinary text looks as it always did. The scheme is for reading, not for
/// reading back (a backslash is not doubled); the JSON outputs are the exact form.
public enum DisplayEscaping {
    /// `text` with every control and bidi character written visibly; `text` itself, without
    /// copying, when it holds none (the common case).
    public static func escape(_ text: String, keepingLineBreaks: Bool = false) -> String {
        guard needsEscaping(text, keepingLineBreaks: keepingLineBreaks) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 16)
        appendEscaped(text, keepingLineBreaks: keepingLineBreaks, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether ``escape(_:keepingLineBreaks:)`` would change `text`. A scan of the UTF-8 bytes,
    /// without decoding or allocating: a byte below 0x20, 0x7F, `C2 80`–`C2 9F` (C1),
    /// `E2 80 AA`–`E2 80 AE` or `E2 81 A6`–`E2 81 A9` (the bidi controls).
    public static func needsEscaping(_ text: String, keepingLineBreaks: Bool = false) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { scan($0, keepingLineBreaks: keepingLineBreaks) }
            ?? Array(text.utf8).withUnsafeBufferPointer { scan($0, keepingLineBreaks: keepingLineBreaks) }
    }

    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>, keepingLineBreaks: Bool) -> Bool {
        let count = bytes.count
        var index = 0
        // Eight bytes at a time while they are printable ASCII (no high bit, none below 0x20,
        // none 0x7F): names are mostly that, and a byte at a time they cost twice as much.
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let high: UInt64 = 0x8080_8080_8080_8080
                // With no high bit set, a byte below 0x20 (or a zero byte of `word ^ 0x7F…`,
                // a DEL) is the one that borrows into its own high bit.
                let belowSpace = (word &- 0x2020_2020_2020_2020) & ~word
                let notDelete = word ^ 0x7F7F_7F7F_7F7F_7F7F
                let delete = (notDelete &- 0x0101_0101_0101_0101) & ~notDelete
                if (word | belowSpace | delete) & high != 0 { break }
                index += 8
            }
        }
        while index < count {
            let byte = bytes[index]
            if byte < 0x20 {
                if !(keepingLineBreaks && (byte == 0x09 || byte == 0x0A || byte == 0x0D)) { return true }
            } else if byte == 0x7F {
                return true
            } else if byte == 0xC2 {
                if index + 1 < count, (0x80...0x9F).contains(bytes[index + 1]) { return true }
            } else if byte == 0xE2, index + 2 < count {
                let second = bytes[index + 1]
                let third = bytes[index + 2]
                if second == 0x80 && (0xAA...0xAE).contains(third) { return true }
                if second == 0x81 && (0xA6...0xA9).contains(third) { return true }
            }
            index += 1
        }
        return false
    }

    private static func appendEscaped(_ text: String, keepingLineBreaks: Bool, to out: inout [UInt8]) {
        for scalar in text.unicodeScalars {
            let value = scalar.value
            switch value {
            case 0x1B:
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "e")])
            case 0x09, 0x0A, 0x0D:
                if keepingLineBreaks {
                    out.append(UInt8(value))
                } else {
                    let letter =
                        value == 0x09 ? UInt8(ascii: "t") : value == 0x0A ? UInt8(ascii: "n") : UInt8(ascii: "r")
                    out.append(contentsOf: [UInt8(ascii: "\\"), letter])
                }
            case 0..<0x20, 0x7F:
                out.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(value >> 4)], hex[Int(value & 0xF)],
                ])
            case 0x80...0x9F, 0x202A...0x202E, 0x2066...0x2069:
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "{")])
                out.append(contentsOf: String(value, radix: 16, uppercase: true).utf8)
                out.append(UInt8(ascii: "}"))
            default:
                UTF8.encode(scalar) { out.append($0) }
            }
        }
    }

    private static let hex = Array("0123456789ABCDEF".utf8)
}

/// CSV cells (RFC 4180) that a spreadsheet shows as text, never runs.
///
/// A spreadsheet reads a cell starting with `=`, `+`, `-` or `@` (and, in some, tab or carriage
/// return) as a formula: `=HYPERLINK(…)` in a place name becomes a link, worse ones run
/// commands (OWASP, "CSV Injection"). Such a cell is prefixed with a single quote `'`, which
/// spreadsheets take as "text follows" — unless it is a number as a spreadsheet reads it
/// (`-122.03`, `+1`, `-1.5e3`), which stays a number, or a lone sign (the `-` a table writes for
/// "none"), which computes nothing.
///
/// Control and bidi characters are escaped first, as ``DisplayEscaping`` does everywhere, line
/// breaks included: a CSV is read on terminals and by line-based tools too, and a name must not
/// start a line of its own there. Every record is therefore one line.
public enum CSVEscaping {
    /// `text` as one CSV cell: neutralised, then quoted when it holds a comma or a quote.
    public static func cell(_ text: String) -> String {
        var cell = DisplayEscaping.escape(text)
        if isFormula(cell) { cell = "'" + cell }
        guard cell.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") }) else { return cell }
        // By scalar, not Character: a quote followed by a combining mark is still a quote to a
        // CSV reader.
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in cell.unicodeScalars {
            quoted.append(scalar)
            if scalar == "\"" { quoted.append(scalar) }
        }
        quoted.append("\"")
        return String(quoted)
    }

    /// Whether a spreadsheet would compute `cell`.
    static func isFormula(_ cell: String) -> Bool {
        let bytes = Array(cell.utf8)
        guard let first = bytes.first, bytes.count > 1 else { return false }
        switch first {
        case UInt8(ascii: "="), UInt8(ascii: "@"), 0x09, 0x0D: return true
        case UInt8(ascii: "+"), UInt8(ascii: "-"): return !isNumber(bytes.dropFirst())
        default: return false
        }
    }

    /// Digits with at most one decimal point, at least one digit, and an optional exponent: what
    /// a spreadsheet reads as a number after its sign.
    private static func isNumber(_ bytes: ArraySlice<UInt8>) -> Bool {
        var digits = 0
        var point = false
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if (0x30...0x39).contains(byte) {
                digits += 1
            } else if byte == UInt8(ascii: "."), !point {
                point = true
            } else {
                break
            }
            index += 1
        }
        guard digits > 0 else { return false }
        guard index < bytes.endIndex else { return true }
        guard bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") else { return false }
        index += 1
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.endIndex else { return false }
        return bytes[index...].allSatisfy { (0x30...0x39).contains($0) }
    }
}
