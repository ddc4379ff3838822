import Dispatch
import Foundation
import FuzzDriver
import SimulatedTime
import SocialEmulator

// A request to the emulator, in memory: the input is `METHOD TARGET` on the first line, header
// lines `name: value`, an empty line, then the body (see Fuzz/seeds/emulator). Every answer must
// come, whatever the request: a crash or sanitizer report is a bug.
let fixtures = try EmulatorFixtures.builtIn()

/// A request read loosely from the input: what cannot be read stays empty.
func request(_ bytes: UnsafeBufferPointer<UInt8>) -> EmulatorRequest {
    let text = String(decoding: bytes, as: UTF8.self)
    let (head, body) =
        text.range(of: "\n\n").map { (String(text[..<$0.lowerBound]), String(text[$0.upperBound...])) } ?? (text, "")
    var lines = head.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let start = lines.isEmpty ? [] : lines.removeFirst().split(separator: " ", maxSplits: 1).map(String.init)
    let target = start.count > 1 ? start[1] : "/"
    let (path, query) =
        target.firstIndex(of: "?").map { (String(target[..<$0]), String(target[target.index(after: $0)...])) }
        ?? (target, "")
    var headers: [String: String] = [:]
    for line in lines {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return EmulatorRequest(
        method: start.first ?? "GET", path: path, query: query, headers: headers, body: Data(body.utf8))
}

runFuzzer { data, count in
    let request = request(input(data, count))
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        // A fresh emulator per input, on a fixed clock: each run is reproducible from its input.
        let core = EmulatorCore(
            fixtures: fixtures, seed: 1, clock: SimulatedClock(start: EpochInstant(secondsSince1970: 1_750_000_000)))
        _ = await core.handle(request)
        _ = await core.handle(request)  // again: duplicates, nonce replay, rate windows
        done.signal()
    }
    done.wait()
    return 0
}
