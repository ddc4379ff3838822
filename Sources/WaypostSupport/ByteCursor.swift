/// Writes a line's bytes into a buffer its caller holds on the stack, with one bounds check per
/// write and none of an array's uniqueness and capacity checks: `appendLine(capacity:_:)`
/// appends the line at once. A text replay writes a dozen fields a line, a million lines; an
/// array append per field, with its copy, was about a third of the encoder's profile.
///
/// ```swift
/// var out: [UInt8] = []
/// out.appendLine { line in
///     line.put("speed ")
///     FixedPoint.write(138, places: 2, negative: false, to: &line)  // 1.38
/// }
/// ```
@usableFromInline package struct ByteCursor {
    @usableFromInline let buffer: UnsafeMutableBufferPointer<UInt8>
    @usableFromInline var written = 0
    @usableFromInline var didOverflow = false

    /// Bytes written so far.
    @inlinable package var count: Int { written }
    /// Whether a write did not fit: the line is written again with more room.
    @inlinable package var overflowed: Bool { didOverflow }

    @inlinable init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

    @inlinable @inline(__always) package mutating func put(_ byte: UInt8) {
        guard written < buffer.count else { return didOverflow = true }
        buffer[written] = byte
        written += 1
    }

    @inlinable @inline(__always) package mutating func put(_ text: StaticString) {
        text.withUTF8Buffer { put(contentsOf: $0) }
    }

    /// Disfavoured so that a literal is a `StaticString` (a pointer and a length): otherwise
    /// `put("  ")` builds a `String`, to be checked and released after.
    @inlinable @_disfavoredOverload package mutating func put(_ text: String) {
        var text = text
        text.withUTF8 { put(contentsOf: $0) }
    }

    @inlinable @inline(__always) package mutating func put(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard let room = reserve(bytes.count) else { return }
        UnsafeMutableRawBufferPointer(room).copyMemory(from: UnsafeRawBufferPointer(bytes))
    }

    /// The next `length` bytes to fill in any order, counted as written; nil (and the cursor
    /// overflowed) when they do not fit.
    @inlinable @inline(__always) package mutating func reserve(_ length: Int) -> UnsafeMutableBufferPointer<UInt8>? {
        guard !didOverflow, length <= buffer.count - written else {
            didOverflow = true
            return nil
        }
        defer { written += length }
        return UnsafeMutableBufferPointer(rebasing: buffer[written..<written + length])
    }
}

extension Array where Element == UInt8 {
    /// Appends what `body` writes through a ``ByteCursor``, at once. `body` writes into
    /// `capacity` bytes on the stack; when that is not enough (a long name) it is run again
    /// with more room, so it must write the same each time.
    @inlinable
    package mutating func appendLine(capacity: Int = 256, _ body: (inout ByteCursor) -> Void) {
        appendLine(writing: (), capacity: capacity) { _, line in body(&line) }
    }

    /// ``appendLine(capacity:_:)`` writing `value`, handed to `body` as an argument: a closure
    /// that captured it would copy it (an event, once a line of a text replay).
    @inlinable
    package mutating func appendLine<Value>(
        writing value: Value, capacity: Int = 256, _ body: (Value, inout ByteCursor) -> Void
    ) {
        let fitted = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var line = ByteCursor(buffer)
            body(value, &line)
            guard !line.overflowed else { return false }
            append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<line.count]))
            return true
        }
        if !fitted { appendLine(writing: value, capacity: capacity * 4, body) }
    }
}
