import Foundation
import TestSupport
import Testing

/// `waypost replay` with the simulator's flags, as a user runs it.
struct ReplaySimulationCLITests {
    func events(_ arguments: String...) throws -> (run: CLITests.Run, events: [[String: Any]]) {
        try events(arguments)
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

    /// Apple, `CLMonitor.Event` and `CLUpdate`: every diagnostic property is "iOS 18.0+"; iOS 17
    /// has the event's state and `CLLocationUpdate.isStationary` alone. Found at stop 80: iOS 17
    /// runs carried `conditionLimitExceeded`, `authorizationDenied` and `stationary`.
    @Test func diagnosticsExistFromIOS18() throws {
        try withTemporaryDirectory { directory in
            let regions = directory.appendingPathComponent("21.yaml")
            try
                ("regions:\n"
                + (1...21).map {
                    "  - { identifier: s\($0), latitude: \(37.3 + Double($0) / 1_000), longitude: -122.0, radius: 100 }\n"
                }
                .joined()).write(to: regions, atomically: true, encoding: .utf8)
            for (ios, expected) in [("17", [String]()), ("18", ["conditionLimitExceeded"])] {
                let (run, events) = try events(
                    "replay", "tracks/cupertino-walk.kml", "--regions", regions.path, "--mode", "none", "--api",
                    "monitor",
                    "--ios-version", ios, "--format", "jsonl")
                #expect(run.status == 0, "\(run.stderr)")
                let limited = try #require(events.first { $0["identifier"] as? String == "s21" })
                #expect(limited["state"] as? String == "unmonitored")
                #expect((limited["diagnostics"] as? [String] ?? []) == expected, "iOS \(ios)")
            }
            for (ios, expected) in [("17", [String]()), ("18", ["stationary"])] {
                let (run, events) = try events(
                    "replay", "tracks/cafe-stop.kml", "--mode", "none", "--api", "live-updates", "--ios-version", ios,
                    "--format", "jsonl")
                #expect(run.status == 0, "\(run.stderr)")
                let still = try #require(events.first { $0["isStationary"] as? Bool == true })
                #expect((still["diagnostics"] as? [String] ?? []) == expected, "iOS \(ios)")
            }
        }
    }

    /// Issue 14: the three APIs side by side on one route. The monitor's satisfied/unsatisfied
    /// come at the delegate's enter/exit instants; a beacon condition follows its beacon's range.
    @Test func theThreeAPIsShareOneWorld() throws {
        let (run, events) = try events(
            "replay", "tracks/sunnyvale-commute.kml", "--regions", "fixtures/regions/commute-cafes.yaml", "--beacons",
            "fixtures/beacons/commute-beacons.yaml", "--api", "delegate,monitor", "--api", "live-updates",
            "--format", "jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        func times(_ type: String, _ field: String, _ value: String) -> [String] {
            events.filter { $0["type"] as? String == type && $0[field] as? String == value }.compactMap {
                $0["t"] as? String
            }
        }
        let monitor = events.filter {
            $0["type"] as? String == "monitorEvent" && $0["identifier"] as? String != "roasters-counter"
                && $0["identifier"] as? String != "bookshop-door"
        }
        let transitions = events.filter { ["regionEnter", "regionExit"].contains($0["type"] as? String) }
        #expect(transitions.count == 7)
        #expect(
            monitor.filter { $0["t"] as? String != "2025-06-03T15:10:00.000Z" }.compactMap { $0["t"] as? String }
                == transitions.compactMap { $0["t"] as? String })
        #expect(times("monitorEvent", "identifier", "roasters-counter").count == 3)
        let beacon = try #require(events.first { $0["identifier"] as? String == "roasters-counter" })
        let condition = try #require(beacon["condition"] as? [String: Any])
        #expect(condition["type"] as? String == "beaconIdentity" && condition["major"] as? Int == 1)
        let live = events.filter { $0["type"] as? String == "liveUpdate" }
        let fixes = events.filter { $0["type"] as? String == "location" }
        #expect(live.count == fixes.count && live.allSatisfy { $0["isStationary"] as? Bool == false })
    }

