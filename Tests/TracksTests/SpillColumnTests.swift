import Foundation
import Testing
import WaypostSupport

@testable import Tracks

/// Long paths keep their columns in an unlinked temporary file (issue 17: memory independent of
/// the file's size); everything read from one must equal the same path held in memory.
struct SpillColumnTests {
    @Test func fullChunksGoToDiskAndReadBackInOrder() {
        let length = SpillColumn<Double>.chunkLength
        let expected = (0..<(3 * length + length / 2)).map { Double($0) * 0.5 }
        var column = SpillColumn<Double>(spillingTo: SpillFile())
        column.append(contentsOf: expected)
        #expect(column.spilledCount == 3 * length, "three full chunks are on disk")
        #expect(column.count == expected.count)
        #expect(column.map { $0 } == expected)
        #expect(column.elementsEqual(expected))
        for position in [0, 1, length - 1, length, 2 * length + 7, expected.count - 1] {
            #expect(column[position] == expected[position])
        }
        #expect(column.first == 0 && column.last == expected.last)

        // A value: a copy does not see later appends or changes.
        let copy = column
        column.append(-1)
        column[5] = -5
        #expect(column.count == expected.count + 1 && column[5] == -5 && column.last == -1)
        #expect(column.spilledCount == 0, "changing a spilled element brings the column back into memory")
        #expect(copy.count == expected.count && copy[5] == expected[5])
        #expect(copy.map { $0 } == expected)
    }

    @Test func columnsWithoutAFileStayInMemory() {
        var column: SpillColumn<Double> = []
        column.append(contentsOf: (0..<(2 * SpillColumn<Double>.chunkLength)).map(Double.init))
        #expect(column.spilledCount == 0)
        #expect(column.reduce(0, +) == Double(column.count * (column.count - 1) / 2))
    }

    /// A gx:Track as Google Earth writes it (every `<when>` before the first `<gx:coord>`) long
    /// enough to spill, with a heart-rate array, an empty coord and a legacy pause marker.
    static let count = 80_000
    static let empty = 40_000
    static let marker = 70_000

    static var longTrack: String { longTrack(order: .whensFirst) }

    /// How a gx:Track's `<when>`s and `<gx:coord>`s are laid out: KML allows any order.
    enum Order: CaseIterable {
        case whensFirst, coordsFirst, interleaved
    }

    static func longTrack(order: Order) -> String {
        var body = "<Placemark><name>long</name><gx:Track>\n"
        body.reserveCapacity(count * 120)
        func when(_ i: Int) -> String { "<when>\(XSDDateTime.formatCompact(1_750_000_000 + Double(i)))</when>\n" }
        func coord(_ i: Int) -> String {
            switch i {
            case empty: "<gx:coord/>\n"
            case marker: "<gx:coord>0 100 0</gx:coord>\n"
            default: "<gx:coord>\(Double(i) * 1e-5) \(45 + Double(i) * 1e-5) \(i % 100)</gx:coord>\n"
            }
        }
        switch order {
        case .whensFirst: body += (0..<count).map(when).joined() + (0..<count).map(coord).joined()
        case .coordsFirst: body += (0..<count).map(coord).joined() + (0..<count).map(when).joined()
        case .interleaved: body += (0..<count).map { when($0) + coord($0) }.joined()
        }
        body += "<ExtendedData><SchemaData><gx:SimpleArrayData name=\"hr\">\n"
        for i in 0..<count { body += "<gx:value>\(60 + i % 120)</gx:value>\n" }
        body += "</gx:SimpleArrayData></SchemaData></ExtendedData></gx:Track></Placemark>"
        return kml(body)
    }

    /// The points the reader must keep, by their index in the file.
    static let kept = [Array(0..<empty) + Array((empty + 1)..<marker), Array((marker + 1)..<count)]

    @Test(arguments: Order.allCases)
    func aLongGxTrackIsPairedDroppedAndCutFromDisk(order: Order) throws {
        let track = try readTrack(Self.longTrack(order: order))
        let paths = track.paths
        try #require(paths.count == 2, "the marker cuts the track")
        #expect(paths[0].points.spilledCount > 0, "the first piece is longer than a chunk")
        for (path, indices) in zip(paths, Self.kept) {
            #expect(path.points.count == indices.count)
            let expected = indices.map { i in
                TrackPoint(
                    latitude: 45 + Double(i) * 1e-5, longitude: Double(i) * 1e-5, altitude: Double(i % 100),
                    time: Date(timeIntervalSince1970: 1_750_000_000 + Double(i)))
            }
            #expect(path.points.elementsEqual(expected))
            #expect(path.attributes["hr"]?.map { $0 } == indices.map { Double(60 + $0 % 120) })
        }
    }

    @Test func spilledPathsWriteAndTimeAsPathsInMemory() throws {
        let track = try readTrack(Self.longTrack)
        var inMemory = track
        inMemory.features = track.features.map { feature in
            var feature = feature
            feature.geometry = feature.geometry?.mappingPaths { path in
                TrackPath(
                    points: path.points.map { $0 }, attributes: path.attributes.mapValues { $0.map { $0 } },
                    altitudeMode: path.altitudeMode)
            }
            return feature
        }
        #expect(inMemory.paths.allSatisfy { $0.points.spilledCount == 0 })
        #expect(track == inMemory)
        for format in ExportFormat.allCases {
            var spilled = ""
            var held = ""
            TrackWriter.write(track, as: format, to: &spilled)
            TrackWriter.write(inMemory, as: format, to: &held)
            #expect(spilled == held, "\(format)")
        }
        let timing = RouteTiming()
        #expect(try timing.samples(for: track) == timing.samples(for: inMemory))
    }

    @Test func timeOrderRepairsWorkOnSpilledPaths() throws {
        // Point 50,000 is stamped a second and a half early, at a time no other point has.
        let text = Self.longTrack.replacingOccurrences(
            of: "<when>\(XSDDateTime.formatCompact(1_750_050_000))</when>",
            with: "<when>\(XSDDateTime.formatCompact(1_750_049_998.5))</when>")
        #expect(readError(text)?.message.contains("time goes backwards") == true)
        let dropped = try TrackReader(timeOrder: .drop).read(data: Data(text.utf8), name: "t.kml").paths[0]
        #expect(dropped.points.count == Self.kept[0].count - 1)
        #expect(!dropped.points.contains { $0.timeIntervalSince1970 == 1_750_049_998.5 })
        let sorted = try TrackReader(timeOrder: .sort).read(data: Data(text.utf8), name: "t.kml").paths[0]
        let times = sorted.points.map { $0.timeIntervalSince1970 ?? 0 }
        #expect(times == times.sorted() && times.count == Self.kept[0].count)
        #expect(sorted.attributes["hr"]?[times.firstIndex(of: 1_750_049_998.5) ?? 0] == Double(60 + 50_000 % 120))
    }
}
