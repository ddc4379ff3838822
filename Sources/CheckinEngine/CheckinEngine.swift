import Foundation
import Geo
import LocationEvents
import SimulatedTime
import SocialAPI
import Store
import WaypostSupport

/// Turns location events into check-ins: each rule that matches an event makes one post per
/// network; each post passes the privacy gates (DESIGN.md's order, every verdict recorded), is
/// written to the durable outbox before anything is sent, and is delivered through
/// ``OutboxDelivery``. What it returns is the audit of every post whose state changed.
///
/// ```swift
/// let engine = CheckinEngine(rules: rules, profile: profile, store: store, run: run, delivery: delivery)
/// for event in events { print(try await engine.handle(event)) }
/// print(try await engine.finish(maxWait: nil))
/// ```
///
/// Posts are keyed by run name, rule, network, trigger, region, device and event time, so a run
/// replayed again after a crash writes each post once and delivers the ones still owed.
public final class CheckinEngine {
    public let rules: [CheckinRule]
    public let profile: PrivacyProfile
    public let run: RunRecord
    private let store: any CheckinStore
    /// nil: a dry run, which evaluates the gates and sends nothing.
    private let delivery: OutboxDelivery?
    /// Whether location fixes and events go to the history.
    private let keepsHistory: Bool

    /// Per device (nil: a single-device run).
    private var authorization: [String?: AuthorizationStatus] = [:]
    /// Each device's app state; an app is in the foreground until an event says otherwise.
    private var appState: [String?: AppState] = [:]
    private var lastAccuracy = 65.0
    /// Each device's latest fix inside a privacy zone, and when: where the app itself believed it
    /// was, which keeps a post from locating it there for ``fixWindow`` after.
    private var fixInZone: [String?: (coordinate: Coordinate, time: EpochInstant)] = [:]
    /// How long the app's fix inside a zone holds its posts back: a minute (a phone's fixes come
    /// every second or few while it moves; a post a minute after it left the zone may wait).
    static let fixWindow = 60.0
    private var gates: GateEvaluator
    /// The profile's privacy zones as each post carries them, for its place lookup (nil: none).
    private let zones: [PrivacyZone]?
    private var history: [LocationRecord] = []
    private var events: [EventRecord] = []
    /// The posts and records this run wrote; shared with the delivery, which writes them too.
    private let written: WrittenValues
    /// The store, when it keeps posts as values (a run nobody keeps).
    private let values: (any PostValueStore)?

    /// - Parameter twitterAPI: which API tweets go through (its precision rule applies at
    ///   intent); nil: the delivery's clients say, v1.1 for a dry run.
    public init(
        rules: [CheckinRule], profile: PrivacyProfile, store: any CheckinStore, run: RunRecord,
        delivery: OutboxDelivery?, keepsHistory: Bool = true, twitterAPI: TwitterAPIVersion? = nil
    ) {
        self.rules = rules
        self.profile = profile
        self.store = store
        self.run = run
        self.delivery = delivery
        // A resumed run's earlier posts wait until this pass has decided them again.
        if let delivery { delivery.holding = (run.id, delivery.clock.now) }
        self.keepsHistory = keepsHistory
        written = delivery?.written ?? WrittenValues()
        values = store as? any PostValueStore
        gates = GateEvaluator(profile: profile, twitterAPI: twitterAPI ?? delivery?.clients.twitterAPI ?? .v1_1)
        zones = profile.zones.isEmpty ? nil : profile.zones
    }

    /// Feeds one event; returns the audit records of posts it created or moved on.
    public func handle(_ timed: TimedEvent) async throws(StoreError) -> [AuditRecord] {
        guard let work = try take(timed) else { return [] }
        return try await complete(work)
    }

    /// What an event leaves to do once ``take(_:)`` has taken it: a delivery pass, after the
    /// posts it created when there are any.
    package enum PendingWork {
        case delivery
        case posts([AuditRecord])
    }

