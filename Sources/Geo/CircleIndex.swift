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
    /// A cell of the grid: every point in it has the same candidates.
    public struct Cell: Hashable, Sendable {
        @usableFromInline var row: Int32
        @usableFromInline var column: Int32

        @inlinable init(row: Int32, column: Int32) {
            self.row = row
            self.column = column
        }

        /// The cell as one integer, the key it is filed under: an `Int64` is hashed in one step,
        /// a struct field by field (perf: hashing cells was 5 % of registering 100,000 regions).
        @inlinable var key: Int64 { Int64(row) << 32 | Int64(UInt32(bitPattern: column)) }
    }

    /// Extra reach, in metres, around every circle.
    public let margin: Double
    /// Grid spacing in degrees of latitude (longitude cells widen towards the poles).
    public let cellDegrees: Double

    /// The block of cells a circle is filed in: rows `rowLow...rowHigh`, `columnCount` columns
    /// from `columnLow` (wrapping at the antimeridian). Kept instead of the list of cells, so
    /// filing a circle allocates nothing of its own.
    @usableFromInline struct Extent: Sendable {
        @usableFromInline var rowLow: Int32
        @usableFromInline var rowHigh: Int32
        @usableFromInline var columnLow: Int32
        @usableFromInline var columnCount: Int32

        @inlinable init(rowLow: Int32, rowHigh: Int32, columnLow: Int32, columnCount: Int32) {
            (self.rowLow, self.rowHigh, self.columnLow, self.columnCount) = (rowLow, rowHigh, columnLow, columnCount)
        }
    }

    @usableFromInline var cells: [Int64: [ID]] = [:]
    /// Each circle and the cells it is filed in; no extent for an oversized circle.
    @usableFromInline var circles: [ID: (circle: Circle, extent: Extent?)] = [:]
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

    /// Makes room for `minimumCapacity` circles, so that filing that many grows nothing on the
    /// way (a dictionary that doubles rehashes every key it holds each time).
    @inlinable package mutating func reserveCapacity(_ minimumCapacity: Int) {
        circles.reserveCapacity(minimumCapacity)
    }

    /// The circle filed under `id`, if any.
    @inlinable public subscript(id: ID) -> Circle? { circles[id]?.circle }

    /// Files `circle` under `id`, replacing any circle already filed under it.
    @inlinable public mutating func insert(_ circle: Circle, for id: ID) {
        let reach = circle.radius + margin
        let latitudeSpan = reach / 110_574.0  // metres per degree of latitude, at its smallest
        let rowLow = row(circle.center.latitude - latitudeSpan)
        let rowHigh = row(circle.center.latitude + latitudeSpan)
        let worstLatitude = min(89.9, max(abs(circle.center.latitude) + latitudeSpan, 0))
        let longitudeSpan = reach / (111_320.0 * cos(worstLatitude * .pi / 180))
        // Counted short of Int's end: a radius of 1e300 m (or NaN) trapped; it is filed as oversized.
        let columns = (2 * longitudeSpan / cellDegrees).rounded(.up)
        let columnCount = columns < Double(Int32.max) ? Int(columns) + 1 : Int(Int32.max)
        let rowCount = Int(rowHigh - rowLow) + 1
        // Within the limit a circle's columns never wrap onto one another (the world has more),
        // so each of its cells is filed once.
        // A reach over a pole (or within a cell of it) holds every longitude there: a circle
        // centred on the pole was filed by the longitude it was written with (a black-box hunt:
        // a region at (90, 0) was never entered from longitude 10, one at (90, 10) was).
        let extent =
            longitudeSpan >= 180 || abs(circle.center.latitude) + latitudeSpan >= 89.9
                || rowCount * columnCount > Self.maximumCellsPerCircle
                || columnCount > Int(worldColumns)
            ? nil
            : Extent(
                rowLow: rowLow, rowHigh: rowHigh, columnLow: column(circle.center.longitude - longitudeSpan),
                columnCount: Int32(columnCount))
        // One lookup for the common case, a new identifier; a replaced circle leaves its cells first.
        if let replaced = circles.updateValue((circle, extent), forKey: id) { unfile(id, from: replaced.extent) }
        if let extent {
            forEachCell(of: extent) { cells[$0.key, default: []].append(id) }
        } else {
            oversized.insert(id)
        }
    }

    /// Removes the circle filed under `id`; returns it.
    @inlinable @discardableResult
    public mutating func remove(_ id: ID) -> Circle? {
        guard let entry = circles.removeValue(forKey: id) else { return nil }
        unfile(id, from: entry.extent)
        return entry.circle
    }

    @inlinable mutating func unfile(_ id: ID, from extent: Extent?) {
        guard let extent else {
            oversized.remove(id)
            return
        }
        forEachCell(of: extent) { cell in
            let key = cell.key
            cells[key]?.removeAll { $0 == id }
            if cells[key]?.isEmpty == true { cells[key] = nil }
        }
    }

    @inlinable func forEachCell(of extent: Extent, _ body: (Cell) -> Void) {
        for r in extent.rowLow...extent.rowHigh {
            for step in 0..<extent.columnCount {
                body(Cell(row: r, column: wrapColumn(extent.columnLow + step)))
            }
        }
    }

    /// Identifiers of circles whose reach may include `point`, each once: a superset of those
    /// within `margin` of their boundary or inside, and nothing from cells far away.
    @inlinable public func candidates(near point: Coordinate) -> [ID] {
        candidates(in: cell(containing: point))
    }

    /// The grid cell `point` lies in. A client that queries point after point can keep the
    /// candidates of the last cell until the point leaves it or the index changes.
    @inlinable public func cell(containing point: Coordinate) -> Cell {
        Cell(row: row(point.latitude), column: wrapColumn(column(point.longitude)))
    }

    /// The candidates of every point in `cell` (see ``candidates(near:)``).
    @inlinable public func candidates(in cell: Cell) -> [ID] {
        let filed = cells[cell.key] ?? []
        return oversized.isEmpty ? filed : filed + oversized
    }

    @inlinable func row(_ latitude: Double) -> Int32 {
        Int32((min(90, max(-90, latitude)) / cellDegrees).rounded(.down))
    }

    @inlinable func column(_ longitude: Double) -> Int32 {
        // A longitude past any real one (not finite, or far past ±180°) trapped the conversion:
        // it is filed where the world's columns wrap it anyway.
        let degrees = longitude.isFinite ? min(max(longitude, -100_000), 100_000) : 0
        return Int32((degrees / cellDegrees).rounded(.down))
    }

    /// Columns round the world.
    @inlinable var worldColumns: Int32 { Int32((360 / cellDegrees).rounded(.up)) }

    @inlinable func wrapColumn(_ column: Int32) -> Int32 {
        let count = worldColumns
        let shifted = (column + count / 2) % count
        return (shifted < 0 ? shifted + count : shifted) - count / 2
    }
}
