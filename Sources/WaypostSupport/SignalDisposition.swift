#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a process does with a signal before it handles one itself.
package enum SignalDisposition {
    /// Whether `signal` is ignored: inherited by a background job (a shell's `&` ignores SIGINT)
    /// or under `nohup` (SIGHUP). Such a signal is left ignored, as POSIX shells expect.
    package static func isIgnored(_ signal: Int32) -> Bool {
        var current = sigaction()
        sigaction(signal, nil, &current)
        #if os(Linux)
            let handler = current.__sigaction_handler.sa_handler
        #else
            let handler = current.__sigaction_u.__sa_handler
        #endif
        let address = { (h: (@convention(c) (Int32) -> Void)?) in h.map { unsafeBitCast($0, to: Int.self) } }
        return address(handler) == address(SIG_IGN)
    }
}
