import Foundation
import SimulatedTime
import Testing

@testable import Store

#if canImport(Glibc)
    import Glibc
#endif

/// Whose claims may be taken: a claim's owner that has exited is known dead at once.
struct LeaseOwnerTests {
    /// Found at stop 80: after `timeout -s KILL` the killed sender is a zombie for a moment
    /// (`timeout` dies without reaping it), its `/proc/PID/stat` still there with its start time,
    /// so a flush run at once took its claim for live and left the post `sending`.
    @Test func aZombieSenderHasExited() throws {
        #if os(Linux)
            var pid: pid_t = 0
            var arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
            defer { arguments.forEach { free($0) } }
            #expect(posix_spawn(&pid, "/bin/true", nil, nil, &arguments, environ) == 0)
            // Not reaped: once it exits it stays a zombie until waitpid below.
            var status = ProcessIdentity.status(of: pid)
            for _ in 0..<500 where status?.state != "Z" {
                usleep(2_000)
                status = ProcessIdentity.status(of: pid)
            }
            let zombie = try #require(status)
            #expect(zombie.state == "Z")
            let current = ProcessIdentity.current
            let owner = "host=\(current.host) pid=\(pid) start=\(zombie.start) token=1"
            #expect(current.knowsExited(owner))
            #expect(!current.knowsExited("host=\(current.host) pid=\(current.pid) start=\(current.start) token=1"))
            var reaped: Int32 = 0
            waitpid(pid, &reaped, 0)
            #expect(current.knowsExited(owner), "reaped, it is gone altogether")
        #endif
    }
}