    @Test func todaysAPIsNeedIOS17AndKnownNames() throws {
        let old = try CLITests.waypost("replay", "tracks/cupertino-walk.kml", "--api", "monitor", "--ios-version", "16")
        #expect(old.status == 64 && old.stderr.contains("CLMonitor exists from iOS 17"))
        let unknown = try CLITests.waypost("replay", "tracks/cupertino-walk.kml", "--api", "radar")
        #expect(
            unknown.status == 64 && unknown.stderr.contains("'radar' is not one of delegate, monitor, live-updates"))
        let configuration = try CLITests.waypost(
            "replay", "tracks/cupertino-walk.kml", "--api", "live-updates", "--live-configuration", "rocket")
        #expect(configuration.status == 64)
    }

    @Test(arguments: [
        ("uuid: not-a-uuid", 3, "'uuid' must be a UUID"),
        ("major: 70000", 4, "'major' must be a whole number from 0 to 65535"),
        ("range: 500", 8, "range 500.0 m must be in (0, 100] m"),
    ])
    func badBeaconsFilesSayWhereAndWhy(_ line: String, _ number: Int, _ message: String) throws {
        var fields = [
            "uuid: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major: 1", "minor: 1", "latitude: 37.3", "longitude: -122",
            "range: 10",
        ]
        let key = String(line.prefix { $0 != ":" })
        fields.removeAll { $0.hasPrefix(key + ":") }
        fields.insert(line, at: key == "range" ? fields.count : key == "major" ? 1 : 0)
        let text = "beacons:\n  - identifier: x\n" + fields.map { "    " + $0 + "\n" }.joined()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("beacons-\(number)-\(key).yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try CLITests.waypost(
            "replay", "tracks/cupertino-walk.kml", "--api", "monitor", "--beacons", file.path)
        #expect(run.status == 65)
        #expect(run.stderr.contains("\(file.path):\(number):"), "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test func significantChangeModeAndSummary() throws {
        let run = try CLITests.waypost(
            "replay", "tracks/i280-drive.kml", "--speed", "29", "--mode", "significant-change", "--summary")
        #expect(run.status == 0, "\(run.stderr)")
        // 17.3 km at 29 m/s lasts 9 min 57 s: the first fix, one 5 min later; the next would be due at 10 min.
        #expect(run.stdout.split(separator: "\n").last?.hasPrefix("summary: 0 fixes, 2 significant changes") == true)
    }

    /// A coarse accuracy's source is limited to a fix every 5 s (Wi-Fi) or every minute (cells),
    /// and an untimed line is sampled a second apart on one clock, so the fixes come exactly that
    /// often. Cut leg by leg into equal pieces, the drive's samples were 0.999 s apart and the
    /// fixes 5.995 s and 60.94 s.
    @Test(arguments: [("hundred-meters", 5.0), ("kilometer", 60.0)])
    func coarseFixesOfAnUntimedLineComeAtTheirSourcesRate(_ accuracy: String, _ seconds: Double) throws {
        let (run, events) = try events("replay", "tracks/i280-drive.kml", "--accuracy", accuracy, "--format", "jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let times = events.filter { $0["type"] as? String == "location" }.compactMap {
            ($0["t"] as? String).flatMap(formatter.date(from:))
        }
        #expect(times.count > 5)
        for (a, b) in zip(times, times.dropFirst()) {
            #expect(abs(b.timeIntervalSince(a) - seconds) < 0.001, "\(a) → \(b)")
        }
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
            // Apple, `CLActivityType.airborne`: iOS 12.0+.
            (
                ["--activity-type", "airborne", "--ios-version", "11"],
                "--activity-type airborne: CLActivityType.airborne exists from iOS 12; this device runs iOS 11"
            ),
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

    /// Issue 14, item 3: sessions from the command line. With NSLocationRequireExplicitServiceSession,
    /// live updates say serviceSessionRequired until the app holds a session; a When In Use app's
    /// updates stop in the background unless a background activity session keeps it in use.
    @Test func sessionsFromTheCommandLine() throws {
        let required = try events(
            "replay", "tracks/cafe-stop.kml", "--api", "live-updates", "--requires-explicit-service-session",
            "--format", "jsonl")
        #expect(required.run.status == 0, "\(required.run.stderr)")
        let live = required.events.filter { $0["type"] as? String == "liveUpdate" }
        #expect(live.count == 1 && live[0]["diagnostics"] as? [String] == ["serviceSessionRequired"])

        func backgroundLocations(_ extra: String...) throws -> (Int, [[String: Any]]) {
            let (run, events) = try self.events(
                [
                    "replay", "tracks/cafe-stop.kml", "--api", "live-updates", "--auth", "when-in-use",
                    "--app-state", "background@300", "--format", "jsonl",
                ] + extra)
            #expect(run.status == 0, "\(run.stderr)")
            let after = events.filter { ($0["t"] as? String ?? "") >= "2025-06-09T09:05:00.000Z" }
            return (
                after.filter { $0["type"] as? String == "liveUpdate" && $0["lat"] is Double }.count,
                events.filter { $0["type"] as? String == "sessionDiagnostic" }
            )
        }
        let (without, _) = try backgroundLocations()
        let (with, sessions) = try backgroundLocations("--background-activity-session")
        #expect(without == 0)
        #expect(with > 1_000)
        #expect(
            sessions.first?["kind"] as? String == "backgroundActivity" && sessions.first?["active"] as? Bool == true)

        let old = try CLITests.waypost([
            "replay", "tracks/cafe-stop.kml", "--api", "live-updates", "--service-session", "always", "--ios-version",
            "17",
        ])
        #expect(old.status == 64 && old.stderr.contains("--service-session: CLServiceSession exists from iOS 18"))
    }
}

