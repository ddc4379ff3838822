import ArgumentParser
import Foundation
import LocationEvents
import LocationSimulation
import SimulatedTime
import Tracks

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `waypost replay --nmea FILE|- | --nmea-serve PORT [--nmea-host HOST]`: the device's delivered
/// fixes as NMEA 0183, for gpsd, `gpsfake`, the Android emulator's console and receiver test rigs.
///
/// The replay's events reach an ``NMEASink`` as they do the event printer; the sentences are
/// ``NMEASentences``' (Tracks), this file only moves them to a file or to TCP clients.
struct NMEAOptions: ParsableArguments {
    @Option(
        name: .customLong("nmea"),
        help: ArgumentHelp(
            "Write the delivered fixes as NMEA 0183 (GGA, GSA, RMC, VTG) to FILE, or - for standard output.",
            discussion:
                "With -, standard output carries only the sentences (the events are not printed). A file is written whole on success.",
            valueName: "file"))
    var file: String?

    @Option(
        name: .customLong("nmea-serve"), parsing: .unconditional,
        help: ArgumentHelp(
            "Serve the sentences to TCP clients on PORT (0: a free port, named on standard error), as gpsd's tcp:// sources read them. Needs --realtime; the replay starts when the first client connects.",
            valueName: "port"))
    var port: Int?

    @Option(
        name: .customLong("nmea-host"),
        help: ArgumentHelp(
            "With --nmea-serve: the address to listen on (default 127.0.0.1, this machine only).",
            valueName: "host"))
    var host: String?

    /// Whether `--nmea -` takes standard output from the event stream.
    var takesStandardOutput: Bool { file == "-" }

    /// The checks that need the replay's other options (`track`: the route being replayed).
    func check(track: String, realtime: Bool, checkins: Bool, summary: Bool) throws {
        if let file, file != "-", isSameFile(file, track) {
            throw ValidationError("--nmea \(file) is the route being replayed: the sentences would overwrite it")
        }
        if let port { try OptionRange.check("--nmea-serve", port, 0...65_535) }
        if host != nil && port == nil { throw ValidationError("--nmea-host needs --nmea-serve") }
        if port != nil && !realtime {
            throw ValidationError("--nmea-serve needs --realtime: a receiver sends its fixes as time passes")
        }
        if (file != nil || port != nil) && checkins {
            throw ValidationError("--nmea and --nmea-serve cannot be combined with --checkins")
        }
        if takesStandardOutput && summary {
            throw ValidationError("--nmea - puts the sentences on standard output: --summary cannot go there too")
        }
    }

    /// The sink the options ask for, nil without them. A server is listening when this returns
    /// (its address on standard error); the caller waits for its first client before the run.
    func makeSink(interval: Double, realtime: Bool) throws -> NMEASink? {
        guard file != nil || port != nil else { return nil }
        let output = try file.map { try NMEAFileOutput(path: $0) }
        let server = try port.map { try NMEAServer(host: host ?? "127.0.0.1", port: $0) }
        return NMEASink(file: output, server: server, interval: interval, flushEachEpoch: realtime)
    }
}

/// Turns the replay's events into NMEA epochs: a fix for each delivered location; while the
/// signal is lost, a no-fix epoch at the loss and then every `interval` seconds until the next
/// fix (a receiver keeps talking without a fix), paced by ``NMEAPacing``.
final class NMEASink {
    private let sentences = NMEASentences()
    private let file: NMEAFileOutput?
    private let server: NMEAServer?
    private let interval: Double
    private let flushEachEpoch: Bool
    /// The time of the last no-fix epoch written, while the signal is lost.
    private var lostAt: EpochInstant?
    /// Whether the two-digit-year warning was given.
    private var warnedOfYear = false
    /// 1980-01-01 and 2080-01-01, UTC: the years a two-digit NMEA year is read as.
    static let yearsRead = 315_532_800.0..<3_471_292_800.0

    init(file: NMEAFileOutput?, server: NMEAServer?, interval: Double, flushEachEpoch: Bool) {
        self.file = file
        self.server = server
        self.interval = interval
        self.flushEachEpoch = flushEachEpoch
    }

    /// Blocks until the first TCP client connects (no server: returns at once).
    func waitForFirstClient() throws {
        try server?.waitForFirstClient()
    }

