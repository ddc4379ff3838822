import Foundation
import FuzzDriver
import SocialAPI

// The clients' answer reader: the input is an answer's body, as any server the engine is pointed
// at may send it. `AnswerDecoder` decodes the clients' models from it or leaves it to
// `JSONDecoder`; whatever it decodes, `JSONDecoder` must decode to an equal value (it is the
// reference: every answer's meaning and every error a user sees are its). A difference, a crash or
// a hang is a finding.

/// Decodes `data` as `T` both ways; stops the process where the fast path disagrees.
func agree<T: Decodable & Equatable>(_: T.Type, _ data: Data) {
    guard let fast = AnswerDecoder.decode(T.self, from: data) else { return }
    let reference = try? JSONDecoder().decode(T.self, from: data)
    guard fast != reference else { return }
    fatalError("AnswerDecoder read \(T.self) as \(fast); JSONDecoder as \(String(describing: reference))")
}

runFuzzer { bytes, count in
    let data = Data(input(bytes, count))
    agree(TwitterPlaceResult.self, data)
    agree(TwitterPlace.self, data)
    agree(Tweet.self, data)
    agree([Tweet].self, data)
    agree(TwitterUser.self, data)
    agree(TwitterErrorBody.self, data)
    agree(GraphList<GraphPage>.self, data)
    agree(GraphList<GraphCheckin>.self, data)
    agree(GraphCheckin.self, data)
    agree(GraphCreated.self, data)
    agree([GraphPermission].self, data)
    agree(GraphErrorBody.self, data)
    agree(XCreatedTweet.self, data)
    agree(XTweetLookup.self, data)
    agree(XUser.self, data)
    agree(XProblem.self, data)
    return 0
}
