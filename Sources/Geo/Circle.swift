/// A circle on the ground: a centre and a radius in metres (CoreLocation's `CLCircularRegion` geometry).
public struct Circle: Hashable, Sendable {
    public var center: Coordinate
    /// Radius in metres.
    public var radius: Double

    public init(center: Coordinate, radius: Double) {
        self.center = center
        self.radius = radius
    }

    /// Signed distance from the boundary in metres: negative inside, positive outside.
    public func signedDistance(to point: Coordinate) -> Double {
        ShortDistance.distance(center, point) - radius
    }

    /// Whether `point` lies inside or on the boundary.
    public func contains(_ point: Coordinate) -> Bool {
        signedDistance(to: point) <= 0
    }
}
