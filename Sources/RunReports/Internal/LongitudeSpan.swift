import Geo

/// The longitudes a map draws a run at: on the smallest arc that holds all of its positions, so a
/// run across the antimeridian (180°) is drawn where it is, a few hundred metres wide, not as a
/// line around the world. Where that arc does not cross 180° every longitude is kept as it is, so
/// the maps of every other run are unchanged.
struct LongitudeSpan: Sendable {
    /// The meridian the arc is centred on; 0 when the arc does not cross the antimeridian.
    let center: Double

    init(_ longitudes: some Sequence<Double>) {
        let sorted = longitudes.filter(\.isFinite).map(Angle.normalized).sorted()
        guard let first = sorted.first, let last = sorted.last else {
            center = 0
            return
        }
        // The arc is the circle less the widest gap between neighbouring longitudes. The gap
        // across 180° is the one to beat, so a tie keeps longitudes as they are.
        var widest = first + 360 - last
        var arc: (west: Double, east: Double)?
        for (a, b) in zip(sorted, sorted.dropFirst()) where b - a > widest {
            widest = b - a
            arc = (west: b, east: a + 360)
        }
        center = arc.map { ($0.west + $0.east) / 2 } ?? 0
    }

    /// `longitude`, a turn east or west where that puts it within 180° of the centre: 179.9° and
    /// −179.9° drawn 0.2° apart, as 179.9° and 180.1°.
    func unwrapped(_ longitude: Double) -> Double {
        let offset = longitude - center
        return offset > 180 ? longitude - 360 : offset < -180 ? longitude + 360 : longitude
    }
}
