import Foundation
import ZIPFoundation

/// Reads KML, KMZ and GPX route files into a ``Track``, streaming them through libxml2.
///
/// ```swift
/// let reader = TrackReader()
/// do {
///     let track = try reader.read(contentsOf: URL(fileURLWithPath: "tracks/cupertino-walk.kml"))
///     print(track.pointCount)
/// } catch {
///     print(error)  // tracks/cupertino-walk.kml:12:7: latitude 91.0 is outside [-90, 90]
/// }
/// ```
///
/// The format is recognised from the content, not the file name: a ZIP archive is KMZ (its
/// first `.kml` entry, `doc.kml` by convention, is read), text that starts with an NMEA sentence
/// (`$`) or comment (`#`) is an NMEA 0183 log (``NMEALogParser``'s rules), otherwise the root
/// element decides.
/// Input is treated as untrusted; see ``ReaderLimits`` and docs/security.md.
public struct TrackReader: Sendable {
    public var limits: ReaderLimits
    /// What to do with a track point earlier than the one before it (default: refuse the file).
    public var timeOrder = TimeOrder.strict
    /// Bytes handed to libxml2 per call.
    public var chunkSize = 1 << 18

    public init(limits: ReaderLimits = ReaderLimits(), timeOrder: TimeOrder = .strict) {
        self.limits = limits
        self.timeOrder = timeOrder
    }

    /// Reads the file at `url`. Errors name the file as `displayName` (default: the path).
    public func read(contentsOf url: URL, displayName: String? = nil) throws(TrackReadError) -> Track {
        let name = displayName ?? url.path
        // `URL(fileURLWithPath: "")` is the working directory: an empty argument names no file.
        guard !name.isEmpty else { throw TrackReadError(.missing, file: "''", "an empty path names no file") }
        let file = open(url.path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else {
            let exists = FileManager.default.fileExists(atPath: url.path)
            throw TrackReadError(.missing, file: name, exists ? "cannot be opened for reading" : "no such file")
        }
        defer { close(file) }
        var status = stat()
        if fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw TrackReadError(.missing, file: name, "is a directory, not a KML, KMZ or GPX file")
        }
        return try read(from: file, name: name) { _ throws(TrackReadError) in try readKMZ(url, name: name) }
    }

