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

    /// Slow steps that cover ground are a slow leg, not a stop: a steady crawl at 0.185 m/s was one
    /// leg at Maestro's default 4 m/s, and a kilometre over an hour's gap was folded into the next
    /// leg at its pace. A stop stays within 25 m of where it began.
    @Test func aCrawlIsASlowLegAndAStopStaysPut() throws {
        let crawl = (0...1_200).map { Self.at(0.185 * Double($0), Double($0)) }
        let legs = DriverExport.legs(crawl)
        #expect(legs.count == 1)
        #expect(abs(try #require(legs.first).speed - 0.185) < 0.001)
        // 1 km in 59 min between two walks at 1.85 m/s: three legs, the middle one at 0.28 m/s.
        var gap = (0...120).map { Self.at(1.85 * Double($0), Double($0)) }
        gap += (0...120).map { Self.at(222 + 1_000 + 1.85 * Double($0), 120 + 3_540 + Double($0)) }
        let speeds = DriverExport.legs(gap).map(\.speed)
        #expect(speeds.count == 3 && abs(speeds[0] - 1.85) < 0.01 && abs(speeds[2] - 1.85) < 0.01)
        // The slow leg ends once the last half minute's pace has changed (it takes those 30 s).
        #expect(speeds[1] > 0.28 && speeds[1] < 0.3)
        // Jitter while standing is still a stop.
        var standing = (0...60).map { Self.at(1.4 * Double($0), Double($0)) }
        standing += (61...600).map { Self.at(84 + ($0 % 2 == 0 ? 0.1 : -0.1), Double($0)) }
        standing += (601...660).map { Self.at(84 + 1.4 * Double($0 - 600), Double($0)) }
        #expect(DriverExport.legs(standing).map { ($0.speed * 10).rounded() / 10 } == [1.4, 1.4])
    }

    /// A slow route's mean speed keeps three significant digits: two decimals printed `0.00`.
    @Test func aSlowSpeedIsNotZero() {
        #expect(DriverExport.speedText(1.4) == "1.40")
        #expect(DriverExport.speedText(0.014) == "0.0140")
        #expect(DriverExport.speedText(0.00031) == "0.000310")
        #expect(DriverExport.speedText(0.1) == "0.100")
        var out = ""
        DriverExport.write([Self.at(0, 0), Self.at(2.2, 7_200)], as: .simctl, to: &out)
        #expect(out.hasPrefix("xcrun simctl location booted start --speed=0.000305 "), "\(out)")
    }

    /// Pauses are steps between times rounded from the start: each rounded on its own, 300 steps
    /// of 1/30 s slept 9.9 s of a 10 s track.
    @Test func adbPausesAddUpToTheRoutesTime() {
        let samples = (0...300).map { Self.at(Double($0) / 30, Double($0) / 30) }
        var out = ""
        DriverExport.write(samples, as: .adb, to: &out)
        let slept = out.split(separator: "\n").compactMap { $0.hasPrefix("sleep ") ? Double($0.dropFirst(6)) : nil }
        #expect(abs(slept.reduce(0, +) - 10) < 1e-9)
    }

    /// GPX's `longitudeType` is −180 ≤ lon < 180: a point at 180° (KML's edge) is written −180.
    /// Maestro's `Traveller` moves in 50 straight steps of latitude and longitude, without wrapping
    /// at 180° (maestro-orchestra/…/geo/Traveller.kt: `(eLon - sLon) / steps`): a step from 180° to
    /// −179.99° sent the device through 172.8°, 165.6° … 0° — the 21 m hop became calls across the
    /// globe. A leg across the meridian is two travel steps that meet on it, at one speed.
    @Test func aMaestroLegAcross180IsTwoStepsThatMeetOnTheMeridian() {
        let samples = [179.999, 179.9995, -179.9995, -179.999].enumerated().map { index, longitude in
            RouteSample(
                point: TrackPoint(
                    latitude: -17, longitude: longitude, time: Date(timeIntervalSince1970: 1_000 + 5 * Double(index))))
        }
        var out = ""
        DriverExport.write(samples, as: .maestro, name: "date line", to: &out)
        let steps = out.components(separatedBy: "- travel:\n").dropFirst()
        #expect(steps.count == 2, "\(out)")
        #expect(steps.first?.contains("\"-17.0000000, 180.0000000\"\n    speed:") == true, "\(out)")
        #expect(steps.last?.hasPrefix("    points:\n      - \"-17.0000000, -180.0000000\"") == true, "\(out)")
        #expect(Set(steps.map { $0.components(separatedBy: "speed: ").last }).count == 1)
        // Every point of each step is on one side: no step goes round.
        for step in steps {
            let longitudes = step.split(separator: "\n").filter { $0.hasPrefix("      - ") }.compactMap {
                Double($0.split(separator: ",").last?.dropLast().trimmingCharacters(in: .whitespaces) ?? "")
            }
            #expect(longitudes.count == 3 && (longitudes.allSatisfy { $0 > 0 } || longitudes.allSatisfy { $0 < 0 }))
        }
    }

    @Test func xcodeGPXWritesTheAntimeridianAsMinus180() {
        let point = RouteSample(point: TrackPoint(latitude: 10, longitude: 180, time: Date(timeIntervalSince1970: 0)))
        var out = ""
        DriverExport.write([point], as: .xcodeGPX, to: &out)
        #expect(out.contains("lon=\"-180.0000000\""), "\(out)")
    }

    /// A long route's one command line was past what exec takes (100,000 points, 2.4 MB: "Argument
    /// list too long"); past 128 KiB the waypoints go to simctl's standard input, one a line.
    @Test func aLongRouteGoesToSimctlThroughItsStandardInput() {
        let samples = (0...10_000).map { Self.at(Double($0), Double($0)) }
        var out = ""
        DriverExport.write(samples, as: .simctl, to: &out)
        let lines = out.split(separator: "\n")
        #expect(lines.first?.hasPrefix("xcrun simctl location booted start --speed=") == true)
        #expect(lines.first?.hasSuffix(" - <<'WAYPOINTS'") == true)
        #expect(lines.count == samples.count + 2 && lines.last == "WAYPOINTS")
        #expect(lines[1] == "37.0000000,-122.0000000")
        var short = ""
        DriverExport.write(Array(samples.prefix(100)), as: .simctl, to: &short)
        #expect(short.split(separator: "\n").count == 1)
    }

    @Test func onePlaceIsSimctlSet() {
        var out = ""
        DriverExport.write([Self.at(0, 0)], as: .simctl, device: "booted", to: &out)
        #expect(out == "xcrun simctl location booted set 37.0000000,-122.0000000\n")
        out = ""
        DriverExport.write([Self.at(0, 0), Self.at(10, 5)], as: .simctl, device: "my phone", to: &out)
        #expect(out.hasPrefix("xcrun simctl location 'my phone' start --speed=2.00 37.0000000,-122.0000000 "))
    }

    /// A black-box hunt: a route of three points stamped with one time, ending 1.1 km on, became
    /// `set` to its first point (said "keeps the positions in order … 0 m/s") — while the replay
    /// walks all three. It is a `start` through every point at simctl's own speed (`--speed` is
    /// optional), and the warning says so.
    @Test func aRouteThatMovesInNoTimeIsStartedAtSimctlsOwnSpeed() {
        let samples = [Self.at(0, 0), Self.at(500, 0), Self.at(1_100, 0)]
        var out = ""
        DriverExport.write(samples, as: .simctl, device: "booted", to: &out)
        #expect(
            out
                == "xcrun simctl location booted start 37.0000000,-122.0000000 37.0045045,-122.0000000 37.0099099,-122.0000000\n"
        )
        #expect(
            DriverExport.lost(.simctl, samples: samples)?.contains("no duration, so it moves at simctl's own speed")
                == true)
        #expect(DriverExport.lost(.simctl, samples: [Self.at(0, 0), Self.at(0, 60)])?.contains("0 m/s") == true)
    }
}
