import CheckinEngine
import Foundation
import RunReports
import TestSupport
import Testing

/// Issue 32, item 1: the Leaflet page — self-contained, its data unable to break out of its
/// script element, names from files shown escaped as in the other maps — and where its
/// libraries are looked up.
struct LeafletMapTests {
    static let assets = LeafletAssets(
        leafletJS: "/* leaflet */ var s = '</script><b>';", leafletCSS: ".leaflet{}", clusterJS: "/* cluster */",
        clusterCSS: ".marker-cluster{}")

    /// The JSON in `<script id="run-data">`, parsed.
    static func data(_ page: String) throws -> [String: Any] {
        let start = try #require(page.range(of: #"<script type="application/json" id="run-data">"#))
        let end = try #require(page.range(of: "</script>", range: start.upperBound..<page.endIndex))
        let json = String(page[start.upperBound..<end.lowerBound])
        return try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    @Test func hostileNamesStayInTheirScriptAndAreShownEscaped() throws {
        try withTemporaryDirectory { directory in
            let snapshot = try HostileTextTests.snapshot(in: directory)
            let page = LeafletMap.render(snapshot, assets: Self.assets)
            #expect(HostileTextTests.hazards(in: page).isEmpty)
            // One element per inlined library, the data and the page's own script: nothing closes early.
            #expect(page.components(separatedBy: "</script>").count - 1 == 4)
            #expect(page.contains(#"var s = '<\/script><b>';"#))
            let data = try Self.data(page)
            #expect(data["title"] as? String == #"Waypost run 'walk\e]0;owned\x07'"#)
            let regions = try #require(data["regions"] as? [[String: Any]])
            #expect(regions.first?["name"] as? String == #"cafe\e[31m\u{9B}2J\u{202E}gnp\n  +0:00:00  FAKE LINE"#)
            let markers = try #require(data["markers"] as? [[String: Any]])
            let post = try #require(markers.first { $0["kind"] as? String == "post" })
            let details = try #require(post["details"] as? [[String]])
            #expect(details.contains(["place", #"=HYPERLINK("http://evil.example")\x00\e[8m\u{85}"#]))
            #expect(post["precision"] as? String == "place")
            #expect(post["network"] as? String == "twitter")
        }
    }

    /// docs/checkins-and-privacy.md: "Report map popups say 'seen by …'" — the SVG's did, the
    /// HTML map's popups never said who could see a post (a black-box hunt).
    @Test(arguments: [(Audience.public, "anyone"), (.followers, "followers"), (.onlyMe, "onlyMe")])
    func popupsSayWhoCouldSeeAPost(audience: Audience, words: String) throws {
        try withTemporaryDirectory { directory in
            var snapshot = try HostileTextTests.snapshot(in: directory)
            snapshot.posts[0].audience = audience
            let markers = try #require(
                try Self.data(LeafletMap.render(snapshot, assets: Self.assets))["markers"] as? [[String: Any]])
            let post = try #require(markers.first { $0["kind"] as? String == "post" })
            #expect((post["details"] as? [[String]])?.contains(["seen by", words]) == true, "\(post)")
            #expect(SVGMap.render(snapshot).contains("seen by \(words)"))
        }
    }

    @Test func markupInNamesCannotEndTheDataScript() throws {
        try withTemporaryDirectory { directory in
            var snapshot = try HostileTextTests.snapshot(in: directory)
            snapshot.regions[0].identifier = "</script><script>alert(1)</script><!--"
            let page = LeafletMap.render(snapshot, assets: Self.assets)
            #expect(!page.contains("<script>alert(1)"))
            #expect(!page.contains("<!--"))
            let regions = try #require(try Self.data(page)["regions"] as? [[String: Any]])
            #expect(regions.first?["name"] as? String == "</script><script>alert(1)</script><!--")
        }
    }

    @Test func pageFillsTheWindowAndNeedsNoNetwork() throws {
        try withTemporaryDirectory { directory in
            let page = LeafletMap.render(try HostileTextTests.snapshot(in: directory), assets: Self.assets)
            #expect(page.contains(#"<meta name="viewport" content="width=device-width, initial-scale=1">"#))
            #expect(!page.contains("<script src") && !page.contains("<link "))
            #expect(try Self.data(page)["tiles"] == nil)
            let tiled = LeafletMap.render(
                try HostileTextTests.snapshot(in: directory), assets: Self.assets,
                tiles: TileLayer(urlTemplate: "https://tile.example/{z}/{x}/{y}.png", attribution: "© <Tiles> & co"))
            let tiles = try #require(try Self.data(tiled)["tiles"] as? [String: String])
            #expect(tiles["url"] == "https://tile.example/{z}/{x}/{y}.png")
            // Leaflet puts attributions in as markup: the text arrives escaped.
            #expect(tiles["attribution"] == "© &lt;Tiles&gt; &amp; co")
        }
    }

    @Test func tileTemplatesAreChecked() {
        #expect(TileLayer.problem(with: "https://tile.openstreetmap.org/{z}/{x}/{y}.png") == nil)
        #expect(TileLayer.problem(with: "file:///tiles/{z}/{x}/{y}.png") == "is not an http(s) URL")
        #expect(TileLayer.problem(with: "https://tile.example/{z}/{x}.png")?.contains("lacks {y}") == true)
    }

    @Test func assetsComeFromTheNamedFolderOnly() throws {
        try withTemporaryDirectory { directory in
            #expect(LeafletAssets.locate(environment: [LeafletAssets.environmentVariable: directory.path]) == nil)
            let files = [
                "leaflet.js": "L", "leaflet.css": ".a{background:url(images/layers.png)}",
                "leaflet.markercluster.js": "C", "MarkerCluster.css": ".m{}", "MarkerCluster.Default.css": ".d{}",
            ]
            for (name, text) in files {
                try Data(text.utf8).write(to: directory.appendingPathComponent(name))
            }
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("images"), withIntermediateDirectories: true)
            try Data([0x89, 0x50]).write(to: directory.appendingPathComponent("images/layers.png"))
            let assets = try #require(
                LeafletAssets.locate(environment: [LeafletAssets.environmentVariable: directory.path]))
            #expect(assets.leafletJS == "L" && assets.clusterJS == "C")
            #expect(assets.leafletCSS == ".a{background:url(data:image/png;base64,iVA=)}")
            #expect(assets.clusterCSS == ".m{}\n.d{}")
        }
    }
}
