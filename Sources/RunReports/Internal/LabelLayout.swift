/// Places map labels so that they overlap neither the markers nor each other: each label takes
/// the first of its candidate positions that is free, or the least crowded one when none is.
struct LabelLayout {
    /// A label's place: its text's anchor point and SVG `text-anchor`.
    struct Placement: Equatable {
        var x: Double
        var y: Double
        var anchor: String
    }

    private struct Box {
        var left, top, right, bottom: Double

        func overlap(_ other: Box) -> Double {
            max(0, min(right, other.right) - max(left, other.left))
                * max(0, min(bottom, other.bottom) - max(top, other.top))
        }
    }

    private var taken: [Box] = []

    /// Keeps the square of half-side `radius` around a marker at (x, y) free of labels.
    mutating func reserve(x: Double, y: Double, radius: Double) {
        taken.append(Box(left: x - radius, top: y - radius, right: x + radius, bottom: y + radius))
    }

    /// Places `text` (12 px type) around a circle of `radius` pixels at (x, y): above it, below,
    /// right, left; then reserves its box.
    mutating func place(_ text: String, aroundCircleAt x: Double, _ y: Double, radius: Double) -> Placement {
        let candidates = [
            Placement(x: x, y: y - radius - 4, anchor: "middle"),
            Placement(x: x, y: y + radius + 14, anchor: "middle"),
            Placement(x: x + radius + 4, y: y + 4, anchor: "start"),
            Placement(x: x - radius - 4, y: y + 4, anchor: "end"),
        ]
        let boxes = candidates.map { box(text, at: $0) }
        let crowding = boxes.map { box in taken.reduce(0) { $0 + box.overlap($1) } }
        let best = crowding.firstIndex(of: 0) ?? crowding.indices.min { crowding[$0] < crowding[$1] } ?? 0
        taken.append(boxes[best])
        return candidates[best]
    }

    /// The box of `text` at `placement`: about 6.6 px a character and 13 px high at 12 px type.
    private func box(_ text: String, at placement: Placement) -> Box {
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
