import CheckinEngine
import Foundation
import LocationEvents
import LocationSimulation
import SimulatedTime
import SocialEmulator
import WaypostSupport

/// What a scenario asserts about its run.
public struct Expectation: Sendable {
    public enum Kind: Sendable {
        /// Events of the stream matching a filter, counted.
        case events(EventFilter, Count)
        /// Events matching each filter, in this order (others may come between).
        case order([EventFilter])
        /// Posts (audit records) matching a filter, counted.
        case posts(PostFilter, Count)
        /// No post triggered inside the zone carried location, and no request on the wire sent a
        /// point inside it.
        case noLocationInZone(PrivacyZone)
        /// Requests in the emulator's journal matching a filter, counted.
        case requests(RequestFilter, Count)
    }

    public var kind: Kind
    /// Shown instead of the generated description when given.
    public var label: String?
    /// Where it is written, `file:line:column`, for failures.
    public var location: String
    /// Over trials: the fraction of them in which it must hold; nil: every one.
    public var rate: RateBound?
    /// Over trials: bounds on how late its event or post comes against the exact run.
    public var lateBy: LateBy?
}

/// How many matches an expectation wants; the default is at least one.
public struct Count: Sendable, Equatable, CustomStringConvertible {
    public var atLeast = 1
    public var atMost: Int?

    public static let none = Count(atLeast: 0, atMost: 0)
    public static func exactly(_ n: Int) -> Count { Count(atLeast: n, atMost: n) }

    public func holds(_ n: Int) -> Bool { n >= atLeast && atMost.map { n <= $0 } ?? true }

    public var description: String {
        switch (atLeast, atMost) {
        case (0, 0?): "none"
        case (let low, let high?) where low == high: "exactly \(low)"
        case (let low, let high?): "\(low) to \(high)"
        case (let low, nil): "at least \(low)"
        }
    }
}

/// A time window, as offsets from the scenario's start.
public struct Window: Sendable, Equatable {
    public var after: Seconds?
    public var before: Seconds?

    func contains(_ offset: Double) -> Bool {
        (after.map { offset >= $0.seconds } ?? true) && (before.map { offset <= $0.seconds } ?? true)
    }

    var description: String? {
        switch (after, before) {
        case (nil, nil): nil
        case (let a?, nil): "after \(Offset.bound(a.seconds))"
        case (nil, let b?): "before \(Offset.bound(b.seconds))"
        case (let a?, let b?): "between \(Offset.bound(a.seconds)) and \(Offset.bound(b.seconds))"
        }
    }
}

/// Matches events of the stream by type, region, device, detail and time.
public struct EventFilter: Sendable, Equatable {
    /// The event stream's `type` (`regionEnter`, `monitoringFailed`, …).
    public var type: String
    public var region: String?
    public var device: DeviceSelector?
    /// Status (`authorization`), state (`regionState`) or error name (`error`, `monitoringFailed`).
    public var detail: String?
    public var window = Window()

    func matches(_ event: TimedEvent, origin: EpochInstant) -> Bool {
        event.event.type == type && (region == nil || event.event.identifier == region)
            && (device?.matches(event.device) ?? true) && (detail == nil || event.event.detail == detail)
            && window.contains(origin.seconds(to: event.time))
    }

    var description: String {
        var text = type
        if let detail { text += " \(detail)" }
        if let region { text += " of '\(region)'" }
        if let device { text += " on \(device)" }
        if let window = window.description { text += " \(window)" }
        return text
    }
}

/// Matches posts by network, place, region, decision, location carried, precision and gate.
public struct PostFilter: Sendable, Equatable {
    /// nil: either network.
    public var network: Network?
    public var region: String?
    /// The place's name as the network knows it.
    public var place: String?
    public var decision: PostDecision?
    public var carriesLocation: Bool?
    public var precision: Precision?
    /// Who could see the post (``AuditRecord/audience``); `nobody` is spelled as a post that
    /// did not go out.
    public var audience: Audience?
    /// The first gate that did not pass.
    public var blockedBy: PrivacyGate?
    public var device: DeviceSelector?
    public var rule: String?
    public var window = Window()

    func matches(_ post: AuditRecord, origin: EpochInstant) -> Bool {
        (network == nil || post.network == network) && (region == nil || post.region == region)
            && (place == nil || post.placeName == place) && (decision == nil || post.decision == decision)
            && (carriesLocation == nil || post.carriesLocation == carriesLocation)
            && (precision == nil || post.precision == precision)
            && (audience == nil || post.audience == audience)
            && (blockedBy == nil || post.gates.first(where: { !$0.passed })?.gate == blockedBy)
            && (device?.matches(post.device) ?? true) && (rule == nil || post.rule == rule)
            && window.contains(origin.seconds(to: post.time))
    }

    var description: String {
        var parts = [network.map { "\($0.rawValue) post" } ?? "post"]
        if let rule { parts.append("by rule '\(rule)'") }
        if let region { parts.append("for '\(region)'") }
        if let place { parts.append("at '\(place)'") }
        if let device { parts.append("on \(device)") }
        if let decision { parts.append(decision.rawValue) }
        if let blockedBy { parts.append("blocked by \(blockedBy.rawValue)") }
        if let carriesLocation { parts.append(carriesLocation ? "carrying location" : "without location") }
        if let precision { parts.append("at \(precision.rawValue) precision") }
        if let audience { parts.append("seen by \(audience == .public ? "anyone" : audience.rawValue)") }
        if let window = window.description { parts.append(window) }
        return parts.joined(separator: " ")
    }
}

/// Matches requests in the emulator's journal.
public struct RequestFilter: Sendable, Equatable {
    /// Part of the path, e.g. `statuses/update`; empty matches every request.
    public var path: String
    public var method: String?
    public var status: Int?
    /// Parameters that must be present…
    public var with: [String] = []
    /// …absent…
    public var without: [String] = []
    /// …or have these values.
    public var parameters: [String: String] = [:]
    /// When the emulator received it.
    public var window = Window()

    /// `text.contains(part)`, bytewise for ASCII (every path the emulator journals): Foundation's
    /// search through `NSString` was two thirds of matching an entry (perf, 1,000 field trials).
    private static func holds(_ text: String, _ part: String) -> Bool {
        ASCIIText.isASCII(text) && ASCIIText.isASCII(part) ? ASCIIText.contains(text, part) : text.contains(part)
    }

    func matches(_ entry: JournalEntry, origin: EpochInstant) -> Bool {
        window.contains(origin.seconds(to: entry.time)) && (path.isEmpty || Self.holds(entry.path, path))
            && (method == nil || entry.method == method)
            && (status == nil || entry.status == status) && with.allSatisfy { entry.parameters[$0] != nil }
            && without.allSatisfy { entry.parameters[$0] == nil }
            && parameters.allSatisfy { entry.parameters[$0.key] == $0.value }
    }

    var description: String {
        var text = [method, path.isEmpty ? "any path" : path].compactMap { $0 }.joined(separator: " ")
        text = "request " + text
        if let status { text += " answered \(status)" }
        if !with.isEmpty { text += " with \(with.joined(separator: ", "))" }
        if !without.isEmpty { text += " without \(without.joined(separator: ", "))" }
        for (key, value) in parameters.sorted(by: { $0.key < $1.key }) { text += " \(key)=\(value)" }
        if let window = window.description { text += " \(window)" }
        return text
    }
}
