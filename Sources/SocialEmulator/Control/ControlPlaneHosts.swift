/// Which `Host` header the control plane answers over HTTP: the address the request reached
/// (the name it was started with, or the socket's own IP) with its port, and, on loopback,
/// `localhost`, `127.0.0.1` and `[::1]`.
///
/// A web page the user opens can make their browser send requests to 127.0.0.1 under a name
/// its own DNS later points there (DNS rebinding); such requests carry the page's name in
/// `Host`, and without this check they would reach the faults, the reset and a journal with
/// coordinates in it. The provider endpoints stay open to any `Host`, as the providers were.
struct ControlPlaneHosts: Sendable {
    /// Host names (lower case, IPv6 in brackets) accepted, without port.
    private let names: Set<String>
    let port: Int

    /// - Parameters:
    ///   - host: the address the server was started on (`--host`).
    ///   - localAddress: the IP the connection reached (the socket's local address), which for
    ///     a wildcard address (`0.0.0.0`, `::`) is the interface the client used.
    ///   - port: the port it listens on.
    init(host: String, localAddress: String?, port: Int) {
        var names: Set<String> = []
        for address in [host, localAddress].compactMap({ $0 }) where !Self.isWildcard(address) {
            names.insert(URIHost.bracketed(address.lowercased()))
            // A dual-stack socket sees an IPv4 client as ::ffff:a.b.c.d; the client wrote a.b.c.d.
            if address.lowercased().hasPrefix("::ffff:"), address.contains(".") {
                names.insert(String(address.dropFirst(7)))
            }
        }
        if names.contains(where: Self.isLoopback) {
            names.formUnion(["localhost", "127.0.0.1", "[::1]"])
        }
        self.names = names
        self.port = port
    }

    /// Whether a request with this `Host` header may reach the control plane. Without a port the
    /// header names port 80 (RFC 9110 §7.2); a trailing dot names the same host.
    func allows(_ header: String?) -> Bool {
        guard var authority = header?.lowercased(), !authority.isEmpty else { return false }
        var requestedPort = 80
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            guard let number = Int(authority[authority.index(after: colon)...]) else { return false }
            requestedPort = number
            authority = String(authority[..<colon])
        }
        if authority.hasSuffix(".") { authority.removeLast() }
        return requestedPort == port && names.contains(authority)
    }

    private static func isWildcard(_ address: String) -> Bool {
        ["", "0.0.0.0", "::", "[::]"].contains(address)
    }

    private static func isLoopback(_ name: String) -> Bool {
        name == "localhost" || name == "[::1]" || name.hasPrefix("127.")
    }
}

/// A host as a URI or a Host header writes it (RFC 3986 §3.2.2): an IPv6 address in brackets.
enum URIHost {
    static func bracketed(_ address: String) -> String {
        address.contains(":") && !address.hasPrefix("[") ? "[\(address)]" : address
    }
}
