import Testing
import WaypostSupport

/// Columns as a terminal shows them (wcwidth(3), Unicode's East Asian Width): the audit table
/// padded a CJK place name by its characters and every later column of its row moved right.
struct TerminalWidthTests {
    @Test func wideCharactersTakeTwoColumnsAndMarksNone() {
        #expect(TerminalWidth.of("Blue Bottle") == 11)
        #expect(TerminalWidth.of("咖啡館") == 6)
        #expect(TerminalWidth.of("ｶﾌｪ") == 3, "halfwidth katakana is narrow")
        #expect(TerminalWidth.of("ＣＡＦＥ") == 8, "fullwidth Latin is wide")
        #expect(TerminalWidth.of("카페") == 4)
        #expect(TerminalWidth.of("Cafe\u{301}") == 4, "a combining accent takes no column")
        #expect(TerminalWidth.of("☕ 1") == 4)
        #expect(TerminalWidth.of("a\u{200B}b") == 2)
        #expect(TerminalWidth.padded("咖啡", to: 6) == "咖啡  ")
        #expect(TerminalWidth.padded("too wide", to: 3) == "too wide")
    }
}
