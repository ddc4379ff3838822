import Foundation

/// How long the wall clock waits before a run's next virtual instant is processed. A run with
/// no pacing goes as fast as the CPU does (the default: the same inputs and seed give the same
/// output); ``RealTimePacing`` plays it in real time or faster. Pacing decides only speed: the
/// run's time is its ``SimulatedClock``.
public protocol Pacing {
    /// Called before the events at `instant` are processed.
    mutating func wait(until instant: EpochInstant)
}

/// Waits so that virtual time passes `rate` times faster than the wall clock, starting from the
/// first instant it is asked about. Reports progress through `progress` (fraction done, 0…1).
public struct RealTimePacing: Pacing {
    public var rate: Double
    private let span: ClosedRange<EpochInstant>
    private var origin: (virtual: EpochInstant, wall: ContinuousClock.Instant)?
    private let progress: ((Double) -> Void)?

    /// - Parameters:
    ///   - rate: virtual seconds per wall-clock second (1 = real time, 10 = ten times faster).
    ///   - span: first and last virtual instants of the run, for progress reporting.
    public init(rate: Double = 1, span: ClosedRange<EpochInstant>, progress: ((Double) -> Void)? = nil) {
        precondition(rate > 0)
        self.rate = rate
        self.span = span
        self.progress = progress
    }

    public mutating func wait(until instant: EpochInstant) {
        guard let origin else {
            origin = (instant, .now)
            return
        }
        // In seconds, as a Double: nanoseconds in an Int64 trapped once a wait passed 292 years
        // (`--rate 1e-12` made every second of route one). A wait is cut at a century per event.
        let wait = origin.virtual.seconds(to: instant) / rate - origin.wall.duration(to: .now).inSeconds
        if wait > 0 {
            Thread.sleep(forTimeInterval: min(wait, WallClock.longestWait))
        }
        let length = span.lowerBound.seconds(to: span.upperBound)
        if let progress, length > 0 {
            progress(min(1, max(0, span.lowerBound.seconds(to: instant) / length)))
        }
    }
}
