import LocationEvents

/// `CLServiceSession` (iOS 18) in a ``SimulatedWorld``: the app declares the authorization a
/// workflow needs, is asked for it when possible, and reads why it falls short in ``diagnostics``.
/// The session lasts until ``invalidate()`` or until the object is released (hold it, as with
/// Apple's). Rules: ``SimulatedLocationManager/beginServiceSession(_:fullAccuracyPurposeKey:)``.
///
/// ```swift
/// let session = await SimulatedServiceSession(authorization: .always, in: world)
/// for await diagnostic in session.diagnostics where diagnostic.diagnostics.contains(.alwaysAuthorizationDenied) {
///     showSettingsHint()
/// }
/// ```
public final class SimulatedServiceSession: Sendable {
    public let requirement: ServiceSessionRequirement
    public let id: SessionID
    private let world: SimulatedWorld
    private let subscription: Int

    /// `CLServiceSession(authorization:)` and `(authorization:fullAccuracyPurposeKey:)`.
    public init(
        authorization requirement: ServiceSessionRequirement, fullAccuracyPurposeKey: String? = nil,
        in world: SimulatedWorld
    ) async {
        self.requirement = requirement
        self.world = world
        (id, subscription) = await world.beginSession(
            requirement, fullAccuracyPurposeKey: fullAccuracyPurposeKey, owner: Owner.shared)
        await world.adopt(subscription, owner: self)
    }

    /// `diagnostics`: the session's state when it began, then at each change.
    public var diagnostics: WorldEvents<SessionDiagnostic> { sessionDiagnostics(world, subscription) }

    /// `invalidate()`: "Ends the session immediately. Once the session is invalidated it cannot
    /// become active again."
    public func invalidate() async {
        await world.unsubscribe(subscription)
    }
}

/// `CLBackgroundActivitySession` (iOS 17): while active, a When In Use app stays in use in the
/// background (the blue indicator), so live updates and monitor events go on. It becomes active
/// only if begun while the app is in the foreground; ``diagnostics`` is iOS 18's handler.
public final class SimulatedBackgroundActivitySession: Sendable {
    public let id: SessionID
    private let world: SimulatedWorld
    private let subscription: Int

    /// `CLBackgroundActivitySession()`.
    public init(in world: SimulatedWorld) async {
        self.world = world
        (id, subscription) = await world.beginSession(nil, fullAccuracyPurposeKey: nil, owner: Owner.shared)
        await world.adopt(subscription, owner: self)
    }

    /// The diagnostics `init(queue:handler:)` delivers (iOS 18).
    public var diagnostics: WorldEvents<SessionDiagnostic> { sessionDiagnostics(world, subscription) }

    /// `invalidate()`: the session ends, and its indicator with it.
    public func invalidate() async {
        await world.unsubscribe(subscription)
    }
}

/// Holds a session's subscription while its object is being made (`self` is not usable yet).
private final class Owner: Sendable {
    static let shared = Owner()
}

private func sessionDiagnostics(_ world: SimulatedWorld, _ subscription: Int) -> WorldEvents<SessionDiagnostic> {
    WorldEvents(world: world, start: { _, _ in subscription }) {
        if case .sessionDiagnostic(let diagnostic) = $0.event { return diagnostic }
        return nil
    }
}
