import Foundation

/// A decimal written from its units: `units` with the point `places` digits from the right.
///
/// ```swift
/// var out: [UInt8] = []
/// FixedPoint.append(1234, places: 3, negative: true, to: &out)      // -1.234
/// FixedPoint.append(5, places: 2, negative: false, to: &out)        // 0.05
/// FixedPoint.append(156, places: 0, negative: false, pointZero: true, to: &out)  // 156.0
/// ```
public enum FixedPoint {
    /// Appends the decimal, signed when `negative`, with `.0` after a whole number when
    /// `pointZero`; `places` is at most 24.
    @inlinable
    public static func append(
        _ units: UInt64, places: Int, negative: Bool, pointZero: Bool = false, to out: inout [UInt8]
    ) {
        out.appendLine(capacity: 48) { line in
            write(units, places: places, negative: negative, to: &line)
            if pointZero { line.put(".0") }
        }
    }

    /// Writes the decimal, signed when `negative`; `places` is at most 24. Its length is
    /// counted first (by multiplying, not dividing), so the digits go straight to their places,
    /// last first, two a step: each step's division waits on the one before, so halving the
    /// steps halves the wait.
    @inlinable
    package static func write(_ units: UInt64, places: Int, negative: Bool, to line: inout ByteCursor) {
        precondition((0...24).contains(places), "FixedPoint places out of range")
        var digits = 1
        var power: UInt64 = 10
        while digits < 20 && units >= power {  // 10^19 is the last power of ten a UInt64 holds
            digits += 1
            power &*= 10
        }
        digits = Swift.max(digits, places + 1)
        let sign = negative ? 1 : 0
        guard let room = line.reserve(sign + digits + (places > 0 ? 1 : 0)) else { return }
        if negative { room[0] = UInt8(ascii: "-") }
        // "00", "01", … "99": a literal, so reading it touches no global's storage.
        let pairs: StaticString =
            "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
        var index = room.count
        var rest = units
        func digit() {
            index -= 1
            room[index] = UInt8(truncatingIfNeeded: 48 + rest % 10)
            rest /= 10
        }
        func pair() {
            let twice = Int(truncatingIfNeeded: rest % 100) &* 2
            rest /= 100
            index -= 2
            room[index] = pairs.utf8Start[twice]
            room[index + 1] = pairs.utf8Start[twice + 1]
        }
        if places > 0 {
            for _ in 0..<places / 2 { pair() }
            if places % 2 == 1 { digit() }
            index -= 1
            room[index] = UInt8(ascii: ".")
        }
        while index - sign >= 2 { pair() }
        if index > sign { digit() }
    }

    /// Writes `value` as C's `%.<digits>f` does, without Foundation's `String(format:)` (five of
    /// those a fix were four fifths of a text replay's time). The scaled value is rounded in
    /// binary; where it lies within its own rounding error of a half — where binary and the
    /// exact decimal could round apart — printf itself decides.
    package static func writePrintf(_ value: Double, digits: Int, to line: inout ByteCursor) {
        let scaled = abs(value) * ExactPowers.ofTen(digits)
        // Below 2^53 the conversion truncates exactly, and the fraction is exact. The product is
        // within half an ulp of the exact one, and 2^-51 of it is at least two ulps. Signed, not
        // unsigned: x86 converts an Int64 to and from a Double in one instruction, a UInt64 in
        // several (a third of this function's time).
        guard value.isFinite, digits <= 9, scaled < 9e15, case let whole = Int64(scaled),
            case let fraction = scaled - Double(whole), abs(fraction - 0.5) > scaled * 0x1p-51
        else { return line.put(String(format: "%.\(digits)f", value)) }
        let units = UInt64(fraction > 0.5 ? whole + 1 : whole)
        write(units, places: digits, negative: value.sign == .minus, to: &line)
    }

    /// `value` rounded half away from zero to at most `digits` decimals (at most 9), trailing
    /// zeros and a bare point dropped: `82.5`, `99.95`, `30`.
    package static func trimmed(_ value: Double, digits: Int) -> String {
        let scale = ExactPowers.ofTen(digits)
        let rounded = (value * scale).rounded() / scale
        guard rounded != rounded.rounded() else { return String(Int(rounded)) }
        var text = printf(rounded, digits: digits)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    /// `value` as `String(format: "%.<digits>f", value)` gives it; see ``writePrintf(_:digits:to:)``.
    package static func printf(_ value: Double, digits: Int) -> String {
        var out: [UInt8] = []
        out.appendLine(capacity: 32) { writePrintf(value, digits: digits, to: &$0) }
        return String(decoding: out, as: UTF8.self)
    }
}
