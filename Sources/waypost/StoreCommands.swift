import ArgumentParser
import CheckinEngine
import ConfigFiles
import Foundation
import LocationEvents
import SimulatedTime
import Store
import WaypostSupport

/// `waypost audit [RUN]`: which posts carried location, at what precision, and why.
struct Audit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show, post by post, whether and how each post carried location, and every gate's verdict.",
        discussion: """
            Examples:
              waypost audit                       # the latest run
              waypost audit sunnyvale-commute.kml --format csv
              waypost audit --carries-location --format json
            """
    )

    @Argument(help: ArgumentHelp("The run's name (default: the latest run).", valueName: "run"))
    var runName: String?

    @OptionGroup var storage: ExistingStoreOptions

    @Option(help: "table, json or csv.")
    var format: AuditReport.Format = .table

    @Flag(help: "Only the posts that carried location.")
    var carriesLocation = false

    func run() throws {
        try reportingFailures {
            let (store, record) = try storage.openRun(named: runName)
            var records = try store.auditRecords(run: record.id).map { data in
                do {
                    return try AuditRecord(stored: data)
                } catch {
                    throw CommandFailure(
                        .dataError, "\(storage.db): an audit record of run '\(record.name)' is unreadable")
                }
            }
            if carriesLocation { records = records.filter(\.carriesLocation) }
            print(
                AuditReport(run: record.name, records: records, finished: record.finishedAt != nil).render(format),
                terminator: "")
        }
    }
}

