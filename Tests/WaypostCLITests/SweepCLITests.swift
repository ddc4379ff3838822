import Foundation
import TestSupport
import Testing

/// `waypost sweep` (issue 40): the field mechanism's answer for a user's own geofence, in the
/// contract's shapes; the same seed gives the same bytes.
struct SweepCLITests {
    @Test func jsonFollowsTheContractAndTheSameSeedGivesTheSameBytes() throws {
        let arguments = [
            "sweep", "--radius", "50,100", "--speed", "1.4", "--offset", "0,2000", "--environment", "urban,rural",
            "--trials", "20", "--seed", "4", "--format", "json",
        ]
        let run = try CLITests.waypost(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try CLITests.waypost(arguments).stdout == run.stdout)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(document["realism"] as? String == "field" && document["seed"] as? Int == 4)
        let cells = try #require(document["cells"] as? [[String: Any]])
        #expect(cells.count == 2 * 2 * 2)  // radius × offset × environment
        for cell in cells {
            #expect(
                Set(cell.keys) == [
                    "radius", "speed", "dwell", "offset", "environment", "wifi", "trials", "enter", "exit",
                ])
            #expect(cell["trials"] as? Int == 20 && cell["wifi"] as? String == "on")
            for name in ["enter", "exit"] {
                let event = try #require(cell[name] as? [String: Any])
                let notified = try #require(event["notified"] as? Double)
                let wilson = try #require(event["wilson"] as? [Double])
                #expect(wilson.count == 2 && wilson[0] <= notified && notified <= wilson[1])
                // The count beside the rounded fraction: one miss in 40,000 would not show in it.
                let count = try #require(event["notifiedTrials"] as? Int)
                #expect(abs(Double(count) / 20 - notified) < 0.000_1)
                if notified == 0 {
                    // Nothing notified: the statistics are null, not absent.
                    #expect(event["lateSeconds"] is NSNull && event["distanceFromCentre"] is NSNull)
                } else {
                    let late = try #require(event["lateSeconds"] as? [String: Double])
                    #expect(late["p5"]! <= late["p50"]! && late["p50"]! <= late["p95"]!)
                    #expect(event["distanceFromCentre"] is [String: Double])
                }
            }
        }
        // Passing 2 km from a 50 m fence: never a notification.
        let far = try #require(cells.first { $0["offset"] as? Double == 2000 && $0["radius"] as? Double == 50 })
        #expect((far["enter"] as? [String: Any])?["notified"] as? Double == 0)
    }

    @Test func textHasOneRowACellAndHTMLAHeatmapPerEventStatisticAndEnvironment() throws {
        let text = try CLITests.waypost(["sweep", "--radius", "10,100", "--speed", "1.4,15", "--trials", "10"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.split(separator: "\n").count == 2 + 4)
        // Columns line up whatever the surroundings: "suburban, Wi-Fi off" pushed its row out
        // (a black-box hunt).
        let surroundings = try CLITests.waypost([
            "sweep", "--radius", "50", "--speed", "5", "--environment", "urban,suburban", "--wifi", "on,off",
            "--trials",
            "2",
        ])
        let bars = surroundings.stdout.split(separator: "\n").dropFirst().map { line in
            line.firstIndex(of: "|").map { line.distance(from: line.startIndex, to: $0) }
        }
        #expect(bars.count == 5 && Set(bars).count == 1, "\(surroundings.stdout)")
        try withTemporaryDirectory { directory in
            let page = directory.appendingPathComponent("sweep.html").path
            let html = try CLITests.waypost([
                "sweep", "--radius", "10,100", "--speed", "1.4,15", "--environment", "urban,suburban", "--trials", "10",
                "--format", "html", "-o", page,
            ])
            #expect(html.status == 0 && html.stdout.isEmpty, "\(html.stderr)")
            let content = try String(contentsOfFile: page, encoding: .utf8)
            // 2 events × 3 statistics × 2 environments.
            #expect(content.components(separatedBy: "<table class=\"heatmap\"").count - 1 == 12)
            #expect(!content.contains("http://") && !content.contains("https://"), "offline")
        }
    }

    /// A cell's values are printed as given: rounded to 0.1, speeds 1.45 and 1.5 were two rows
    /// "1.5", and an offset of 0.04 m was "0" (through the centre).
    @Test func cellValuesArePrintedAsGiven() throws {
        let common = ["sweep", "--radius", "100", "--speed", "1.45,1.5", "--dwell", "0.25", "--offset", "0.04"]
        let text = try CLITests.waypost(common + ["--trials", "5"])
        #expect(text.status == 0, "\(text.stderr)")
        let rows = text.stdout.split(separator: "\n").dropFirst(2).map {
            $0.split(separator: " ").prefix(4).joined(separator: " ")
        }
        #expect(rows == ["100 1.45 0.25 0.04", "100 1.5 0.25 0.04"], "\(text.stdout)")
        let html = try CLITests.waypost(common + ["--trials", "5", "--format", "html"])
        #expect(html.stdout.contains("<th>1.45</th><th>1.5</th>"), "\(html.stdout)")
        #expect(html.stdout.contains("<h2>dwell 0.25 s · offset 0.04 m"), "\(html.stdout)")
    }

    /// A repeated list option adds to the list (it kept only the last one); a value given twice
    /// would sweep the same cells twice, and is a usage error.
    @Test func aRepeatedOptionJoinsItsListsAndARepeatedValueIs64() throws {
        let joined = try CLITests.waypost([
            "sweep", "--radius", "100", "--radius", "200", "--speed", "1.4", "--environment", "urban",
            "--environment", "rural", "--trials", "5", "--format", "json",
        ])
        #expect(joined.status == 0, "\(joined.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(joined.stdout.utf8)) as? [String: Any])
        let cells = try #require(document["cells"] as? [[String: Any]])
        #expect(Set(cells.compactMap { $0["radius"] as? Double }) == [100, 200])
        #expect(Set(cells.compactMap { $0["environment"] as? String }) == ["urban", "rural"])
        // A default is replaced, not added to.
        #expect(Set(cells.compactMap { $0["dwell"] as? Double }) == [0] && cells.count == 4)
        for (extra, message) in [
            (["--radius", "100,100"], "--radius gives 100 twice"),
            (["--radius", "100", "--radius", "1e2"], "--radius gives 100 twice"),
            (["--speed", "1.4", "--speed", "1.40"], "--speed gives 1.4 twice"),
            (["--wifi", "on,off,on"], "--wifi gives on twice"),
        ] {
            var arguments = ["sweep", "--trials", "5"] + extra
            if !extra.contains("--radius") { arguments += ["--radius", "50"] }
            if !extra.contains("--speed") { arguments += ["--speed", "1.4"] }
            let run = try CLITests.waypost(arguments)
            #expect(run.status == 64, "\(extra): \(run.stderr)")
            #expect(run.stderr.contains(message), "\(run.stderr)")
        }
    }

    @Test(arguments: [
        (["--realism", "exact"], "exact has no field mechanism"),
        (["--environment", "downtown"], "'downtown' is not urban, suburban or rural"),
        (["--wifi", "maybe"], "'maybe' is not on or off"),
        (["--radius", "0"], "--radius"),
        (["--speed", "fast"], "--speed"),
    ])
    func badOptionsAreUsageErrors(_ extra: [String], _ message: String) throws {
        var arguments = ["sweep", "--radius", "50", "--speed", "1.4", "--trials", "5"]
        for (index, word) in extra.enumerated() where index % 2 == 0 {
            if let at = arguments.firstIndex(of: word) { arguments.removeSubrange(at...(at + 1)) }
        }
        let run = try CLITests.waypost(arguments + extra)
        #expect(run.status == 64)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }
}
