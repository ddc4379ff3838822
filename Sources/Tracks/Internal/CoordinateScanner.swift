import WaypostSupport

/// Reads KML coordinate text (`lon,lat[,alt]` tuples) as it streams in, chunk by chunk, so a
/// 30 MB LineString never sits in memory as text.
///
/// The grammar, siding with the KML 2.2 specification where peers disagree:
/// - tuples are separated by whitespace; components by a comma, with whitespace around the
///   comma tolerated (`15.11 , -24.25`, as libkml and Google Earth do);
/// - a tuple has 2 (longitude, latitude) or 3 (plus altitude) components. A run of 3k commas
///   separated values (`1,2,3,4,5,6`), which Google Earth writes, is read as k triples, as
///   libkml does; any other count (1, 4, 5…) is an error — togeojson keeps a 4th component,
///   libkml silently drops junk, the spec allows neither;
/// - every component must be a decimal number: `0,foo` or `130.999*66,75` is an error, not 0
///   (libkml) or a dropped component (togeojson);
/// - longitude must lie in [−180, 180] and latitude in [−90, 90].
///
/// Errors carry the line and column of the offending token.
struct CoordinateScanner {
    struct Failure: Error {
        var line: Int
        var column: Int
        var message: String
    }

    /// Position of the next byte.
    private(set) var line: Int
    private(set) var column: Int

    private var token: [UInt8] = []
    private var tokenLine = 0
    private var tokenColumn = 0
    private var tuple: [Double] = []
    private var tupleLine = 0
    private var tupleColumn = 0
    private var afterComma = false
    private var componentSinceComma = false

    init(line: Int, column: Int) {
        self.line = line
        self.column = column
        token.reserveCapacity(64)
        tuple.reserveCapacity(3)
    }

    /// Feeds a chunk of text; complete tuples are passed to `emit(longitude, latitude, altitude)`.
    mutating func consume(
        _ bytes: UnsafeBufferPointer<UInt8>, emit: (Double, Double, Double) -> Void
    ) throws(Failure) {
        for byte in bytes {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D:
                try finishToken(emit: emit)
                if byte == 0x0A {
                    line += 1
                    column = 1
                    continue
                }
            case UInt8(ascii: ","):
                try finishToken(emit: emit)
                guard componentSinceComma else {
                    throw Failure(line: line, column: column, message: "empty coordinate component before ','")
                }
                afterComma = true
                componentSinceComma = false
            default:
                if token.isEmpty {
                    tokenLine = line
                    tokenColumn = column
                }
                guard token.count < 63 else {
                    throw Failure(line: tokenLine, column: tokenColumn, message: "coordinate value is too long")
                }
                token.append(byte)
            }
            column += 1
        }
    }

    /// Ends the text: emits the last tuple.
    mutating func finish(emit: (Double, Double, Double) -> Void) throws(Failure) {
        try finishToken(emit: emit)
        if afterComma {
            throw Failure(line: line, column: column, message: "coordinate tuple ends with ','")
        }
        try finishTuple(emit: emit)
    }

    private mutating func finishToken(emit: (Double, Double, Double) -> Void) throws(Failure) {
        guard !token.isEmpty else { return }
        let parsed = token.withUnsafeBufferPointer { DecimalParser.parse($0) }
        guard let value = parsed else {
            let text = String(decoding: token, as: UTF8.self)
            throw Failure(
                line: tokenLine, column: tokenColumn,
                message: "'\(text)' is not a number (coordinates are longitude,latitude[,altitude])")
        }
        token.removeAll(keepingCapacity: true)
        if !afterComma && !tuple.isEmpty {
            try finishTuple(emit: emit)
        }
        if tuple.isEmpty {
            tupleLine = tokenLine
            tupleColumn = tokenColumn
        }
        tuple.append(value)
        afterComma = false
        componentSinceComma = true
    }

    private mutating func finishTuple(emit: (Double, Double, Double) -> Void) throws(Failure) {
        defer { tuple.removeAll(keepingCapacity: true) }
        switch tuple.count {
        case 0:
            return
        case 2:
            try emitChecked(tuple[0], tuple[1], .nan, emit: emit)
        case 3:
            try emitChecked(tuple[0], tuple[1], tuple[2], emit: emit)
        case let n where n % 3 == 0:
            var k = 0
            while k < n {
                try emitChecked(tuple[k], tuple[k + 1], tuple[k + 2], emit: emit)
                k += 3
            }
        case let n:
            throw Failure(
                line: tupleLine, column: tupleColumn,
                message:
                    "coordinate tuple has \(n) value\(n == 1 ? "" : "s"); KML expects longitude,latitude[,altitude]")
        }
        componentSinceComma = false
    }

    private func emitChecked(_ lon: Double, _ lat: Double, _ alt: Double, emit: (Double, Double, Double) -> Void)
        throws(Failure)
    {
        guard lat >= -90 && lat <= 90 else {
            throw Failure(line: tupleLine, column: tupleColumn, message: "latitude \(lat) is outside [-90, 90]")
        }
        guard lon >= -180 && lon <= 180 else {
            throw Failure(line: tupleLine, column: tupleColumn, message: "longitude \(lon) is outside [-180, 180]")
        }
        emit(lon, lat, alt)
    }
}
