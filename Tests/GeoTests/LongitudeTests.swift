import Geo
import Testing

/// Interpolating a longitude the short way round: across the antimeridian when that is shorter,
/// and, where it is not crossed, exactly the straight formula every fill used before.
struct LongitudeTests {
    @Test(
        "Across the antimeridian, the short way, wrapped into [−180, 180]",
        arguments: [
            (179.999, -179.999, 0.25, 179.9995), (179.999, -179.999, 0.75, -179.9995),
            (-179.0, 179.0, 0.5, -180.0), (170.0, -170.0, 0.25, 175.0), (-170.0, 170.0, 0.75, 175.0),
        ])
    func crossing(from a: Double, to b: Double, at f: Double, is expected: Double) {
        let x = Longitude.between(a, b, at: f)
        #expect(abs(x - expected) < 1e-9 || abs(abs(x - expected) - 360) < 1e-9, "\(x)")
        #expect(x >= -180 && x <= 180)
    }

    @Test("Not crossing: a + (b − a) × f, bit for bit")
    func notCrossing() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let a = Double.random(in: -180...180, using: &generator)
            let b = min(180, max(-180, a + Double.random(in: -180...180, using: &generator)))
            let f = Double.random(in: 0...1, using: &generator)
            #expect(Longitude.between(a, b, at: f).bitPattern == (a + (b - a) * f).bitPattern)
        }
    }
}