    /// ``handle(_:)``'s part that never waits: the event is taken (history, fix, app state,
    /// the rules' posts written to the outbox); nil when that is all — the outbox has nothing
    /// due and nothing new. A run calls it for every event and awaits ``complete(_:)`` only for
    /// the rest (the `async` frames of every event were ~4 % of a field trial, perf).
    package func take(_ timed: TimedEvent) throws(StoreError) -> PendingWork? {
        let trigger: Trigger
        let position: Coordinate
        var region: String?
        // Where the region lies, when the event says (a beacon's condition does not).
        var regionCenter: Coordinate?
        if keepsHistory, !["location", "liveUpdate", "regionState"].contains(timed.event.type) {
            events.append(
                EventRecord(
                    time: timed.time, device: timed.device, type: timed.event.type,
                    region: timed.event.identifier, latitude: timed.event.coordinate?.latitude,
                    longitude: timed.event.coordinate?.longitude, detail: timed.event.detail))
        }
        switch timed.event {
        case .authorizationChanged(let status):
            authorization[timed.device] = status
            return nil
        case .appStateChanged(let state):
            appState[timed.device] = state
            return nil
        case .appLaunched:
            appState[timed.device] = .background
            return nil
        case .liveUpdate(let update):
            if let fix = update.location { try remember(fix, service: "liveUpdate", timed) }
            return pending(.delivery)
        case .locationUpdated(let fix, let service):
            try remember(fix, service: service == .standard ? "standard" : "significantChange", timed)
            guard service == .significantChange else { return pending(.delivery) }
            trigger = .significantChange
            position = fix.coordinate
        case .enteredRegion(let circle, let at):
            (trigger, position, region, regionCenter) = (.regionEnter, at, circle.identifier, circle.center)
        case .exitedRegion(let circle, let at):
            (trigger, position, region, regionCenter) = (.regionExit, at, circle.identifier, circle.center)
        case .visited(let visit):
            // A check-in belongs to the arrival; the departure of the same visit is not a new place.
            guard visit.isInProgress else { return nil }
            (trigger, position) = (.visit, visit.coordinate)
        case .monitorEvent(let event, let at):
            // A monitor's condition is a place as a region is: the same rules fire, whichever API
            // the app uses.
            guard let at, event.state == .satisfied || event.state == .unsatisfied else { return nil }
            (trigger, position, region) = (event.state == .satisfied ? .regionEnter : .regionExit, at, event.identifier)
            if case .circularGeographic(let circle) = event.condition { regionCenter = circle.center }
        case .accuracyAuthorizationChanged, .failed, .startedMonitoring, .determinedState, .monitoringFailed,
            .locationUpdatesPaused, .locationUpdatesResumed, .sessionDiagnostic:
            return nil
        }
        var changed: [AuditRecord] = []
        for rule in rules where rule.applies(to: trigger, region: region) {
            for network in rule.networks {
                if let record = try intend(
                    rule, network, trigger: trigger, region: region, regionCenter: regionCenter, position: position,
                    timed: timed)
                {
                    changed.append(record)
                }
            }
        }
        return pending(.posts(changed))
    }

    /// `work`, unless it is a delivery pass with nothing to deliver.
    private func pending(_ work: PendingWork) -> PendingWork? {
        if case .posts(let changed) = work, !changed.isEmpty { return work }
        return delivery?.isQuiet == false ? work : nil
    }

    /// Does what ``take(_:)`` left: the delivery pass, and the latest record of each post.
    package func complete(_ work: PendingWork) async throws(StoreError) -> [AuditRecord] {
        switch work {
        case .delivery: try await deliverDue()
        case .posts(let changed): Self.latest(changed + (try await deliverDue()))
        }
    }

    /// Keeps a delivered fix: its accuracy for the next post, and the run's location history.
    private func remember(_ fix: Location, service: String, _ timed: TimedEvent) throws(StoreError) {
        lastAccuracy = fix.horizontalAccuracy
        // Only a fix inside a zone is kept: keeping every device's latest fix was a fifth of a
        // 10,000-device crowd's time.
        if let zones, zones.contains(where: { $0.contains(fix.coordinate) }) {
            fixInZone[timed.device] = (fix.coordinate, timed.time)
        }
        guard keepsHistory else { return }
        history.append(
            LocationRecord(
                time: timed.time, device: timed.device, latitude: fix.coordinate.latitude,
                longitude: fix.coordinate.longitude, horizontalAccuracy: fix.horizontalAccuracy, service: service))
        if history.count >= 4_096 { try flushHistory() }
    }

    /// Records the places a report (`waypost report`) draws: the regions the run monitors and
    /// the privacy zones of its profile.
    public func recordPlaces(regions: [CircularRegion]) throws(StoreError) {
        try store.saveRegions(
            regions.map {
                RegionRecord(
                    identifier: $0.identifier, latitude: $0.center.latitude, longitude: $0.center.longitude,
                    radius: $0.radius)
            }, run: run.id)
        try store.saveZones(
            profile.zones.map {
                ZoneRecord(
                    name: $0.name, latitude: $0.center.latitude, longitude: $0.center.longitude, radius: $0.radius)
            }, run: run.id)
    }

    /// One record per post, its latest, in the order the posts first appear.
    public static func latest(_ records: [AuditRecord]) -> [AuditRecord] {
        var last: [String: AuditRecord] = [:]
        for record in records { last[record.key] = record }
        var seen: Set<String> = []
        return records.compactMap { seen.insert($0.key).inserted ? last[$0.key] : nil }
    }

    /// Ends the run: writes the remaining history and delivers what is owed, waiting up to
    /// `maxWait` of the delivery clock for retries (nil: until none is due).
    public func finish(maxWait: Duration?) async throws(StoreError) -> [AuditRecord] {
        try flushHistory()
        return Self.latest(settled(try await delivery?.drain(maxWait: maxWait) ?? []))
    }

