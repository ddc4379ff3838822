extension Array where Element == UInt8 {
    /// Appends a literal's UTF-8. A `StaticString`'s bytes are in the binary, where a `String`
    /// literal is asked for its bytes at every append: the writers and the event stream append
    /// a few literals per point (a tenth of a text replay's time).
    ///
    /// ```swift
    /// var out: [UInt8] = []
    /// out.append(literal: "<time>")
    /// ```
    @inlinable @inline(__always)
    public mutating func append(literal text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }
}
