import Foundation

/// gpsbabel's KML track: an untimed `LineString` (its "Path" placemark; a `MultiGeometry` of
/// them, one a segment, for a track of several) after one `Point` placemark per track point,
/// each with a `TimeStamp` (its "Points" folder) — the shape `gpsbabel -o kml` writes unless
/// asked for `track=1` (a `gx:Track`). Read alone, the line is untimed and a replay would walk
/// it at `--speed`; its times are in the points.
///
/// The line takes the points' times when the pairing is certain: the Point placemarks just
/// before it in document order, in its folder or folders inside it, are as many as its
/// vertices, each timed, at the same coordinates in the same order, and their times never go
/// backwards. Where a run of timed points precedes an untimed line but one of these fails, the
/// line is read as written and the track gets one warning saying why the times were not used.
/// Fewer than two timed points before a line are ordinary placemarks: nothing is said.
struct TimedPointPairing {
    /// Pairs every line of `track` it can; `positions[i]` is where feature `i` starts.
    static func apply(to track: inout Track, positions: [SourcePosition]) {
        var index = 0
        while index < track.features.count {
            defer { index += 1 }
            let line = track.features[index]
            guard let paths = lines(line.geometry), paths.reduce(0, { $0 + $1.points.count }) >= 2,
                paths.allSatisfy({ $0.points.allSatisfy { $0.timeIntervalSince1970 == nil } })
            else { continue }
            // The run of Point placemarks just before the line, within its folder.
            var start = index
            while start > 0, case .point? = track.features[start - 1].geometry,
                track.features[start - 1].folders.starts(with: line.folders)
            {
                start -= 1
            }
            let points = Array(track.features[start..<index])
            let timedCount = points.filter { $0.timeStamp != nil }.count
            // With `track=1` gpsbabel writes a gx:Track of the same points as well: its times are
            // read there, and the line stays the drawing it was.
            guard timedCount >= 2, !isTimedElsewhere(paths, in: track) else { continue }
            switch pair(paths, with: points) {
            case .success(let timed):
                track.features[index].geometry =
                    timed.count == 1 ? .track(timed[0]) : .collection(timed.map(Geometry.track))
            case .failure(let refusal):
                let at = positions.indices.contains(index) ? positions[index] : SourcePosition(line: 0, column: 0)
                let name = line.name.map { " '\($0)'" } ?? ""
                track.warnings.append(
                    "\(at.line):\(at.column): the \(points.count) Point placemarks before LineString\(name) "
                        + "(\(timedCount) with a TimeStamp) look like gpsbabel's track points, but "
                        + "\(refusal.reason): their times are not used, the line is read untimed")
            }
        }
    }

    /// Why a pairing was refused, as the warning says it.
    struct Refusal: Error {
        var reason: String
    }

    /// The line strings of a LineString, or of a MultiGeometry of nothing else.
    private static func lines(_ geometry: Geometry?) -> [TrackPath]? {
        switch geometry {
        case .lineString(let path)?:
            return [path]
        case .collection(let parts)?:
            let paths = parts.compactMap { part -> TrackPath? in
                if case .lineString(let path) = part { return path }
                return nil
            }
            return paths.count == parts.count && !paths.isEmpty ? paths : nil
        default:
            return nil
        }
    }

    /// Whether a track of `track` with times (a gx:Track or gx:MultiTrack) has the same positions
    /// as `paths`, in the same order.
    private static func isTimedElsewhere(_ paths: [TrackPath], in track: Track) -> Bool {
        let count = paths.reduce(0) { $0 + $1.points.count }
        return track.features.contains { feature in
            guard let geometry = feature.geometry, case let timed = timedPaths(geometry), !timed.isEmpty,
                timed.reduce(0, { $0 + $1.points.count }) == count
            else { return false }
            return RouteTiming.samePositions(timed.lazy.flatMap(\.points), paths.lazy.flatMap(\.points))
        }
    }

    /// The timed tracks of a geometry: a `.track`, or a collection of them.
    private static func timedPaths(_ geometry: Geometry) -> [TrackPath] {
        switch geometry {
        case .track(let path): path.points.contains { $0.timeIntervalSince1970 != nil } ? [path] : []
        case .collection(let parts): parts.flatMap(timedPaths)
        default: []
        }
    }

    /// The lines with the points' times, or why not.
    private static func pair(_ paths: [TrackPath], with points: [TrackFeature]) -> Result<[TrackPath], Refusal> {
        let vertices = paths.reduce(0) { $0 + $1.points.count }
        guard points.count == vertices else {
            return .failure(Refusal(reason: "the line has \(vertices) vertices"))
        }
        var timed = paths
        var last = -Double.infinity
        var number = 0
        for (part, path) in paths.enumerated() {
            for (offset, vertex) in path.points.enumerated() {
                number += 1
                if let refusal = check(points[number - 1], at: vertex, number: number, after: &last) {
                    return .failure(refusal)
                }
                timed[part].points[offset].timeIntervalSince1970 = last
            }
        }
        return .success(timed)
    }

    /// Why point `number` cannot time `vertex`; nil when it can, and `last` is then its time.
    private static func check(
        _ feature: TrackFeature, at vertex: TrackPoint, number: Int, after last: inout Double
    ) -> Refusal? {
        guard let time = feature.timeStamp else {
            return Refusal(reason: "point \(number) has no TimeStamp")
        }
        guard case .point(let point)? = feature.geometry, point.latitude == vertex.latitude,
            point.longitude == vertex.longitude,
            point.altitude == nil || vertex.altitude == nil || point.altitude == vertex.altitude
        else {
            return Refusal(reason: "point \(number) is not at the line's vertex \(number)")
        }
        guard time >= last else {
            return Refusal(reason: "point \(number)'s time is earlier than the one before it")
        }
        last = time
        return nil
    }
}
