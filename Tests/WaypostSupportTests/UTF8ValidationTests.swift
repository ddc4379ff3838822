import Testing
import WaypostSupport

/// `UTF8Validation` answers as the standard library's `String(validating:as:)`: its own check,
/// which Apple's platforms before macOS 15 and iOS 18 use, is held to it here on every platform
/// (Linux never takes that branch in the product). The cases: the Unicode Standard's table of
/// well-formed byte sequences (§3.9, Table 3-7) at its edges, and seeded random bytes.
struct UTF8ValidationTests {
    static let wellFormed: [[UInt8]] = [
        [], [0x00], [0x7F], [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF],
        [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
        Array("café ☕️ 😀".utf8),
    ]

    static let illFormed: [[UInt8]] = [
        [0x80], [0xBF], [0xC0, 0xAF], [0xC1, 0xBF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],
        [0xF0, 0x80, 0x80, 0xAF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFE], [0xFF], [0xC3],
        [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0x61, 0xC3, 0x28], [0xC3, 0xA9, 0xA9],
    ]

    @Test func theStandardsEdgesBothWays() {
        for bytes in Self.wellFormed {
            #expect(UTF8Validation.checkedScalarByScalar(bytes) == String(decoding: bytes, as: UTF8.self), "\(bytes)")
            #expect(UTF8Validation.string(bytes) == String(decoding: bytes, as: UTF8.self), "\(bytes)")
        }
        for bytes in Self.illFormed {
            #expect(UTF8Validation.checkedScalarByScalar(bytes) == nil, "\(bytes)")
            #expect(UTF8Validation.string(bytes) == nil, "\(bytes)")
        }
    }

    /// Where the standard library's check is missing there is nothing to compare with: the
    /// attribute makes swift-testing record the test as skipped there, not passed.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test func sameAsTheStandardLibraryOnRandomBytes() {
        var random = SplitMix64(seed: 8)
        // Lead and continuation bytes often enough that a good share of the sequences is valid.
        let alphabet: [UInt8] = [
            0x41, 0x7F, 0x80, 0x8F, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF,
        ]
        var valid = 0
        for _ in 0..<50_000 {
            let bytes = (0..<Int.random(in: 0...8, using: &random)).map { _ in
                alphabet.randomElement(using: &random) ?? 0
            }
            let expected = String(validating: bytes, as: UTF8.self)
            #expect(UTF8Validation.checkedScalarByScalar(bytes) == expected, "\(bytes)")
            #expect(UTF8Validation.string(bytes[...]) == expected, "\(bytes)")
            if expected != nil { valid += 1 }
        }
        #expect(valid > 2_000 && valid < 48_000)
    }
}
