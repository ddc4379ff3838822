import SimulatedTime
import WaypostSupport

/// One request as received, for the journal: secrets redacted, long values cut short.
public struct JournalEntry: Sendable, Codable, Equatable {
    public var sequence: Int
    /// When the emulator received it, on its clock.
    public var time: EpochInstant
    public var method: String
    /// The path, cut to ``JournalLimits/valueBytes`` (its size then in ``truncated``).
    public var path: String
    /// Query and form parameters, decoded; `access_token` and `oauth_signature` redacted; values cut to
    /// ``JournalLimits/valueBytes``.
    public var parameters: [String: String]
    /// Headers in lower case; the OAuth signature and Bearer tokens redacted; values cut to
    /// ``JournalLimits/valueBytes``.
    public var headers: [String: String]
    public var status: Int
    /// The fault the request met, if any.
    public var fault: Fault.Kind?
    /// The request body's size as received, bytes (0 when it was over the server's limit and
    /// not read).
    public var bodyBytes: Int?
    /// What was cut short or left out to keep the entry within ``JournalLimits/entryBytes``;
    /// nil when the entry is complete.
    public var truncated: JournalTruncation?

    public init(
        sequence: Int, time: EpochInstant, method: String, path: String, parameters: [String: String],
        headers: [String: String], status: Int, fault: Fault.Kind? = nil, bodyBytes: Int? = nil,
        truncated: JournalTruncation? = nil
    ) {
        self.sequence = sequence
        self.time = time
        self.method = method
        self.path = path
        self.parameters = parameters
        self.headers = headers
        self.status = status
        self.fault = fault
        self.bodyBytes = bodyBytes
        self.truncated = truncated
    }
}

/// The parts of a journal entry cut short, with their size as received (UTF-8 bytes), and how
/// many parameters and headers were left out once the entry was full.
public struct JournalTruncation: Sendable, Codable, Equatable {
    /// The path's size, when it was cut.
    public var path: Int?
    public var parameters: [String: Int] = [:]
    public var headers: [String: Int] = [:]
    /// Parameters and headers left out entirely: the entry was full, or the name alone was over
    /// ``JournalLimits/valueBytes``.
    public var omitted = 0

    public init(path: Int? = nil, parameters: [String: Int] = [:], headers: [String: Int] = [:], omitted: Int = 0) {
        self.path = path
        self.parameters = parameters
        self.headers = headers
        self.omitted = omitted
    }
}

/// How much the journal keeps. It is bounded in entries and in bytes, so that a long-running
/// emulator fed large requests stays small: 1,000 requests of 1 MB once took an entry-bounded
/// journal to 1 GB.
public struct JournalLimits: Sendable, Equatable {
    /// Entries kept; past it the oldest go, counted as dropped.
    public var entries: Int
    /// Bytes the kept entries may take (``JournalEntry`` strings in UTF-8, plus
    /// ``entryOverhead`` each); past it the oldest go, counted as dropped.
    public var bytes: Int
    /// The most one entry takes; parameters and headers past it are left out, counted in
    /// ``JournalTruncation/omitted``.
    public var entryBytes: Int
    /// The most one value (the path, a parameter, a header) keeps; a longer one is cut there,
    /// its size recorded in ``JournalEntry/truncated``.
    public var valueBytes: Int

    /// 16 MiB: about 50,000 ordinary requests (≈ 400 bytes each), and never less than a
    /// thousand full entries.
    public static let defaultBytes = 16 << 20
    /// Counted per entry beside its strings: the numbers, the keys and the containers, as the
    /// journal's JSON spells them.
    public static let entryOverhead = 256

    public init(
        entries: Int = 100_000, bytes: Int = JournalLimits.defaultBytes, entryBytes: Int = 16 << 10,
        valueBytes: Int = 4 << 10
    ) {
        self.entries = max(1, entries)
        self.bytes = max(1, bytes)
        self.entryBytes = max(Self.entryOverhead, entryBytes)
        self.valueBytes = max(1, valueBytes)
    }
}

/// The request journal: every request after the control plane, with its answer's status, in
/// order. Past ``JournalLimits/entries`` or ``JournalLimits/bytes`` the oldest entries go, and
/// are counted, so a long-running emulator's memory stays bounded whatever it is sent.
struct Journal: Sendable {
    /// Live entries are `entries[head...]`; the dropped prefix is removed in bulk (amortised O(1)).
    private var entries: [JournalEntry] = []
    private var costs: [Int] = []
    private var head = 0
    let limits: JournalLimits
    /// Bytes the live entries take, as ``JournalLimits/bytes`` counts them.
    private(set) var bytes = 0
    /// Entries dropped to stay within the limits.
    private(set) var dropped = 0
    private var nextSequence = 1

    init(limits: JournalLimits) {
        self.limits = limits
    }

    /// Parameters that are secrets wherever a client sends them: Graph's tokens and app secret
    /// (`access_token`, `input_token` of debug_token, `fb_exchange_token`, `client_secret`,
    /// `appsecret_proof`), an OAuth signature in the query or the body (RFC 5849 §3.5.2, §3.5.3),
    /// xAuth's and OAuth 2's. `oauth_token` and `oauth_consumer_key` stay: RFC 5849 sends them
    /// in the clear as identifiers, and they say whose request it was.
    static let secretParameters: Set<String> = [
        "access_token", "input_token", "fb_exchange_token", "client_secret", "appsecret_proof", "oauth_signature",
        "oauth_token_secret", "x_auth_password", "password", "refresh_token", "code_verifier",
    ]
    /// Headers that carry credentials (`authorization` shows its OAuth parameters, the signature
    /// redacted), and the emulator's own control token.
    static let secretHeaders: Set<String> = ["proxy-authorization", "cookie", "x-waypost-control-token"]

