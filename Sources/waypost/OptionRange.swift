import ArgumentParser
import ConfigFiles
import SimulatedTime

/// A numeric option's allowed values. Each is checked before anything runs, so a value that
/// would overflow further in — a Double turned into an Int, a Duration or nanoseconds — is a
/// usage error (exit 64) whose line names the option, the value given and the range, never a
/// trap: `--rate 1e-12` used to die with SIGILL. NaN and infinities are outside every range.
///
/// Numeric options are declared `@Option(parsing: .unconditional)`: the word after the flag is
/// its value even when it starts with `-`, so `--speed -3` reaches the range check here instead
/// of the parser's "Missing value for '--speed'" (it took `-3` for a flag).
enum OptionRange {
    static func check(
        _ option: String, _ value: Double, _ range: ClosedRange<Double>, _ unit: String = "", or also: String? = nil
    ) throws {
        guard !range.contains(value) else { return }
        throw error(option, describe(value), "\(describe(range.lowerBound))…\(describe(range.upperBound))\(unit)", also)
    }

    static func check(_ option: String, _ value: Int, _ range: ClosedRange<Int>, _ unit: String = "") throws {
        guard !range.contains(value) else { return }
        throw error(option, "\(value)", "\(range.lowerBound)…\(range.upperBound)\(unit)", nil)
    }

    /// A duration (`7d`, `12h`, `90s`, or seconds) a command reads as it runs, from 0 to a
    /// century: what any scenario key allows (``ConfigNode/longestDuration``). Out of it, one
    /// `waypost: error:` line and exit 64.
    static func duration(_ option: String, _ text: String, allowingZero: Bool = true) throws -> Seconds {
        let longest = ConfigNode.longestDuration
        guard let duration = ConfigNode.duration(text), duration <= longest, allowingZero || duration > .zero else {
            throw CommandFailure(
                .usage,
                "\(option) '\(text)' is out of range: an age such as 7d, 12h or 30m, "
                    + "\(allowingZero ? "from 0" : "more than 0") up to a century (\(ConfigNode.describe(longest)))")
        }
        return duration
    }

    /// A seed: what `UInt64` holds. The parser's own message names no range.
    /// ArgumentParser adds the option and the value: `The value '-1' is invalid for '--seed <seed>': …`.
    @Sendable static func seed(_ text: String) throws -> UInt64 {
        guard let value = UInt64(text) else { throw ValidationError("out of range: a whole number 0…\(UInt64.max)") }
        return value
    }

    private static func error(_ option: String, _ value: String, _ range: String, _ also: String?) -> ValidationError {
        ValidationError("\(option) \(value) is out of range: \(also.map { "\($0), or " } ?? "")\(range)")
    }

    /// `1000000`, not `1000000.0`; `1e-12` as it is.
    private static func describe(_ value: Double) -> String {
        value.isFinite && value == value.rounded() && abs(value) < 1e15 ? "\(Int(value))" : "\(value)"
    }
}