/// `waypost outbox list|flush`: the posts waiting to be sent.
struct Outbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the outbox, or send what it holds.",
        discussion: """
            Examples:
              waypost outbox list
              waypost outbox list --state pending
            """,
        subcommands: [List.self, Flush.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List posts in the outbox, oldest first.",
            discussion: """
                A post that ended unsent after an answer was lost, whose fate could not be learnt, is \
                listed inDoubt, as its audit says: it may be on the network. The outbox keeps it as \
                failed (or expired), and flush does not send it again.
                """)

        @OptionGroup var storage: ExistingStoreOptions

        @Option(help: "Only posts in this state: pending, sending, sent, failed, expired, inDoubt (repeatable).")
        var state: [ListedState] = []

        func run() throws {
            try reportingFailures {
                let store = try storage.openForReading()
                let stored = state.isEmpty ? nil : Set(state.flatMap(\.stored))
                let entries = try ListedState.of(try store.outbox(states: stored), in: store)
                    .filter { state.isEmpty || state.contains($0.state) }
                if entries.isEmpty {
                    let asked = state.map(\.rawValue).joined(separator: " or ")
                    return print(state.isEmpty ? "The outbox is empty." : "No post in the outbox is \(asked).")
                }
                for (e, listed) in entries {
                    var line = "\(e.id)  \(listed.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))"
                    line += "  \(DisplayEscaping.escape(e.network).padding(toLength: 8, withPad: " ", startingAt: 0))"
                    if let server = e.server { line += "  to \(DisplayEscaping.escape(server))" }
                    line +=
                        "  created \(XSDDateTime.format(e.createdAt.secondsSince1970, fractionDigits: 0))  attempts \(e.attempts)"
                    if e.state == .pending {
                        line += "  due \(XSDDateTime.format(e.notBefore.secondsSince1970, fractionDigits: 0))"
                    }
                    if e.state == .sending, let owner = e.claimedBy, let until = e.leaseUntil {
                        let pid = OutboxLease.processID(of: owner) ?? "?"
                        line +=
                            "  claimed by process \(pid) until \(XSDDateTime.format(until.secondsSince1970, fractionDigits: 0))"
                    }
                    if let id = e.remoteID { line += "  id \(DisplayEscaping.escape(id))" }
                    // The last error quotes the server's answer.
                    if let error = e.lastError { line += "  (\(DisplayEscaping.escape(error)))" }
                    print(line + "  " + DisplayEscaping.escape(e.key))
                }
            }
        }
    }

    /// A post's state as `outbox list` shows it: the outbox's, except that a post which ended
    /// unsent after an answer was lost is `inDoubt`, as its audit says — "failed" read as "not on
    /// the network" for a post that may be there.
    enum ListedState: String, CaseIterable, ExpressibleByArgument {
        case pending, sending, sent, failed, expired, inDoubt

        /// The outbox states a post in this state is kept in.
        var stored: [OutboxState] {
            switch self {
            case .pending: [.pending]
            case .sending: [.sending]
            case .sent: [.sent]
            case .failed: [.failed]
            case .expired: [.expired]
            case .inDoubt: [.failed, .expired]
            }
        }

        /// Each entry with its listed state: a post that failed or expired takes its audit's word.
        static func of(_ entries: [OutboxEntry], in store: Store) throws(StoreError) -> [(
            entry: OutboxEntry, state: Self
        )] {
            var inDoubt: Set<String> = []
            let runs = Set(entries.filter { $0.state == .failed || $0.state == .expired }.map(\.run))
            for run in runs.sorted() {
                for data in try store.auditRecords(run: run) {
                    if let record = try? AuditRecord(stored: data), record.decision == .inDoubt {
                        inDoubt.insert(record.key)
                    }
                }
            }
            return entries.map { entry in
                let ended = entry.state == .failed || entry.state == .expired
                let listed: Self =
                    ended && inDoubt.contains(entry.key) ? .inDoubt : Self(rawValue: entry.state.rawValue) ?? .failed
                return (entry: entry, state: listed)
            }
        }
    }

    struct Flush: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send the pending posts now (on the wall clock: stale posts expire).",
            discussion: """
                Other processes may deliver from the same store at the same time: a post another live \
                process has claimed is left to it. A post whose sender stopped mid-request (its lease \
                ran out, or its process is gone) is looked for on the network first and sent again only \
                if it is not there, so nothing is posted twice.

                A post goes to the server it was queued for — the base URL its run was given, or the \
                in-process emulator — and to no other: posts queued for other servers stay queued, \
                and the flush names the base URL that sends them.

                Exit codes: 0 nothing is left pending, 64 the outbox holds posts for a network whose \
                base URL was not given beside the other's, 69 posts are still pending at the end (the \
                server was unreachable, kept failing past --max-wait, refused the credentials, or \
                they are queued for another server).

                Examples:
                  waypost outbox flush                # to the in-process emulator
                  waypost outbox flush --max-wait 5
                """
        )

        @OptionGroup var storage: ExistingStoreOptions
        @OptionGroup var network: NetworkOptions

        @Option(parsing: .unconditional, help: "Seed for the retry jitter.", transform: OptionRange.seed)
        var seed: UInt64 = 0

        /// One line per server that pending posts not sent here are queued for, with the options
        /// that send them: a post queued for a real server is never sent to the emulator, nor the
        /// other way round.
        static func otherServers(_ entries: [OutboxEntry]) -> [String] {
            let groups = Dictionary(grouping: entries) { [$0.network, $0.server ?? ""] }
            return groups.keys.sorted { $0.lexicographicallyPrecedes($1) }.map { key in
                let (network, server, count) = (key[0], key[1], groups[key]?.count ?? 0)
                let posts = "\(count) \(DisplayEscaping.escape(network)) \(count == 1 ? "post is" : "posts are")"
                guard !server.isEmpty else {
                    return "\(posts) queued for the in-process emulator: `waypost outbox flush` without "
                        + "base URLs sends \(count == 1 ? "it" : "them")"
                }
                let flag = NetworkOptions.baseURLFlag(for: Network(rawValue: network) ?? .twitter)
                return "\(posts) queued for \(DisplayEscaping.escape(server)): \(flag) "
                    + "\(DisplayEscaping.escape(server)) sends \(count == 1 ? "it" : "them")"
            }
        }

        func run() async throws {
            try await reportingFailures {
                let store = try storage.open()
                let credentials = try network.serverCredentials()
                if let credentials { try network.requireCredentials(credentials) }
                let unsent = try store.outbox(states: [.pending, .sending])
                for network in Network.allCases {
                    let count = unsent.filter { $0.network == network.rawValue }.count
                    if count > 0 {
                        try self.network.requireServer(
                            for: network, "the outbox holds \(count) \(count == 1 ? "post" : "posts") to send")
                    }
                }
                let clock = WallClock()
                let (clients, emulator) = try await network.connect(clock: clock, seed: seed, credentials: credentials)
                let delivery = OutboxDelivery(
                    store: store, clients: clients, clock: clock, retry: RetryPolicy(seed: seed))
                let records: [AuditRecord]
                do {
                    records = try await delivery.drain(maxWait: .seconds(network.maxWait))
                } catch {
                    await emulator?.stop()
                    throw error
                }
                await emulator?.stop()
                for record in CheckinEngine.latest(records) {
                    print(PostEventFormat.text(record.postEvent(at: clock.now)))
                }
                let pending = try store.outbox(states: [.pending])
                // A post another live process is sending is neither pending nor done: said, so
                // "0 pending" does not read as "all sent".
                let elsewhere = try store.outbox(states: [.sending]).count
                print(
                    "\(records.isEmpty ? "Nothing was due." : "Done.") \(pending.count) posts still pending."
                        + (elsewhere == 0
                            ? "" : " \(elsewhere) being sent by another process (`waypost outbox list` shows whose)."))
                let waiting = pending.filter { $0.isAddressed(to: delivery.servers) }
                let addressedElsewhere = pending.filter { !$0.isAddressed(to: delivery.servers) }
                for line in Self.otherServers(addressedElsewhere) { print(line) }
                // A flush that leaves posts unsent did not do its job: a cron job or CI step must
                // tell "delivered" from "the server is down" (a black-box hunt: both were 0).
                let refused = delivery.credentialsRefused.sorted { $0.key < $1.key }
                if !refused.isEmpty {
                    let reasons = refused.map { network, refusal in
                        let count = waiting.filter { $0.network == network.rawValue }.count
                        return "\(count) \(network.rawValue) \(count == 1 ? "post stays" : "posts stay") queued: "
                            + "the server refused the credentials (\(DisplayEscaping.escape(refusal)))"
                    }
                    throw CommandFailure(
                        .unavailable,
                        reasons.joined(separator: "; ") + "; mend them (--credentials or WAYPOST_*) and flush again")
                }
                if !waiting.isEmpty {
                    throw CommandFailure(
                        .unavailable,
                        "\(waiting.count) \(waiting.count == 1 ? "post" : "posts") could not be sent within "
                            + "--max-wait: queued for the next flush (`waypost outbox list` says why)")
                }
                if !addressedElsewhere.isEmpty {
                    throw CommandFailure(
                        .unavailable,
                        "\(addressedElsewhere.count) \(addressedElsewhere.count == 1 ? "post is" : "posts are") "
                            + "queued for other servers (above) and stay queued for a flush to them")
                }
            }
        }
    }
}

