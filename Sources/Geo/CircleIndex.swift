#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A spatial index over circles: which circles could matter at a point.
///
/// Each circle is filed in every cell of a latitude/longitude grid that its *reach* — its
/// radius plus a margin — touches. A query looks at one cell, so its cost depends on how many
/// circles reach that neighbourhood, not on how many exist far away. Region monitoring files
/// regions with a margin equal to its hysteresis distance, so every region whose boundary is
/// within that distance of the device comes back as a candidate.
///
/// ```swift
/// var index = CircleIndex<String>(margin: 200)
/// index.insert(Circle(center: .init(latitude: 37.33, longitude: -122.03), radius: 100), for: "cafe")
/// index.candidates(near: .init(latitude: 37.3301, longitude: -122.03))  // ["cafe"]
/// ```
///
/// Its methods are inlinable, so a client's `CircleIndex<Int>` is specialized in the client:
/// called generically across the module boundary, every insert and query looked up type
/// metadata (a tenth of registering 100,000 regions).
public struct CircleIndex<ID: Hashable & Sendable>: Sendable {
    @usableFromInline struct Cell: Hashable, Sendable {
        @usableFromInline var row: Int32
        @usableFromInline var column: Int32

        @inlinable init(row: Int32, column: Int32) {
            self.row = row
            self.column = column
        }
    }

    /// Extra reach, in metres, around every circle.
    public let margin: Double
    /// Grid spacing in degrees of latitude (longitude cells widen towards the poles).
    public let cellDegrees: Double

    @usableFromInline var cells: [Cell: [ID]] = [:]
    @usableFromInline var circles: [ID: (circle: Circle, cells: [Cell])] = [:]
    /// Circles too large to file cell by cell; checked on every query.
    @usableFromInline var oversized: Set<ID> = []
    @usableFromInline static var maximumCellsPerCircle: Int { 4096 }

    /// - Parameters:
    ///   - margin: metres of reach added around every circle.
    ///   - cellDegrees: grid spacing; the default (≈ 1.1 km) suits regions of 100 m to a few km.
    public init(margin: Double = 0, cellDegrees: Double = 0.01) {
        precondition(cellDegrees > 0 && margin >= 0)
        self.margin = margin
        self.cellDegrees = cellDegrees
    }

    /// Number of circles in the index.
    @inlinable public var count: Int { circles.count }

    /// The circle filed under `id`, if any.
    @inlinable public subscript(id: ID) -> Circle? { circles[id]?.circle }

    /// Files `circle` under `id`, replacing any circle already filed under it.
    @inlinable public mutating func insert(_ circle: Circle, for id: ID) {
        remove(id)
        let reach = circle.radius + margin
        let latitudeSpan = reach / 110_574.0  // metres per degree of latitude, at its smallest
        let rowLow = row(circle.center.latitude - latitudeSpan)
        let rowHigh = row(circle.center.latitude + latitudeSpan)
        let worstLatitude = min(89.9, max(abs(circle.center.latitude) + latitudeSpan, 0))
        let longitudeSpan = reach / (111_320.0 * cos(worstLatitude * .pi / 180))
        let columnCount = Int((2 * longitudeSpan / cellDegrees).rounded(.up)) + 1
        let rowCount = Int(rowHigh - rowLow) + 1
        if longitudeSpan >= 180 || rowCount * columnCount > Self.maximumCellsPerCircle {
            oversized.insert(id)
            circles[id] = (circle, [])
            return
        }
        let columnLow = column(circle.center.longitude - longitudeSpan)
        var filed: [Cell] = []
        for r in rowLow...rowHigh {
            for step in 0..<columnCount {
                let cell = Cell(row: r, column: wrapColumn(columnLow + Int32(step)))
                if filed.contains(cell) { continue }
                filed.append(cell)
                cells[cell, default: []].append(id)
            }
        }
        circles[id] = (circle, filed)
    }

    /// Removes the circle filed under `id`; returns it.
    @inlinable @discardableResult
    public mutating func remove(_ id: ID) -> Circle? {
        guard let entry = circles.removeValue(forKey: id) else { return nil }
        oversized.remove(id)
        for cell in entry.cells {
            cells[cell]?.removeAll { $0 == id }
            if cells[cell]?.isEmpty == true { cells[cell] = nil }
        }
        return entry.circle
    }

    /// Identifiers of circles whose reach may include `point`: a superset of those within
    /// `margin` of their boundary or inside, and nothing from cells far away.
    @inlinable public func candidates(near point: Coordinate) -> [ID] {
        let cell = Cell(row: row(point.latitude), column: wrapColumn(column(point.longitude)))
        let filed = cells[cell] ?? []
        return oversized.isEmpty ? filed : filed + oversized
    }

    @inlinable func row(_ latitude: Double) -> Int32 {
        Int32((min(90, max(-90, latitude)) / cellDegrees).rounded(.down))
    }

    @inlinable func column(_ longitude: Double) -> Int32 {
        Int32((longitude / cellDegrees).rounded(.down))
    }

    @inlinable func wrapColumn(_ column: Int32) -> Int32 {
        let count = Int32((360 / cellDegrees).rounded(.up))
        let shifted = (column + count / 2) % count
        return (shifted < 0 ? shifted + count : shifted) - count / 2
    }
}
