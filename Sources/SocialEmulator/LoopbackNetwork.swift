import AsyncHTTPClient
import NIOCore
import NIOPosix
import SocialAPI

/// One NIO event loop that in-process emulators and the clients calling them share: a request
/// and its answer never cross between NIO threads, and the emulator handles the request on that
/// loop too (its server's tasks prefer the loop as their executor), not on Swift's global
/// executor with a hop there and back.
///
/// Runs side by side in a process (a scenario's trials) spread their emulators over one network
/// for each of NIO's loops (``oneForEachLoop()``). Measured on 1,000 trials of field-cafe-checkin
/// (farm-bench, 2 cores): all on one loop, handling on the global executor, as before, 11.1 s;
/// one network a loop, handling on the loop, 9.8 s (CPU −6 %). Either half alone gained nothing:
/// handling on one loop leaves that loop's thread the bottleneck.
///
/// The loops are NIO's shared group, which lives as long as the process: nothing started on them
/// can outlive them. (On a loop of its own, shut down after the last emulator stopped, about one
/// process in a hundred printed NIO's "Cannot schedule tasks on an EventLoop that has already shut
/// down": Hummingbird finishes a server's shutdown in a task of its own, which may end after the
/// server's run has returned.)
///
/// Call ``shutdown()`` once the emulators started on it have stopped.
public final class LoopbackNetwork: Sendable {
    let loop: any EventLoop
    /// Configured as the clients' default (``AsyncHTTPClientTransport/failingFast``) is, but
    /// for the loop and decompression: the emulator never compresses its answers.
    let client: HTTPClient

    private init(loop: any EventLoop) {
        self.loop = loop
        var configuration = AsyncHTTPClientTransport.failingFastConfiguration
        configuration.decompression = .disabled
        client = HTTPClient(eventLoopGroup: loop, configuration: configuration)
    }

    /// One network on each of NIO's shared loops (one per core).
    public static func oneForEachLoop() -> [LoopbackNetwork] {
        MultiThreadedEventLoopGroup.singleton.makeIterator().map { LoopbackNetwork(loop: $0) }
    }

    /// The process's network on the next of NIO's shared loops, for an emulator started without
    /// one. Never shut down, as `HTTPClient.shared` is not: an emulator's clients outlive its
    /// stop in the values that hold them, and a client let go before its shutdown traps.
    static func sharedOnNextLoop() -> LoopbackNetwork {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        return shared.first { $0.loop === loop } ?? shared[0]
    }

    private static let shared = oneForEachLoop()

    /// A task running `operation` on ``loop`` — its child tasks and the default actors it calls
    /// too — where Swift has task executors (macOS 15, iOS 18, Linux); before, on Swift's global
    /// executor, as an emulator without a network. (Waypost declares macOS 14 and iOS 17.)
    func task(_ operation: @escaping @Sendable () async throws -> Void) -> Task<Void, any Error> {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return Task(executorPreference: EventLoopExecutor(loop), operation: operation)
        }
        return Task(operation: operation)
    }

    /// Closes the clients' connections; the loop goes on for the rest of the process.
    public func shutdown() async {
        try? await client.shutdown()
    }
}

/// Runs jobs on one NIO event loop: a task that prefers it (`Task(executorPreference:)`) runs
/// there, and so do its child tasks and the default actors it calls.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class EventLoopExecutor: TaskExecutor {
    private let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }
}
