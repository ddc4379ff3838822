import Foundation
import Testing
import WaypostSupport

@testable import CheckinEngine

/// The audit's spans (`waited 42 s of at most 15 min`) are written as `String(format:)` wrote
/// them (`%.0f s`, `%.0f min`, `%.1f h`) before the formatter left the engine's hot path: byte
/// for byte, ties and signs included, so audits and golden outputs stay as they were.
struct SpanWordingTests {
    @Test func spansAsPrintfWroteThem() {
        func printf(_ value: Double) -> String {
            value < 120
                ? String(format: "%.0f s", value)
                : value < 7_200 ? String(format: "%.0f min", value / 60) : String(format: "%.1f h", value / 3_600)
        }
        var mismatches: [String] = []
        var values: [Double] = [0, -0.0, 0.5, 1.5, 2.5, -0.5, -0.2, 119.5, 59.5, 1e15, -1e16, .nan, .infinity]
        // Spans of every size a run gives (seconds, minutes and hours), a few seconds negative,
        // and every half: the ties.
        for i in 0..<100_000 { values += [Double(i) * 0.073_190_3 - 300, Double(i - 1_000) / 2] }
        for value in values
        where FixedPoint.printf(value, digits: 0) != String(format: "%.0f", value)
            || OutboxDelivery.seconds(value) != printf(value)
        {
            if mismatches.count < 5 { mismatches.append("\(value)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test func spansInTheirUnits() {
        #expect(OutboxDelivery.seconds(42.4) == "42 s")
        #expect(OutboxDelivery.seconds(119.4) == "119 s")
        #expect(OutboxDelivery.seconds(900) == "15 min")
        #expect(OutboxDelivery.seconds(7_199) == "120 min")
        #expect(OutboxDelivery.seconds(9_000) == "2.5 h")
        #expect(OutboxDelivery.seconds(9_180) == "2.5 h")  // 2.55 h: printf rounds the binary value, below the half
    }
}
