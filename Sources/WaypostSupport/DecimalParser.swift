#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Parses decimal numbers (`-122.207881`, `1E-02`, `+3.5`) from bytes, strictly.
///
/// Only the decimal grammar is accepted: no `nan`, `inf`, hex or leading/trailing junk, so a
/// bad number is an error rather than a silent NaN. Values with at most 19 significant digits
/// and a small exponent take Clinger's exact fast path (one multiply or divide of exactly
/// representable values); anything else goes to `strtod`, which rounds correctly. Track files'
/// coordinates are read with it, and the clients' answers' numbers (JSON's grammar checked first).
package enum DecimalParser {
    @inlinable package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        let count = bytes.count
        guard count > 0, count < 64 else { return nil }
        var i = 0
        var negative = false
        if bytes[0] == UInt8(ascii: "-") || bytes[0] == UInt8(ascii: "+") {
            negative = bytes[0] == UInt8(ascii: "-")
            i = 1
        }
        var mantissa: UInt64 = 0
        var significant = 0
        var exponent = 0
        var sawDigit = false
        while i < count, bytes[i] &- 48 < 10 {
            sawDigit = true
            if significant < 19 {
                mantissa = mantissa &* 10 &+ UInt64(bytes[i] &- 48)
                if mantissa > 0 { significant += 1 }
            } else {
                exponent += 1
            }
            i += 1
        }
        if i < count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < count, bytes[i] &- 48 < 10 {
                sawDigit = true
                if significant < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(bytes[i] &- 48)
                    if mantissa > 0 { significant += 1 }
                    exponent -= 1
                }
                i += 1
            }
        }
        guard sawDigit else { return nil }
        var exactDigits = significant < 19
        if i < count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var exponentNegative = false
            if i < count, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            var e = 0
            var any = false
            while i < count, bytes[i] &- 48 < 10 {
                any = true
                if e < 100_000 { e = e * 10 + Int(bytes[i] &- 48) }
                i += 1
            }
            guard any else { return nil }
            exponent += exponentNegative ? -e : e
        }
        guard i == count else { return nil }
        if mantissa == 0 { return negative ? -0.0 : 0.0 }
        exactDigits = exactDigits && mantissa <= (1 << 53)
        if exactDigits && exponent >= -22 && exponent <= 22 {
            let m = Double(mantissa)
            let value = exponent < 0 ? m / ExactPowers.ofTen(-exponent) : m * ExactPowers.ofTen(exponent)
            return negative ? -value : value
        }
        // Rare: more digits or a larger exponent than the fast path handles exactly.
        var buffer = [CChar](repeating: 0, count: count + 1)
        for k in 0..<count { buffer[k] = CChar(bitPattern: bytes[k]) }
        let value = strtod(buffer, nil)
        return value.isFinite ? value : nil
    }
}
