/// A circle's ring cut where it crosses the antimeridian, as RFC 7946 §3.1.9 asks of GeoJSON:
/// "any geometry that crosses the antimeridian SHOULD be represented by cutting it in two such that
/// neither part's representation crosses the antimeridian" — otherwise readers fill the polygon
/// around the world. Positions are `[longitude, latitude]`. (Lines: ``Geo/Antimeridian``.)
enum AntimeridianCut {
    /// A closed ring (a circle's: convex, smaller than a hemisphere) as one ring, or as the two
    /// that lie either side of 180° where it crosses, each closed and wound as `ring` was.
    static func ring(_ ring: [[Double]]) -> [[[Double]]] {
        let longitudes = LongitudeSpan(ring.map { $0[0] })
        guard longitudes.center != 0 else { return [ring] }
        let drawn = ring.map { [longitudes.unwrapped($0[0]), $0[1]] }
        let meridian = longitudes.center > 0 ? 180.0 : -180.0
        // The part on the centre's side of the meridian stays; the other is a turn back.
        let near = clip(drawn, at: meridian, keepingEast: meridian < 0)
        let far = clip(drawn, at: meridian, keepingEast: meridian > 0).map { [$0[0] - 2 * meridian, $0[1]] }
        return [near, far].filter { $0.count >= 4 }
    }

    /// Sutherland–Hodgman against the meridian at longitude `x`: the closed `ring`'s part east
    /// (or west) of it, closed, in the ring's winding.
    private static func clip(_ ring: [[Double]], at x: Double, keepingEast: Bool) -> [[Double]] {
        func inside(_ p: [Double]) -> Bool { keepingEast ? p[0] >= x : p[0] <= x }
        func crossing(_ a: [Double], _ b: [Double]) -> [Double] {
            [x, a[1] + (b[1] - a[1]) * (x - a[0]) / (b[0] - a[0])]
        }
        var kept: [[Double]] = []
        // A vertex on the meridian is its own crossing: kept once.
        func keep(_ p: [Double]) { if kept.last != p { kept.append(p) } }
        for (a, b) in zip(ring, ring.dropFirst()) {
            switch (inside(a), inside(b)) {
            case (true, true): keep(b)
            case (true, false): keep(crossing(a, b))
            case (false, true):
                keep(crossing(a, b))
                keep(b)
            case (false, false): break
            }
        }
        if let first = kept.first, kept.last != first { kept.append(first) }
        return kept
    }
}