    var count: Int { entries.count - head }

    /// Entries oldest first.
    var ordered: [JournalEntry] { Array(entries[head...]) }

    mutating func record(
        _ request: EmulatorRequest, oauth: OAuthHeader?, parameters: [(name: String, value: String)],
        status: Int, fault: Fault.Kind?, time: EpochInstant
    ) {
        var budget = JournalBudget(limits: limits)
        let path = budget.keep(request.path)
        var truncation = JournalTruncation(path: path.original)
        // Sized up front: grown pair by pair, the dictionaries rehashed at every request (perf).
        var values = [String: String](minimumCapacity: parameters.count)
        for (name, value) in parameters where values[name] == nil {
            let redacted = Self.secretParameters.contains(name) ? "REDACTED" : value
            guard let kept = budget.keep(name, redacted) else {
                truncation.omitted += 1
                continue
            }
            values[name] = kept.value
            truncation.parameters[name] = kept.original
        }
        var headers = [String: String](minimumCapacity: request.headers.count)
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            let redacted =
                name == "authorization"
                ? (oauth?.redacted ?? "REDACTED") : Self.secretHeaders.contains(name) ? "REDACTED" : value
            guard let kept = budget.keep(name, redacted) else {
                truncation.omitted += 1
                continue
            }
            headers[name] = kept.value
            truncation.headers[name] = kept.original
        }
        let entry = JournalEntry(
            sequence: nextSequence, time: time, method: request.method, path: path.value,
            parameters: values, headers: headers, status: status, fault: fault, bodyBytes: request.body.count,
            truncated: truncation == JournalTruncation() ? nil : truncation)
        nextSequence += 1
        append(entry, cost: budget.used)
    }

    private mutating func append(_ entry: JournalEntry, cost: Int) {
        while count > 0 && (count >= limits.entries || bytes + cost > limits.bytes) {
            bytes -= costs[head]
            head += 1
            dropped += 1
        }
        entries.append(entry)
        costs.append(cost)
        bytes += cost
        if head > 64 && head * 2 > entries.count {
            entries.removeFirst(head)
            costs.removeFirst(head)
            head = 0
        }
    }

    /// The journal as the control plane answers it: a JSON array, oldest first, of the entries
    /// whose path contains `pathContains` — written straight into bytes, so that reading a full
    /// journal costs about its size once more (`JSONEncoder` took 1.8 GB to read 1 GB).
    func json(pathContains filter: String?) -> [UInt8] {
        var w = JSONWriter()
        w.array { w in
            for entry in entries[head...] where filter.map({ entry.path.contains($0) }) ?? true {
                entry.write(to: &w)
            }
        }
        return w.bytes
    }
}

/// What one entry may still take: values are cut to ``JournalLimits/valueBytes`` and to what
/// is left of ``JournalLimits/entryBytes``.
private struct JournalBudget {
    let limits: JournalLimits
    private(set) var used = JournalLimits.entryOverhead

    init(limits: JournalLimits) {
        self.limits = limits
    }

    /// The path: always kept, cut to the value bound. `original` is its size when cut.
    mutating func keep(_ path: String) -> (value: String, original: Int?) {
        let cut = Self.prefix(path, bytes: limits.valueBytes)
        used += cut.utf8.count
        return (cut, cut.utf8.count < path.utf8.count ? path.utf8.count : nil)
    }

    /// A name and its value, the value cut to fit; nil when the name itself does not fit.
    mutating func keep(_ name: String, _ value: String) -> (value: String, original: Int?)? {
        let room = min(limits.valueBytes, limits.entryBytes - used - name.utf8.count)
        guard name.utf8.count <= limits.valueBytes, room >= 0 else { return nil }
        let cut = Self.prefix(value, bytes: room)
        used += name.utf8.count + cut.utf8.count
        return (cut, cut.utf8.count < value.utf8.count ? value.utf8.count : nil)
    }

    /// The longest prefix of `text` within `bytes` UTF-8 bytes that ends on a scalar boundary.
    static func prefix(_ text: String, bytes: Int) -> String {
        let utf8 = text.utf8
        guard utf8.count > bytes else { return text }
        var end = utf8.index(utf8.startIndex, offsetBy: max(0, bytes))
        while end > utf8.startIndex, UTF8.isContinuation(utf8[end]) { end = utf8.index(before: end) }
        return String(decoding: utf8[..<end], as: UTF8.self)
    }
}

extension JournalEntry {
    /// The entry as `JSONEncoder` with sorted keys writes it (absent optionals left out), so
    /// that clients decode either alike.
    func write(to w: inout JSONWriter) {
        w.object { w in
            if let bodyBytes { w.field("bodyBytes", bodyBytes) }
            if let fault { w.field("fault", fault.rawValue) }
            w.field("headers", headers)
            w.field("method", method)
            w.field("parameters", parameters)
            w.field("path", path)
            w.field("sequence", sequence)
            w.field("status", status)
            w.field("time", time.secondsSince1970)
            if let truncated {
                w.key("truncated")
                w.object { w in
                    w.field("headers", truncated.headers)
                    w.field("omitted", truncated.omitted)
                    w.field("parameters", truncated.parameters)
                    if let path = truncated.path { w.field("path", path) }
                }
            }
        }
    }
}
