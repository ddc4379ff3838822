import Foundation
import Tracks
import WaypostSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Buffered text output to a file descriptor: the event stream can be millions of lines.
///
/// A failed write (a full disk, a closed descriptor) is kept, not raised where it happens — a
/// `TextOutputStream` cannot throw — and later output is dropped; ``finish()`` reports it as one
/// error line and EX_IOERR.
final class BufferedOutput: TextOutputStream, ByteOutputStream {
    /// What error messages call the destination: a path, or "standard output".
    let name: String
    private let descriptor: Int32
    /// One writer at a time (a command's own thread): the runtime's exclusivity check at every
    /// line written was 1 % of a text replay's time (farm-bench; `swift_beginAccess` around
    /// `write(_:)`'s body).
    @exclusivity(unchecked) private var buffer: [UInt8] = []
    private let capacity = 1 << 16
    /// errno of the first write that failed.
    private var failure: Int32?

    init(_ handle: FileHandle = .standardOutput, name: String = "standard output") {
        self.descriptor = handle.fileDescriptor
        self.name = name
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

    func write(bytes: UnsafeRawBufferPointer) {
        if buffer.isEmpty && bytes.count >= capacity {
            put(bytes)  // a writer's whole chunk: no copy into the buffer
            return
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { flush() }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { put($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes `text` to standard output at once (a report, a banner scripts wait for).
    static func writeToStandardOutput(_ text: String) throws(CommandFailure) {
        let out = BufferedOutput()
        out.write(text)
        try out.finish()
    }

    /// Flushes, and throws if any write failed.
    func finish() throws(CommandFailure) {
        flush()
        if let failure {
            throw CommandFailure(.ioError, "\(name): cannot write (\(String(cString: strerror(failure)).lowercased()))")
        }
    }

    private func put(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, var start = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written = systemWrite(descriptor, start, left)
            if written > 0 {
                start += written
                left -= written
            } else if written == 0 || errno != EINTR {
                failure = written == 0 ? EIO : errno
                return
            }
        }
    }

    deinit { flush() }
}

/// write(2), named apart from the stream's own `write` methods.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// Writes a file all at once or not at all: into a temporary sibling, renamed into place on
/// success, removed on failure or interruption (``TemporarySibling``) — so a failed run never
/// leaves a half-written file.
///
/// A path that names no regular file — a device such as `/dev/null` or `/dev/stdout`, a FIFO — is
/// written in place: renaming over it would replace the device with a file (as root, for every
/// program on the machine).
enum AtomicFile {
    static func write(to path: String, _ body: (BufferedOutput) throws -> Void) throws {
        if isSpecialFile(path) {
            guard let handle = FileHandle(forWritingAtPath: path) else {
                throw CommandFailure(.cannotCreate, "\(path): cannot open for writing")
            }
            defer { try? handle.close() }
            let output = BufferedOutput(handle, name: path)
            try body(output)
            try output.finish()
            return
        }
        let file = try TemporarySibling(of: path)
        do {
            let output = BufferedOutput(file.handle, name: path)
            try body(output)
            try output.finish()
        } catch {
            file.abandon()
            throw error
        }
        try file.commit()
    }
}

/// Whether `path` exists and is not a regular file (a character device, a FIFO, a socket).
func isSpecialFile(_ path: String) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0 else { return false }
    return (info.st_mode & S_IFMT) != S_IFREG
}

/// Whether two paths name one file: its device and inode, links followed, when both exist;
/// else the same path once `.`, `..` and links are resolved (a file one of them will create).
func isSameFile(_ a: String, _ b: String) -> Bool {
    var first = stat()
    var second = stat()
    guard stat(a, &first) == 0, stat(b, &second) == 0 else {
        func resolved(_ path: String) -> String {
            URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        }
        return resolved(a) == resolved(b)
    }
    return first.st_dev == second.st_dev && first.st_ino == second.st_ino
}

/// Where a command's `-o/--output` (or `--junit`) goes: standard output when none is given or
/// the path is `-` (the convention POSIX utilities follow, Utility Syntax Guideline 13), else a
/// file written whole or not at all (``AtomicFile``).
enum OutputDestination: Equatable {
    case standardOutput
    case file(String)

    init(_ path: String?) {
        self = path.map { $0 == "-" ? .standardOutput : .file($0) } ?? .standardOutput
    }

    /// Refuses, before any work, files that could not be written at its end (73, with the
    /// reason): a folder that is missing or not writable, or a folder where the file would go.
    static func checkCreatable(_ paths: String?...) throws(CommandFailure) {
        for case .file(let path) in paths.map(OutputDestination.init) {
            var info = stat()
            if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
                throw CommandFailure(.cannotCreate, "\(path): cannot create file: it is a directory")
            }
            // The folder the file is written in: its link's target's, as ``TemporarySibling`` writes.
            let folder = URL(fileURLWithPath: TemporarySibling.followingLink(path)).deletingLastPathComponent().path
            guard access(folder, W_OK | X_OK) == 0 else {
                throw CommandFailure(.cannotCreate, "\(path): cannot create file: \(String(cString: strerror(errno)))")
            }
        }
    }

    func write(_ body: (BufferedOutput) throws -> Void) throws {
        switch self {
        case .standardOutput:
            let out = BufferedOutput()
            try body(out)
            try out.finish()
        case .file(let path):
            try AtomicFile.write(to: path, body)
        }
    }
}

/// Writes a command's report and, with `--junit FILE`, the same results as JUnit XML. `--junit -`
/// gives standard output to the XML alone, for a pipe to read whole, and the report a person
/// reads moves to standard error — as it does when `standardOutputTaken` (the command wrote
/// something else there, e.g. `waypost test -o -`).
func writeReport(
    _ report: String, junit: String?, standardOutputTaken: Bool = false, xml: () -> String
) throws {
    if let junit, OutputDestination(junit) == .standardOutput {
        FileHandle.standardError.write(Data(report.utf8))
        try OutputDestination.standardOutput.write { $0.write(xml()) }
        return
    }
    if standardOutputTaken {
        FileHandle.standardError.write(Data(report.utf8))
    } else {
        try BufferedOutput.writeToStandardOutput(report)
    }
    if let junit { try OutputDestination(junit).write { $0.write(xml()) } }
}

/// A route argument: a file, or `-` for standard input (`gpsbabel … -F - | waypost replay -`).
/// Either way the format is sniffed from the content (KML, GPX, or KMZ's ZIP signature).
struct RouteInput {
    let argument: String

    var isStandardInput: Bool { argument == "-" }
    /// What error and warning lines call it.
    var displayName: String { isStandardInput ? "standard input" : argument }
    /// The default name of a run replayed from it: the file's name.
    var runName: String { isStandardInput ? "stdin" : URL(fileURLWithPath: argument).lastPathComponent }

    /// Reads the route and prints its warnings.
    func read(timeOrder: TimeOrder) throws -> Track {
        let reader = TrackReader(timeOrder: timeOrder)
        let track =
            isStandardInput
            ? try reader.read(fileDescriptor: FileHandle.standardInput.fileDescriptor, name: displayName)
            : try reader.read(contentsOf: URL(fileURLWithPath: argument), displayName: argument)
        track.reportWarnings(file: displayName)
        return track
    }
}

extension Track {
    /// Prints what was read in a way the format does not define, one `waypost: warning:` line each.
    func reportWarnings(file: String) {
        for warning in warnings {
            // A warning quotes the track's own text; the line is read on a terminal.
            FileHandle.standardError.write(
                Data("waypost: warning: \(DisplayEscaping.escape("\(file):\(warning)"))\n".utf8))
        }
    }
}
