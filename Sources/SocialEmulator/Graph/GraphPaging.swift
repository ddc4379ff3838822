import Foundation
import SocialAPI

/// Cursor-based paging as Graph did it: `limit` items a page (25 by default, 100 at most),
/// opaque `after`/`before` cursors, and `next`/`previous` URLs that repeat the request with the
/// cursor — so clients that follow `paging.next` (facebook-sdk's `get_all_connections`) walk
/// the whole list.
struct Paging: Sendable {
    /// Where the request went, to build `next` and `previous`: `http://host/v3.1/me/checkins`.
    var url: String
    /// The request's parameters but the cursors.
    var kept: [(name: String, value: String)]
    var limit: Int
    var after: String?
    var before: String?

    init(request: EmulatorRequest, version: String, path: String, parameters: RequestParameters) {
        url = "\(request.origin)/\(version)/\(path)"
        kept = parameters.pairs.filter { !["after", "before", "limit"].contains($0.name) }
        limit = max(1, min(parameters.integer("limit", in: Int.min...Int.max).value ?? 25, 100))
        after = parameters["after"]
        before = parameters["before"]
    }

    /// The cursor for position `offset`: Graph's were opaque base64; these encode the position.
    static func cursor(_ offset: Int) -> String {
        Data("wp:\(offset)".utf8).base64EncodedString()
    }

    /// The position a cursor encodes, within `0...count`; nil for anything else (a forged or
    /// stale cursor must be an error, never a trap).
    static func offset(_ cursor: String, count: Int) -> Int? {
        guard let data = Data(base64Encoded: cursor), let text = String(data: data, encoding: .utf8),
            text.hasPrefix("wp:"), let offset = Int(text.dropFirst(3)), (0...count).contains(offset)
        else { return nil }
        return offset
    }

    /// `{"data": […], "paging": {"cursors": …, "next": …, "previous": …}}` for the page the
    /// cursors ask for.
    func list<Item: Encodable>(_ items: [Item], state: inout EmulatorState) -> EmulatorResponse {
        list(items, encodedBy: JSONBody.encode, state: &state)
    }

    /// The same, each item written by `encode` as `JSONBody` writes it (a place's encoding made
    /// once, say): the list's bytes are `JSONBody`'s for the whole list, whose keys sort `data`
    /// before `paging` and which leaves out a page's absent `paging`.
    func list<Item>(_ items: [Item], encodedBy encode: (Item) -> Data, state: inout EmulatorState)
        -> EmulatorResponse
    {
        var start = 0
        if let after {
            guard let offset = Self.offset(after, count: items.count) else { return invalidCursor(after, &state) }
            start = offset
        } else if let before {
            guard let offset = Self.offset(before, count: items.count) else { return invalidCursor(before, &state) }
            start = max(0, offset - limit)
        }
        let end = min(items.count, start + limit)
        guard start < end else { return .json(200, encoded: Data(#"{"data":[]}"#.utf8)) }
        // `Paging` does not depend on the list's item type; any names it.
        let paging = GraphList<GraphPage>.Paging(
            cursors: .init(before: Self.cursor(start), after: Self.cursor(end)),
            next: end < items.count ? link("after", Self.cursor(end)) : nil,
            previous: start > 0 ? link("before", Self.cursor(start)) : nil)
        var body = Data(#"{"data":["#.utf8)
        for index in start..<end {
            if index > start { body.append(UInt8(ascii: ",")) }
            body.append(encode(items[index]))
        }
        body.append(contentsOf: #"],"paging":"#.utf8)
        body.append(GraphAnswers.encode(paging))
        body.append(UInt8(ascii: "}"))
        return .json(200, encoded: body)
    }

    private func link(_ name: String, _ cursor: String) -> String {
        let pairs = kept + [("limit", String(limit)), (name, cursor)]
        return url + "?" + PercentEncoding.form(pairs)
    }

    private func invalidCursor(_ cursor: String, _ state: inout EmulatorState) -> EmulatorResponse {
        GraphRoutes.error(400, .invalidParameter, "(#100) Invalid cursor: \(cursor)", state: &state)
    }
}
