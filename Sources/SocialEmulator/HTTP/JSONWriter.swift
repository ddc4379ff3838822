import Foundation
import WaypostSupport

/// JSON written straight into bytes, for the answers the emulator sends most — tweets with their
/// users, geo queries: encoding them with `JSONEncoder` was a fifth of a signed request's cost.
/// Strings are escaped as RFC 8259 requires (slashes left as they are, as the providers sent them).
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the current container has no member yet; one entry per open container.
    private var first = true
    private var open: [Bool] = []
    private var afterKey = false

    var data: Data { Data(bytes) }

    private mutating func separate() {
        if afterKey {
            afterKey = false
        } else if !first {
            bytes.append(UInt8(ascii: ","))
        }
        first = false
    }

    mutating func object(_ body: (inout JSONWriter) -> Void) {
        container(UInt8(ascii: "{"), UInt8(ascii: "}"), body)
    }

    mutating func array(_ body: (inout JSONWriter) -> Void) {
        container(UInt8(ascii: "["), UInt8(ascii: "]"), body)
    }

    private mutating func container(_ start: UInt8, _ end: UInt8, _ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(start)
        open.append(first)
        first = true
        body(&self)
        bytes.append(end)
        first = open.removeLast()
    }

    mutating func key(_ name: String) {
        separate()
        quoted(name)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    mutating func string(_ value: String?) {
        separate()
        if let value { quoted(value) } else { bytes.append(contentsOf: "null".utf8) }
    }

    mutating func number(_ value: Int64) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func number(_ value: Int) { number(Int64(value)) }

    /// Finite numbers only (the emulator range-checks every coordinate it echoes).
    mutating func number(_ value: Double) {
        separate()
        bytes.append(contentsOf: (value.isFinite ? "\(value)" : "null").utf8)
    }

    mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    /// A value already encoded as JSON.
    mutating func raw(_ json: Data) {
        separate()
        bytes.append(contentsOf: json)
    }

    /// `"key": value` pairs, the common case.
    mutating func field(_ name: String, _ value: String?) {
        key(name)
        string(value)
    }

    mutating func field(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }

    mutating func field(_ name: String, _ value: Int64) {
        key(name)
        number(value)
    }

    mutating func field(_ name: String, _ value: Int) {
        key(name)
        number(value)
    }

    private mutating func quoted(_ text: String) {
        JSONEscaping.append(text, to: &bytes)
    }
}
