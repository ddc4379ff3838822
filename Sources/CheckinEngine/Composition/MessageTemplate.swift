import Foundation
import SimulatedTime
import WaypostSupport

/// Fills a rule's message: `{place}`, `{region}`, `{time}` (HH:mm UTC of the event) and `{network}`.
///
/// One pass over the template: a value is never searched again, so a place named `{time}` stays
/// as it is named. Runs of spaces (a blank `{place}` leaves them) become one.
public enum MessageTemplate {
    public static func render(_ template: String, place: String?, region: String?, time: EpochInstant, network: Network)
        -> String
    {
        let seconds = Int(time.secondsSince1970.rounded(.down))
        let minuteOfDay = ((seconds % 86_400) + 86_400) % 86_400 / 60
        func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var text = ""
        text.reserveCapacity(template.utf8.count + 32)
        func append(_ piece: Substring) {
            // A space is dropped only right after another: where no two space bytes meet (the
            // text's end and the piece included), every character goes in as it is, with no
            // look at each one (grapheme by grapheme, that look was most of filling a message).
            var previous = text.utf8.last
            let meets = piece.utf8.contains { byte in
                defer { previous = byte }
                return byte == UInt8(ascii: " ") && previous == UInt8(ascii: " ")
            }
            guard meets else { return text.append(contentsOf: piece) }
            for character in piece where !(character == " " && text.last == " ") { text.append(character) }
        }
        // An ASCII template's braces are found by byte: no ASCII character but CR LF spans two
        // bytes, so a byte's index is its character's. Any other is read grapheme by grapheme,
        // where a brace with a combining mark is not a brace (finding braces grapheme by grapheme
        // was most of filling a message, perf: 2 % of a field trial).
        let ascii = ASCIIText.isASCII(template)
        func find(_ brace: Character, in text: Substring) -> Substring.Index? {
            guard ascii, let byte = brace.asciiValue else { return text.firstIndex(of: brace) }
            return text.utf8.firstIndex(of: byte)
        }
        func after(_ brace: Substring.Index, in text: Substring) -> Substring.Index {
            ascii ? text.utf8.index(after: brace) : text.index(after: brace)
        }
        var rest = template[...]
        while let open = find("{", in: rest), let close = find("}", in: rest[open...]) {
            append(rest[..<open])
            let value: String? =
                switch rest[after(open, in: rest)..<close] {
                case "place": place ?? ""
                case "region": region ?? ""
                case "time": "\(twoDigits(minuteOfDay / 60)):\(twoDigits(minuteOfDay % 60))"
                case "network": network.rawValue
                default: nil
                }
            if let value {
                append(value[...])
                rest = rest[after(close, in: rest)...]
            } else {
                // Not a name: the brace is text, and a name may start after it (`{{place}`).
                append("{")
                rest = rest[after(open, in: rest)...]
            }
        }
        append(rest)
        return trimmingBlanks(text)
    }

    /// The names ``render(_:place:region:time:network:)`` fills.
    public static let placeholders = ["place", "region", "time", "network"]

    /// What is wrong with `template`'s placeholders, nil when nothing is: a brace around a word
    /// that is not one of ``placeholders`` (`{plcae}`), or a placeholder's brace never closed
    /// (`at {place`). Either would be posted as written. Other braces are text (`{:)}`, `{ }`).
    public static func problem(in template: String) -> String? {
        let scalars = Array(template.unicodeScalars)
        func isWordStart(_ s: Unicode.Scalar) -> Bool { s.isASCII && (s.properties.isAlphabetic || s == "_") }
        func isWord(_ s: Unicode.Scalar) -> Bool { isWordStart(s) || (s.isASCII && s.properties.numericType != nil) }
        let expected = placeholders.map { "{\($0)}" }.joined(separator: ", ")
        var index = 0
        while index < scalars.count {
            defer { index += 1 }
            guard scalars[index] == "{", index + 1 < scalars.count, isWordStart(scalars[index + 1]) else { continue }
            var end = index + 1
            while end < scalars.count, isWord(scalars[end]) { end += 1 }
            let word = String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
            if end < scalars.count, scalars[end] == "}" {
                if !placeholders.contains(word) { return "unknown placeholder '{\(word)}' (expected \(expected))" }
            } else if placeholders.contains(word) {
                return "'{\(word)' is not closed: '{\(word)}'"
            }
        }
        return nil
    }

    /// `text.trimmingCharacters(in: .whitespaces)` — Unicode's space separators (Zs) and tab —
    /// without Foundation's round trip through `NSString`, which cost more than the rest of
    /// filling a message.
    static func trimmingBlanks(_ text: String) -> String {
        // The only ASCII space separator is the space: an ASCII scalar needs no property lookup.
        func isBlank(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII ? scalar == " " || scalar == "\t" : scalar.properties.generalCategory == .spaceSeparator
        }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isBlank($0) }),
            let last = scalars.lastIndex(where: { !isBlank($0) })
        else { return "" }
        if first == scalars.startIndex && scalars.index(after: last) == scalars.endIndex { return text }
        return String(scalars[first...last])
    }
}
