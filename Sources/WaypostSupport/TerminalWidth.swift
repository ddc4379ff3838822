/// How many columns a terminal gives text: two for East Asian wide and fullwidth characters and
/// emoji shown as emoji, none for combining marks and zero-width characters, one otherwise — as
/// `wcwidth(3)` counts them (Markus Kuhn's reference implementation, Unicode 15's East Asian
/// Width). A table padded by characters ran its columns out of line at a CJK place name.
public enum TerminalWidth {
    /// The columns `text` takes on a terminal.
    public static func of(_ text: String) -> Int {
        // ASCII, the common case, is a column a byte.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        return text.unicodeScalars.reduce(0) { $0 + width($1) }
    }

    /// `text` followed by spaces up to `columns` columns (unchanged when it is as wide already).
    public static func padded(_ text: String, to columns: Int) -> String {
        let width = of(text)
        return width >= columns ? text : text + String(repeating: " ", count: columns - width)
    }

    static func width(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value == 0x200B || (0x200C...0x200F).contains(value) || (0x2060...0x2064).contains(value)
            || value == 0xFEFF
        {
            return 0
        }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if (0x1160...0x11FF).contains(value) { return 0 }  // Hangul medial vowels and final consonants
        if scalar.properties.isEmojiPresentation { return 2 }
        return wide.contains { $0.contains(value) } ? 2 : 1
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges.
    private static let wide: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
        0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
        0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1B000...0x1B2FF, 0x1F200...0x1F2FF,
        0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]
}
