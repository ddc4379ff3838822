import CheckinEngine
import Foundation
import SimulatedTime
import Store

/// Everything recorded about one run, read once from the store: what every report draws.
public struct RunSnapshot: Sendable {
    public var run: RunRecord
    public var regions: [RegionRecord]
    /// The privacy zones of the run's profile.
    public var zones: [ZoneRecord]
    /// Fixes in time order (all devices).
    public let fixes: [LocationRecord]
    /// Each device's fixes, as indices into ``fixes``, devices in order of first appearance:
    /// grouped once, as a run of 10,000 devices and a million fixes cannot be scanned per device.
    private let byDevice: [(device: String?, fixes: [Int])]
    private let deviceSlots: [String?: Int]
    public var events: [EventRecord]
    /// The audit: one record per post.
    public var posts: [AuditRecord]
    /// For the exact run of a trials run (`waypost test --trials --db`): per expectation, when
    /// its event or post came across the trials.
    public var trials: [TrialDistribution] = []

    public init(
        run: RunRecord, regions: [RegionRecord], zones: [ZoneRecord] = [], fixes: [LocationRecord],
        events: [EventRecord], posts: [AuditRecord]
    ) {
        self.run = run
        self.regions = regions
        self.zones = zones
        self.fixes = fixes
        var slots: [String?: Int] = [:]
        var groups: [(device: String?, fixes: [Int])] = []
        for (index, fix) in fixes.enumerated() {
            if let slot = slots[fix.device] {
                groups[slot].fixes.append(index)
            } else {
                slots[fix.device] = groups.count
                groups.append((fix.device, [index]))
            }
        }
        byDevice = groups
        deviceSlots = slots
        self.events = events
        self.posts = posts
    }

    /// Reads a run; fails on an unreadable audit record rather than drawing less than happened.
    public static func load(from store: Store, run: RunRecord) throws -> RunSnapshot {
        var snapshot = RunSnapshot(
            run: run, regions: try store.regions(run: run.id), zones: try store.zones(run: run.id),
            fixes: try store.locations(run: run.id),
            events: try store.events(run: run.id),
            posts: try store.auditRecords(run: run.id).map(AuditRecord.init(stored:)))
        snapshot.trials = try store.trialDistributions(run: run.id)
        return snapshot
    }

    /// The posts the privacy zone named `zone` kept from locating the user.
    public func posts(blockedBy zone: String) -> [AuditRecord] {
        posts.filter { post in
            post.gates.contains {
                $0.gate == .privacyZone && !$0.passed && $0.reason == PrivacyZone.blockedReason(zone: zone)
            }
        }
    }

    /// First and last recorded instants (virtual time), nil for an empty run.
    public var span: ClosedRange<EpochInstant>? {
        let times = fixes.map(\.time) + events.map(\.time) + posts.map(\.time)
        guard let low = times.min(), let high = times.max() else { return nil }
        return low...high
    }

    /// The devices' names in order of first appearance (nil: the single unnamed device).
    public var devices: [String?] { byDevice.map(\.device) }

    /// A device's fixes in time order.
    public func fixes(of device: String?) -> [LocationRecord] {
        (deviceSlots[device].map { byDevice[$0].fixes } ?? []).map { fixes[$0] }
    }

    /// A device's route as stretches of fixes; a new stretch starts where the device lost its
    /// signal (a `locationUnknown` error between two fixes, however short the loss) or after a
    /// gap longer than `gap` (a tunnel, a stop of the service).
    public func stretches(of device: String?, gap: Seconds = Seconds(60)) -> [[LocationRecord]] {
        let losses = events.filter { $0.device == device && $0.type == "error" && $0.detail == "locationUnknown" }
            .map(\.time).sorted()
        var nextLoss = 0
        var out: [[LocationRecord]] = []
        for fix in fixes(of: device) {
            var lost = false
            while nextLoss < losses.count && losses[nextLoss] < fix.time {
                lost = lost || out.last?.last.map { losses[nextLoss] >= $0.time } ?? false
                nextLoss += 1
            }
            if let last = out.last?.last, !lost, last.time.seconds(to: fix.time) <= gap.seconds {
                out[out.count - 1].append(fix)
            } else {
                out.append([fix])
            }
        }
        return out
    }
}
