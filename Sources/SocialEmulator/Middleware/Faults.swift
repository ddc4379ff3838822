import Foundation
import SimulatedTime
import WaypostSupport

/// A fault the emulator injects into matching requests, as chaos tools do for other APIs.
///
/// Set through the control plane (`POST /__waypost/faults`) or ``EmulatorCore/addFault(_:)``;
/// every random choice comes from the emulator's seeded generator, so a run with the same seed
/// and the same requests meets the same faults.
public struct Fault: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// Answer normally, after a delay.
        case latency
        /// Answer with `status` and the provider's error body (`code`), without processing.
        case status
        /// Close the connection after the response head, before any body.
        case reset
        /// Answer 200 with an empty body, without processing.
        case empty
        /// Process the request, then send only half of the JSON body.
        case truncated
        /// Never answer (until the client gives up).
        case hang
    }

    public enum Distribution: String, Sendable, Codable, CaseIterable {
        case fixed, uniform, lognormal
    }

    public var id: Int
    public var kind: Kind
    /// Requests whose path contains this (e.g. `statuses/update`, `me/checkins`); empty matches all.
    public var pathContains: String
    /// Chance that a matching request meets the fault, 0…1.
    public var probability: Double
    /// How many more requests may meet it; nil is unlimited.
    public var remaining: Int?
    /// Active only between these instants of the emulator's clock.
    public var from: EpochInstant?
    public var until: EpochInstant?
    /// For `status`.
    public var status: Int
    public var code: Int?
    /// For `latency`, milliseconds: `fixed` uses `milliseconds`; `uniform` draws in
    /// [`milliseconds`, `maximumMilliseconds`]; `lognormal` has median `milliseconds` and shape `sigma`.
    public var distribution: Distribution
    public var milliseconds: Double
    public var maximumMilliseconds: Double
    public var sigma: Double

    public init(
        id: Int = 0, kind: Kind, pathContains: String = "", probability: Double = 1, remaining: Int? = nil,
        from: EpochInstant? = nil, until: EpochInstant? = nil, status: Int = 503, code: Int? = nil,
        distribution: Distribution = .fixed, milliseconds: Double = 0, maximumMilliseconds: Double = 0,
        sigma: Double = 0.5
    ) {
        self.id = id
        self.kind = kind
        self.pathContains = pathContains
        self.probability = probability
        self.remaining = remaining
        self.from = from
        self.until = until
        self.status = status
        self.code = code
        self.distribution = distribution
        self.milliseconds = milliseconds
        self.maximumMilliseconds = maximumMilliseconds
        self.sigma = sigma
    }

    /// The fields of a fault, one spelling wherever a fault is written (the control plane's form
    /// fields and a scenario's `emulator.faults`).
    public static let fields: Set<String> = [
        "kind", "path", "probability", "count", "from", "until", "status", "code", "distribution", "ms", "max_ms",
        "sigma",
    ]

    /// Reads a fault from its fields (``fields``), each checked against its range before any
    /// conversion; `from` and `until` are seconds. The one reader of faults.
    public static func parse(_ values: [String: String]) -> Result<Fault, FaultError> {
        if let unknown = values.keys.filter({ !fields.contains($0) }).sorted().first {
            return .failure(
                FaultError(unknown, "unknown field '\(unknown)' (expected \(fields.sorted().joined(separator: ", ")))"))
        }
        guard let kindText = values["kind"], let kind = Kind(rawValue: kindText) else {
            return .failure(
                FaultError("kind", "kind must be one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))"))
        }
        var fault = Fault(kind: kind, pathContains: values["path"] ?? "")
        func number(_ key: String) -> Result<Double?, FaultError> {
            guard let text = values[key] else { return .success(nil) }
            guard let value = Double(text), value.isFinite else {
                return .failure(FaultError(key, "\(key) must be a number"))
            }
            return .success(value)
        }
        // Ranges checked before any conversion to Int: `count=1e300` must be an error, not a trap.
        func whole(_ key: String, in range: ClosedRange<Double>) -> Result<Int?, FaultError> {
            number(key).flatMap { value in
                guard let value else { return .success(nil) }
                guard range.contains(value), value == value.rounded() else {
                    return .failure(
                        FaultError(
                            key,
                            "\(key) must be a whole number within \(Int(range.lowerBound))…\(Int(range.upperBound))"))
                }
                return .success(Int(value))
            }
        }
        func bounded(_ key: String, in range: ClosedRange<Double>) -> Result<Double?, FaultError> {
            number(key).flatMap { value in
                guard let value else { return .success(nil) }
                guard range.contains(value) else {
                    return .failure(FaultError(key, "\(key) must be within \(range.lowerBound)…\(range.upperBound)"))
                }
                return .success(value)
            }
        }
        do {
            if let p = try bounded("probability", in: 0...1).get() { fault.probability = p }
            fault.remaining = try whole("count", in: 0...1e9).get()
            fault.from = try bounded("from", in: -1e12...1e12).get().map(EpochInstant.init(secondsSince1970:))
            fault.until = try bounded("until", in: -1e12...1e12).get().map(EpochInstant.init(secondsSince1970:))
            // A 1xx is never a final answer (RFC 9110 §15.2): a client sent one waits for the next.
            if let status = try whole("status", in: 200...599).get() { fault.status = status }
            fault.code = try whole("code", in: 0...1e9).get()
            // An hour at most: a longer wait is a `hang`.
            if let ms = try bounded("ms", in: 0...3_600_000).get() { fault.milliseconds = ms }
            if let ms = try bounded("max_ms", in: 0...3_600_000).get() { fault.maximumMilliseconds = ms }
            if let sigma = try bounded("sigma", in: 0...10).get() { fault.sigma = sigma }
        } catch {
            return .failure(error)
        }
        if let text = values["distribution"] {
            guard let distribution = Distribution(rawValue: text) else {
                return .failure(FaultError("distribution", "distribution must be fixed, uniform or lognormal"))
            }
            fault.distribution = distribution
        }
        return .success(fault)
    }
}

