import Foundation
import SimulatedTime

/// A sender's claim on the posts it is sending, as durable queues lease their messages (SQS's
/// visibility timeout, job-queue leases): who holds it, and how long it holds unless renewed.
///
/// Any number of processes may share a store. A post in `sending` is left alone while its
/// claim is live; it is in doubt — looked for on the network, then sent again if not found —
/// only once its lease has run out (its sender is stalled or gone) or its sender is known to
/// have exited (a process of this machine that no longer runs). Leases are on the wall clock,
/// whatever clock the posts themselves run on.
///
/// ```swift
/// let lease = OutboxLease()                     // this process, 60 s on the wall clock, renewed while sending
/// if let post = try store.claim(id, dueBy: now, lease: lease) { … }
/// ```
public struct OutboxLease: Sendable {
    /// Unique to one sender: this machine and process (pid and start time), and a random token
    /// (one process may run several senders: `waypost test --db` runs scenarios in parallel).
    public let owner: String
    /// How long a claim holds without being renewed.
    public let duration: Duration
    private let clock: any EpochClock
    private let process: ProcessIdentity

    /// - Parameter clock: the clock claims run out on: the wall clock, which every process
    ///   sharing the store reads alike (tests give a ``SimulatedClock``).
    public init(duration: Duration = .seconds(60), clock: any EpochClock = WallClock()) {
        process = .current
        var random = SystemRandomNumberGenerator()
        owner = "\(process) token=\(String(random.next() as UInt64, radix: 16))"
        self.duration = duration
        self.clock = clock
    }

    /// The process id named in a claim's owner, for showing who holds it.
    public static func processID(of owner: String) -> String? {
        ProcessIdentity.fields(of: owner)["pid"].map(String.init)
    }

    /// Whether `owner` is a claim of this process (any of its senders or recorders).
    package func isThisProcess(_ owner: String) -> Bool { owner.hasPrefix("\(process) token=") }

    /// When a claim made or renewed now runs out.
    package var expiry: EpochInstant { clock.now.advanced(by: duration) }

    /// Whether a claim by `owner` that runs out at `leaseUntil` may be taken: it has run out, it
    /// names no owner (written before leases), or its owner is a process of this machine that has exited.
    package func hasLapsed(owner: String?, leaseUntil: EpochInstant?) -> Bool {
        if owner == self.owner { return false }
        guard let owner, let leaseUntil else { return true }
        return leaseUntil < clock.now || process.knowsExited(owner)
    }
}

/// This process as other processes on the machine can check it: a pid alone is reused, so its
/// start time goes with it; the host name and pid namespace say which pids it can be compared with.
struct ProcessIdentity: Sendable, CustomStringConvertible {
    var host: String
    var pid: Int32
    var start: String

    /// This process, read once: a lease is made for every run, and the host name, the pid
    /// namespace and `/proc/PID/stat` were a fiftieth of a trial's CPU (perf, 1,000 trials).
    static let current = read()

    private static func read() -> ProcessIdentity {
        var name = [UInt8](repeating: 0, count: 256)
        gethostname(&name, name.count - 1)
        var host = String(decoding: name.prefix { $0 != 0 }, as: UTF8.self)
        // Containers on one machine share a host name but not their pids.
        if let namespace = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/pid") {
            host += "/" + namespace
        }
        let pid = getpid()
        return ProcessIdentity(host: host, pid: pid, start: startTime(of: pid) ?? "?")
    }

    var description: String { "host=\(host) pid=\(pid) start=\(start)" }

    /// True only when `owner` names a process of this machine that is certainly not running.
    func knowsExited(_ owner: String) -> Bool {
        let fields = Self.fields(of: owner)
        guard fields["host"].map(String.init) == host, let pid = fields["pid"].flatMap({ Int32($0) }) else {
            return false
        }
        if let status = Self.status(of: pid) {
            // A zombie has exited, only not yet been reaped: `timeout -s KILL` leaves its child so
            // for a moment, and the post it held was in doubt from the instant it died.
            return fields["start"].map(String.init) != status.start || status.state == "Z" || status.state == "X"
        }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    /// The `name=value` fields of an owner string (``OutboxLease/owner``).
    static func fields(of owner: String) -> [Substring: Substring] {
        var fields: [Substring: Substring] = [:]
        for field in owner.split(separator: " ") {
            guard let equals = field.firstIndex(of: "=") else { continue }
            fields[field[..<equals]] = field[field.index(after: equals)...]
        }
        return fields
    }

    /// The process's start time in clock ticks since boot (`/proc/PID/stat`, field 22), where
    /// the system has it.
    static func startTime(of pid: Int32) -> String? { status(of: pid)?.start }

    /// The process's state (`/proc/PID/stat` field 3: `R`, `S`, … `Z` a zombie) and start time,
    /// where the system has them.
    static func status(of pid: Int32) -> (state: Character, start: String)? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let state = fields[0].first else { return nil }
        return (state, String(fields[19]))
    }
}