    func record(_ event: TimedEvent) {
        switch event.event {
        case .locationUpdated(let location, _):
            lostAt = nil
            guard location.horizontalAccuracy >= 0 else { return }
            // RMC's date has a two-digit year, which gpsd and gpsbabel read as 1980–2079: a fix
            // of 1969 read back as 2069, and nothing said so (a black-box hunt).
            if !warnedOfYear, !Self.yearsRead.contains(location.timestamp.secondsSince1970) {
                warnedOfYear = true
                FileHandle.standardError.write(
                    Data(
                        ("waypost: warning: --nmea: fixes before 1980 or after 2079 are written with a two-digit "
                            + "year, which NMEA readers (gpsd, gpsbabel) take as 1980–2079\n").utf8))
            }
            let hasAltitude = location.verticalAccuracy >= 0
            emit(
                sentences.sentences(
                    for: NMEAFix(
                        time: location.timestamp, latitude: location.coordinate.latitude,
                        longitude: location.coordinate.longitude, altitude: hasAltitude ? location.altitude : nil,
                        horizontalAccuracy: location.horizontalAccuracy,
                        verticalAccuracy: hasAltitude ? location.verticalAccuracy : nil,
                        speed: location.speed >= 0 ? location.speed : nil,
                        course: location.course >= 0 ? location.course : nil)))
        case .failed(let error) where error.code == .locationUnknown:
            lostAt = event.time
            emit(sentences.noFix(at: event.time))
        default:
            break
        }
    }

    /// Writes the no-fix epochs due before virtual time `time`, each after `pace` has brought the
    /// clock to it.
    func fill(until time: EpochInstant, pace: (EpochInstant) -> Void) {
        guard var last = lostAt, interval > 0 else { return }
        while last.advanced(bySeconds: interval) < time {
            last = last.advanced(bySeconds: interval)
            pace(last)
            emit(sentences.noFix(at: last))
        }
        lostAt = last
    }

    private func emit(_ epoch: [String]) {
        var bytes: [UInt8] = []
        for sentence in epoch {
            bytes.append(contentsOf: sentence.utf8)
            bytes.append(contentsOf: [0x0D, 0x0A])
        }
        file?.write(bytes, flush: flushEachEpoch)
        server?.send(bytes)
    }

    /// Closes the connections and puts the file in place; throws if a write failed.
    func finish() throws {
        server?.close()
        try file?.finish()
    }

    /// Removes a file not yet in place (the run failed).
    func abandon() {
        server?.close()
        file?.abandon()
    }
}

/// Pacing that lets an ``NMEASink`` write its no-fix epochs at their own times: before each
/// event's instant it fills the signal gap up to it, pacing `inner` (the real time of
/// `--realtime`; nil: as fast as possible) to each epoch. Holds any pacing, so that it wraps
/// whatever a run is given.
struct NMEAPacing: Pacing {
    var inner: (any Pacing)?
    let sink: NMEASink?

    mutating func wait(until instant: EpochInstant) {
        sink?.fill(until: instant) { inner?.wait(until: $0) }
        inner?.wait(until: instant)
    }
}

/// `--nmea FILE|-`: standard output as it goes, or a file put in place whole at the end.
final class NMEAFileOutput {
    private let out: BufferedOutput
    /// Where the bytes go: a file put in place at the end (a run that fails or is dropped before
    /// ``finish()`` leaves none), a device or FIFO written in place, or standard output.
    private enum Target {
        case file(TemporarySibling)
        case special(FileHandle)
        case standardOutput
    }
    private let target: Target

    init(path: String) throws {
        guard path != "-" else {
            out = BufferedOutput()
            target = .standardOutput
            return
        }
        // A device or FIFO (`/dev/null`, a pipe to gpsfake) is written in place, never renamed over.
        if isSpecialFile(path) {
            guard let handle = FileHandle(forWritingAtPath: path) else {
                throw CommandFailure(.cannotCreate, "\(path): cannot open for writing")
            }
            out = BufferedOutput(handle, name: path)
            target = .special(handle)
            return
        }
        let file = try TemporarySibling(of: path)
        out = BufferedOutput(file.handle, name: path)
        target = .file(file)
    }

