/// FNV-1a, 64-bit: a hash of bytes that is the same in every process (Swift's `Hasher` is seeded
/// per process), for what must come out the same every run.
package enum FNV1a {
    @inlinable
    package static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
