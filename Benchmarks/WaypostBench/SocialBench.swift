import AsyncHTTPClient
import Foundation
import SimulatedTime
import SocialAPI
import SocialEmulator

/// Signed request throughput: the project's Twitter client against the in-process emulator on
/// loopback, `reverse_geocode` + `statuses/update` pairs, at several concurrencies.
enum SocialBench {
    struct Figures {
        var concurrency: Int
        var requestsPerSecond: Double
        var p50: Double
        var p99: Double
        var failures: Int
    }

    /// Signed pairs per concurrency, the median of `runs` runs (this machine's speed wanders between
    /// runs); `wrk` and the bare client on the cheapest endpoint as ceilings.
    static func run(root: URL, seconds: Double, runs: Int, concurrencies: [Int]) async throws -> (
        figures: [Figures], wrk: Double?, bareClient: Figures
    ) {
        let (core, running, http, twitter) = try await startEmulator(
            root: root, connections: max(concurrencies.max() ?? 1, 8))
        var figures: [Figures] = []
        for concurrency in concurrencies {
            var samples: [Figures] = []
            for run in 0..<max(1, runs) {
                await core.reset()
                samples.append(
                    await measure(concurrency: concurrency, seconds: seconds) { worker, n in
                        if n.isMultiple(of: 2) {
                            _ = try await twitter.reverseGeocode(
                                latitude: 37.3236, longitude: -122.0315, granularity: "poi")
                        } else {
                            _ = try await twitter.updateStatus(
                                "bench \(run) \(worker) \(n)", placeID: "e1a2b3c4d5e6f701")
                        }
                    })
            }
            samples.sort { $0.requestsPerSecond < $1.requestsPerSecond }
            figures.append(samples[samples.count / 2])
        }
        let cheapest = running.baseURL.appendingPathComponent("__waypost/faults")
        let transport = AsyncHTTPClientTransport(client: http)
        let bare = await measure(concurrency: 16, seconds: seconds) { _, _ in
            _ = try await transport.send(HTTPRequestSpec(method: "GET", url: cheapest))
        }
        let wrk = ceiling(url: cheapest, seconds: seconds)
        try await http.shutdown()
        await running.stop()
        return (figures, wrk, bare)
    }

    /// The emulator without rate or daily limits on loopback, and a signed demo Twitter client
    /// allowed `connections` connections to it. Shut down the client and stop the server after.
    static func startEmulator(root: URL, connections: Int) async throws -> (
        EmulatorCore, EmulatorServer.Running, HTTPClient, TwitterClient
    ) {
        let core = try unlimitedEmulator(root: root)
        let running = try await EmulatorServer(core: core).start(port: 0)
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.connectionPool = .init(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        let twitter = TwitterClient(
            baseURL: running.twitterBaseURL, credentials: demoCredentials,
            transport: AsyncHTTPClientTransport(client: http))
        return (core, running, http, twitter)
    }

    /// The emulator of the shipped places without rate or daily limits.
    static func unlimitedEmulator(root: URL) throws -> EmulatorCore {
        var configuration = EmulatorConfiguration.demo
        configuration.geoRateLimit = .max
        configuration.statusUpdateLimit = .max
        return EmulatorCore(fixtures: try EmulatorFixtures.shipped(root: root), configuration: configuration)
    }

    /// The demo account the emulator knows.
    static let demoCredentials = OAuth1Credentials(
        consumerKey: "waypost-demo-consumer", consumerSecret: "waypost-demo-consumer-secret",
        token: "1001-waypost-demo-token", tokenSecret: "waypost-demo-token-secret")

    /// Runs `request` in `concurrency` workers until the deadline, `n` counting each worker's requests.
    static func measure(
        concurrency: Int, seconds: Double, request: @escaping @Sendable (_ worker: Int, _ n: Int) async throws -> Void
    ) async -> Figures {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        let results = await withTaskGroup(of: ([Double], Int).self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    var latencies: [Double] = []
                    var failures = 0
                    var n = 0
                    while ContinuousClock.now < deadline {
                        n += 1
                        let start = ContinuousClock.now
                        do { try await request(worker, n) } catch { failures += 1 }
                        latencies.append((ContinuousClock.now - start).inSeconds)
                    }
                    return (latencies, failures)
                }
            }
            var all: [Double] = []
            var failures = 0
            for await (latencies, failed) in group {
                all += latencies
                failures += failed
            }
            return (all.sorted(), failures)
        }
        let latencies = results.0
        func percentile(_ p: Double) -> Double {
            latencies.isEmpty ? .nan : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
        }
        return Figures(
            concurrency: concurrency, requestsPerSecond: Double(latencies.count) / seconds, p50: percentile(0.5),
            p99: percentile(0.99), failures: results.1)
    }

    /// `wrk -t2 -c16` against `url`: requests per second, or nil without wrk.
    static func ceiling(url: URL, seconds: Double) -> Double? {
        guard let wrk = tool("wrk") else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: wrk)
        process.arguments = ["-t2", "-c16", "-d\(Int(seconds.rounded(.up)))s", url.absoluteString]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let line = output.split(separator: "\n").first { $0.hasPrefix("Requests/sec:") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }
    }
}

extension SocialBench {
    /// The in-memory path's cost per signed request (issue 41): `pairs` reverse_geocode +
    /// statuses/update pairs, one at a time, through ``EmulatorTransport`` — signing, the
    /// emulator's verification, routes and journal, and the client's decoding, without a socket.
    static func inMemory(root: URL, pairs: Int) async throws -> Double {
        let twitter = TwitterClient(
            baseURL: EmulatorTransport.twitterBaseURL, credentials: demoCredentials,
            transport: EmulatorTransport(core: try unlimitedEmulator(root: root)))
        let start = ContinuousClock.now
        for n in 0..<pairs {
            _ = try await twitter.reverseGeocode(latitude: 37.3236, longitude: -122.0315, granularity: "poi")
            _ = try await twitter.updateStatus("bench \(n)", placeID: "e1a2b3c4d5e6f701")
        }
        return (ContinuousClock.now - start).inSeconds
    }
}
