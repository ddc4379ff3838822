import CheckinEngine
import Foundation
import LocationSimulation
import SocialEmulator
import Store

/// `waypost replay --checkins`: the simulation's events through the check-in engine, with
/// `post` events interleaved in virtual-time order.
struct CheckinReplay {
    var simulation: Simulation
    var regions: [CircularRegion]
    /// The status the app had when the route started (the prompt is answered before it).
    var authorization: AuthorizationStatus
    var rules: [CheckinRule]
    var profile: PrivacyProfile
    var origin: Double
    var seed: UInt64
    var runName: String
    var track: String
    var dryRun: Bool
    var store: Store
    var network: NetworkOptions
    /// Read before the run began (``NetworkOptions/serverCredentials()``).
    var credentials: Credentials?

    func run(
        print: @escaping (TimedEvent) -> Void, output: BufferedOutput, format: EventStreamEncoder.Format
    ) async throws {
        try store.applyRetention(now: Date().timeIntervalSince1970)
        let run = try store.beginRun(name: runName, track: track, at: Date().timeIntervalSince1970, dryRun: dryRun)
        // Against the in-process emulator the whole run, retries included, is on virtual time.
        let virtual = network.external ? nil : VirtualDeliveryClock(start: origin)
        let clock: any DeliveryClock = virtual ?? WallDeliveryClock()
        var emulator: EmulatorServer.Running?
        var delivery: OutboxDelivery?
        if !dryRun {
            let (clients, running) = try await network.connect(clock: clock, seed: seed, credentials: credentials)
            emulator = running
            delivery = OutboxDelivery(store: store, clients: clients, clock: clock, retry: RetryPolicy(seed: seed))
        }
        let engine = CheckinEngine(
            rules: rules, profile: profile, store: store, run: run, delivery: delivery,
            twitterAPI: network.twitterAPI)
        func report(_ records: [AuditRecord], at time: Double) {
            for record in records {
                output.write(
                    (format == .jsonl
                        ? PostEventFormat.json(record, at: time) : PostEventFormat.text(record, at: time)) + "\n")
            }
        }
        do {
            try engine.recordPlaces(regions: regions)
            _ = try await engine.handle(TimedEvent(time: origin, event: .authorizationChanged(authorization)))
            for event in simulation.events() {
                print(event)
                virtual?.advance(to: event.time)
                report(try await engine.handle(event), at: virtual?.now ?? event.time)
            }
            report(try await engine.finish(maxWait: virtual == nil ? network.maxWait : .infinity), at: clock.now)
            output.flush()
            try store.finishRun(run.id, at: Date().timeIntervalSince1970)
        } catch {
            output.flush()
            await emulator?.stop()
            throw error
        }
        await emulator?.stop()
        let waiting = try store.outbox(states: [.pending, .sending], run: run.id).count
        if waiting > 0 {
            FileHandle.standardError.write(
                Data("waypost: \(waiting) posts still queued; `waypost outbox flush` sends them\n".utf8))
        }
    }
}
