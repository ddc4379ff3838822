import ConfigFiles
import Foundation
import SimulatedTime
import WaypostSupport

/// `count: N` on a device entry: N devices from one entry — the same route, app and script —
/// named `NAME-00001` to `NAME-N`, so nobody writes ten thousand entries for a load test.
///
/// ```yaml
/// devices:
///   - name: commuter
///     count: 10000
///     route: ../../tracks/sunnyvale-commute.kml
///     spread: { time: 30m, distance: 300 }   # each starts up to 30 min later, up to 300 m away
/// ```
///
/// Each device starts a uniform draw of `spread.time` after the entry's `startAfter`, and its
/// route is moved by a uniform draw over a disc of radius `spread.distance` metres; the draws
/// come from the scenario's seed, so a run repeats exactly. Each device's noise gets its own seed
/// (the entry's, plus its number). An expectation naming the entry's `name` looks at every
/// device it made; one device is named in full (`commuter-00042`).
struct DeviceGenerator {
    /// Most devices one entry makes.
    static let maximumCount = 100_000
    /// What a device of a run costs in memory: its location manager, app state and cursor,
    /// measured on a 10,000-device run of the commute (`make bench`), with room to spare.
    static let bytesPerDevice = 64 * 1024

    var count: Int
    var time = Seconds.zero
    var distance = 0.0

    /// The generator an entry asks for, or nil for a plain entry.
    init?(_ node: ConfigNode) throws(ConfigFileError) {
        guard let countNode = node["count"] else {
            if let spread = node["spread"] { throw spread.failure("'spread' goes with 'count'") }
            return nil
        }
        count = try Self.count(countNode)
        if let spread = node["spread"] {
            let fields = try spread.mapping(allowing: ["time", "distance"])
            if let v = fields["time"] { time = try v.duration() }
            if let v = fields["distance"] {
                distance = try v.number()
                guard distance >= 0, distance <= 100_000 else {
                    throw v.failure("'distance' must be 0…100000 metres")
                }
            }
        }
    }

    /// How many devices a device entry makes — its `count`, or one — read without making any,
    /// so a scenario's crowd is weighed before it is built (``checkMemory(for:at:physicalMemory:)``).
    static func plannedCount(of entry: ConfigNode) throws(ConfigFileError) -> Int {
        guard let countNode = entry["count"] else { return 1 }
        return try count(countNode)
    }

    /// A `count` value: a whole number from 1 to ``maximumCount``.
    private static func count(_ node: ConfigNode) throws(ConfigFileError) -> Int {
        let value = try node.number()
        guard value >= 1, value <= Double(maximumCount), value == value.rounded() else {
            throw node.failure("'count' must be a whole number from 1 to \(maximumCount)")
        }
        return Int(value)
    }

    /// The devices, in number order; `template.name` is the group's name.
    func devices(from template: DeviceScript, seed: UInt64) -> [DeviceScript] {
        var random = SplitMix64(seed: seed)
        let width = String(count).count
        let group = template.name ?? "device"
        return (1...count).map { number in
            var device = template
            let digits = String(number)
            device.name = group + "-" + String(repeating: "0", count: width - digits.count) + digits
            device.startAfter += time * random.unit()
            let bearing = 2 * Double.pi * random.unit()
            let radius = distance * random.unit().squareRoot()  // uniform over the disc's area
            device.displacement = (north: radius * cos(bearing), east: radius * sin(bearing))
            device.seed = template.seed.map { Self.seed($0, name: group, number: number) }
            return device
        }
    }

    /// A device's noise seed from its entry's (`base`), the entry's name and the device's number:
    /// two entries under one seed, and one member under seeds one apart, never share noise. (It
    /// was `base + number`: two entries were clones of each other, and seed s + 1 the crowd of s
    /// shifted by one member — a black-box hunt.)
    static func seed(_ base: UInt64, name: String, number: Int = 1) -> UInt64 {
        SplitMix64.derived(base ^ FNV1a.hash(name.utf8), number)
    }

    /// Refuses, before anything runs — and before any device is built: the scenario reader
    /// weighs every entry's ``plannedCount(of:)`` first — a scenario whose devices would not fit
    /// in half of this machine's memory: one clear error instead of an out-of-memory kill. (Checked
    /// after building them, 200 entries of 100,000 took 43 s and 9.2 GB to be refused.)
    static func checkMemory(
        for devices: Int, at node: ConfigNode, physicalMemory: UInt64 = ProcessInfo.processInfo.physicalMemory
    ) throws(ConfigFileError) {
        let needed = Double(devices) * Double(bytesPerDevice)
        let available = Double(physicalMemory) / 2
        guard needed <= available else {
            throw node.failure(
                "\(devices) devices need about \(gigabytes(needed)) of memory, more than half of this machine's "
                    + "\(gigabytes(Double(physicalMemory))); run fewer devices per scenario")
        }
    }

    private static func gigabytes(_ bytes: Double) -> String {
        String(format: "%.1f GB", bytes / 1_073_741_824)
    }
}

/// Which device an expectation looks at: one, by name, or every device a `count` entry made.
public struct DeviceSelector: Sendable, Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
    public var name: String
    /// For a `count` entry, how many devices it made (`NAME-1`… with as many digits as this has);
    /// nil for one device.
    public var members: Int?

    public var isGroup: Bool { members != nil }

    public init(name: String, members: Int? = nil) {
        self.name = name
        self.members = members
    }

    public init(stringLiteral name: String) {
        self.init(name: name)
    }

    /// Whether `device` is this one, or one the entry made: its name, a hyphen, and a number
    /// from 1 to ``members`` in exactly the entry's digits. Any digits matched, so a device of
    /// its own named `c-1` was counted with the twelve `c-01`… of a crowd `c` (a black-box hunt).
    public func matches(_ device: String?) -> Bool {
        guard let device else { return false }
        guard let members else { return device == name }
        let width = String(members).utf8.count
        guard device.utf8.count == name.utf8.count + 1 + width, device.hasPrefix(name + "-") else { return false }
        let digits = device.utf8.dropFirst(name.utf8.count + 1)
        guard digits.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int(Substring(digits)) else {
            return false
        }
        return (1...members).contains(number)
    }

    public var description: String { isGroup ? "\(name)-*" : name }
}
