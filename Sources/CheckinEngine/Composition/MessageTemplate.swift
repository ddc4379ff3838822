import Foundation

/// Fills a rule's message: `{place}`, `{region}`, `{time}` (HH:mm UTC of the event) and `{network}`.
enum MessageTemplate {
    static func render(_ template: String, place: String?, region: String?, time: Double, network: Network) -> String {
        let seconds = Int(time.rounded(.down))
        let minuteOfDay = ((seconds % 86_400) + 86_400) % 86_400 / 60
        let clock = String(format: "%02d:%02d", minuteOfDay / 60, minuteOfDay % 60)
        var text = template
        for (name, value) in [
            ("{place}", place ?? ""), ("{region}", region ?? ""), ("{time}", clock), ("{network}", network.rawValue),
        ] {
            text = text.replacingOccurrences(of: name, with: value)
        }
        // A blank `{place}` leaves doubled or trailing spaces behind.
        while text.contains("  ") { text = text.replacingOccurrences(of: "  ", with: " ") }
        return text.trimmingCharacters(in: .whitespaces)
    }
}