public struct FaultError: Error, Sendable {
    /// The field at fault.
    public var field: String
    public var message: String
    init(_ field: String, _ message: String) {
        self.field = field
        self.message = message
    }
}

/// The faults set on the emulator and the seeded generator they draw from.
struct FaultTable: Sendable {
    private(set) var faults: [Fault] = []
    private var nextID = 1
    private(set) var random: FaultRandom

    init(seed: UInt64 = 0) {
        random = FaultRandom(seed: seed)
    }

    /// Adds a fault; returns it with its id.
    mutating func add(_ fault: Fault) -> Fault {
        var fault = fault
        fault.id = nextID
        nextID += 1
        faults.append(fault)
        return fault
    }

    mutating func clear() {
        faults = []
    }

    /// The first active fault for `path` that this request meets, drawing its probability.
    mutating func match(path: String, now: EpochInstant) -> Fault? {
        for index in faults.indices {
            let fault = faults[index]
            guard fault.pathContains.isEmpty || path.contains(fault.pathContains),
                fault.remaining.map({ $0 > 0 }) ?? true, fault.from.map({ now >= $0 }) ?? true,
                fault.until.map({ now < $0 }) ?? true
            else { continue }
            guard fault.probability >= 1 || random.next() < fault.probability else { continue }
            if let remaining = fault.remaining { faults[index].remaining = remaining - 1 }
            return fault
        }
        return nil
    }

    /// The delay a `latency` fault adds, seconds.
    mutating func latency(_ fault: Fault) -> Seconds {
        Seconds(random.latency(fault))
    }
}

/// What the HTTP layer must do beyond sending the response.
public enum TransportFault: Sendable, Equatable {
    case none
    case reset
    case hang
}

/// The emulator's seeded draws for fault probabilities and latencies.
struct FaultRandom: Sendable {
    private var generator: SplitMix64

    init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    mutating func next() -> Double {
        generator.unit()
    }

    mutating func gaussian() -> Double {
        generator.gaussian()
    }

    /// A latency in seconds for `fault`.
    mutating func latency(_ fault: Fault) -> Double {
        switch fault.distribution {
        case .fixed: fault.milliseconds / 1000
        case .uniform:
            (fault.milliseconds + (max(fault.maximumMilliseconds, fault.milliseconds) - fault.milliseconds) * next())
                / 1000
        case .lognormal: fault.milliseconds * exp(fault.sigma * gaussian()) / 1000
        }
    }
}