    private func deliverDue() async throws(StoreError) -> [AuditRecord] {
        settled(try await delivery?.deliverDue() ?? [])
    }

    /// Delivery's outcomes, told to the gates: one that failed or expired is no check-in.
    private func settled(_ records: [AuditRecord]) -> [AuditRecord] {
        for record in records { gates.forgetCheckin(record) }
        return records
    }

    private func flushHistory() throws(StoreError) {
        try store.appendLocations(history, run: run.id)
        try store.appendEvents(events, run: run.id)
        history.removeAll(keepingCapacity: true)
        events.removeAll(keepingCapacity: true)
    }

    // MARK: - Gates

    /// Makes one post: gates, then the outbox (or, when blocked or dry, only the audit).
    private func intend(
        _ rule: CheckinRule, _ network: Network, trigger: Trigger, region: String?, regionCenter: Coordinate?,
        position: Coordinate, timed: TimedEvent
    ) throws(StoreError) -> AuditRecord? {
        let key = [
            run.name, rule.id, network.rawValue, trigger.rawValue, region ?? "-", timed.device ?? "-",
            FixedPoint.printf(timed.time.secondsSince1970, digits: 3),
        ].joined(separator: "|")
        let (gates, precision, audience) = self.gates.evaluate(
            rule, network, trigger: trigger, region: region, position: position,
            fix: fixInZone[timed.device].flatMap {
                $0.time.seconds(to: timed.time) <= Self.fixWindow ? $0.coordinate : nil
            },
            time: timed.time,
            authorization: authorization[timed.device] ?? .notDetermined,
            appState: appState[timed.device] ?? .foreground)
        var intent = PostIntent(
            network: network, rule: rule.id, trigger: trigger, region: region, device: timed.device, time: timed.time,
            latitude: position.latitude, longitude: position.longitude, horizontalAccuracy: lastAccuracy,
            precision: precision, place: rule.place, searchRadius: rule.searchRadius, template: rule.message,
            legacyLength: rule.legacyLength, maxAge: min(rule.maxAge, profile.maxAge).inSeconds, gates: gates,
            audienceCap: audience, zones: zones)
        intent.regionZone = intent.zone(containing: regionCenter)
        let blocked = gates.first { !$0.passed }
        guard let delivery, blocked == nil else {
            var record = intent.audit(key: key, decision: blocked == nil ? .dryRun : .blocked, detail: blocked?.reason)
            if blocked == nil { record.detail = "dry run: nothing sent" }
            // A run resumed under stricter choices (opted out, a new zone) finds the post an
            // earlier pass queued: still pending, it is withdrawn; sent or on its way, it keeps its
            // record. A dry run changes nothing that is queued.
            let withdrawing = blocked == nil ? nil : delivery?.clock.now
            if withdrawing != nil, let pending = try store.pendingPost(key: key),
                let earlier = try? written.intent(stored: pending.payload, key: key),
                let previous = try? AuditRecord(stored: pending.audit)
            {
                record = record.withdrawing(earlier, previous: previous)
            }
            // A value JSON cannot write takes the bytes' path, which refuses it.
            if let values, record.numbersAreFinite {
                return try values.saveAudit(record, run: run.id, withdrawingAt: withdrawing) ? record : nil
            }
            let audit = try stored(record)
            guard try store.saveAudit(key: key, run: run.id, record: audit, withdrawingAt: withdrawing) else {
                return nil
            }
            written.wrote(record, as: audit)
            return record
        }
        let record = intent.audit(key: key, decision: .queued)
        // Addressed to the server it is to go to: delivered there, and by no sender of another.
        let server = delivery.servers[network.rawValue]
        if let values, intent.numbersAreFinite && record.numbersAreFinite {
            return try values.enqueue(
                intent, key: key, run: run.id, server: server, createdAt: delivery.clock.now, audit: record)
                ? record : nil
        }
        let (payload, audit) = (try stored(intent), try stored(record))
        guard
            try store.enqueue(
                key: key, run: run.id, network: network.rawValue, server: server, createdAt: delivery.clock.now,
                payload: payload, audit: audit)
        else { return nil }
        written.wrote(intent, as: payload, key: key)
        written.wrote(record, as: audit)
        return record
    }

    /// This run's audit records, in the order the posts were first recorded: as the values
    /// handed over, or read from the store's JSON without decoding where this run wrote those
    /// bytes itself.
    public func auditRecords() throws -> [AuditRecord] {
        if let values { return try values.auditValues(run: run.id) }
        return try written.records(stored: store.auditRecords(run: run.id))
    }

    private func stored(_ value: some StoredJSON) throws(StoreError) -> Data {
        guard let data = value.storedJSON else {
            throw StoreError(path: store.path, message: "cannot encode a post: a number in it is not finite")
        }
        return data
    }
}
