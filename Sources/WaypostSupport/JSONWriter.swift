import Foundation

/// JSON written straight into bytes, where `JSONEncoder` costs what matters: the answers the
/// emulator sends most (tweets with their users, geo queries: a fifth of a signed request's cost)
/// and the posts and audit records the engine keeps in its outbox (a tenth of a trials run's CPU).
/// Strings are escaped as RFC 8259 requires (slashes left as they are, as the providers sent them).
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// Whether a number that JSON cannot hold (NaN, ±infinity) was written, as `null`.
    public private(set) var wroteNonFinite = false
    /// Whether the current container has no member yet; one entry per open container.
    private var first = true
    private var open: [Bool] = []
    private var afterKey = false

    /// Room for a typical post or answer up front: grown from empty, its bytes were copied
    /// three or four times over.
    public init() { bytes.reserveCapacity(512) }

    public var data: Data { Data(bytes) }

    private mutating func separate() {
        if afterKey {
            afterKey = false
        } else if !first {
            bytes.append(UInt8(ascii: ","))
        }
        first = false
    }

    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        container(UInt8(ascii: "{"), UInt8(ascii: "}"), body)
    }

    public mutating func array(_ body: (inout JSONWriter) -> Void) {
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

    public mutating func key(_ name: String) {
        separate()
        quoted(name)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    public mutating func string(_ value: String?) {
        separate()
        if let value { quoted(value) } else { bytes.append(contentsOf: "null".utf8) }
    }

    public mutating func number(_ value: Int64) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func number(_ value: Int) { number(Int64(value)) }

    /// A number as Swift prints it (the shortest text that reads back as the same `Double`);
    /// `null`, and ``wroteNonFinite`` set, for what JSON has no number for.
    public mutating func number(_ value: Double) {
        separate()
        wroteNonFinite = wroteNonFinite || !value.isFinite
        bytes.append(contentsOf: (value.isFinite ? "\(value)" : "null").utf8)
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    /// A value already encoded as JSON.
    public mutating func raw(_ json: Data) {
        separate()
        bytes.append(contentsOf: json)
    }

    /// `"key": value` pairs, the common case.
    public mutating func field(_ name: String, _ value: String?) {
        key(name)
        string(value)
    }

    /// `"key": value` when there is one; nothing for nil (as `Codable` leaves a nil optional out).
    public mutating func field(_ name: String, ifPresent value: String?) {
        if let value { field(name, value) }
    }

    public mutating func field(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }

    public mutating func field(_ name: String, _ value: Int64) {
        key(name)
        number(value)
    }

    public mutating func field(_ name: String, _ value: Int) {
        key(name)
        number(value)
    }

    public mutating func field(_ name: String, _ value: Double) {
        key(name)
        number(value)
    }

    /// A dictionary as an object, its keys in order so the bytes are the same in every process
    /// (a dictionary's own order is not).
    public mutating func field(_ name: String, _ value: [String: String]) {
        key(name)
        object { json in for (key, value) in value.sorted(by: { $0.key < $1.key }) { json.field(key, value) } }
    }

    public mutating func field(_ name: String, _ value: [String: Int]) {
        key(name)
        object { json in for (key, value) in value.sorted(by: { $0.key < $1.key }) { json.field(key, value) } }
    }

    private mutating func quoted(_ text: String) {
        JSONEscaping.append(text, to: &bytes)
    }
}
