import Foundation
import TestSupport
import Testing

/// `waypost replay` with the simulator's flags, as a user runs it.
struct ReplaySimulationCLITests {
    func events(_ arguments: String...) throws -> (run: CLITests.Run, events: [[String: Any]]) {
        let run = try CLITests.waypost(arguments)
        let events = try run.stdout.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        return (run, events)
    }

    @Test func commuteEntersTheCafesRegions() throws {
        let (run, events) = try events(
            "replay", "tracks/sunnyvale-commute.kml", "--regions", "fixtures/regions/commute-cafes.yaml", "--format",
            "jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        let enters = events.filter { $0["type"] as? String == "regionEnter" }.compactMap { $0["region"] as? String }
        #expect(
            enters == [
                "sunnyvale-coffee-roasters", "homestead-road-cafe", "stevens-creek-coffee-house", "infinite-loop-cafe",
            ])
        let states = events.filter { $0["type"] as? String == "regionState" }
        let started = events.filter { $0["type"] as? String == "monitoringStarted" }
        #expect(started.count == 5)
        #expect(states.count == 5 + 7)  // the initial state of each region, then one per transition: 4 enters, 3 exits
    }

    @Test func significantChangeModeAndSummary() throws {
        let run = try CLITests.waypost(
            "replay", "tracks/i280-drive.kml", "--speed", "29", "--mode", "significant-change", "--summary")
        #expect(run.status == 0, "\(run.stderr)")
        // 17.3 km at 29 m/s lasts 9 min 57 s: the first fix, one 5 min later; the next would be due at 10 min.
        #expect(run.stdout.split(separator: "\n").last?.hasPrefix("summary: 0 fixes, 2 significant changes") == true)
    }

    @Test func deniedAuthorizationGivesAnErrorAndNoFixes() throws {
        let (run, events) = try events("replay", "tracks/cupertino-walk.kml", "--auth", "denied", "--format", "jsonl")
        #expect(run.status == 0)
        #expect(events.map { $0["type"] as? String } == ["authorization", "authorization", "error"])
        #expect(events[1]["status"] as? String == "denied")
        #expect(events[2]["error"] as? String == "denied" && events[2]["code"] as? Int == 1)
    }

