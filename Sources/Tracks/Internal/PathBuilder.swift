/// Accumulates a ``TrackPath`` point by point, keeping per-point attribute columns aligned; its
/// columns spill to the read's ``SpillFile`` as they grow.
struct PathBuilder {
    /// Where the columns' full chunks go.
    let file: SpillFile?
    var points: SpillColumn<TrackPoint>
    var attributes: [String: SpillColumn<Double>] = [:]
    var altitudeMode: AltitudeMode?
    /// Times paired with the points by position when a file gives them apart from the positions
    /// (a gx:Track's `<when>`s, written before or after its `<gx:coord>`s); empty otherwise.
    var times: SpillColumn<Double>
    /// The times read back in order as the points arrive after them (Google Earth writes every
    /// `<when>` first), so that no pass over the columns is needed to pair them at the end.
    private var timeCursor: SpillColumn<Double>.Iterator?
    /// Whether every point got its time as it arrived.
    private var pairedAll = true
    /// Indices of legacy pause/resume markers: the path is cut there (``segments()``).
    var breaks: [Int] = []
    /// Whether a point without a position (an empty `gx:coord`, a marker) was appended.
    private var hasUnpositioned = false

    init(spillingTo file: SpillFile?, altitudeMode: AltitudeMode? = nil) {
        self.file = file
        points = SpillColumn(spillingTo: file)
        times = SpillColumn(spillingTo: file)
        self.altitudeMode = altitudeMode
    }

    /// My Tracks' and OpenTracks' legacy markers: a point at latitude 100 paused the recording, one
    /// at 200 resumed it (`TrackRecordingService.PAUSE_LATITUDE = 100.0`, `RESUME_LATITUDE =
    /// 200.0`, deprecated in OpenTracks). Old exports still carry them; they are segment breaks.
    static func isLegacyMarker(latitude: Double) -> Bool { latitude == 100 || latitude == 200 }

    mutating func append(_ point: TrackPoint) {
        if point.latitude.isNaN { hasUnpositioned = true }
        points.append(point)
    }

    /// Appends `point` with the time at its position in ``times`` when that has arrived; the rest
    /// are paired when the path is built.
    mutating func appendPairingTime(_ point: TrackPoint) {
        var point = point
        let index = points.count
        if index < times.count {
            if index == 0 { timeCursor = times.makeIterator() }
            // Past the times there were when the first point came (the two interleaved), the one
            // wanted is the last written: in memory.
            point.storedTime = timeCursor?.next() ?? times[index]
        } else {
            pairedAll = false
        }
        append(point)
    }

    /// Sets attribute `name` of point `index`, padding the column with NaN.
    mutating func set(_ name: String, _ value: Double, at index: Int) {
        var column = attributes.removeValue(forKey: name) ?? SpillColumn(spillingTo: file)
        if column.count <= index {
            while column.count < index { column.append(.nan) }
            column.append(value)
        } else {
            column[index] = value
        }
        attributes[name] = column
    }

    /// The finished path; points without a position (a `gx:coord` left empty) are dropped
    /// together with their time and attribute values.
    func build() -> TrackPath {
        segments().first ?? TrackPath(points: SpillColumn(spillingTo: file), altitudeMode: altitudeMode)
    }

    /// The finished path cut at its legacy markers (which are dropped): empty pieces left out.
    /// One pass over the columns, and none when nothing is left to pair, drop or cut.
    func segments() -> [TrackPath] {
        let count = points.count
        let pairs = !times.isEmpty && !pairedAll
        guard !breaks.isEmpty || hasUnpositioned || pairs else {
            let columns = attributes.mapValues { column in
                var column = column
                while column.count < count { column.append(.nan) }
                return column
            }
            return count == 0 ? [] : [TrackPath(points: points, attributes: columns, altitudeMode: altitudeMode)]
        }
        var times = self.times.makeIterator()
        var upcomingBreaks = breaks.makeIterator()
        var nextBreak = upcomingBreaks.next()
        return TrackPath(points: points, attributes: attributes, altitudeMode: altitudeMode).rebuilt { index, point in
            if pairs { point.storedTime = times.next() ?? .nan }
            if index == nextBreak {
                nextBreak = upcomingBreaks.next()
                return .cut
            }
            return point.latitude.isNaN ? .drop : .keep
        }
    }
}
