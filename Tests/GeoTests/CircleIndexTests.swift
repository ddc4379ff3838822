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

    /// A library hunt: a point or a circle past any real one trapped converting to a cell (a NaN
    /// or 1e10° point, a radius of 1e300 m). The point falls in some cell; the circle is kept
    /// aside as a continent-sized one is, and found everywhere.
    @Test func pointsAndCirclesPastAnyRealOneDoNotTrap() {
        var index = CircleIndex<String>(margin: 0)
        index.insert(Circle(center: Coordinate(latitude: 10, longitude: 10), radius: 1e300), for: "huge")
        index.insert(Circle(center: Coordinate(latitude: 10, longitude: 10), radius: .nan), for: "nan")
        #expect(Set(index.candidates(near: Coordinate(latitude: -30, longitude: 100))) == ["huge", "nan"])
        for point in [
            Coordinate(latitude: .nan, longitude: .nan), Coordinate(latitude: 1e10, longitude: 1e10),
            Coordinate(latitude: 0, longitude: -.infinity),
        ] {
            #expect(index.candidates(near: point).contains("huge"), "\(point)")
        }
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

    /// Cells either side of the equator and of the prime meridian (rows -1 and 0, columns -2 to 1)
    /// are told apart: a cell is filed under its row and column packed into one integer, where a
    /// negative column spilling into the row bits would file (0, -2) and (-1, -2) together.
    /// (A small circle is filed in two columns, so the west ones sit a cell further west.)
    @Test func cellsEitherSideOfTheEquatorAndThePrimeMeridianStayApart() {
        var index = CircleIndex<String>(margin: 0)
        index.reserveCapacity(4)
        let quadrants = [("ne", 0.005, 0.005), ("nw", 0.005, -0.015), ("se", -0.005, 0.005), ("sw", -0.005, -0.015)]
        for (id, latitude, longitude) in quadrants {
            index.insert(Circle(center: Coordinate(latitude: latitude, longitude: longitude), radius: 100), for: id)
        }
        for (id, latitude, longitude) in quadrants {
            #expect(index.candidates(near: Coordinate(latitude: latitude, longitude: longitude)) == [id])
        }
        #expect(index.count == 4)
    }

    /// A circle over a pole holds every longitude there, whatever longitude its centre was
    /// written with (a black-box hunt: a region at (90, 0) was never entered from longitude 10).
    @Test(arguments: [0.0, 10, -170])
    func aCircleOverAPoleIsACandidateAtEveryLongitude(_ written: Double) {
        var index = CircleIndex<String>(margin: 0)
        index.insert(Circle(center: Coordinate(latitude: 90, longitude: written), radius: 300), for: "north")
        index.insert(Circle(center: Coordinate(latitude: -89.999, longitude: written), radius: 300), for: "south")
        for longitude in stride(from: -180.0, through: 179, by: 15) {
            #expect(index.candidates(near: Coordinate(latitude: 89.998, longitude: longitude)).contains("north"))
            #expect(index.candidates(near: Coordinate(latitude: -89.9995, longitude: longitude)).contains("south"))
        }
    }
}
