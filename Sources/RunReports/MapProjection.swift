import Foundation
import Geo

/// Web Mercator (EPSG:3857), scaled to fit a set of points and circles in a frame: what web
/// maps use, so a report lines up with the map a user knows. Points across the antimeridian are
/// drawn side by side (``LongitudeSpan``), as a web map drawn there does.
public struct MapProjection: Sendable {
    /// WGS-84 semi-major axis: Web Mercator's sphere, metres.
    static let radius = 6_378_137.0

    public let width: Double
    public let height: Double
    /// Pixels per projected metre.
    public let scale: Double
    private let minX: Double
    private let maxY: Double
    private let left: Double
    private let top: Double
    private let longitudes: LongitudeSpan

    /// Fits `points` and `circles` (centre, radius in metres) into the frame at (`left`, `top`)
    /// of `width` × `height` pixels, keeping the aspect ratio, with `padding` pixels spare.
    public init(
        fitting points: [Coordinate], circles: [(Coordinate, Double)] = [], left: Double = 0, top: Double = 0,
        width: Double, height: Double, padding: Double = 24
    ) {
        self.init(
            fitting: points, circles: circles,
            longitudes: LongitudeSpan(points.map(\.longitude) + circles.map(\.0.longitude)), left: left, top: top,
            width: width, height: height, padding: padding)
    }

    /// ``init(fitting:circles:left:top:width:height:padding:)`` drawing at `longitudes`, the span
    /// of the points and circles a caller has already found (``SVGMap/Framing``).
    init(
        fitting points: [Coordinate], circles: [(Coordinate, Double)], longitudes: LongitudeSpan, left: Double,
        top: Double, width: Double, height: Double, padding: Double = 24
    ) {
        var xs: [Double] = []
        var ys: [Double] = []
        for p in points {
            xs.append(Self.x(longitudes.unwrapped(p.longitude)))
            ys.append(Self.y(p.latitude))
        }
        for (center, r) in circles {
            let projected = r / max(cos(center.latitude * .pi / 180), 1e-6)
            let x = Self.x(longitudes.unwrapped(center.longitude))
            xs += [x - projected, x + projected]
            ys += [Self.y(center.latitude) - projected, Self.y(center.latitude) + projected]
        }
        var (x0, x1) = (xs.min() ?? 0, xs.max() ?? 0)
        var (y0, y1) = (ys.min() ?? 0, ys.max() ?? 0)
        // A single point (or nothing) still gets a sensible frame: half a kilometre across.
        let minimumSpan = 500.0
        if x1 - x0 < minimumSpan { (x0, x1) = ((x0 + x1) / 2 - minimumSpan / 2, (x0 + x1) / 2 + minimumSpan / 2) }
        if y1 - y0 < minimumSpan { (y0, y1) = ((y0 + y1) / 2 - minimumSpan / 2, (y0 + y1) / 2 + minimumSpan / 2) }
        let usableWidth = max(width - 2 * padding, 1)
        let usableHeight = max(height - 2 * padding, 1)
        scale = min(usableWidth / (x1 - x0), usableHeight / (y1 - y0))
        // Centre the content in the frame.
        self.left = left + padding + (usableWidth - (x1 - x0) * scale) / 2
        self.top = top + padding + (usableHeight - (y1 - y0) * scale) / 2
        self.width = width
        self.height = height
        minX = x0
        maxY = y1
        self.longitudes = longitudes
    }

    static func x(_ longitude: Double) -> Double { radius * longitude * .pi / 180 }

    static func y(_ latitude: Double) -> Double {
        let clamped = min(max(latitude, -85.051_128_78), 85.051_128_78)
        return radius * log(tan(.pi / 4 + clamped * .pi / 360))
    }

    /// The pixel position of a coordinate.
    public func point(_ c: Coordinate) -> (x: Double, y: Double) {
        (left + (Self.x(longitudes.unwrapped(c.longitude)) - minX) * scale, top + (maxY - Self.y(c.latitude)) * scale)
    }

    /// Pixels for `metres` on the ground at `latitude`: Mercator stretches by 1/cos(latitude).
    public func pixels(metres: Double, at latitude: Double) -> Double {
        metres / max(cos(latitude * .pi / 180), 1e-6) * scale
    }

    /// A round ground distance (1, 2 or 5 × 10ⁿ metres) whose bar is at most `maximum` pixels
    /// at `latitude`, and its length in pixels.
    public func scaleBar(at latitude: Double, maximum: Double = 160) -> (metres: Double, pixels: Double) {
        let metresAtMaximum = maximum / pixels(metres: 1, at: latitude)
        var best = 1.0
        var magnitude = 1.0
        while magnitude <= metresAtMaximum {
            for step in [1.0, 2, 5] where step * magnitude <= metresAtMaximum { best = step * magnitude }
            magnitude *= 10
        }
        return (best, pixels(metres: best, at: latitude))
    }
}
