import LocationEvents

/// `CLLocationUpdate.Updates` (iOS 17): the sequence ``SimulatedWorld/liveUpdates(_:)`` returns.
/// Updates start when iteration begins and stop when the loop ends (the iterator is released),
/// as Apple's do; each is a ``LocationUpdate`` (`location`, `isStationary`, iOS 18 diagnostics).
///
/// ```swift
/// for await update in world.liveUpdates(.fitness) {
///     if update.isStationary { break }
///     if let location = update.location { track.append(location) }
/// }
/// ```
public typealias LiveUpdates = WorldEvents<LocationUpdate>

extension WorldEvents where Element == LocationUpdate {
    init(world: SimulatedWorld, configuration: LiveConfiguration) {
        self.init(
            world: world, start: { world, owner in await world.startLiveUpdates(configuration, owner: owner) },
            element: {
                if case .liveUpdate(let update) = $0.event { return update }
                return nil
            })
    }
}
