import Foundation
import SimulatedTime
import Store
import TestSupport
import Testing

@testable import RunReports

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Issue 32, item 1: the SVG map stays for static pictures, with labels that do not cross the
/// route line.
struct SVGLabelTests {
    /// A straight route north through the centres of four cafés (as the commute runs through its
    /// cafés): a label above or below a circle would sit on the line.
    @Test func labelsKeepOffTheRoute() throws {
        try withTemporaryDirectory { directory in
            let store = try Store(path: directory.appendingPathComponent("l.db").path)
            let run = try store.beginRun(name: "north", track: "north.kml", at: 0)
            let start: EpochInstant = 1_750_000_000
            try store.appendLocations(
                (0..<400).map {
                    LocationRecord(
                        time: start + Double($0), latitude: 37.32 + Double($0) * 0.00005, longitude: -122.03,
                        horizontalAccuracy: 5, service: "standard")
                }, run: run.id)
            try store.saveRegions(
                (0..<4).map {
                    RegionRecord(
                        identifier: "cafe-\($0)", latitude: 37.322 + Double($0) * 0.004, longitude: -122.03,
                        radius: 60)
                }, run: run.id)
            let svg = SVGMap.render(try RunSnapshot.load(from: store, run: run))
            let parser = XMLParser(data: Data(svg.utf8))
            let elements = RunReportTests.Elements()
            parser.delegate = elements
            #expect(parser.parse())
            let route: [(Double, Double)] = elements.all.filter { $0.attributes["class"] == "route" }
                .flatMap { ($0.attributes["points"] ?? "").split(separator: " ") }
                .compactMap { pair in
                    let xy = pair.split(separator: ",").compactMap { Double($0) }
                    return xy.count == 2 ? (xy[0], xy[1]) : nil
                }
            #expect(route.count > 100)
            // Label boxes as the layout estimates them (6.6 px a character, 13 px high).
            let labels = try NSRegularExpression(
                pattern:
                    #"<text x="([-0-9.]+)" y="([-0-9.]+)" text-anchor="(middle|start|end)" fill="[^"]+">(cafe-[0-9])</text>"#
            )
            let boxes = labels.matches(in: svg, range: NSRange(svg.startIndex..., in: svg)).compactMap { match in
                let field = { (i: Int) in Range(match.range(at: i), in: svg).map { String(svg[$0]) } ?? "" }
                guard let x = Double(field(1)), let y = Double(field(2)) else {
                    return nil as (Double, Double, Double, Double)?
                }
                let width = Double(field(4).count) * 6.6
                let left = field(3) == "middle" ? x - width / 2 : field(3) == "end" ? x - width : x
                return (left, y - 11, left + width, y + 2)
            }
            #expect(boxes.count == 4)
            // The route is vertical here: a box is crossed when the line's x lies inside it
            // between its top and bottom.
            for (left, top, right, bottom) in boxes {
                let crossing = zip(route, route.dropFirst()).contains { a, b in
                    let x = (a.0 + b.0) / 2
                    return x > left && x < right && max(a.1, b.1) > top && min(a.1, b.1) < bottom
                }
                #expect(!crossing, "a label's box (\(left), \(top))–(\(right), \(bottom)) is crossed by the route")
            }
        }
    }

    /// A circle whose eight places are all crowded — the route across it both ways, post markers
    /// on its diagonals (a black-box hunt: the two-devices map drew a label across two post
    /// markers) — has its label on a ring farther out, clear of every marker and of the route.
    @Test func aCrowdedCircleIsLabelledFartherOutNotOverAMarker() {
        var layout = LabelLayout()
        let (x, y, radius) = (300.0, 300.0, 10.0)
        layout.reserveLine(from: (x, 0), to: (x, 600))
        layout.reserveLine(from: (0, y), to: (600, y))
        let diagonal = radius * 0.7071
        let markers = [
            (x + diagonal + 10, y - diagonal - 9), (x - diagonal - 10, y - diagonal - 9),
            (x + diagonal + 10, y + diagonal + 7), (x - diagonal - 10, y + diagonal + 7),
        ]
        for (mx, my) in markers { layout.reserve(x: mx, y: my, radius: 7) }
        let box = layout.box("cafe", at: layout.place("cafe", aroundCircleAt: x, y, radius: radius))
        for (mx, my) in markers {
            let marker = LabelLayout.Box(left: mx - 7, top: my - 7, right: mx + 7, bottom: my + 7)
            #expect(box.overlap(marker) == 0, "the label \(box) covers the marker at \(mx), \(my)")
        }
        #expect(!box.isCrossed(from: (x, 0), to: (x, 600)) && !box.isCrossed(from: (0, y), to: (600, y)), "\(box)")
    }
}
