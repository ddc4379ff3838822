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

    /// The cursor at an item: Graph's were opaque base64 that "marks a specific item in a list"
    /// (Graph API, Pagination); these encode the item's key, and its position for an item gone
    /// since — so a list that grows or shrinks between pages neither repeats nor skips an item.
    static func cursor(at offset: Int, key: String) -> String {
        Data("wp:\(offset):\(key)".utf8).base64EncodedString()
    }

    /// The item a cursor marks: where it is now (`found`), or where it was when it is gone; nil
    /// for a cursor these pages did not give (a forged or stale one must be an error, never a trap).
    static func mark(_ cursor: String, keys: [String]) -> (position: Int, found: Bool)? {
        guard let data = Data(base64Encoded: cursor), let text = String(data: data, encoding: .utf8),
            text.hasPrefix("wp:")
        else { return nil }
        let rest = text.dropFirst(3)
        guard let colon = rest.firstIndex(of: ":"), let offset = Int(rest[..<colon]), offset >= 0 else { return nil }
        let key = String(rest[rest.index(after: colon)...])
        if offset < keys.count && keys[offset] == key { return (offset, true) }
        if let now = keys.firstIndex(of: key) { return (now, true) }
        return offset <= keys.count ? (offset, false) : nil
    }

    /// `{"data": […], "paging": {"cursors": …, "next": …, "previous": …}}` for the page the
    /// cursors ask for, each item written by `encode` as `JSONBody` writes it (a place's encoding
    /// made once, say) and named by `key` in cursors: the list's bytes are `JSONBody`'s for the
    /// whole list, whose keys sort `data` before `paging` and which leaves out a page's absent
    /// `paging`.
    func list<Item>(
        _ items: [Item], key: (Item) -> String, encodedBy encode: (Item) -> Data, state: inout EmulatorState
    ) -> EmulatorResponse {
        var start = 0
        if let cursor = after ?? before {
            guard let mark = Self.mark(cursor, keys: items.map(key)) else { return invalidCursor(cursor, &state) }
            // After the marked item (from where it was, when it is gone); or the page before it.
            start = after != nil ? mark.position + (mark.found ? 1 : 0) : max(0, mark.position - limit)
        }
        let end = min(items.count, start + limit)
        guard start < end else { return .json(200, encoded: Data(#"{"data":[]}"#.utf8)) }
        let first = Self.cursor(at: start, key: key(items[start]))
        let last = Self.cursor(at: end - 1, key: key(items[end - 1]))
        // `Paging` does not depend on the list's item type; any names it.
        let paging = GraphList<GraphPage>.Paging(
            cursors: .init(before: first, after: last),
            next: end < items.count ? link("after", last) : nil,
            previous: start > 0 ? link("before", first) : nil)
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
