/// Accumulates a ``TrackPath`` point by point, keeping per-point attribute columns aligned.
struct PathBuilder {
    var points: [TrackPoint] = []
    var attributes: [String: [Double]] = [:]
    var altitudeMode: AltitudeMode?

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
}
