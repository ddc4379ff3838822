/// The diagnostic properties of a `CLLocationUpdate` (iOS 18), as an option set: why an update
/// carries no location, or a coarse one.
public struct LiveUpdateDiagnostics: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `authorizationDenied`: the user refused the app location access.
    public static let authorizationDenied = Self(rawValue: 1 << 0)
    /// `authorizationDeniedGlobally`: Location Services are off for the whole device.
    public static let authorizationDeniedGlobally = Self(rawValue: 1 << 1)
    /// `authorizationRestricted`: parental controls or a profile forbid location access.
    public static let authorizationRestricted = Self(rawValue: 1 << 2)
    /// `authorizationRequestInProgress`: the prompt is on screen.
    public static let authorizationRequestInProgress = Self(rawValue: 1 << 3)
    /// `insufficientlyInUse`: When In Use, and the app is not in use.
    public static let insufficientlyInUse = Self(rawValue: 1 << 4)
    /// `locationUnavailable`: no position can be determined (no signal).
    public static let locationUnavailable = Self(rawValue: 1 << 5)
    /// `accuracyLimited`: approximate locations only (reduced accuracy).
    public static let accuracyLimited = Self(rawValue: 1 << 6)
    /// `serviceSessionRequired`: updates need a `CLServiceSession` the app does not hold.
    public static let serviceSessionRequired = Self(rawValue: 1 << 7)
    /// `stationary`: the device is not moving, so updates stop until it does.
    public static let stationary = Self(rawValue: 1 << 8)

    static let names: [(Self, String)] = [
        (.authorizationDenied, "authorizationDenied"), (.authorizationDeniedGlobally, "authorizationDeniedGlobally"),
        (.authorizationRestricted, "authorizationRestricted"),
        (.authorizationRequestInProgress, "authorizationRequestInProgress"),
        (.insufficientlyInUse, "insufficientlyInUse"), (.locationUnavailable, "locationUnavailable"),
        (.accuracyLimited, "accuracyLimited"), (.serviceSessionRequired, "serviceSessionRequired"),
        (.stationary, "stationary"),
    ]

    /// The flags set, by Apple's property names, in a fixed order.
    public var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }
    public var description: String { names.joined(separator: ",") }
}

/// `CLLocationUpdate`: one element of `liveUpdates`, a location or the reason there is none.
public struct LocationUpdate: Sendable, Equatable {
    /// Nil when the update only reports a diagnostic.
    public var location: Location?
    /// `isStationary` (iOS 17): the device stopped moving; updates stop until it moves again.
    public var isStationary: Bool
    /// iOS 18's diagnostic properties (`stationary` mirrors ``isStationary``).
    public var diagnostics: LiveUpdateDiagnostics

    public init(location: Location?, isStationary: Bool = false, diagnostics: LiveUpdateDiagnostics = []) {
        self.location = location
        self.isStationary = isStationary
        self.diagnostics = isStationary ? diagnostics.union(.stationary) : diagnostics
    }
}
