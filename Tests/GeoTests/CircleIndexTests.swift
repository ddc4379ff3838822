import Geo
import Testing

struct CircleIndexTests {
    @Test func findsEveryCircleWithinReachAndNothingFarAway() {
        var index = CircleIndex<Int>(margin: 200)
        // A 100 × 100 grid of 150 m circles, 0.02° apart, around Cupertino.
        var circles: [Int: Circle] = [:]
        for i in 0..<100 {
            for j in 0..<100 {
                let c = Circle(
                    center: Coordinate(latitude: 37.0 + Double(i) * 0.02, longitude: -122.5 + Double(j) * 0.02),
                    radius: 150)
                circles[i * 100 + j] = c
                index.insert(c, for: i * 100 + j)
            }
        }
        #expect(index.count == 10_000)
        // Probe points all over the grid: every circle whose reach covers the probe is returned,
        // and the candidate list stays small.
        var maxCandidates = 0
        for k in 0..<2_000 {
            let p = Coordinate(
                latitude: 37.0 + Double((k * 7919) % 2000) * 0.001,
                longitude: -122.5 + Double((k * 104_729) % 2000) * 0.001)
            let list = index.candidates(near: p)
            let found = Set(list)
            #expect(found.count == list.count, "a circle returned twice at \(p)")
            maxCandidates = max(maxCandidates, found.count)
            for (id, c) in circles where c.signedDistance(to: p) <= 200 {
                #expect(found.contains(id), "circle \(id) within reach of \(p) not returned")
            }
        }
        #expect(maxCandidates <= 4)
    }

    @Test func replaceAndRemove() {
        var index = CircleIndex<String>(margin: 0)
        let here = Coordinate(latitude: 10, longitude: 179.999)
        index.insert(Circle(center: here, radius: 500), for: "a")
        // Across the antimeridian.
        #expect(index.candidates(near: Coordinate(latitude: 10, longitude: -179.999)) == ["a"])
        index.insert(Circle(center: Coordinate(latitude: -40, longitude: 0), radius: 50), for: "a")
        #expect(index.candidates(near: here).isEmpty)
        #expect(index.count == 1)
        #expect(index.remove("a") != nil)
        #expect(index.count == 0)
        // A continent-sized circle is kept aside and still found.
        index.insert(Circle(center: here, radius: 2_000_000), for: "big")
        #expect(index.candidates(near: Coordinate(latitude: 0, longitude: 0)) == ["big"])
        // Replaced by a small circle, it is filed by cell again, and only there.
        index.insert(Circle(center: here, radius: 50), for: "big")
        #expect(index.candidates(near: Coordinate(latitude: 0, longitude: 0)).isEmpty)
        #expect(index.candidates(near: here) == ["big"])
        #expect(index.count == 1)
    }
}
