import Foundation
import Testing
import WaypostSupport

/// Issue 27, item 2: text from files and servers is neutralised where it is shown, in one
/// scheme (``DisplayEscaping``), and ordinary text is left byte for byte.
struct TextEscapingTests {
    @Test("JSON strings read back as the text, escaped only where RFC 8259 requires")
    func jsonStrings() throws {
        let texts = [
            "", "plain", #"say "hi" \ there"#, "a/b", "\u{0}\u{1}\u{1F}\t\n\r end", "Café 東京 👩‍💻 \u{202E}",
            #"\""#, "\u{7F}\u{9B}", String(repeating: "ab\"", count: 100),
        ]
        for text in texts {
            let quoted = JSONEscaping.quoted(text)
            let read = try JSONSerialization.jsonObject(with: Data(quoted.utf8), options: .fragmentsAllowed)
            #expect(read as? String == text, "\(quoted)")
        }
        #expect(JSONEscaping.quoted("a\"b\\c\n\u{1}/é") == #""a\"b\\c\n\u0001/é""#)
    }

    @Test("Control, C1 and bidi characters are written visibly, in one scheme")
    func displayScheme() {
        #expect(DisplayEscaping.escape("\u{1B}]0;owned\u{07}") == #"\e]0;owned\x07"#)
        #expect(DisplayEscaping.escape("a\nb\tc\rd") == #"a\nb\tc\rd"#)
        #expect(DisplayEscaping.escape("\u{0}\u{1F}\u{7F}") == #"\x00\x1F\x7F"#)
        #expect(DisplayEscaping.escape("\u{80}\u{9B}2J\u{9F}") == #"\u{80}\u{9B}2J\u{9F}"#)
        #expect(
            DisplayEscaping.escape("\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}")
                == #"\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}"#)
        #expect(DisplayEscaping.escape("a\nb\tc\rd\u{1B}", keepingLineBreaks: true) == "a\nb\tc\rd\\e")
        #expect(DisplayEscaping.escape("x\u{1B}[31my") == #"x\e[31my"#)
    }

    /// Golden outputs stay golden: nothing ordinary changes, not even its neighbours in UTF-8
    /// (U+00A0–U+00FF share C1's lead byte C2/C3, U+2020–U+206F share the bidi controls' E2 80/81).
    @Test("Ordinary text is byte-identical and found clean by the fast scan")
    func ordinaryTextUnchanged() {
        for text in [
            "", "Sunnyvale Coffee Roasters", "Infinite Loop Café", "Straße", "☕️ 🚲 👩🏽‍💻", "東京駅", "مقهى",
            #"C:\Users\me & "you" <b> ={place} -1 @x"#, "\u{A0}\u{A9}\u{BF}\u{FF}", "–—‘’“”†…‰‹›\u{2028}\u{206F}",
            "\u{2065}\u{206A}\u{2029}\u{202F}",
        ] {
            #expect(!DisplayEscaping.needsEscaping(text), "\(text)")
            #expect(Array(DisplayEscaping.escape(text).utf8) == Array(text.utf8), "\(text)")
        }
    }

    @Test("The fast scan finds each hazard wherever it is, bridged strings included")
    func scanFindsEveryHazard() {
        for hazard in [
            "\u{0}", "\u{7}", "\n", "\u{1B}", "\u{7F}", "\u{80}", "\u{9F}", "\u{202A}", "\u{202E}", "\u{2066}",
            "\u{2069}",
        ] {
            // Every offset within and across the eight-byte words the scan reads at once.
            let long = (0..<20).map { String(repeating: "x", count: $0) + hazard + "abcdefghijklmnop" }
            for text in [hazard, "abc" + hazard, hazard + "é", "日本" + hazard + "語"] + long {
                #expect(DisplayEscaping.needsEscaping(text), "\(Array(text.unicodeScalars))")
                #expect(!DisplayEscaping.escape(text).unicodeScalars.contains { $0 == hazard.unicodeScalars.first })
            }
        }
        #expect(!DisplayEscaping.needsEscaping("a\tb\nc\r\n", keepingLineBreaks: true))
    }

    @Test("Spreadsheet formulas are made inert; numbers and the table's dash stay as they are")
    func csvCells() {
        #expect(
            CSVEscaping.cell(#"=HYPERLINK("http://evil.example","x")"#)
                == #""'=HYPERLINK(""http://evil.example"",""x"")""#)
        #expect(CSVEscaping.cell("=1+1") == "'=1+1")
        #expect(CSVEscaping.cell("+1+cmd") == "'+1+cmd")
        #expect(CSVEscaping.cell("-2+3") == "'-2+3")
        #expect(CSVEscaping.cell("@SUM(A1)") == "'@SUM(A1)")
        #expect(CSVEscaping.cell("\t=1") == #"\t=1"#)
        #expect(CSVEscaping.cell("\r\n=1") == #"\r\n=1"#)
        for number in ["-122.03", "+1", "-1.5e3", "-.5", "-7", "37.331817", "0"] {
            #expect(CSVEscaping.cell(number) == number)
        }
        for plain in ["-", "+", "posted", "all passed", "Infinite Loop Café", "2025-06-02T16:00:00Z", "a=b"] {
            #expect(CSVEscaping.cell(plain) == plain)
        }
        #expect(CSVEscaping.cell("a,b") == "\"a,b\"")
        #expect(CSVEscaping.cell("\"\u{301}") == "\"\"\"\u{301}\"")
        #expect(CSVEscaping.cell("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(CSVEscaping.cell("two\nlines, one record") == #""two\nlines, one record""#)
        #expect(CSVEscaping.cell("\u{1B}[31mred\u{9B}") == #"\e[31mred\u{9B}"#)
    }

    @Test("XML carries no control character it cannot, and shows where one was")
    func xmlControlCharacters() {
        #expect(XMLEscaping.escape("a\u{1B}]0;x\u{07}b") == #"a\e]0;x\x07b"#)
        #expect(XMLEscaping.escape("a\nb", attribute: true) == "a&#10;b")
        #expect(XMLEscaping.escape("a & <b>") == "a &amp; &lt;b&gt;")
        // A raw carriage return is read as a line feed (XML 1.0 §2.11), in text and attributes;
        // tab and line feed in an attribute as spaces (§3.3.3).
        #expect(XMLEscaping.escape("a\r\nb\tc") == "a&#13;\nb\tc")
        #expect(XMLEscaping.escape("a\r\nb\tc", attribute: true) == "a&#13;&#10;b&#9;c")
    }
}
