import Dispatch
import Foundation
import FuzzDriver
import SimulatedTime
import SocialAPI
import SocialEmulator

// The OAuth 1.0a parts: the input is an `Authorization` header sent on a signed Twitter call (the
// emulator's header parser and verifier), the same bytes as a request's query and form body (the
// protocol parameters located there), and as a request's parameters through the client's signer
// (percent-encoding, the base string).
let fixtures = try EmulatorFixtures.builtIn()

runFuzzer { data, count in
    let text = String(decoding: input(data, count), as: UTF8.self)
    let signer = OAuth1Signer(
        credentials: OAuth1Credentials(
            consumerKey: "waypost-demo-consumer", consumerSecret: "waypost-demo-consumer-secret",
            token: "1001-waypost-demo-token", tokenSecret: "waypost-demo-token-secret"))
    let pairs = text.split(separator: "&").map { part -> (name: String, value: String) in
        let pair = part.split(separator: "=", maxSplits: 1)
        return (String(pair.first ?? ""), pair.count > 1 ? String(pair[1]) : "")
    }
    if let url = URL(string: "http://127.0.0.1/1.1/statuses/update.json?" + text) {
        let signature = signer.sign(
            OAuth1Request(method: "POST", url: url, formParameters: pairs), nonce: "fuzz", timestamp: 1_750_000_000)
        _ = OAuth1Signer.baseURL(url)
        _ = signature
    }
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let core = EmulatorCore(
            fixtures: fixtures, seed: 1, clock: SimulatedClock(start: EpochInstant(secondsSince1970: 1_750_000_000)))
        _ = await core.handle(
            EmulatorRequest(
                method: "POST", path: "/1.1/statuses/update.json", query: "",
                headers: [
                    "authorization": text, "content-type": "application/x-www-form-urlencoded",
                    "host": "127.0.0.1",
                ],
                body: Data("status=hello".utf8)))
        // The same bytes as protocol parameters in the query and in the form body (RFC 5849
        // §3.5.2, §3.5.3), where they are located, checked for ambiguity and verified too.
        _ = await core.handle(
            EmulatorRequest(
                method: "POST", path: "/1.1/statuses/update.json", query: text,
                headers: ["content-type": "application/x-www-form-urlencoded", "host": "127.0.0.1"],
                body: Data(text.utf8)))
        done.signal()
    }
    done.wait()
    return 0
}
