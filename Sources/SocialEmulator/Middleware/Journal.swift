/// One request as received, for the journal: secrets redacted.
public struct JournalEntry: Sendable, Codable, Equatable {
    public var sequence: Int
    public var time: Double
    public var method: String
    public var path: String
    /// Query and form parameters, decoded; `access_token` redacted.
    public var parameters: [String: String]
    /// Headers in lower case; the OAuth signature and Bearer tokens redacted.
    public var headers: [String: String]
    public var status: Int
    /// The fault the request met, if any.
    public var fault: Fault.Kind?
}

/// The request journal: every request after the control plane, with its answer's status, in
/// order. A ring: past `capacity` the oldest entries go, and are counted, so a long-running
/// emulator's memory stays bounded.
struct Journal: Sendable {
    private var entries: [JournalEntry] = []
    private var start = 0
    let capacity: Int
    /// Entries dropped to stay within `capacity`.
    private(set) var dropped = 0
    private var nextSequence = 1

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Entries oldest first.
    var ordered: [JournalEntry] { Array(entries[start...] + entries[..<start]) }

    mutating func record(
        _ request: EmulatorRequest, oauth: OAuthHeader?, parameters: [(name: String, value: String)],
        status: Int, fault: Fault.Kind?, time: Double
    ) {
        var values: [String: String] = [:]
        for (name, value) in parameters where values[name] == nil {
            values[name] = name == "access_token" ? "REDACTED" : value
        }
        var headers = request.headers
        if headers["authorization"] != nil {
            headers["authorization"] = oauth?.redacted ?? "REDACTED"
        }
        let entry = JournalEntry(
            sequence: nextSequence, time: time, method: request.method, path: request.path, parameters: values,
            headers: headers, status: status, fault: fault)
        nextSequence += 1
        if entries.count < capacity {
            entries.append(entry)
        } else {
            entries[start] = entry
            start = (start + 1) % capacity
            dropped += 1
        }
    }
}
