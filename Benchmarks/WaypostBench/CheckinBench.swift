import AsyncHTTPClient
import CheckinEngine
import Foundation
import Geo
import LocationEvents
import LocationSimulation
import SimulatedTime
import SocialAPI
import SocialEmulator
import Store

/// End-to-end check-ins: region enter → gates → outbox (SQLite) → reverse_geocode → statuses/update
/// → settled with its audit, against the in-process emulator. Concurrency N = N devices, each with
/// its own engine and database file, at once.
enum CheckinBench {
    struct NothingPosted: Error, CustomStringConvertible {
        var device: String
        var description: String { "device \(device) posted no check-in: the engine refused every region entry" }
    }

    static func run(root: URL, seconds: Double, concurrencies: [Int]) async throws -> [(Int, Double)] {
        let (core, running, http, twitter) = try await SocialBench.startEmulator(
            root: root, connections: max(concurrencies.max() ?? 1, 8))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clients = SocialClients(twitter: twitter, facebook: nil)
        let region = CircularRegion(
            identifier: "stevens-creek-coffee-house", center: Coordinate(latitude: 37.3236, longitude: -122.0315),
            radius: 150)
        let rule = CheckinRule(
            id: "bench", triggers: [.regionEnter], networks: [.twitter], message: "Bench {place} {region}",
            precision: .place, consent: .auto, cooldown: .zero)
        var results: [(Int, Double)] = []
        for concurrency in concurrencies {
            await core.reset()
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for device in 0..<concurrency {
                    group.addTask {
                        let store = try Store(
                            path: directory.appendingPathComponent("c\(concurrency)-d\(device).db").path)
                        let run = try store.beginRun(name: "bench", track: "-", at: EpochInstant(secondsSince1970: 0))
                        let clock = WallClock()
                        let engine = CheckinEngine(
                            rules: [rule], profile: .permissive, store: store, run: run,
                            delivery: OutboxDelivery(store: store, clients: clients, clock: clock), keepsHistory: false)
                        _ = try await engine.handle(
                            TimedEvent(
                                time: clock.now, device: "d\(device)",
                                event: .authorizationChanged(.authorizedAlways)))
                        var done = 0
                        var time = clock.now
                        while ContinuousClock.now < deadline {
                            time = time.advanced(bySeconds: 0.001)
                            // A distinct region name: a distinct post key and tweet text (no 187 duplicate).
                            var here = region
                            here.identifier = "cafe-\(device)-\(done)"
                            let records = try await engine.handle(
                                TimedEvent(
                                    time: time, device: "d\(device)", event: .enteredRegion(here, at: here.center)))
                            done += records.filter { $0.decision == .posted }.count
                        }
                        // A bench that posts nothing measures nothing: say so rather than print 0/s.
                        guard done > 0 else { throw NothingPosted(device: "d\(device)") }
                        return done
                    }
                }
                return try await group.reduce(0, +)
            }
            results.append((concurrency, Double(counts) / seconds))
        }
        try await http.shutdown()
        await running.stop()
        return results
    }
}
