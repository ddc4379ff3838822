/// A clock that tells time as ``EpochInstant``s: the one shape every part of a run reads time
/// through — the outbox's delivery, the check-in engine, the emulator, the API clients' OAuth
/// timestamps and the store's leases.
///
/// Two clocks conform: ``SimulatedClock``, whose time moves only when told (a run on virtual
/// time), and ``WallClock``, the real one, used only at the edge (delivery to real servers,
/// leases between processes, the standalone emulator).
public protocol EpochClock: Clock, Sendable where Instant == EpochInstant, Duration == Swift.Duration {}

extension EpochClock {
    /// The resolution the simulation counts in: a nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }
}
