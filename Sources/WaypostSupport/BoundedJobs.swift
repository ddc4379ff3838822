/// Runs `body(0)`, …, `body(count − 1)` as child tasks, at most `jobs` at once (one ending starts
/// the next), and returns their results in index order, whatever order they finish in: how
/// trials, sweeps and predictions keep `--jobs` without reordering their output.
package func mapConcurrently<T: Sendable>(
    count: Int, jobs: Int, _ body: @escaping @Sendable (Int) async -> T
) async -> [T] {
    await withTaskGroup(of: (Int, T).self) { group in
        var results: [T?] = Array(repeating: nil, count: count)
        var next = 0
        func start() {
            guard next < count else { return }
            let index = next
            next += 1
            group.addTask { (index, await body(index)) }
        }
        for _ in 0..<min(max(1, jobs), count) { start() }
        for await (index, result) in group {
            results[index] = result
            start()
        }
        return results.compactMap { $0 }
    }
}
