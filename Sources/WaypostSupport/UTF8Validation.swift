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