    @Test func signalLossAndSeededNoise() throws {
        let (_, a) = try events(
            "replay", "tracks/cupertino-walk.kml", "--noise", "urban", "--seed", "42", "--signal-loss", "600-900",
            "--format", "jsonl")
        let (_, b) = try events(
            "replay", "tracks/cupertino-walk.kml", "--noise", "urban", "--seed", "42", "--signal-loss", "600-900",
            "--format", "jsonl")
        #expect(a.count == b.count)
        #expect(zip(a, b).allSatisfy { NSDictionary(dictionary: $0).isEqual(to: $1) })
        let errors = a.filter { $0["type"] as? String == "error" }
        #expect(errors.count == 1 && errors.first?["error"] as? String == "locationUnknown")
        #expect(errors.first?["t"] as? String == "2025-06-02T16:10:00.000Z")
        let fixes = a.filter { $0["type"] as? String == "location" }
        #expect(
            !fixes.contains {
                ($0["t"] as? String ?? "") > "2025-06-02T16:10:00"
                    && ($0["t"] as? String ?? "") <= "2025-06-02T16:15:00.000Z"
            })
        #expect(fixes.contains { ($0["hacc"] as? Double ?? 0) > 5 })
    }

    @Test func theRegionLimitAndHowToLiftIt() throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("many.json")
            let regions = (0..<25).map {
                #"{"identifier": "r\#($0)", "latitude": 37.3\#($0), "longitude": -122.03, "radius": 100}"#
            }
            try ("{\"regions\": [" + regions.joined(separator: ",") + "]}").write(
                to: file, atomically: true, encoding: .utf8)
            let limited = try CLITests.waypost("replay", "tracks/i280-drive.kml", "--regions", file.path, "--summary")
            #expect(limited.stdout.contains("5 monitoring failures"))
            #expect(limited.stdout.contains("monitoringFailed r20: regionMonitoringFailure (5)"))
            let lifted = try CLITests.waypost(
                "replay", "tracks/i280-drive.kml", "--regions", file.path, "--summary", "--unlimited-regions")
            #expect(lifted.stdout.contains("0 monitoring failures"))
        }
    }

    @Test func realtimeHonoursTheRate() throws {
        // 12 vertices at 290 m/s ≈ 60 s of route; at 600× that is about a tenth of a second.
        let run = try CLITests.waypost(
            "replay", "tracks/i280-drive.kml", "--speed", "290", "--realtime", "--rate", "600", "--summary")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("summary:"))
    }

    @Test func badRegionsAndFlags() throws {
        try withTemporaryDirectory { directory in
            let bad = directory.appendingPathComponent("bad.yaml")
            try "regions:\n  - identifier: a\n    latitude: 1\n    longitude: 2\n    radius: big\n".write(
                to: bad, atomically: true, encoding: .utf8)
            let run = try CLITests.waypost("replay", "tracks/cupertino-walk.kml", "--regions", bad.path)
            #expect(run.status == 65)
            #expect(run.stdout.isEmpty)
            #expect(run.stderr == "waypost: error: \(bad.path):5:13: 'radius' must be a number, not 'big'\n")
            #expect(try CLITests.waypost("replay", "tracks/cupertino-walk.kml", "--regions", "nope.yaml").status == 66)
            #expect(try CLITests.waypost("replay", "tracks/cupertino-walk.kml", "--accuracy", "perfect").status == 64)
            #expect(try CLITests.waypost("replay", "tracks/cupertino-walk.kml", "--signal-loss", "9-3").status == 64)
            #expect(try CLITests.waypost("replay", "tracks/cupertino-walk.kml", "--mode", "teleport").status == 64)
            #expect(try CLITests.waypost("replay", "tracks/cupertino-walk.kml", "--rate", "10").status == 64)
        }
    }

    /// The lifecycle and authorization flags, and the script errors iOS has no path for: one
    /// line naming the flag, exit 64, nothing run.
    @Test func lifecycleFlagsDriveTheRunAndBadScriptsAreRefused() throws {
        let (run, events) = try events(
            "replay", "tracks/sunnyvale-commute.kml", "--regions", "fixtures/regions/commute-cafes.yaml", "--format",
            "jsonl", "--auth", "always@60", "--app-state", "background@300", "--app-state", "terminated@600")
        #expect(run.status == 0, "\(run.stderr)")
        let types = events.compactMap { $0["type"] as? String }
        #expect(types.contains("appLaunch") && types.filter { $0 == "appState" }.count == 2)
        #expect(events.first { $0["type"] as? String == "appLaunch" }?["reason"] as? String == "region")
        #expect(
            events.filter { $0["status"] as? String == "authorizedAlways" }.first?["t"] as? String
                == "2025-06-03T15:11:00.000Z")
        for (arguments, message) in [
            (
                ["--auth", "once", "--ios-version", "12"],
                "--auth once: the 'once' answer (Allow Once) exists from iOS 13"
            ),
            (["--accuracy-authorization", "reduced", "--ios-version", "13"], "reduced accuracy exists from iOS 14"),
            (
                ["--app-state", "suspended@10"],
                "--app-state suspended@10: the app cannot go from foreground to suspended"
            ),
            (["--app-state", "asleep@10"], "--app-state 'asleep@10' is not STATE@SECONDS"),
            (["--auth", "always@later"], "--auth"),
        ] {
            let bad = try CLITests.waypost(["replay", "tracks/cupertino-walk.kml"] + arguments)
            #expect(bad.status == 64 && bad.stdout.isEmpty, "\(arguments)")
            #expect(bad.stderr.contains(message), "\(bad.stderr)")
        }
    }
}
