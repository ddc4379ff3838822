import Foundation
import SimulatedTime
import Tracks

/// A route as a run names it: where the file is and how its untimed geometry is timed. Two
/// devices with equal specs share one read and one timing (``RouteLibrary``).
public struct RouteSpec: Hashable, Sendable {
    /// Where the route is read from.
    public enum Source: Hashable, Sendable {
        case file(URL)
        /// Read once, to its end (`waypost replay -`).
        case standardInput
    }

    public var source: Source
    /// What errors and warnings call it.
    public var displayName: String
    public var timeOrder = TimeOrder.strict
    /// Which path of the file, counting from 1; nil: all of them.
    public var path: Int?
    /// For untimed geometry: travel speed (m/s), time between samples, start.
    public var speed = RouteTiming.walkingSpeed
    public var sampleInterval = Seconds(1)
    public var start: EpochInstant?
    /// Most samples the route may make.
    public var maxFixes = RouteTiming.defaultMaximumSamples

    public init(source: Source, displayName: String) {
        self.source = source
        self.displayName = displayName
    }

    /// The file read and timed, and what the reader warned about (one line each, file first).
    public func timeline() throws -> (timeline: RouteTimeline, warnings: [String]) {
        let track = try read()
        return (try time(track), track.warnings.map { "\(displayName):\($0)" })
    }

    /// The file read, not yet timed.
    public func read() throws -> Track {
        let reader = TrackReader(timeOrder: timeOrder)
        switch source {
        case .file(let url): return try reader.read(contentsOf: url, displayName: displayName)
        case .standardInput:
            return try reader.read(fileDescriptor: FileHandle.standardInput.fileDescriptor, name: displayName)
        }
    }

    /// The track timed as the spec says.
    public func time(_ track: Track) throws -> RouteTimeline {
        let timing = RouteTiming(
            speed: speed, sampleInterval: sampleInterval, start: start, maximumSamples: maxFixes)
        let timeline: RouteTimeline
        do {
            timeline = try timing.timeline(for: track, path: path)
        } catch {
            throw RunSessionError.route(displayName: displayName, message: error.message)
        }
        // A run fills the gaps between timed samples one every update interval (replay's is
        // --sample-interval): at least span ÷ interval fixes. Points a day apart are a day of
        // fixes; gpsbabel's bigtime.gpx, two points 2,862 years apart, would fill for hours.
        if let span = timeline.span {
            let seconds = span.upperBound.secondsSince1970 - span.lowerBound.secondsSince1970
            let fixes = max(Double(timeline.count), seconds / sampleInterval.seconds)
            guard fixes <= Double(maxFixes) else {
                throw RunSessionError.route(
                    displayName: displayName,
                    message:
                        "its times span \(Int(seconds.rounded())) s, filled with a fix every \(sampleInterval.seconds) s: at least \(Int(min(fixes, 9e18))) fixes, more than --max-fixes \(maxFixes); raise it, replay one path (--path N), or coarser (--sample-interval)"
                )
            }
        }
        return timeline
    }
}

/// Routes read and timed once each, however many devices follow them (ten thousand generated
/// devices share one).
public struct RouteLibrary {
    private var timelines: [RouteSpec: RouteTimeline] = [:]
    /// Every warning of every route read, in the order they were read.
    public private(set) var warnings: [String] = []
    /// Routes of at most this many samples are kept as samples (``RouteTimeline/materialized()``),
    /// for a library whose routes many runs follow; 0: none.
    package let keepsSamplesUpTo: Int

    public init() {
        keepsSamplesUpTo = 0
    }

    package init(keepsSamplesUpTo: Int) {
        self.keepsSamplesUpTo = keepsSamplesUpTo
    }

    public mutating func timeline(for spec: RouteSpec) throws -> RouteTimeline {
        if let known = timelines[spec] { return known }
        var (timeline, warnings) = try spec.timeline()
        if timeline.count <= keepsSamplesUpTo { timeline = timeline.materialized() }
        timelines[spec] = timeline
        self.warnings += warnings
        return timeline
    }
}
