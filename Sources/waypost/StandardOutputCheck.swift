// The C library's `stdout` and `stderr` are mutable globals, which Swift 6 refuses to name; read
// once at exit, by the only code that runs then.
#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    @preconcurrency import Darwin
#endif

/// What `print` wrote to standard output — the audit, the outbox, `--version`, help — checked as
/// the process ends, as GNU tools do (gnulib's `close_stdout`): a write that failed (a full disk,
/// a closed descriptor) turns the exit status into 74 with one line, where it was lost behind a
/// success. ``BufferedOutput`` reports its own failures before this runs; a reader gone from a
/// pipe still stops the tool by SIGPIPE, as it stops `cat`.
enum StandardOutputCheck {
    static func atExit() {
        atexit {
            guard fflush(stdout) != 0 || ferror(stdout) != 0 else { return }
            let reason = errno == 0 ? "write error" : String(cString: strerror(errno)).lowercased()
            fputs("waypost: error: standard output: cannot write (\(reason))\n", stderr)
            _exit(SysExit.ioError.rawValue)
        }
    }
}
