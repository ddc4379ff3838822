/// A column of a path — its points, or one per-point attribute — that moves to disk as it grows.
///
/// Columns the reader fills keep their last chunk (about a megabyte) in memory and move every
/// full chunk to an unlinked temporary file, so a four-million-point track is read, timed and
/// written in the same memory as a small one. Columns made in code (array literals,
/// ``init(_:)``) stay in memory. Either way a column is a value, with array semantics:
///
/// ```swift
/// var column: SpillColumn<Double> = [1, 2, 3]
/// column.append(4)
/// column.reduce(0, +)  // 10
/// ```
///
/// Iterate it (`for`, `map`, `zip`, `reduce`): iteration reads a chunk at a time. Subscripting a
/// spilled position reads that one element from the file, and assigning to one brings the whole
/// column back into memory first, so keep both for the few positions that need them.
public struct SpillColumn<Element: BitwiseCopyable & Sendable>: Sendable {
    /// Elements per chunk: a megabyte of them.
    static var chunkLength: Int { Swift.max(1, (1 << 20) / MemoryLayout<Element>.stride) }

    /// Where full chunks go; nil keeps them in memory.
    let file: SpillFile?
    /// The file offsets of the spilled chunks, in order, each ``chunkLength`` elements.
    private var chunks: [Int64] = []
    /// The elements after the spilled ones.
    var tail: [Element] = []

    /// An empty column held in memory.
    public init() {
        file = nil
    }

    /// A column of `elements`, held in memory.
    public init(_ elements: some Sequence<Element>) {
        file = nil
        tail = Array(elements)
    }

    /// An empty column whose full chunks go to `file`.
    init(spillingTo file: SpillFile?) {
        self.file = file
    }

    /// An empty column that spills where this one does.
    func emptyCopy() -> SpillColumn {
        SpillColumn(spillingTo: file)
    }

    /// Elements held on disk.
    var spilledCount: Int { chunks.count * Self.chunkLength }

    public mutating func append(_ element: Element) {
        tail.append(element)
        if tail.count == Self.chunkLength, file != nil { spillTail() }
    }

    public mutating func append(contentsOf elements: some Sequence<Element>) {
        for element in elements { append(element) }
    }

    /// The elements transformed one by one into a column that spills where this one does.
    func mapColumn<T>(_ transform: (Element) -> T) -> SpillColumn<T> {
        var out = SpillColumn<T>(spillingTo: file)
        for element in self { out.append(transform(element)) }
        return out
    }

    /// The elements, in order, read a chunk at a time (`Collection.map` would read spilled
    /// elements one by one).
    public func map<T, E>(_ transform: (Element) throws(E) -> T) throws(E) -> [T] {
        var out: [T] = []
        out.reserveCapacity(count)
        for element in self { out.append(try transform(element)) }
        return out
    }

    private mutating func spillTail() {
        let offset = tail.withUnsafeBytes { file?.append($0) }
        guard let offset else { return }
        chunks.append(offset)
        tail.removeAll(keepingCapacity: true)
    }

    /// Reads spilled chunk `index` into `buffer`, replacing its contents.
    fileprivate func load(chunk index: Int, into buffer: inout [Element]) {
        let length = Self.chunkLength
        guard let file else { return }
        if buffer.count != length {
            buffer = Array(unsafeUninitializedCapacity: length) { _, count in count = length }
        }
        buffer.withUnsafeMutableBytes { file.read(into: $0, at: chunks[index]) }
    }

    /// Brings every spilled element back into memory, before one is changed in place.
    private mutating func materialize() {
        guard !chunks.isEmpty else { return }
        var all: [Element] = []
        all.reserveCapacity(count)
        for element in self { all.append(element) }
        chunks = []
        tail = all
    }
}

extension SpillColumn: RandomAccessCollection, MutableCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { spilledCount + tail.count }

    public subscript(position: Int) -> Element {
        get {
            let spilled = spilledCount
            if position >= spilled { return tail[position - spilled] }
            precondition(position >= 0, "index out of range")
            let length = Self.chunkLength
            let stride = MemoryLayout<Element>.stride
            return withUnsafeTemporaryAllocation(of: Element.self, capacity: 1) { slot in
                file?.read(
                    into: UnsafeMutableRawBufferPointer(slot),
                    at: chunks[position / length] + Int64(position % length * stride))
                return slot[0]
            }
        }
        set {
            if position < spilledCount { materialize() }
            tail[position - spilledCount] = newValue
        }
    }

    public func makeIterator() -> Iterator { Iterator(self) }

    /// Hands out the elements a chunk at a time.
    public struct Iterator: IteratorProtocol, Sendable {
        private let column: SpillColumn
        private var buffer: [Element] = []
        private var position = 0
        private var nextChunk = 0
        private var inTail = false

        init(_ column: SpillColumn) {
            self.column = column
            if column.chunks.isEmpty {
                buffer = column.tail
                inTail = true
            }
        }

        public mutating func next() -> Element? {
            if position < buffer.count {
                defer { position += 1 }
                return buffer[position]
            }
            return refill()
        }

        private mutating func refill() -> Element? {
            if nextChunk < column.chunks.count {
                column.load(chunk: nextChunk, into: &buffer)
                nextChunk += 1
            } else if !inTail {
                buffer = column.tail
                inTail = true
            } else {
                return nil
            }
            position = 0
            return next()
        }
    }
}

extension SpillColumn: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: Element...) {
        self.init(elements)
    }
}

extension SpillColumn: Equatable where Element: Equatable {
    public static func == (lhs: SpillColumn, rhs: SpillColumn) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }
}

extension SpillColumn: CustomStringConvertible {
    public var description: String { "\(map { $0 })" }
}
