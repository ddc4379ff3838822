import WaypostSupport

/// Collects the text of one element, up to a limit, across libxml2's `characters` calls.
struct TextBuffer {
    private(set) var bytes: [UInt8] = []
    private(set) var start = SourcePosition(line: 0, column: 0)
    private(set) var isActive = false
    /// How many elements enclosed the one whose text this is: only that element's end may take
    /// it (a `<gx:coord>` closing inside a `<name>` must not read the name's text as its own).
    private(set) var depth = 0
    let limit: Int

    init(limit: Int) {
        self.limit = limit
        bytes.reserveCapacity(64)
    }

    mutating func begin(at position: SourcePosition, depth: Int) {
        bytes.removeAll(keepingCapacity: true)
        start = position
        isActive = true
        self.depth = depth
    }

    /// Whether text is being collected for the element at `depth`.
    func isActive(at depth: Int) -> Bool { isActive && self.depth == depth }

    mutating func append(_ chunk: UnsafeBufferPointer<UInt8>, element: String) throws(ReadFailure) {
        guard isActive else { return }
        guard bytes.count + chunk.count <= limit else {
            throw ReadFailure(
                kind: .refused, position: start, message: "text of <\(element)> exceeds \(limit) bytes")
        }
        bytes.append(contentsOf: chunk)
    }

    /// Ends capture and returns the text with surrounding whitespace removed.
    mutating func end() -> String {
        isActive = false
        var lo = 0
        var hi = bytes.count
        while lo < hi, Self.isSpace(bytes[lo]) { lo += 1 }
        while hi > lo, Self.isSpace(bytes[hi - 1]) { hi -= 1 }
        return String(decoding: bytes[lo..<hi], as: UTF8.self)
    }

    /// Ends capture and hands the raw bytes to `body` without making a String.
    mutating func end<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        isActive = false
        return bytes.withUnsafeBufferPointer(body)
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
}

/// Splits whitespace-separated numbers (`gx:coord`'s `lon lat alt`) without allocating.
enum NumberList {
    /// Parses up to `values.count` numbers; returns how many, or nil on a bad token or too many.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, into values: inout (Double, Double, Double)) -> Int? {
        var n = 0
        var i = 0
        while i < bytes.count {
            while i < bytes.count, isSpace(bytes[i]) { i += 1 }
            guard i < bytes.count else { break }
            var j = i
            while j < bytes.count, !isSpace(bytes[j]) { j += 1 }
            guard n < 3, let value = DecimalParser.parse(UnsafeBufferPointer(rebasing: bytes[i..<j])) else {
                return nil
            }
            switch n {
            case 0: values.0 = value
            case 1: values.1 = value
            default: values.2 = value
            }
            n += 1
            i = j
        }
        return n
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
}
