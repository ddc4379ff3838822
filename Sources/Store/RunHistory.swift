import SimulatedTime

/// A circular region a run monitored, as a report draws it.
public struct RegionRecord: Sendable, Equatable {
    public var identifier: String
    public var latitude: Double
    public var longitude: Double
    /// Metres.
    public var radius: Double

    public init(identifier: String, latitude: Double, longitude: Double, radius: Double) {
        self.identifier = identifier
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
    }
}

/// A privacy zone of a run's profile (where nothing located the user), as a report draws it.
public struct ZoneRecord: Sendable, Equatable {
    public var name: String
    public var latitude: Double
    public var longitude: Double
    /// Metres.
    public var radius: Double

    public init(name: String, latitude: Double, longitude: Double, radius: Double) {
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
    }
}

/// A location event other than a fix (those are ``LocationRecord``s): a region transition, a
/// monitoring failure, an error, an authorization change or a visit.
public struct EventRecord: Sendable, Equatable {
    public var time: EpochInstant
    public var device: String?
    /// The event stream's `type`: `regionEnter`, `regionExit`, `monitoringFailed`, `error`,
    /// `authorization` or `visit`.
    public var type: String
    public var region: String?
    public var latitude: Double?
    public var longitude: Double?
    /// The status, error name or other short detail.
    public var detail: String?

    public init(
        time: EpochInstant, device: String? = nil, type: String, region: String? = nil, latitude: Double? = nil,
        longitude: Double? = nil, detail: String? = nil
    ) {
        self.time = time
        self.device = device
        self.type = type
        self.region = region
        self.latitude = latitude
        self.longitude = longitude
        self.detail = detail
    }
}

/// What a run monitored and what happened on the way, beside its fixes: the material of
/// `waypost report`.
extension Store {
    /// Records the regions a run monitors; an identifier registered again replaces the region.
    public func saveRegions(_ regions: [RegionRecord], run: Int64) throws(StoreError) {
        try saveCircles(
            regions.map { ($0.identifier, $0.latitude, $0.longitude, $0.radius) }, in: "regions", key: "identifier",
            run: run)
    }

    public func regions(run: Int64) throws(StoreError) -> [RegionRecord] {
        try circles(in: "regions", key: "identifier", run: run).map {
            RegionRecord(identifier: $0.name, latitude: $0.latitude, longitude: $0.longitude, radius: $0.radius)
        }
    }

    /// Records the privacy zones of a run's profile; a name given again replaces the zone.
    public func saveZones(_ zones: [ZoneRecord], run: Int64) throws(StoreError) {
        try saveCircles(
            zones.map { ($0.name, $0.latitude, $0.longitude, $0.radius) }, in: "zones", key: "name", run: run)
    }

    public func zones(run: Int64) throws(StoreError) -> [ZoneRecord] {
        try circles(in: "zones", key: "name", run: run).map {
            ZoneRecord(name: $0.name, latitude: $0.latitude, longitude: $0.longitude, radius: $0.radius)
        }
    }

    private typealias NamedCircle = (name: String, latitude: Double, longitude: Double, radius: Double)

    /// Named circles of a run (regions, zones) in `table`, whose name column is `key`; a name given
    /// again replaces its circle. `table` and `key` are this file's constants, never input.
    private func saveCircles(_ circles: [NamedCircle], in table: String, key: String, run: Int64) throws(StoreError) {
        try transaction { db throws(StoreError) in
            for c in circles {
                try db.run(
                    "INSERT INTO \(table) (run, \(key), latitude, longitude, radius) VALUES (?, ?, ?, ?, ?) "
                        + "ON CONFLICT(run, \(key)) DO UPDATE SET latitude = excluded.latitude, "
                        + "longitude = excluded.longitude, radius = excluded.radius",
                    [.integer(run), .text(c.name), .real(c.latitude), .real(c.longitude), .real(c.radius)])
            }
        }
    }

    private func circles(in table: String, key: String, run: Int64) throws(StoreError) -> [NamedCircle] {
        try locked { db throws(StoreError) in
            try db.rows(
                "SELECT \(key), latitude, longitude, radius FROM \(table) WHERE run = ? ORDER BY rowid", [.integer(run)]
            ) { ($0.text(0), $0.double(1), $0.double(2), $0.double(3)) }
        }
    }

    public func appendEvents(_ events: [EventRecord], run: Int64) throws(StoreError) {
        guard !events.isEmpty else { return }
        try transaction { db throws(StoreError) in
            for e in events {
                try db.run(
                    "INSERT INTO events (run, time, device, type, region, latitude, longitude, detail) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        .integer(run), SQLValue(e.time), SQLValue(e.device), .text(e.type), SQLValue(e.region),
                        SQLValue(e.latitude), SQLValue(e.longitude), SQLValue(e.detail),
                    ])
            }
        }
    }

    /// A run's events in time order.
    public func events(run: Int64) throws(StoreError) -> [EventRecord] {
        try locked { db throws(StoreError) in
            try db.rows(
                "SELECT time, device, type, region, latitude, longitude, detail FROM events WHERE run = ? "
                    + "ORDER BY time, rowid", [.integer(run)]
            ) {
                EventRecord(
                    time: $0.instant(0), device: $0.optionalText(1), type: $0.text(2), region: $0.optionalText(3),
                    latitude: $0.optionalDouble(4), longitude: $0.optionalDouble(5), detail: $0.optionalText(6))
            }
        }
    }
}