    func write(_ bytes: [UInt8], flush: Bool) {
        bytes.withUnsafeBytes { out.write(bytes: $0) }
        if flush { out.flush() }
    }

    func finish() throws {
        do {
            try out.finish()
        } catch {
            abandon()
            throw error
        }
        switch target {
        case .file(let file): try file.commit()
        // A device or FIFO has nothing to sync (fsync fails on some).
        case .special(let handle): try handle.close()
        case .standardOutput: break
        }
    }

    func abandon() {
        switch target {
        case .file(let file): file.abandon()
        case .special(let handle): try? handle.close()
        case .standardOutput: break
        }
    }
}

/// `--nmea-serve`: a TCP listener whose clients each get every sentence from when they connect,
/// as a receiver's serial-to-TCP bridge serves gpsd. Plain sockets: one listener, a few clients,
/// writes from the replay's thread; a client that cannot keep up for 5 s, or has gone, is dropped.
final class NMEAServer {
    private var listener: Int32
    private var clients: [Int32] = []
    let address: String

    init(host: String, port: Int) throws {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let info = found else {
            throw CommandFailure(
                .usage, "--nmea-host '\(host)': not an address to listen on (\(String(cString: gai_strerror(status))))")
        }
        defer { freeaddrinfo(found) }
        let listener = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard listener >= 0 else {
            throw CommandFailure(.unavailable, "--nmea-serve: cannot open a socket (\(Self.reason()))")
        }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(listener, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, socketListen(listener) == 0 else {
            let reason = Self.reason()
            socketClose(listener)
            throw CommandFailure(.unavailable, "--nmea-serve: cannot listen on \(host) port \(port) (\(reason))")
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let bound = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        var boundPort = port
        if bound == 0 {
            boundPort =
                Int(storage.ss_family) == Int(AF_INET6)
                ? withUnsafePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        Int(UInt16(bigEndian: $0.pointee.sin6_port))
                    }
                }
                : withUnsafePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                        Int(UInt16(bigEndian: $0.pointee.sin_port))
                    }
                }
        }
        self.listener = listener
        address = host.contains(":") ? "[\(host)]:\(boundPort)" : "\(host):\(boundPort)"
        // Scripts wait for this line (and read the port from it) before starting gpsd.
        FileHandle.standardError.write(
            Data(
                "waypost: serving NMEA 0183 on tcp://\(address) (gpsd: tcp://\(address)); the replay starts when the first client connects\n"
                    .utf8))
    }

    private static func reason() -> String { String(cString: strerror(errno)).lowercased() }

    func waitForFirstClient() throws {
        while clients.isEmpty {
            let client = accept(listener, nil, nil)
            if client >= 0 {
                add(client)
            } else if errno != EINTR {
                throw CommandFailure(.unavailable, "--nmea-serve: accepting a client failed (\(Self.reason()))")
            }
        }
        // Later clients are taken between epochs, without waiting.
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
    }

    private func add(_ client: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
            var yes: Int32 = 1
            setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
        clients.append(client)
    }

    func send(_ bytes: [UInt8]) {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { break }
            add(client)
        }
        clients.removeAll { client in
            let delivered = bytes.withUnsafeBytes { buffer -> Bool in
                guard let base = buffer.baseAddress else { return true }
                var sent = 0
                while sent < buffer.count {
                    let written = socketSend(client, base + sent, buffer.count - sent)
                    if written > 0 {
                        sent += written
                    } else if written < 0 && errno == EINTR {
                        continue
                    } else {
                        return false
                    }
                }
                return true
            }
            if !delivered { socketClose(client) }
            return !delivered
        }
    }

    func close() {
        for client in clients {
            shutdown(client, Int32(SHUT_RDWR))
            socketClose(client)
        }
        clients.removeAll()
        if listener >= 0 {
            socketClose(listener)
            listener = -1
        }
    }

    deinit { close() }
}

// The C calls under names of their own: the server's `close()` and `send(_:)` hide them inside it.
private func socketClose(_ descriptor: Int32) { _ = close(descriptor) }
private func socketListen(_ descriptor: Int32) -> Int32 { listen(descriptor, 8) }
/// send(2) without SIGPIPE from a client that has gone (its error drops the client instead).
private func socketSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
    #else
        send(descriptor, bytes, count, 0)
    #endif
}
