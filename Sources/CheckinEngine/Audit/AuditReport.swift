import Foundation
import WaypostSupport

/// `waypost audit`: per post, what carried location, at what precision, and why — as a table,
/// JSON or CSV — with counts per network and precision.
public struct AuditReport {
    public enum Format: String, Sendable, CaseIterable {
        case table, json, csv
    }

    public var run: String
    public var records: [AuditRecord]
    /// Whether the run finished: one cut short (Ctrl-C, a crash) or still being recorded holds
    /// only the posts made so far, and the audit says so.
    public var finished: Bool

    public init(run: String, records: [AuditRecord], finished: Bool = true) {
        self.run = run
        self.records = records
        self.finished = finished
    }

    /// What the header says of a run that did not finish.
    private static let unfinished = "the run did not finish (cut short, or still being recorded): posts so far"

    /// Posts that went out with location, per network and precision.
    public var summary: [(network: Network, precision: Precision, count: Int)] {
        var counts: [Network: [Precision: Int]] = [:]
        for r in records { counts[r.network, default: [:]][r.carriesLocation ? r.precision : .none, default: 0] += 1 }
        return counts.keys.sorted().flatMap { network in
            Precision.allCases.reversed().compactMap { p in counts[network]?[p].map { (network, p, $0) } }
        }
    }

    /// Posts that went out with location, per audience (who could see where the user was),
    /// widest first.
    public var audiences: [(audience: Audience, count: Int)] {
        var counts: [Audience: Int] = [:]
        for r in records where r.carriesLocation {
            guard let audience = r.audience else { continue }
            counts[audience, default: 0] += 1
        }
        return Audience.allCases.reversed().compactMap { a in counts[a].map { (a, $0) } }
    }

    public func render(_ format: Format) -> String {
        switch format {
        case .table: table()
        case .json: json()
        case .csv: csv()
        }
    }

    private static let columns = [
        "time", "trigger", "region", "network", "place", "decision", "location", "precision", "audience",
        "wire fields", "gates",
    ]

    /// The cells of a record, as they came: ``table()`` and ``csv()`` each neutralise them for
    /// where they are shown.
    private func row(_ r: AuditRecord) -> [String] {
        // An unreadable outbox entry met no gate: it was never evaluated by this version.
        let gates =
            r.isUnreadableEntry
            ? "none evaluated"
            : r.gates.filter { !$0.passed }.map { "\($0.gate.rawValue): \($0.reason)" }.joined(separator: "; ")
                .nonEmpty ?? (r.gates.allPassed ? "all passed" : "passed so far")
        // A post that passed its gates and still did not go out says why: the provider's answer
        // (for one still queued, why it waits: a retry's time, credentials refused).
        let outcome =
            [.failed, .expired, .queued].contains(r.decision) ? r.detail.map { gates + "; " + $0 } : nil
        return [
            XSDDateTime.format(r.time.secondsSince1970, fractionDigits: 0), r.trigger?.rawValue ?? "-", r.region ?? "-",
            r.network.rawValue,
            r.placeName ?? r.placeID ?? "-", r.decision.rawValue, r.carriesLocation ? "yes" : "no",
            r.carriesLocation ? r.precision.rawValue : "none", r.audience?.rawValue ?? "-",
            r.wireFields.isEmpty ? "-" : r.wireFields.keys.sorted().joined(separator: ","), outcome ?? gates,
        ]
    }

    /// Names, messages and reasons from files and servers are shown through ``DisplayEscaping``,
    /// before the columns are measured: the table is read on a terminal.
    private func table() -> String {
        let rows = [Self.columns] + records.map { row($0).map { DisplayEscaping.escape($0) } }
        // Measured as a terminal shows them: a CJK character takes two columns.
        let widths = Self.columns.indices.map { c in rows.map { TerminalWidth.of($0[c]) }.max() ?? 0 }
        var out = "Audit of run \(DisplayEscaping.escape(run)): \(records.count) posts"
        out += (finished ? "" : "; " + Self.unfinished) + "\n\n"
        for (index, row) in rows.enumerated() {
            out +=
                row.enumerated().map { c, cell in
                    c == row.count - 1 ? cell : TerminalWidth.padded(cell, to: widths[c])
                }.joined(separator: "  ") + "\n"
            if index == 0 { out += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n" }
        }
        out += "\nCarried location:\n"
        let carried = summary.filter { $0.precision != .none }
        if carried.isEmpty { out += "  none of the posts\n" }
        for s in carried { out += "  \(s.network.rawValue) \(s.precision.rawValue): \(s.count)\n" }
        for network in Network.allCases {
            let without = summary.first { $0.network == network && $0.precision == .none }?.count ?? 0
            if without > 0 { out += "  \(network.rawValue) without location: \(without)\n" }
        }
        out += "\nWho could see where the user was:\n"
        if audiences.isEmpty { out += "  nobody: no post that went out carried location\n" }
        for a in audiences { out += "  \(a.audience.rawValue): \(a.count)\n" }
        return out
    }

    /// RFC 4180, every cell through ``CSVEscaping``: a place name or message that starts like a
    /// formula reaches a spreadsheet as text.
    private func csv() -> String {
        let header = Self.columns.map { $0.replacingOccurrences(of: " ", with: "_") } + ["wire_values", "message"]
        var out = header.joined(separator: ",") + "\n"
        for r in records {
            let wire = r.wireFields.keys.sorted().map { "\($0)=\(r.wireFields[$0] ?? "")" }.joined(separator: "&")
            out += (row(r) + [wire, r.message ?? ""]).map(CSVEscaping.cell).joined(separator: ",") + "\n"
        }
        return out
    }

    private func json() -> String {
        struct Document: Encodable {
            var run: String
            /// Present, true, only for a run that did not finish.
            var unfinished: Bool?
            var posts: [AuditRecord]
            var summary: [Entry]
            /// Posts that carried location, per audience.
            var audiences: [AudienceEntry]
            struct Entry: Encodable {
                var network: Network
                var precision: Precision
                var posts: Int
            }
            struct AudienceEntry: Encodable {
                var audience: Audience
                var posts: Int
            }
        }
        let document = Document(
            run: run, unfinished: finished ? nil : true, posts: records,
            summary: summary.map { .init(network: $0.network, precision: $0.precision, posts: $0.count) },
            audiences: audiences.map { .init(audience: $0.audience, posts: $0.count) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(document)) ?? Data(), as: UTF8.self) + "\n"
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
