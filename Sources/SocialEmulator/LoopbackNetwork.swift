import AsyncHTTPClient
import NIOCore
import NIOPosix

/// One NIO event loop that in-process emulators and the clients calling them share: a request
/// and its answer never cross between NIO threads. Runs one after another in a process (a
/// scenario's trials) spend less CPU on their requests this way than on NIO's shared loops, one
/// per core (−8 % for 200 trials of field-cafe-checkin with all of the process's NIO work on one
/// loop, farm-bench, 2 cores).
///
/// Call ``shutdown()`` once the emulators started on it have stopped.
public final class LoopbackNetwork: Sendable {
    let group: MultiThreadedEventLoopGroup
    /// Configured as `HTTPClient.shared` is, but for the loop and decompression: the emulator
    /// never compresses its answers.
    let client: HTTPClient

    public init() {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.decompression = .disabled
        client = HTTPClient(eventLoopGroup: group, configuration: configuration)
    }

    public func shutdown() async {
        try? await client.shutdown()
        try? await group.shutdownGracefully()
    }
}
