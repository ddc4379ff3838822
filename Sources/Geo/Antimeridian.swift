/// Lines cut where they cross the antimeridian (180°), for writers whose readers take a step
/// from 179.99° to −179.99° the long way, around the world: GeoJSON (RFC 7946 §3.1.9 asks for the
/// cut), and tools that move a device in straight steps of latitude and longitude (Maestro's
/// `travel`).
package enum Antimeridian {
    /// `line` in pieces of two or more positions, none crossing 180°. A step between neighbours
    /// more than 180° of longitude apart goes the short way, across the antimeridian: it ends one
    /// piece and starts the next at the meridian (180° on the side it leaves, −180° on the other),
    /// at the latitude interpolated along the step as ``Longitude/between(_:_:at:)`` goes. A line
    /// that does not cross is one piece, as it was. A step from 180° to −180° (or back) runs along
    /// the meridian, crossing nothing: its end is written on the side the piece is on.
    package static func cut(_ line: [Coordinate]) -> [[Coordinate]] {
        cut(line, longitude: \.longitude) { a, b, f, meridian in
            Coordinate(latitude: f == 1 ? b.latitude : a.latitude + (b.latitude - a.latitude) * f, longitude: meridian)
        }
    }

    /// ``cut(_:)`` for positions of any kind: `crossing(a, b, f, meridian)` is the position a
    /// fraction `f` of the way from `a` to `b`, put on the meridian at longitude `meridian` (what
    /// else it carries — a time, an altitude — is the caller's to interpolate); `f` is 1 only for
    /// a step along the meridian, whose `b` is `b` itself at `meridian`.
    package static func cut<Position>(
        _ line: some Sequence<Position>, longitude: (Position) -> Double,
        crossing: (Position, Position, Double, Double) -> Position
    ) -> [[Position]] {
        var pieces: [[Position]] = []
        var piece: [Position] = []
        for position in line {
            if let last = piece.last, abs(longitude(position) - longitude(last)) > 180 {
                let from = longitude(last)
                if abs(from) == 180 && longitude(position) == -from {
                    piece.append(crossing(last, position, 1, from))
                    continue
                }
                let meridian = from > 0 ? 180.0 : -180.0
                let across = longitude(position) + 2 * meridian  // the position on the side the step leaves
                let f = across == from ? 0 : (meridian - from) / (across - from)
                if from != meridian { piece.append(crossing(last, position, f, meridian)) }
                pieces.append(piece)
                piece = longitude(position) == -meridian ? [] : [crossing(last, position, f, -meridian)]
            }
            piece.append(position)
        }
        pieces.append(piece)
        return pieces.filter { $0.count > 1 }
    }

    /// Whether any step of `line` crosses 180° (is more than 180° of longitude long).
    package static func crosses(_ longitudes: some Sequence<Double>) -> Bool {
        var previous: Double?
        for longitude in longitudes {
            if let previous, abs(longitude - previous) > 180 { return true }
            previous = longitude
        }
        return false
    }
}
