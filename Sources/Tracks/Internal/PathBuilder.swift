/// Accumulates a ``TrackPath`` point by point, keeping per-point attribute columns aligned.
struct PathBuilder {
    var points: [TrackPoint] = []
    var attributes: [String: [Double]] = [:]
    var altitudeMode: AltitudeMode?
    /// Indices of legacy pause/resume markers: the path is cut there (``segments()``).
    var breaks: [Int] = []

    /// My Tracks' and OpenTracks' legacy markers: a point at latitude 100 paused the recording, one
    /// at 200 resumed it (`TrackRecordingService.PAUSE_LATITUDE = 100.0`, `RESUME_LATITUDE =
    /// 200.0`, deprecated in OpenTracks). Old exports still carry them; they are segment breaks.
    static func isLegacyMarker(latitude: Double) -> Bool { latitude == 100 || latitude == 200 }

    mutating func append(_ point: TrackPoint) {
        points.append(point)
    }

    /// Sets attribute `name` of point `index`, padding the column with NaN.
    mutating func set(_ name: String, _ value: Double, at index: Int) {
        var column = attributes.removeValue(forKey: name) ?? []
        if column.count <= index { column.append(contentsOf: repeatElement(.nan, count: index + 1 - column.count)) }
        column[index] = value
        attributes[name] = column
    }

    /// The finished path; points without a position (a `gx:coord` left empty) are dropped
    /// together with their attribute values.
    func build() -> TrackPath {
        var kept = points
        var columns = attributes.mapValues { column in
            column.count >= points.count
                ? column : column + repeatElement(.nan, count: points.count - column.count)
        }
        if points.contains(where: { $0.latitude.isNaN }) {
            let keep = points.indices.filter { !points[$0].latitude.isNaN }
            kept = keep.map { points[$0] }
            columns = columns.mapValues { column in keep.map { column[$0] } }
        }
        return TrackPath(points: kept, attributes: columns, altitudeMode: altitudeMode)
    }

    /// The finished path cut at its legacy markers (which are dropped): empty pieces left out.
    func segments() -> [TrackPath] {
        guard !breaks.isEmpty else { return [build()].filter { !$0.points.isEmpty } }
        var pieces: [TrackPath] = []
        var start = 0
        for end in breaks + [points.count] {
            var piece = PathBuilder(altitudeMode: altitudeMode)
            piece.points = Array(points[start..<end])
            piece.attributes = attributes.mapValues { column in
                (start..<end).map { $0 < column.count ? column[$0] : .nan }
            }
            let path = piece.build()
            if !path.points.isEmpty { pieces.append(path) }
            start = min(end + 1, points.count)
        }
        return pieces
    }
}
