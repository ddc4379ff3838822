import Foundation

/// Paces a run. The simulation itself is a discrete-event loop on virtual time; a clock only
/// decides how long the wall clock waits before each virtual instant is processed.
///
/// Inject ``VirtualClock`` (the default: as fast as the CPU goes, so the same inputs and seed give
/// byte-identical output) or ``WallClock`` (real time, optionally faster), or your own in tests.
public protocol SimulationClock {
    /// Called before the events at `virtualTime` (seconds since 1970) are processed.
    mutating func advance(to virtualTime: Double)
}

/// Never waits.
public struct VirtualClock: SimulationClock {
    public init() {}
    public mutating func advance(to virtualTime: Double) {}
}

/// Waits so that virtual time passes `rate` times faster than the wall clock, starting from the
/// first instant it is asked about. Reports progress through `progress` (fraction done, 0…1).
public struct WallClock: SimulationClock {
    public var rate: Double
    private let start: Double
    private let end: Double
    private var origin: (virtual: Double, wall: ContinuousClock.Instant)?
    private let progress: ((Double) -> Void)?

    /// - Parameters:
    ///   - rate: virtual seconds per wall-clock second (1 = real time, 10 = ten times faster).
    ///   - span: first and last virtual instants of the run, for progress reporting.
    public init(rate: Double = 1, span: ClosedRange<Double>, progress: ((Double) -> Void)? = nil) {
        precondition(rate > 0)
        self.rate = rate
        self.start = span.lowerBound
        self.end = span.upperBound
        self.progress = progress
    }

    public mutating func advance(to virtualTime: Double) {
        guard let origin else {
            origin = (virtualTime, .now)
            return
        }
        let target = origin.wall + .nanoseconds(Int64((virtualTime - origin.virtual) / rate * 1e9))
        let wait = target - .now
        if wait > .zero {
            Thread.sleep(forTimeInterval: Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18)
        }
        if let progress, end > start { progress(min(1, max(0, (virtualTime - start) / (end - start)))) }
    }
}