extension ReplaySimulationCLITests {
    /// Apple, `requestLocation()`: "Only one location fix is reported to the delegate, after which
    /// location services are stopped." Issue 28: `--request-location` with the time the app asks.
    @Test func requestLocationGivesOneFixAtTheTimeAsked() throws {
        let (run, events) = try events(
            "replay", "tracks/cupertino-walk.kml", "--mode", "none", "--request-location", "60",
            "--request-location", "120", "--format", "jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        let fixes = events.filter { $0["type"] as? String == "location" }
        let start = try #require(events.first?["t"] as? String)
        #expect(fixes.count == 2 && fixes.allSatisfy { $0["service"] as? String == "standard" })
        #expect(fixes.first?["t"] as? String != start)
        let bad = try CLITests.waypost("replay", "tracks/cupertino-walk.kml", "--request-location", "-1")
        #expect(bad.status == 64)
    }

    /// Apple, `kCLLocationAccuracyReduced`: "If your app is authorized to access location
    /// information with full accuracy, you can use this constant to access location data as if the
    /// app didn't have that authorization." Issue 28: `--accuracy reduced` was refused (64).
    @Test func accuracyReducedGivesApproximateFixesUnderFullAccuracy() throws {
        let (run, events) = try events(
            "replay", "tracks/sunnyvale-commute.kml", "--accuracy", "reduced", "--format", "jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        let fixes = events.filter { $0["type"] as? String == "location" }
        #expect(!fixes.isEmpty && fixes.allSatisfy { ($0["hacc"] as? Double ?? 0) > 1_000 })
        #expect(!events.contains { $0["type"] as? String == "accuracyAuthorization" }, "authorization stays full")
        let old = try CLITests.waypost(
            "replay", "tracks/cupertino-walk.kml", "--accuracy", "reduced", "--ios-version", "13")
        #expect(old.status == 64 && old.stderr.contains("kCLLocationAccuracyReduced exists from iOS 14"))
    }

    func events(_ arguments: [String]) throws -> (run: CLITests.Run, events: [[String: Any]]) {
        let run = try CLITests.waypost(arguments)
        let events = try run.stdout.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        return (run, events)
    }
}
