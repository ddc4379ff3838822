import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An unlinked temporary file that the columns of one read move their full chunks to, so that a
/// long track costs disk (the page cache), not the process's memory.
///
/// It is created at the first chunk, so files of a few thousand points never touch the disk,
/// and it is gone from the file system from the moment it exists: nothing is left behind, even
/// by a killed process. When it cannot be created or written (a read-only or full temporary
/// folder), columns keep their chunks in memory instead: spilling saves memory, never correctness.
final class SpillFile: @unchecked Sendable {
    // The lock guards `state` and `end`: columns sharing a file may be appended to from
    // different threads once a track has been handed over.
    private let lock = NSLock()
    private var state = State.unopened
    private var end: Int64 = 0

    private enum State {
        case unopened
        case open(Int32)
        case unavailable
    }

    init() {}

    deinit {
        if case .open(let descriptor) = state { close(descriptor) }
    }

    /// Appends `bytes` and returns their offset, or nil when they must stay in memory.
    func append(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        lock.lock()
        defer { lock.unlock() }
        guard let descriptor = openIfNeeded() else { return nil }
        var written = 0
        while written < bytes.count {
            let result = pwrite(
                descriptor, bytes.baseAddress.map { $0 + written }, bytes.count - written, off_t(end) + off_t(written))
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else {
                // Disk full or an I/O error: this and later chunks stay in memory.
                state = .unavailable
                close(descriptor)
                return nil
            }
            written += result
        }
        defer { end += Int64(bytes.count) }
        return end
    }

    /// Reads `buffer.count` bytes written at `offset` back.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) {
        let descriptor: Int32? = lock.withLock {
            if case .open(let descriptor) = state { descriptor } else { nil }
        }
        var done = 0
        while let descriptor, done < buffer.count {
            let result = pread(
                descriptor, buffer.baseAddress.map { $0 + done }, buffer.count - done, off_t(offset) + off_t(done))
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { break }
            done += result
        }
        // Bytes this process wrote to its own unlinked file cannot be missing short of a failing
        // disk; a column cannot answer without them.
        guard done == buffer.count else {
            preconditionFailure("cannot read back a track's spill file (errno \(errno)); the disk may be failing")
        }
    }

    private func openIfNeeded() -> Int32? {
        switch state {
        case .open(let descriptor): return descriptor
        case .unavailable: return nil
        case .unopened:
            let folder = FileManager.default.temporaryDirectory.path
            var template = Array("\(folder)/waypost-spill-XXXXXX".utf8CString)
            let descriptor = template.withUnsafeMutableBufferPointer { $0.baseAddress.map { mkstemp($0) } ?? -1 }
            guard descriptor >= 0 else {
                state = .unavailable
                return nil
            }
            template.withUnsafeBufferPointer { _ = $0.baseAddress.map { unlink($0) } }
            state = .open(descriptor)
            return descriptor
        }
    }
}
