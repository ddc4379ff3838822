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
    /// last first.
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
        var index = room.count
        var rest = units
        func digit() {
            index -= 1
            room[index] = UInt8(truncatingIfNeeded: 48 + rest % 10)
            rest /= 10
        }
        if places > 0 {
            for _ in 0..<places { digit() }
            index -= 1
            room[index] = UInt8(ascii: ".")
        }
        while index > sign { digit() }
    }
}
