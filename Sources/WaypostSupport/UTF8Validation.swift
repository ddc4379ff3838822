/// Bytes as a `String` when they are UTF-8, nil when they are not — never repaired.
///
/// The standard library's `String(validating:as:)` does this, but Apple's platforms have it from
/// macOS 15 and iOS 18 on, and Waypost supports macOS 14 and iOS 17 (Package.swift): before
/// those, ``checkedScalarByScalar(_:)`` gives the same answer with `Unicode.UTF8`'s parser (the
/// same rules: no overlong form, no surrogate, nothing past U+10FFFF). Linux has the standard
/// library's everywhere.
///
/// ```swift
/// UTF8Validation.string([0x63, 0x61, 0x66, 0xC3, 0xA9])  // "café"
/// UTF8Validation.string([0xC0, 0xAF])                    // nil: an overlong "/"
/// ```
package enum UTF8Validation {
    package static func string(_ bytes: some Collection<UInt8>) -> String? {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return String(validating: bytes, as: UTF8.self)
        }
        return checkedScalarByScalar(bytes)
    }

    /// Where the first byte that is not UTF-8 stands (line and column counted in characters, as
    /// errors give them), and the byte; nil when all of `bytes` is UTF-8.
    package static func firstInvalidByte(in bytes: some Collection<UInt8>) -> (line: Int, column: Int, byte: UInt8)? {
        var (line, column, consumed) = (1, 1, 0)
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                consumed += UTF8.width(scalar)
                (line, column) = scalar == "\n" ? (line + 1, 1) : (line, column + 1)
            case .emptyInput:
                return nil
            case .error:
                return (line, column, bytes[bytes.index(bytes.startIndex, offsetBy: consumed)])
            }
        }
    }

    /// `byte` as two upper-case hex digits (`E9`, `0A`).
    package static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count < 2 ? "0" + digits : digits
    }

    /// What ``string(_:)`` answers where the standard library's check is missing; run everywhere
    /// by `UTF8ValidationTests`, which holds it to the standard library's.
    package static func checkedScalarByScalar(_ bytes: some Collection<UInt8>) -> String? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return String(decoding: bytes, as: UTF8.self)
            case .error: return nil
            }
        }
    }
}
