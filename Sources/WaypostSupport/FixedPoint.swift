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
