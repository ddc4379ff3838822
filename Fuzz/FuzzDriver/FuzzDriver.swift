#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// libFuzzer's entry point for a driver linked without its own `main` (libclang_rt.fuzzer_no_main):
/// it parses libFuzzer's flags and calls `test` with each input.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// One fuzz input's handler: must not capture anything (libFuzzer calls it as a C function).
public typealias FuzzTest = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// Runs libFuzzer with the process's arguments (`-max_total_time=60 corpus/`, …) and exits with
/// its status: 0 when the budget ran out with no crash.
public func runFuzzer(_ test: FuzzTest) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, test))
}

/// The input as a byte buffer (empty for a null pointer).
public func input(_ data: UnsafePointer<UInt8>?, _ count: Int) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: data, count: data == nil ? 0 : count)
}
