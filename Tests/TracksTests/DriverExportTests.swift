import Foundation
import Testing

@testable import Tracks

/// The route for the tools that drive real apps (issue 42): the rules that are Waypost's own —
/// where a Maestro flow starts a leg, how a route is resampled, one place as `simctl set` —
/// checked here; the formats themselves are read by their ecosystems' readers in
/// Tests/FormatConformance/check_exports.py.
struct DriverExportTests {
    /// A sample `metres` north of a fixed point at `seconds`.
    static func at(_ metres: Double, _ seconds: Double) -> RouteSample {
        RouteSample(
            point: TrackPoint(
                latitude: 37 + metres / 111_000, longitude: -122, time: Date(timeIntervalSince1970: 1_000 + seconds)))
    }

    @Test func aStopAndAChangeOfPaceStartLegs() {
        // 2 min walking at 1.4 m/s, 1 min still, 2 min riding at 5 m/s.
        var samples = (0...120).map { Self.at(1.4 * Double($0), Double($0)) }
        samples += (121...180).map { Self.at(1.4 * 120, Double($0)) }
        samples += (181...300).map { Self.at(168 + 5 * Double($0 - 180), Double($0)) }
        let legs = DriverExport.legs(samples)
        #expect(legs.count == 2)
        #expect(legs.map { ($0.speed * 10).rounded() / 10 } == [1.4, 5])
        // Every position is in a leg, in order (a leg's first is the one before's last).
        let positions = legs.flatMap { $0.samples.indices }
        #expect(Set(positions) == Set(samples.indices))
        #expect(positions == positions.sorted())
    }

    @Test func aSteadyPaceWithNoiseIsOneLeg() {
        let samples = (0...600).map { Self.at(4.5 * Double($0) + ($0 % 2 == 0 ? 1.5 : -1.5), Double($0)) }
        #expect(DriverExport.legs(samples).count == 1)
    }

    @Test func resamplingKeepsTheEndsAndInterpolates() {
        let samples = [Self.at(0, 0), Self.at(100, 10), Self.at(100, 13)]
        let five = DriverExport.resampled(samples, every: 5)
        #expect(five.map { $0.point.timeIntervalSince1970.map { $0 - 1_000 } } == [0, 5, 10, 13])
        #expect(abs(five[1].point.latitude - Self.at(50, 5).point.latitude) < 1e-9)
    }

    /// Across the antimeridian the short way: 179.999° to −179.999° is 0.002°, not round the
    /// globe through 0° (a user's dateline track drew a line across the world).
    @Test func resamplingCrossesTheAntimeridianTheShortWay() {
        let samples = [179.999, -179.999].enumerated().map { index, longitude in
            RouteSample(
                point: TrackPoint(
                    latitude: -16.5, longitude: longitude, time: Date(timeIntervalSince1970: 1_000 + 60 * Double(index))
                ))
        }
        let resampled = DriverExport.resampled(samples, every: 1)
        #expect(resampled.count == 61)
        #expect(resampled.allSatisfy { abs($0.point.longitude) >= 179.999 && abs($0.point.longitude) <= 180 })
    }

    /// A file's name goes into a comment of the script and the flow: a line break in it would end
    /// the comment and run what follows in the shell (`y⏎touch PWNED⏎.gpx`), or start a key of the
    /// YAML flow (U+2028 too, a line break in YAML 1.1).
    @Test(arguments: [DriverExport.Format.adb, .maestro])
    func aNameCannotLeaveItsComment(format: DriverExport.Format) {
        var out = ""
        DriverExport.write(
            [Self.at(0, 0), Self.at(10, 5)], as: format, name: "y\ntouch PWNED\r\u{2028}appId: x\u{85}.gpx", to: &out)
        let commentLines = out.split(omittingEmptySubsequences: false) { $0.isNewline }.filter { $0.contains("PWNED") }
        #expect(commentLines.count == 1)
        #expect(
            commentLines.first?.hasPrefix("# y\\ntouch PWNED\\r\\u{2028}appId: x\\u{85}.gpx for ") == true, "\(out)")
    }

    @Test func onePlaceIsSimctlSet() {
        var out = ""
        DriverExport.write([Self.at(0, 0)], as: .simctl, device: "booted", to: &out)
        #expect(out == "xcrun simctl location booted set 37.0000000,-122.0000000\n")
        out = ""
        DriverExport.write([Self.at(0, 0), Self.at(10, 5)], as: .simctl, device: "my phone", to: &out)
        #expect(out.hasPrefix("xcrun simctl location 'my phone' start --speed=2.00 37.0000000,-122.0000000 "))
    }
}
