import CheckinEngine
import Foundation
import Geo
import LocationEvents
import LocationSimulation
import Runs
import SimulatedTime
import Testing
import Tracks

/// `RunSession` hands a run to its front end two ways: the public `run(onEvent:)` (a library
/// user's), and `run(onLocation:onPost:)`, which `waypost test` and `waypost replay` take so that
/// no event is copied into a `RunEvent` and out again. Both hand on the same run.
struct RunSessionFrontEndTests {
    /// A walk north through a café's fence at 5 m/s, and a dry-run rule that checks in on entry.
    static func plan() -> RunPlan {
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        let samples = (0..<240).map { second in
            RouteSample(
                point: TrackPoint(
                    latitude: 37.3200 + Double(second) * 0.000045, longitude: -122.0315,
                    time: start.addingTimeInterval(Double(second))),
                speed: 5, course: 0)
        }
        let cafe = CircularRegion(
            identifier: "cafe", center: Coordinate(latitude: 37.3236, longitude: -122.0315), radius: 150)
        var plan = RunPlan(
            devices: [DevicePlan(route: RouteTimeline(samples), app: AppScript(regions: [cafe]))], regions: [cafe])
        plan.checkins = CheckinPlan(
            store: InMemoryStore(), runName: "walk", track: "walk",
            rules: [CheckinRule(id: "coffee", triggers: [.regionEnter])],
            network: nil)
        return plan
    }

    @Test func bothWaysHandOnTheSameEventsAndPosts() async throws {
        var viaEnum: [TimedEvent] = []
        var postsViaEnum: [(key: String, at: EpochInstant)] = []
        let one = try await RunSession(Self.plan()).run { event in
            switch event {
            case .location(let timed): viaEnum.append(timed)
            case .post(let record, let at): postsViaEnum.append((record.key, at))
            }
        }
        var viaClosures: [TimedEvent] = []
        var postsViaClosures: [(key: String, at: EpochInstant)] = []
        let two = try await RunSession(Self.plan()).run {
            viaClosures.append($0)
        } onPost: { record, at in
            postsViaClosures.append((record.key, at))
        }
        #expect(viaEnum.contains { $0.event.kind == .regionEnter }, "the walk never entered the café")
        #expect(!postsViaEnum.isEmpty, "the rule never checked in")
        #expect(viaEnum == viaClosures)
        #expect(postsViaEnum.map(\.key) == postsViaClosures.map(\.key))
        #expect(postsViaEnum.map(\.at) == postsViaClosures.map(\.at))
        #expect(one.eventCount == viaEnum.count && two.eventCount == viaClosures.count)
    }
}