    /// Reads a document from an open descriptor that may not seek — standard input
    /// (`waypost replay -`), a pipe — streamed like a file, its format sniffed from its first
    /// bytes as for a file. The descriptor is read to its end and left open. A KMZ archive is
    /// read into memory first: a ZIP's directory is at its end.
    public func read(fileDescriptor file: Int32, name: String) throws(TrackReadError) -> Track {
        try read(from: file, name: name) { head throws(TrackReadError) in
            var archive = Data(head)
            let capacity = max(chunkSize, 4)
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                let chunk: UnsafeRawBufferPointer
                do throws(ReadFailure) { chunk = try fill(buffer, capacity: capacity, from: file) } catch {
                    throw TrackReadError(error.kind, file: name, error.message)
                }
                if chunk.isEmpty { break }
                archive.append(contentsOf: chunk)
            }
            return try read(data: archive, name: name)
        }
    }

    /// Streams `file` through the parser, or hands its first bytes to `kmz` when they open a ZIP.
    private func read(
        from file: Int32, name: String, kmz: (UnsafeRawBufferPointer) throws(TrackReadError) -> Track
    ) throws(TrackReadError) -> Track {
        // One buffer, filled by read(2): FileHandle.read(upToCount:) reads a page per system call
        // into a growing Data (20,000 calls for an 82 MB file, 4 % of its export).
        let capacity = max(chunkSize, 4)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        let head: UnsafeRawBufferPointer
        do { head = try fill(buffer, capacity: capacity, from: file) } catch {
            throw TrackReadError(error.kind, file: name, error.message)
        }
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            return try kmz(head)
        }
        if NMEALogParser.looksLikeNMEA(head) {
            var parser = NMEALogParser(name: name)
            var chunk = head
            while !chunk.isEmpty {
                try parser.feed(chunk)
                do { chunk = try fill(buffer, capacity: capacity, from: file) } catch {
                    throw TrackReadError(error.kind, file: name, error.message)
                }
            }
            return try finishNMEA(&parser, name: name)
        }
        return try parse(name: name) { feed in
            var chunk = head
            while !chunk.isEmpty {
                try feed(chunk)
                chunk = try fill(buffer, capacity: capacity, from: file)
            }
        }
    }

    /// Reads a document held in memory (KML or GPX text, or KMZ bytes).
    public func read(data: Data, name: String) throws(TrackReadError) -> Track {
        if data.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            let temporary = FileManager.default.temporaryDirectory
                .appendingPathComponent("waypost-\(UUID().uuidString).kmz")
            defer { try? FileManager.default.removeItem(at: temporary) }
            do { try data.write(to: temporary) } catch {
                throw TrackReadError(.missing, file: name, "cannot stage KMZ archive: \(error)")
            }
            return try readKMZ(temporary, name: name)
        }
        let isNMEA = data.prefix(chunkSize).withUnsafeBytes { NMEALogParser.looksLikeNMEA($0) }
        if isNMEA {
            var parser = NMEALogParser(name: name)
            var failure: TrackReadError?
            data.withUnsafeBytes { bytes in
                do throws(TrackReadError) { try parser.feed(bytes) } catch { failure = error }
            }
            if let failure { throw failure }
            return try finishNMEA(&parser, name: name)
        }
        return try parse(name: name) { feed in
            var offset = 0
            while offset < data.count {
                let end = min(offset + chunkSize, data.count)
                try data[offset..<end].withUnsafeBytes { try feed($0) }
                offset = end
            }
        }
    }

    private func readKMZ(_ url: URL, name: String) throws(TrackReadError) -> Track {
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw TrackReadError(.malformed, file: name, "not a readable KMZ (ZIP) archive: \(Self.zipProblem(error))")
        }
        let entries = archive.filter { $0.type == .file && $0.path.lowercased().hasSuffix(".kml") }
        guard let entry = entries.first(where: { $0.path.lowercased() == "doc.kml" }) ?? entries.first else {
            throw TrackReadError(.unsupported, file: name, "KMZ archive holds no .kml document")
        }
        let innerName = "\(name)!/\(entry.path)"
        var track: Track = try parse(name: innerName) { feed in
            do {
                _ = try archive.extract(entry, bufferSize: chunkSize, skipCRC32: false) { chunk in
                    try chunk.withUnsafeBytes { try feed($0) }
                }
            } catch let failure as ReadFailure {
                throw failure
            } catch {
                throw ReadFailure(
                    kind: .malformed, position: .init(line: 0, column: 0),
                    message: "cannot inflate \(entry.path): \(Self.zipProblem(error))")
            }
        }
        track.format = .kmz
        return track
    }

    /// ZIPFoundation's error in words: its case names (`missingEndOfCentralDirectoryRecord`,
    /// `corruptedData`) are not a user's.
    private static func zipProblem(_ error: any Error) -> String {
        if let error = error as? Archive.ArchiveError {
            switch error {
            case .missingEndOfCentralDirectoryRecord: return "no ZIP directory at its end (cut short, or not a ZIP)"
            case .unreadableArchive: return "it cannot be read"
            case .invalidCRC32: return "a checksum does not match: damaged"
            case .invalidCompressionMethod: return "compressed by a method ZIP readers do not know"
            default: return "damaged (\(error))"
            }
        }
        // Inflating a damaged entry (ZIPFoundation's internal `corruptedData`).
        return "\(error)".contains("corrupted") ? "its compressed data is damaged" : "\(error)"
    }

    /// Runs one SAX session over the chunks `produce` hands to its `feed` argument.
    private func parse(
        name: String,
        produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws(TrackReadError) -> Track {
        let session = SAXSession(limits: limits)
        do {
            var sawBytes = false
            try produce { bytes in
                sawBytes = sawBytes || !bytes.isEmpty
                try session.feed(bytes, last: false)
            }
            guard sawBytes else {
                throw ReadFailure(kind: .invalid, position: .init(line: 0, column: 0), message: "the file is empty")
            }
            try session.feed(UnsafeRawBufferPointer(start: nil, count: 0), last: true)
        } catch let error as ReadFailure {
            throw TrackReadError(
                error.kind, file: name, line: error.position.line, column: error.position.column, error.message)
        } catch let error as TrackReadError {
            throw error
        } catch {
            throw TrackReadError(.malformed, file: name, "\(error)")
        }
        guard let track = session.track else {
            throw TrackReadError(.unsupported, file: name, "no root element")
        }
        return try ordered(track, backwards: session.backwards, name: name)
    }

    private func finishNMEA(_ parser: inout NMEALogParser, name: String) throws(TrackReadError) -> Track {
        let (track, backwards) = try parser.finish()
        return try ordered(track, backwards: backwards, name: name)
    }

    /// `track` as ``timeOrder`` says, given the first point earlier than its predecessor.
    private func ordered(_ track: Track, backwards: ReadFailure?, name: String) throws(TrackReadError) -> Track {
        guard let backwards else { return track }
        switch timeOrder {
        case .strict:
            throw TrackReadError(
                backwards.kind, file: name, line: backwards.position.line, column: backwards.position.column,
                backwards.message + " (--time-order drop or sort reads the file anyway)")
        case .drop: return track.mappingPaths { $0.droppingBackwardTimes() }
        case .sort: return track.mappingPaths { $0.sortedByTime() }
        }
    }
}

/// Fills `buffer` from `file` with read(2), up to `capacity` bytes or the end of the file (a pipe
/// hands over less per call); an empty result is the end of the file.
private func fill(
    _ buffer: UnsafeMutableRawPointer, capacity: Int, from file: Int32
) throws(ReadFailure) -> UnsafeRawBufferPointer {
    var count = 0
    while count < capacity {
        let got = read(file, buffer + count, capacity - count)
        if got > 0 {
            count += got
        } else if got == 0 {
            break
        } else if errno != EINTR {
            throw ReadFailure(
                kind: .missing, position: .init(line: 0, column: 0),
                message: "read error: \(String(cString: strerror(errno)).lowercased())")
        }
    }
    return UnsafeRawBufferPointer(start: buffer, count: count)
}
