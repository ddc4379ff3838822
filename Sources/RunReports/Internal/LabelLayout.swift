/// Places map labels so that they overlap neither the markers, nor each other, nor the route
/// line: each label takes the first of its candidate positions that is free — around its circle,
/// then on rings farther out — or the least crowded one when none is, where covering a marker or
/// another label costs more than crossing the route.
struct LabelLayout {
    /// A label's place: its text's anchor point and SVG `text-anchor`.
    struct Placement: Equatable {
        var x: Double
        var y: Double
        var anchor: String
    }

    struct Box {
        var left, top, right, bottom: Double

        func overlap(_ other: Box) -> Double {
            max(0, min(right, other.right) - max(left, other.left))
                * max(0, min(bottom, other.bottom) - max(top, other.top))
        }

        /// Whether the segment from a to b passes through the box (Liang–Barsky clipping).
        func isCrossed(from a: (x: Double, y: Double), to b: (x: Double, y: Double)) -> Bool {
            var low = 0.0
            var high = 1.0
            let dx = b.x - a.x
            let dy = b.y - a.y
            for (p, q) in [(-dx, a.x - left), (dx, right - a.x), (-dy, a.y - top), (dy, bottom - a.y)] {
                if p == 0 {
                    if q < 0 { return false }
                } else {
                    let t = q / p
                    if p < 0 { low = max(low, t) } else { high = min(high, t) }
                    if low > high { return false }
                }
            }
            return true
        }
    }

    private var markers: [Box] = []
    private var labels: [Box] = []
    /// Route segments, bucketed by the grid cells their bounding boxes cover, so that a label
    /// is tested only against the segments near it.
    private var segments: [(a: (x: Double, y: Double), b: (x: Double, y: Double))] = []
    private var cells: [Cell: [Int]] = [:]
    private static let cellSize = 48.0

    private struct Cell: Hashable {
        var column: Int
        var row: Int
    }

    /// Keeps the square of half-side `radius` around a marker at (x, y) free of labels.
    mutating func reserve(x: Double, y: Double, radius: Double) {
        markers.append(Box(left: x - radius, top: y - radius, right: x + radius, bottom: y + radius))
    }

    /// Keeps the line from a to b (a piece of the route) free of labels.
    mutating func reserveLine(from a: (x: Double, y: Double), to b: (x: Double, y: Double)) {
        let index = segments.count
        segments.append((a, b))
        for cell in Self.cells(
            Box(left: min(a.x, b.x), top: min(a.y, b.y), right: max(a.x, b.x), bottom: max(a.y, b.y)))
        {
            cells[cell, default: []].append(index)
        }
    }

    /// Places `text` (12 px type) around a circle of `radius` pixels at (x, y): above it, below,
    /// right, left, at the four diagonals, then above and below beginning or ending at the centre;
    /// when none of those is free, the same twelve places on up to five rings (14 px each)
    /// farther out (black-box hunts: in a crowded corner a label was drawn across two post
    /// markers; among twenty fences close together, over another label); then reserves its box.
    mutating func place(_ text: String, aroundCircleAt x: Double, _ y: Double, radius: Double) -> Placement {
        var best: (crowding: Double, placement: Placement, box: Box)?
        for ring in 0..<6 {
            let reach = radius + Double(ring) * 14
            let diagonal = reach * 0.7071
            let candidates = [
                Placement(x: x, y: y - reach - 4, anchor: "middle"),
                Placement(x: x, y: y + reach + 14, anchor: "middle"),
                Placement(x: x + reach + 4, y: y + 4, anchor: "start"),
                Placement(x: x - reach - 4, y: y + 4, anchor: "end"),
                Placement(x: x + diagonal + 3, y: y - diagonal - 3, anchor: "start"),
                Placement(x: x - diagonal - 3, y: y - diagonal - 3, anchor: "end"),
                Placement(x: x + diagonal + 3, y: y + diagonal + 13, anchor: "start"),
                Placement(x: x - diagonal - 3, y: y + diagonal + 13, anchor: "end"),
                // Above and below, beginning or ending at the centre.
                Placement(x: x, y: y - reach - 4, anchor: "start"),
                Placement(x: x, y: y - reach - 4, anchor: "end"),
                Placement(x: x, y: y + reach + 14, anchor: "start"),
                Placement(x: x, y: y + reach + 14, anchor: "end"),
            ]
            for placement in candidates {
                let box = box(text, at: placement)
                // A covered marker hides what happened, and text over text is read as neither;
                // a crossed route only crowds the map. The nearest of equally crowded places wins.
                let crowding =
                    markers.reduce(0) { $0 + box.overlap($1) } * 1_000 + Double(crossings(of: box)) * 2_000
                    + labels.reduce(0) { $0 + box.overlap($1) } * 1_000
                if crowding == 0 {
                    labels.append(box)
                    return placement
                }
                if best.map({ crowding < $0.crowding }) ?? true { best = (crowding, placement, box) }
            }
        }
        guard let best else { return Placement(x: x, y: y - radius - 4, anchor: "middle") }
        labels.append(best.box)
        return best.placement
    }

    /// How many route segments pass through `box`.
    private func crossings(of box: Box) -> Int {
        var seen = Set<Int>()
        for cell in Self.cells(box) {
            for index in cells[cell] ?? [] where !seen.contains(index) {
                seen.insert(index)
            }
        }
        return seen.filter { box.isCrossed(from: segments[$0].a, to: segments[$0].b) }.count
    }

    private static func cells(_ box: Box) -> [Cell] {
        let columns = Int((box.left / cellSize).rounded(.down))...Int((box.right / cellSize).rounded(.down))
        let rows = Int((box.top / cellSize).rounded(.down))...Int((box.bottom / cellSize).rounded(.down))
        return columns.flatMap { column in rows.map { Cell(column: column, row: $0) } }
    }

    /// The box of `text` at `placement`: about 6.6 px a character and 13 px high at 12 px type.
    func box(_ text: String, at placement: Placement) -> Box {
        let width = Double(text.count) * 6.6
        let left =
            switch placement.anchor {
            case "middle": placement.x - width / 2
            case "end": placement.x - width
            default: placement.x
            }
        return Box(left: left, top: placement.y - 11, right: left + width, bottom: placement.y + 2)
    }
}
