import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// TCP sockets on 127.0.0.1, for tests that speak to a server, or serve, byte by byte — in
/// Glibc's spelling or Darwin's (whose `SOCK_STREAM` is an `Int32` with no `rawValue`).
public enum LoopbackSocket {
    public struct Failure: Error {}

    /// A socket connected to 127.0.0.1:`port`; its reads give up after `timeout` silent seconds
    /// (nil: they wait).
    public static func connected(to port: Int, timeout: Int? = nil) throws -> Int32 {
        let fd = tcp()
        guard fd >= 0 else { throw Failure() }
        if let timeout {
            var limit = timeval(tv_sec: timeout, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure()
        }
        return fd
    }

    /// A socket bound to 127.0.0.1 on a port the system picks, listening when asked.
    public static func bound(listening: Bool) throws -> (descriptor: Int32, port: Int) {
        let fd = tcp()
        guard fd >= 0 else { throw Failure() }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && (!listening || listen(fd, 8) == 0) && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw Failure()
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    private static func tcp() -> Int32 {
        #if canImport(Glibc)
            socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            socket(AF_INET, SOCK_STREAM, 0)
        #endif
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
