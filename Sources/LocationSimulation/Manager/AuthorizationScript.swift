import LocationEvents
import SimulatedTime

/// How a user answers the first-use location prompt.
public enum AuthorizationAnswer: String, Sendable, CaseIterable {
    /// "Allow" to an Always prompt (iOS 8–12); from iOS 13 an Always request first offers only
    /// While Using, so this answer gives provisional Always and then accepts the upgrade prompt.
    case allowAlways
    /// "Allow While Using App". To an Always request from iOS 13: provisional Always, then
    /// "Keep Only While Using" at the upgrade prompt.
    case allowWhenInUse
    /// "Allow Once" (iOS 13+): When In Use until the app leaves use, then not determined again.
    case allowOnce
    case deny
}

/// The answer to the location prompt as the command line (`--auth`) and scenario files name it;
/// `ask` leaves the prompt unanswered.
public enum AuthorizationPrompt: String, Sendable, CaseIterable {
    case always, whenInUse = "when-in-use", once, denied, ask

    public var answer: AuthorizationAnswer? {
        switch self {
        case .always: .allowAlways
        case .whenInUse: .allowWhenInUse
        case .once: .allowOnce
        case .denied: .deny
        case .ask: nil
        }
    }
}

/// When and how the user answers the location prompt: `ANSWER[@SECONDS]` on the command line
/// and in scenarios (`when-in-use@60`: answered a minute after the app asks).
public struct PromptScript: Sendable, Equatable, CustomStringConvertible {
    /// nil: the prompt is never answered (`ask`).
    public var answer: AuthorizationAnswer?
    /// Between the app's request and the answer.
    public var delay: Seconds

    public init(answer: AuthorizationAnswer?, delay: Seconds = .zero) {
        self.answer = answer
        self.delay = delay
    }

    /// Parses `ANSWER[@SECONDS]`; nil for an unknown answer or a delay that is not a number of
    /// seconds from 0 to a day.
    public init?(_ text: String) {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard let prompt = AuthorizationPrompt(rawValue: String(parts[0])) else { return nil }
        var delay = 0.0
        if parts.count == 2 {
            guard prompt != .ask, let seconds = Double(parts[1]), seconds >= 0, seconds <= 86_400 else { return nil }
            delay = seconds
        }
        self.init(answer: prompt.answer, delay: Seconds(delay))
    }

    public var description: String {
        let name = AuthorizationPrompt.allCases.first { $0.answer == answer }?.rawValue ?? "ask"
        return delay > .zero ? "\(name)@\(EventStreamEncoder.fixed(delay.seconds, 3))" : name
    }
}

/// The kind of movement the app expects (`CLActivityType`): it sets how long the device must be
/// still before updates pause automatically.
public enum ActivityType: String, Sendable, CaseIterable {
    case other, automotiveNavigation, fitness, otherNavigation, airborne
}

/// CoreLocation's accuracy and distance-filter constants, in metres.
public enum LocationAccuracy {
    /// `kCLLocationAccuracyBestForNavigation`.
    public static let bestForNavigation = -2.0
    /// `kCLLocationAccuracyBest`, the default `desiredAccuracy`.
    public static let best = -1.0
    /// `kCLLocationAccuracyNearestTenMeters`.
    public static let nearestTenMeters = 10.0
    /// `kCLLocationAccuracyHundredMeters`.
    public static let hundredMeters = 100.0
    /// `kCLLocationAccuracyKilometer`.
    public static let kilometer = 1000.0
    /// `kCLLocationAccuracyThreeKilometers`.
    public static let threeKilometers = 3000.0
    /// `kCLLocationAccuracyReduced` (iOS 14): as `desiredAccuracy`, approximate locations even
    /// under full accuracy authorization ("If your app is authorized to access location
    /// information with full accuracy, you can use this constant to access location data as if the
    /// app didn't have that authorization", Apple). Its own value, never
    /// `kCLLocationAccuracyThreeKilometers`, which asks for cell positioning at full accuracy:
    /// 6,380,000 (about the Earth's radius in metres), as reimplementations of the SDK's constants
    /// record it. Waypost compares it by identity, never by size.
    public static let reduced = 6_380_000.0
    /// `kCLDistanceFilterNone`: deliver every fix.
    public static let distanceFilterNone = -1.0

    /// The accuracy constants by the names `waypost replay --accuracy` and scenarios accept.
    public static let names: KeyValuePairs<String, Double> = [
        "best-for-navigation": bestForNavigation, "best": best, "ten-meters": nearestTenMeters,
        "hundred-meters": hundredMeters, "kilometer": kilometer, "three-kilometers": threeKilometers,
        "reduced": reduced,
    ]

    /// A name from ``names``, or a positive number of metres; nil for anything else.
    public static func named(_ text: String) -> Double? {
        if let value = names.first(where: { $0.key == text })?.value { return value }
        guard let metres = Double(text), metres > 0, metres.isFinite else { return nil }
        return metres
    }
}
