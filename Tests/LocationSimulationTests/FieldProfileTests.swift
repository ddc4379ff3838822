import Geo
import LocationEvents
import LocationSimulation
import TestSupport
import Testing
import Tracks

/// The field profiles (`--realism NAME`), each reproducing its source's headline figure over
/// 2,000 simulated crossings of one region: the device stays half an hour on each side, so no
/// event's latency runs into the next crossing's.
@Suite struct FieldProfileTests {
    static let crossings = 2_000

    /// Region events of a device crossing a region `crossings` times (entries and exits
    /// alternating), as seconds after each exact crossing — nil where the crossing was never
    /// reported — with the profile's parameters.
    static func lateness(_ profile: RealismProfile, radius: Double = 300) -> (entries: [Double?], exits: [Double?]) {
        func transitions(_ profile: RealismProfile) -> [(String, Double)] {
            var configuration = LocationManagerConfiguration()
            configuration.updateInterval = 100
            profile.apply(to: &configuration)
            let manager = alwaysManager(configuration: configuration, seed: 11)
            manager.startMonitoring(for: CircularRegion(identifier: "r", center: north(1_500), radius: radius))
            // Every 2,000 s the device moves (in 100 s) between 1.5 km south of the region's
            // centre and the centre itself; a sample every 100 s, and half an hour more after the
            // last crossing for its event to arrive.
            let samples = (0...(crossings * 20 + 18)).map { step -> RouteSample in
                let t = Double(step) * 100
                let leg = min(crossings, Int(t / 2_000))
                let c = north(leg % 2 == 0 ? 0 : 1_500)
                return RouteSample(
                    point: TrackPoint(
                        latitude: c.latitude, longitude: c.longitude,
                        time: .init(timeIntervalSince1970: (t0 + t).secondsSince1970)),
                    speed: nil, course: nil)
            }
            return run(samples, manager: manager).transitions.map { ($0.0, $0.2) }
        }
        let exact = transitions(.exact)
        #expect(exact.count == crossings)
        var reported = transitions(profile)[...]
        var entries: [Double?] = []
        var exits: [Double?] = []
        for (kind, time) in exact {
            // The next reported event of the same kind within the half hour that follows.
            var late: Double?
            if let next = reported.first, next.0 == kind, next.1 >= time, next.1 < time + 1_800 {
                late = next.1 - time
                reported.removeFirst()
            }
            if kind == "enter" { entries.append(late) } else { exits.append(late) }
        }
        return (entries, exits)
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    /// Apple, `startMonitoring(for:)` (older reference): "an app can expect to receive the
    /// appropriate region entered or region exited notification within 3 to 5 minutes on average,
    /// if not sooner".
    @Test func deviceIsAppleDocumentedAverage() {
        let (entries, exits) = Self.lateness(.device)
        let all = (entries + exits).compactMap { $0 }
        #expect(all.count == Self.crossings)
        let mean = all.reduce(0, +) / Double(all.count)
        #expect(mean > 150 && mean < 300, "mean \(mean) s is within 3 to 5 minutes, if not sooner")
    }

    /// Radius Networks, "Geofence performance testing" (2015), iPhone 5s/6, a 60 m region: it
    /// fired "nearly every time within 30 s", some ~1,000 m away while driving.
    @Test func radius2015FiresNearlyEveryTimeWithin30Seconds() {
        let (entries, _) = Self.lateness(.radius2015, radius: 60)
        let fired = entries.compactMap { $0 }
        #expect(fired.count == entries.count, "a 60 m region fires: no small-region misses")
        let within30 = Double(fired.filter { $0 <= 30 }.count) / Double(fired.count)
        #expect(within30 >= 0.9, "\(within30) within 30 s")
        // ~1,000 m at highway speed (30 m/s) for the late fires: the 95th percentile.
        let p95 = fired.sorted()[Int(Double(fired.count) * 0.95)]
        #expect(abs(p95 * 30 - 1_000) <= 250, "95th percentile \(p95) s is \(p95 * 30) m at 30 m/s")
    }

    /// Shevchenko & Reips, Behavior Research Methods 56:6411 (2024): 82.5 % of 360 geofence
    /// crossings were notified. Reproduced within ±3 points over 2,000 crossings.
    @Test func reips2024NotifiesFourFifthsOfCrossings() {
        let (entries, exits) = Self.lateness(.reips2024)
        let all = entries + exits
        let notified = Double(all.compactMap { $0 }.count) / Double(all.count)
        #expect(abs(notified - 0.825) <= 0.03, "\(notified) notified")
    }

    /// Open Radar 17064346 (iOS 7.1): exits came ~190 s late whatever the radius.
    @Test(arguments: [150.0, 300, 600])
    func radar2014ExitsComeAbout190SecondsLate(radius: Double) {
        let (_, exits) = Self.lateness(.radar2014, radius: radius)
        let late = exits.compactMap { $0 }
        #expect(late.count == exits.count)
        #expect(abs(Self.median(late) - 190) <= 10, "median exit \(Self.median(late)) s")
    }
}
