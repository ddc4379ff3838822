import Foundation
import TestSupport
import Testing

/// `waypost test` and `waypost report` as CI and users run them.
struct ScenarioCLITests {
    @Test func testPassesWritesJUnitAndRecordsARunToReport() throws {
        try withTemporaryDirectory { directory in
            let junit = directory.appendingPathComponent("out.xml").path
            let db = directory.appendingPathComponent("runs.db").path
            let run = try CLITests.waypost(
                "test", "fixtures/scenarios/commute-cafe-checkin.yaml", "fixtures/scenarios/twenty-first-region.yaml",
                "--junit", junit, "--db", db)
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains("2 scenarios: 2 passed, 0 failed, 0 errors"))
            let xml = try String(contentsOfFile: junit, encoding: .utf8)
            #expect(xml.contains(#"<testsuites name="waypost" tests="9" failures="0" errors="0">"#))

            let svg = try CLITests.waypost("report", "commute-cafe-checkin", "--db", db, "--format", "svg")
            #expect(svg.status == 0, "\(svg.stderr)")
            #expect(svg.stdout.hasPrefix("<svg "))
            #expect(svg.stdout.contains("sunnyvale-coffee-roasters"))
            let html = directory.appendingPathComponent("map.html").path
            let page = try CLITests.waypost(
                "report", "commute-cafe-checkin", "--db", db, "--format", "html", "-o", html)
            #expect(page.status == 0, "\(page.stderr)")
            let text = try String(contentsOfFile: html, encoding: .utf8)
            #expect(text.contains(#"<input id="time" type="range""#) && !text.contains("<script src"))
            let missing = try CLITests.waypost("report", "no-such-run", "--db", db)
            #expect(missing.status == 66)
            #expect(missing.stderr.contains("no run named 'no-such-run'"))
        }
    }

    @Test func theAuditSaysWhyAPostFailed() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("runs.db").path
            let run = try CLITests.waypost("test", "fixtures/scenarios/facebook-token-expires.yaml", "--db", db)
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            let audit = try CLITests.waypost("audit", "facebook-token-expires", "--db", db)
            let failed = audit.stdout.split(separator: "\n").filter { $0.contains(" failed ") }
            #expect(failed.count == 2)
            #expect(
                failed.allSatisfy {
                    $0.hasSuffix(
                        "all passed; Graph 400: (#190/463) Error validating access token: Session has expired.")
                })
        }
    }

    @Test func brokenScenarioFailsWithExitOneAndInvalidWithSixtyFive() throws {
        try withTemporaryDirectory { directory in
            let root = Corpus.repositoryRoot.path
            let broken = directory.appendingPathComponent("broken.yaml")
            try """
            name: broken
            device:
              route: \(root)/tracks/sunnyvale-commute.kml
            regions: \(root)/fixtures/regions/commute-cafes.yaml
            expect:
              - event: regionEnter
                region: memorial-park
            """.write(to: broken, atomically: true, encoding: .utf8)
            let failed = try CLITests.waypost("test", broken.path)
            #expect(failed.status == 1, "\(failed.stdout)\(failed.stderr)")
            #expect(failed.stdout.contains("✗ at least 1 regionEnter of 'memorial-park'"))
            #expect(failed.stdout.contains("actual:   0 (regionEnter events seen:"))

            let invalid = directory.appendingPathComponent("invalid.yaml")
            try "name: x\ndevices: 3\nexpect: []\n".write(to: invalid, atomically: true, encoding: .utf8)
            let bad = try CLITests.waypost("test", invalid.path, "--format", "json")
            #expect(bad.status == 65)
            let json = try #require(JSONSerialization.jsonObject(with: Data(bad.stdout.utf8)) as? [String: Any])
            #expect(json["passed"] as? Bool == false)
            #expect(try CLITests.waypost("test", "nowhere.yaml").status == 66)
        }
    }
}
