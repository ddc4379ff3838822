/// A Double's shortest decimal text — what Swift's `description` prints, the shortest text that
/// reads back as the same Double — appended as UTF-8 without making a `String`: the track
/// writers write two or three a point, the event stream two a fix.
///
/// ```swift
/// var out: [UInt8] = []
/// ShortestDecimal.append(37.331812, to: &out)                       // 37.331812
/// ShortestDecimal.append(156, to: &out)                             // 156.0
/// ShortestDecimal.append(156, wholeNumbersBare: true, to: &out)     // 156
/// ```
public enum ShortestDecimal {
    /// Appends `value.description`'s text; with `wholeNumbersBare`, whole numbers below 10¹⁵
    /// without `.0` and without the sign of a negative zero (`156`, `0`: the form of togeojson's
    /// and gpsbabel's output). Inlinable: the writers' inner loops call it for every number.
    @inlinable
    public static func append(_ value: Double, wholeNumbersBare: Bool = false, to out: inout [UInt8]) {
        let magnitude = abs(value)
        if value == value.rounded(), magnitude < 1e15 {
            let negative = wholeNumbersBare ? value < 0 : value.sign == .minus
            FixedPoint.append(UInt64(magnitude), places: 0, negative: negative, pointZero: !wholeNumbersBare, to: &out)
            return
        }
        // A value that is a decimal of at most nine places (every coordinate a GPS writes) is
        // written from those digits: with under fifteen significant digits that decimal is the
        // only one so short that reads back as this Double, so it is what `description` prints
        // (which shows 0.0001 and up without an exponent), at a fraction of the cost.
        if magnitude >= 1e-4, magnitude < 1e6 {
            let units = (magnitude * 1e9).rounded()
            if units / 1e9 == magnitude {
                var digits = UInt64(units)
                var places = 9
                while digits % 10 == 0 {
                    digits /= 10
                    places -= 1
                }
                FixedPoint.append(digits, places: places, negative: value < 0, to: &out)
                return
            }
        }
        out.append(contentsOf: value.description.utf8)
    }
}

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
    /// `pointZero`; `places` is at most 24. Written back to front on the stack and appended at
    /// once: the writers and the event stream write several a point, and an append per part was
    /// a third of the cost.
    @inlinable
    public static func append(
        _ units: UInt64, places: Int, negative: Bool, pointZero: Bool = false, to out: inout [UInt8]
    ) {
        precondition((0...24).contains(places), "FixedPoint places out of range")
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buffer in
            var start = buffer.count
            func put(_ byte: UInt8) {
                start -= 1
                buffer[start] = byte
            }
            var rest = units
            if pointZero {
                put(UInt8(ascii: "0"))
                put(UInt8(ascii: "."))
            }
            if places > 0 {
                for _ in 0..<places {
                    put(UInt8(truncatingIfNeeded: 48 + rest % 10))
                    rest /= 10
                }
                put(UInt8(ascii: "."))
            }
            repeat {
                put(UInt8(truncatingIfNeeded: 48 + rest % 10))
                rest /= 10
            } while rest > 0
            if negative { put(UInt8(ascii: "-")) }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
        }
    }
}
