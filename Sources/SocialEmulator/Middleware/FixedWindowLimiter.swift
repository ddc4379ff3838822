/// Counts requests in fixed windows, per key — how Twitter's 15-minute windows and Graph's
/// hourly throttling both behaved: a window opens with its key's first request, admits `limit`
/// requests, and resets `window` seconds after it opened.
struct FixedWindowLimiter: Sendable {
    /// A key's current window, as the `x-rate-limit-*` headers report it.
    struct Window: Sendable, Equatable {
        var start: Double
        var count: Int
        var limit: Int
        var length: Double

        var remaining: Int { max(0, limit - count) }
        /// When the window resets, whole seconds since 1970 (Twitter's `x-rate-limit-reset`).
        var reset: Int {
            let end = start + length
            return end < Double(Int.max) ? Int(end.rounded(.up)) : Int.max
        }
        var isExceeded: Bool { count > limit }
    }

    private var windows: [String: Window] = [:]

    /// Counts one request for `key` at `now`; the window after counting it.
    mutating func count(_ key: String, limit: Int, window length: Double, now: Double) -> Window {
        var window = windows[key] ?? Window(start: now, count: 0, limit: limit, length: length)
        if now - window.start >= length { window = Window(start: now, count: 0, limit: limit, length: length) }
        window.count += 1
        windows[key] = window
        return window
    }

    /// `key`'s window without counting, as `application/rate_limit_status` reports it: a fresh
    /// one when none is open.
    func peek(_ key: String, limit: Int, window length: Double, now: Double) -> Window {
        guard let window = windows[key], now - window.start < length else {
            return Window(start: now, count: 0, limit: limit, length: length)
        }
        return window
    }
}
