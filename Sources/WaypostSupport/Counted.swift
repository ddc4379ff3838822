/// A count and its noun, agreeing: `1 trial`, `2 trials`.
public enum Counted {
    public static func text(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
    }
}
