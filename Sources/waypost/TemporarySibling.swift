import Dispatch
import Foundation
import WaypostSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file written beside its destination (`.NAME.PID.tmp`) and renamed into place whole —
/// rename(2) replaces the target atomically within a directory — or removed: by a failure, by
/// dropping it unfinished, and by SIGINT, SIGTERM or SIGHUP while it is written (a Ctrl-C used to
/// leave a 10 MB temporary behind).
final class TemporarySibling {
    let handle: FileHandle
    /// The temporary's path.
    let path: String
    /// The path as given, for messages.
    let destination: String
    /// Where the file goes: the destination, or the file a symbolic link there names — replaced
    /// as a shell's `>` would write it, the link left a link.
    private let target: String
    private let interruption: InterruptionCleanup
    private var settled = false

    init(of destination: String) throws(CommandFailure) {
        let target = Self.followingLink(destination)
        let url = URL(fileURLWithPath: target)
        let path = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp").path
        // Armed before the file exists: there is no moment it could be left.
        let interruption = InterruptionCleanup(removing: path)
        // A file replaced keeps its permissions, as a shell's `>` leaves them: a track the user
        // made private stays private. Its temporary is private from the first byte, so nobody
        // opens it in between; a new file gets the umask's, as `>` gives.
        var existing = stat()
        let replaced = stat(target, &existing) == 0 ? existing.st_mode & 0o777 : nil
        unlink(path)  // a crashed run's leftover of the same pid
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, replaced == nil ? 0o666 : 0o600)
        guard descriptor >= 0, replaced.map({ fchmod(descriptor, $0) == 0 }) ?? true else {
            // Why, as the shell says it ("No such file or directory", "Permission denied").
            let reason = String(cString: strerror(errno))
            if descriptor >= 0 { close(descriptor) }
            unlink(path)
            interruption.cancel()
            throw CommandFailure(.cannotCreate, "\(destination): cannot create file: \(reason)")
        }
        (self.handle, self.path, self.destination, self.target, self.interruption) =
            (FileHandle(fileDescriptor: descriptor, closeOnDealloc: true), path, destination, target, interruption)
    }

    /// `path`, or what the symbolic link at `path` resolves to (a dangling link stays `path`).
    static func followingLink(_ path: String) -> String {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK, let resolved = realpath(path, nil) else {
            return path
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Synced, closed and renamed into place; abandoned if any of that fails.
    func commit() throws {
        do {
            try handle.synchronize()
            try handle.close()
        } catch {
            abandon()
            throw error
        }
        guard rename(path, target) == 0 else {
            let reason = String(cString: strerror(errno))
            abandon()
            throw CommandFailure(.cannotCreate, "\(destination): cannot write file (\(reason))")
        }
        settle()
    }

    /// Closed and removed.
    func abandon() {
        try? handle.close()
        try? FileManager.default.removeItem(atPath: path)
        settle()
    }

    private func settle() {
        settled = true
        interruption.cancel()
    }

    deinit {
        if !settled { abandon() }
    }
}

/// Removes a path when SIGINT, SIGTERM or SIGHUP ends the process, then lets the signal end it as
/// it would have (a shell still sees 130, 143 or 129). A signal the process ignores — inherited
/// by a background job, or under nohup — stays ignored.
final class InterruptionCleanup {
    private var sources: [DispatchSourceSignal] = []

    init(removing path: String) {
        for number in [SIGINT, SIGTERM, SIGHUP] where !SignalDisposition.isIgnored(number) {
            // Dispatch receives a signal the process itself ignores; the default action comes back
            // to end the process once the file is gone.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                unlink(path)
                signal(number, SIG_DFL)
                var blocked = sigset_t()
                sigemptyset(&blocked)
                sigaddset(&blocked, number)
                pthread_sigmask(SIG_UNBLOCK, &blocked, nil)
                raise(number)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The signals' default actions back, the sources gone.
    func cancel() {
        for source in sources {
            source.cancel()
            signal(Int32(source.handle), SIG_DFL)
        }
        sources = []
    }

    deinit { cancel() }
}
