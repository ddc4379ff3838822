import Foundation
import TestSupport
import Testing

@testable import Tracks

/// The 25 coordinate-text vectors transcribed from libkml, togeojson and gpsbabel, with
/// Waypost's decision where peers disagree (see `CoordinateScanner`).
struct CoordinateTextTests {
    struct Vector: Decodable {
        var peer: String
        var input: String
        var expect: ExpectValue?
        var ok: Bool?
    }

    enum ExpectValue: Decodable {
        case tuples([[Double]])
        case prose(String)

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let t = try? c.decode([[Double]].self) {
                self = .tuples(t)
            } else {
                self = .prose(try c.decode(String.self))
            }
        }
    }

    /// Inputs Waypost refuses on purpose, siding with the KML grammar, and why.
    static let refused: [String: String] = [
        "this will not parse correctly": "not numbers",
        "0,foo": "libkml reads junk as 0; a route must not jump to 0,0",
        "bar,0": "as above",
        "130.999*66.56083,75": "'*' is not a separator; libkml skips the junk token",
        "a,24": "togeojson drops the NaN and yields a 1-D tuple",
        "42,24 1,2 alpha,beta": "togeojson drops the all-NaN tuple",
        "-122.0822035425683,37.42228990140251,0,20": "4 components; KML has lon,lat[,alt]",
    ]

    static func scan(_ text: String) throws(CoordinateScanner.Failure) -> [[Double]] {
        var scanner = CoordinateScanner(line: 1, column: 1)
        var tuples: [[Double]] = []
        let emit = { (lon: Double, lat: Double, alt: Double) in
            tuples.append(alt.isNaN ? [lon, lat] : [lon, lat, alt])
        }
        // Feed byte by byte: tokens split across libxml2's chunks must still read whole.
        for byte in Array(text.utf8) {
            try [byte].withUnsafeBufferPointer { (chunk) throws(CoordinateScanner.Failure) in
                try scanner.consume(chunk, emit: emit)
            }
        }
        try scanner.finish(emit: emit)
        return tuples
    }

    @Test(.needsCorpus) func peerVectors() throws {
        let data = try Data(contentsOf: Corpus.url("coordinate-string-vectors/coordinate_vectors.json"))
        struct File: Decodable { var cases: [Vector] }
        let cases = try JSONDecoder().decode(File.self, from: data).cases
        #expect(cases.count == 25)
        var checked = 0
        for vector in cases {
            guard vector.peer != "gpsbabel" else { continue }  // element-level cases, covered by ConformanceTests
            checked += 1
            if let reason = Self.refused[vector.input] {
                #expect(throws: CoordinateScanner.Failure.self, "\(vector.input): \(reason)") {
                    try Self.scan(vector.input)
                }
                continue
            }
            let tuples = try Self.scan(vector.input)
            if case .tuples(let expected) = vector.expect {
                #expect(tuples == expected, "\(vector.input.debugDescription)")
            } else {
                #expect(tuples.isEmpty)
            }
        }
        #expect(checked == 23)
    }

    @Test func errorsPointAtTheToken() {
        do {
            _ = try Self.scan("1,2\n  3,4\n  5,x")
            Issue.record("expected an error")
        } catch {
            #expect(error.line == 3)
            #expect(error.column == 5)
            #expect(error.message.contains("'x' is not a number"))
        }
        #expect(throws: CoordinateScanner.Failure.self) { try Self.scan("1,91") }
        #expect(throws: CoordinateScanner.Failure.self) { try Self.scan("181,1") }
        #expect(throws: CoordinateScanner.Failure.self) { try Self.scan("nan,1") }
        #expect(throws: CoordinateScanner.Failure.self) { try Self.scan("1,2,") }
        #expect(throws: CoordinateScanner.Failure.self) { try Self.scan(",1,2") }
    }
}
