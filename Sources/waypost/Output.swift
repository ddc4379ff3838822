import Foundation
import Tracks

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Buffered text output to a file descriptor: the event stream can be millions of lines.
final class BufferedOutput: TextOutputStream {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private let capacity = 1 << 16

    init(_ handle: FileHandle = .standardOutput) {
        self.handle = handle
        buffer.reserveCapacity(capacity)
    }

    func write(_ string: String) {
        buffer.append(contentsOf: string.utf8)
        if buffer.count >= capacity { flush() }
    }

    /// Lets `body` append bytes straight into the buffer.
    func write(_ body: (inout [UInt8]) -> Void) {
        body(&buffer)
        if buffer.count >= capacity { flush() }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}

/// Writes a file all at once or not at all: into a temporary sibling, renamed into place on
/// success, removed on failure — so a failed run never leaves a half-written file.
enum AtomicFile {
    static func write(to path: String, _ body: (BufferedOutput) throws -> Void) throws {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
            let handle = FileHandle(forWritingAtPath: temporary.path)
        else {
            throw CommandFailure(.cannotCreate, "\(path): cannot create file")
        }
        do {
            let output = BufferedOutput(handle)
            try body(output)
            output.flush()
            try handle.synchronize()
            try handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        // rename(2) replaces the target atomically within one directory.
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw CommandFailure(.cannotCreate, "\(path): cannot write file (\(reason))")
        }
    }
}

extension Track {
    /// Prints what was read in a way the format does not define, one `waypost: warning:` line each.
    func reportWarnings(file: String) {
        for warning in warnings {
            FileHandle.standardError.write(Data("waypost: warning: \(file):\(warning)\n".utf8))
        }
    }
}
