import Foundation
import FuzzDriver
import SimulatedTime
import Tracks

// KML, GPX and KMZ (a zip archive) bytes through the track reader, then whatever it reads through
// route timing (bounded, as `--max-fixes` bounds it) and the three writers. Errors are expected;
// a crash, a sanitizer report or a hang is a bug.
runFuzzer { data, count in
    let bytes = Data(input(data, count))
    // The input's length picks the time order, so both the refusal and the sorting are explored.
    let order: TimeOrder = count % 2 == 0 ? .strict : .sort
    guard let track = try? TrackReader(timeOrder: order).read(data: bytes, name: "fuzz") else { return 0 }
    _ = try? RouteTiming(speed: 50, sampleInterval: Seconds(5), maximumSamples: 20_000).samples(for: track)
    for format in ExportFormat.allCases {
        var out = ""
        TrackWriter.write(track, as: format, to: &out)
    }
    return 0
}
