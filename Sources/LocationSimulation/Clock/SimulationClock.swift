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

    /// The longest one event waits for: a century.
    static let longestWait = 100 * 366 * 86_400.0

    public mutating func advance(to virtualTime: Double) {
        guard let origin else {
            origin = (virtualTime, .now)
            return
        }
        // In seconds, as a Double: nanoseconds in an Int64 trapped once a wait passed 292 years
        // (`--rate 1e-12` made every second of route one). A wait is cut at a century per event.
        let elapsed = origin.wall.duration(to: .now)
        let wait =
            (virtualTime - origin.virtual) / rate - Double(elapsed.components.seconds)
            - Double(elapsed.components.attoseconds) / 1e18
        if wait > 0 {
            Thread.sleep(forTimeInterval: min(wait, Self.longestWait))
        }
        if let progress, end > start { progress(min(1, max(0, (virtualTime - start) / (end - start)))) }
    }
}
