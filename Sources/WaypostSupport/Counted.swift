/// A count and its noun, agreeing: `1 trial`, `2 trials`.
package enum Counted {
    package static func text(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
    }
}
