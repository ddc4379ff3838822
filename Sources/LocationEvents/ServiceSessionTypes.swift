/// `CLServiceSession.AuthorizationRequirement` (iOS 18): the authorization a service session
/// declares the app needs for a workflow.
public enum ServiceSessionRequirement: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Asks for nothing; "meets a requested Explicit Service Session requirement if the framework
    /// already has authorization" (Apple, `CLServiceSession.init(authorization:)`).
    case none
    case whenInUse
    case always

    public var description: String { rawValue }
}

/// Identifies one service session or background activity session of an app.
public struct SessionID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public var description: String { "\(rawValue)" }

    public init(rawValue: Int) { self.rawValue = rawValue }
}

/// Which kind of session an event is about.
public enum SessionKind: String, Sendable {
    /// `CLServiceSession` (iOS 18).
    case service
    /// `CLBackgroundActivitySession` (iOS 17; diagnostics from iOS 18).
    case backgroundActivity
}

/// The diagnostic properties of `CLServiceSession.Diagnostic` and
/// `CLBackgroundActivitySession.Diagnostic` (iOS 18), as an option set. Meanings are Apple's
/// (`CLServiceSession.h`): each says why the session "will be suspended".
public struct SessionDiagnostics: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// "the app has been denied location authorization".
    public static let authorizationDenied = Self(rawValue: 1 << 0)
    /// "the user has disabled Location Services system-wide".
    public static let authorizationDeniedGlobally = Self(rawValue: 1 << 1)
    /// "authorization changes are prevented by parental restrictions, MDM configuration, or other factors".
    public static let authorizationRestricted = Self(rawValue: 1 << 2)
    /// "the app is not sufficiently in-use".
    public static let insufficientlyInUse = Self(rawValue: 1 << 3)
    /// "the app has adopted CLRequireExplicitServiceSession info.plist key but no CLServiceSession
    /// requiring authorization is outstanding yet".
    public static let serviceSessionRequired = Self(rawValue: 1 << 4)
    /// "a session requiring FullAccuracy has been denied full accuracy due to user decision"
    /// (service sessions only).
    public static let fullAccuracyDenied = Self(rawValue: 1 << 5)
    /// "a session requiring Always authorization has been denied Always due to user decision"
    /// (service sessions only).
    public static let alwaysAuthorizationDenied = Self(rawValue: 1 << 6)
    /// "the system is requesting authorization from the user on behalf of the app, but no response
    /// has been received yet".
    public static let authorizationRequestInProgress = Self(rawValue: 1 << 7)

    static let names: [(Self, String)] = [
        (.authorizationDenied, "authorizationDenied"), (.authorizationDeniedGlobally, "authorizationDeniedGlobally"),
        (.authorizationRestricted, "authorizationRestricted"), (.insufficientlyInUse, "insufficientlyInUse"),
        (.serviceSessionRequired, "serviceSessionRequired"), (.fullAccuracyDenied, "fullAccuracyDenied"),
        (.alwaysAuthorizationDenied, "alwaysAuthorizationDenied"),
        (.authorizationRequestInProgress, "authorizationRequestInProgress"),
    ]

    /// The flags set, by Apple's property names, in a fixed order.
    public var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }
    public var description: String { names.joined(separator: ",") }
}

/// One diagnostic element of a session's `diagnostics` sequence: its state when it began and at
/// each change.
public struct SessionDiagnostic: Sendable, Equatable {
    public var session: SessionID
    public var kind: SessionKind
    /// The requirement of a service session (nil for a background activity session).
    public var requirement: ServiceSessionRequirement?
    /// Whether the session is in effect: started while the app was in use (Apple: "A new session
    /// may only become active while the app is foregrounded and in direct use"), not invalidated,
    /// and the app not terminated since; a background activity session only while the app has
    /// effective authorization ("A session may only be active for an app which has effective
    /// authorization", `CLBackgroundActivitySession.h`).
    public var isActive: Bool
    public var diagnostics: SessionDiagnostics

    public init(
        session: SessionID, kind: SessionKind, requirement: ServiceSessionRequirement?, isActive: Bool,
        diagnostics: SessionDiagnostics
    ) {
        self.session = session
        self.kind = kind
        self.requirement = requirement
        self.isActive = isActive
        self.diagnostics = diagnostics
    }
}
