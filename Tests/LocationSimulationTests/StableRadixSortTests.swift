import Testing
import WaypostSupport

@testable import LocationSimulation

/// The crowd window's sort orders as the standard library's stable sort does: by the key, items
/// with equal keys in the order they came.
struct StableRadixSortTests {
    struct Item: Equatable {
        var time: Double
        var order: Int
    }

    /// Times as a window holds them (a few seconds past an epoch instant, many shared), and the
    /// cases a key must get right: both zeros, negatives, infinities, times across powers of two.
    static let cases: [[Double]] = {
        var random = SplitMix64(seed: 41)
        let window = (0..<5_000).map { _ in 1_748_963_400 + (random.unit() * 32 * 8).rounded(.down) / 8 }
        let wide = (0..<3_000).map { _ in (random.unit() - 0.5) * 1e12 }
        let tiny = Double.leastNonzeroMagnitude  // subnormal
        return [
            [], [7], [3, 3, 3, 3], [2, 1], window, wide,
            [0, -0.0, 1, -1, 0, -0.0, .infinity, -.infinity, tiny, -tiny, 1, -1],
            [1_073_741_823.5, 1_073_741_824, 1_073_741_824.25, 1_073_741_823.75, 1_073_741_824],
        ]
    }()

    @Test(arguments: cases)
    func ordersAsTheStandardLibrarysStableSort(times: [Double]) {
        var items = times.enumerated().map { Item(time: $0.element, order: $0.offset) }
        // The standard library's sort is stable; equal times keep their order.
        let expected = items.sorted { $0.time < $1.time }
        var scratch: [Item] = []
        StableRadixSort.sort(&items, scratch: &scratch) { StableRadixSort.key($0.time) }
        #expect(items == expected)
    }

    @Test func keysOrderAsTheirDoubles() {
        let tiny = Double.leastNonzeroMagnitude
        let values: [Double] = [-.infinity, -1e300, -2, -1, -tiny, 0, tiny, 1, 2, 1e300, .infinity]
        let keys = values.map(StableRadixSort.key)
        #expect(keys == keys.sorted() && Set(keys).count == keys.count)
        #expect(StableRadixSort.key(-0.0) == StableRadixSort.key(0))
    }
}