/// `waypost history purge|retention`: the user's right to destroy past location records.
struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Destroy stored location history, or set how long it is kept.",
        subcommands: [Purge.self, Retention.self]
    )

    /// Whether `text` is an age with its unit (7d, 12h, 30m, 45s). A bare number — seconds in a
    /// rules file — is refused: `retention 7`, read as 7 s, deleted every fix (a black-box hunt).
    static func isAge(_ text: String, of option: String) throws -> Bool {
        guard ConfigNode.duration(text) != nil else { return false }
        guard let unit = text.trimmingCharacters(in: .whitespaces).last, unit.isLetter else {
            throw CommandFailure(
                .usage, "\(option) '\(text)' has no unit: write \(text)d, \(text)h, \(text)m or \(text)s")
        }
        return true
    }

    struct Purge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete location history (all, or before a time), and where each post found the device.",
            discussion: """
                Deletes fixes, events, monitor records and privacy zones, and makes every settled \
                post from that time forget where the device was; what went out on the wire stays \
                in the audit. A queued post keeps its position until it is sent or expires.

                Examples:
                  waypost history purge                              # everything
                  waypost history purge --before 2025-06-01T00:00:00Z
                  waypost history purge --before 7d                  # older than a week
                """
        )

        @OptionGroup var storage: ExistingStoreOptions

        @Option(parsing: .unconditional, help: "An ISO-8601 time, or an age such as 7d, 12h, 30m.")
        var before: String?

        func run() throws {
            try reportingFailures {
                var cutoff: Double?
                if let before {
                    if let time = XSDDateTime.parse(before) {
                        cutoff = time
                    } else if try History.isAge(before, of: "--before") {
                        cutoff = Date().timeIntervalSince1970 - (try OptionRange.duration("--before", before)).seconds
                    } else {
                        throw CommandFailure(
                            .usage, "--before '\(before)' is neither an ISO-8601 time nor an age like 7d")
                    }
                }
                let purged = try storage.open().purgeLocations(
                    before: cutoff.map { EpochInstant(secondsSince1970: $0) },
                    forgettingPostPositions: AuditRecord.forgettingPosition)
                print("Deleted \(purged.records) location records; \(purged.forgotten).")
            }
        }
    }

    struct Retention: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show or set how long location fixes are kept (applied now and at every replay).",
            discussion: """
                A fix's age is measured from its own time on the route, not from when it was \
                recorded: a route from last year replayed a minute ago is a year old. A run recorded \
                within the period is kept until the period has passed since it was recorded; setting \
                a period its route times are older than is refused unless --force is given, which \
                deletes its older fixes at once.

                Examples:
                  waypost history retention           # show
                  waypost history retention 7d
                  waypost history retention off       # keep until purged
                """
        )

        @OptionGroup var storage: ExistingStoreOptions

        @Argument(help: "An age such as 7d or 12h, or off.")
        var period: String?

        @Flag(help: "Delete the fixes of runs recorded within the period too (see above).")
        var force = false

        func run() throws {
            try reportingFailures {
                var maximumAge: Seconds?
                if let period, period != "off" {
                    guard try History.isAge(period, of: "retention") else {
                        throw CommandFailure(.usage, "'\(period)' is not an age such as 7d, 12h or 30m, nor off")
                    }
                    maximumAge = try OptionRange.duration("retention", period, allowingZero: false)
                }
                let store = try storage.open()
                let now = WallClock().now
                if let maximumAge, !force {
                    // A fix's age is measured from when it happened on its route: a route from
                    // last year, replayed a minute ago, is all older than a week.
                    let cutoff = now.advanced(bySeconds: -maximumAge.seconds)
                    let recent = try store.runsRecorded(since: cutoff).filter {
                        try store.locationCount(run: $0.id, before: cutoff) > 0
                    }
                    if let run = recent.first {
                        throw CommandFailure(
                            .usage,
                            "retention \(period ?? "") would delete fixes of run '\(DisplayEscaping.escape(run.name))', "
                                + "recorded \(XSDDateTime.format(run.startedAt.secondsSince1970, fractionDigits: 0)), whose route times "
                                + "are older than that; nothing was changed (--force deletes them)")
                    }
                }
                if let period { try store.setRetention(period == "off" ? nil : maximumAge?.duration) }
                let purged = try store.applyRetention(
                    now: now, sparingNone: force && period != nil,
                    forgettingPostPositions: AuditRecord.forgettingPosition)
                if let kept = try store.retention() {
                    print(
                        // The count is of every record deleted (fixes, events, monitor records), as
                        // `history purge` says it: calling them all fixes overstated the fixes.
                        "Location fixes are kept for \(ConfigNode.describe(Seconds(kept))); "
                            + "\(purged.records) older location records deleted; \(purged.forgotten)."
                    )
                } else {
                    print("Location fixes are kept until purged.")
                }
            }
        }
    }
}

extension PurgeCount {
    /// What a purge did to the audit, in words: the device's positions go, what was sent stays.
    fileprivate var forgotten: String {
        "\(posts) audited \(posts == 1 ? "post" : "posts") no longer say where the device was "
            + "(what went out on the wire stays in the audit)"
    }
}
