/// The requests the emulator answers, as its journal records them (path, method, parameters):
/// what a scenario's `request`/`noRequest` filter is checked against when it is read, so that a
/// mistyped path or parameter — which would match nothing, and let a `noRequest` pass without
/// testing anything — is an error at its line.
///
/// Each endpoint's parameters are the ones its provider documents (Twitter's v1.1 API reference,
/// X API v2's, Graph's), the emulator's clients' among them.
package struct EmulatorEndpoint: Sendable {
    package let methods: Set<String>
    /// The path after the API's root, `{…}` where an id goes (`statuses/destroy/{n}.json`).
    package let path: String
    package let parameters: Set<String>
    /// The roots the path may follow: `/1.1/` and `/1/`, `/2/`, or Graph's `/` and `/vN.N/`.
    let api: API

    enum API { case twitter, x, graph }

    /// The path as a reader names the endpoint: `statuses/update`, `me/checkins`, `2/tweets`.
    package var name: String {
        let bare = path.hasSuffix(".json") ? String(path.dropLast(5)) : path
        return api == .x ? "2/" + bare : bare
    }

    /// The endpoints, in the order `docs/emulator.md` lists them.
    package static let all: [EmulatorEndpoint] = {
        let geo: Set<String> = ["lat", "long", "accuracy", "granularity", "max_results", "callback"]
        let entities: Set<String> = ["include_entities", "tweet_mode"]
        let tweet: Set<String> = ["trim_user", "include_my_retweet", "include_ext_alt_text", "include_card_uri"]
        let v2Fields: Set<String> = [
            "tweet.fields", "expansions", "media.fields", "place.fields", "poll.fields", "user.fields",
        ]
        let graphRead: Set<String> = ["fields", "limit", "after", "before", "since", "until"]
        let twitter: [(Set<String>, String, Set<String>)] = [
            (["GET"], "geo/reverse_geocode.json", geo),
            (["GET"], "geo/search.json", geo.union(["query", "ip", "contained_within", "attribute:street_address"])),
            (["GET"], "geo/similar_places.json", geo.union(["name", "contained_within", "attribute:street_address"])),
            (["GET"], "geo/id/{x}.json", []),
            (
                ["POST"], "statuses/update.json",
                entities.union([
                    "status", "in_reply_to_status_id", "auto_populate_reply_metadata", "exclude_reply_user_ids",
                    "attachment_url", "media_ids", "possibly_sensitive", "lat", "long", "place_id",
                    "display_coordinates", "trim_user", "enable_dmcommands", "fail_dmcommands", "card_uri",
                ])
            ),
            (
                ["GET"], "statuses/user_timeline.json",
                entities.union([
                    "user_id", "screen_name", "since_id", "count", "max_id", "trim_user", "exclude_replies",
                    "include_rts",
                ])
            ),
            (["GET"], "statuses/show.json", entities.union(tweet).union(["id"])),
            (["GET"], "statuses/show/{n}.json", entities.union(tweet)),
            (["POST"], "statuses/destroy/{n}.json", entities.union(["trim_user"])),
            (["GET"], "users/show.json", ["user_id", "screen_name", "include_entities"]),
            (["GET"], "account/verify_credentials.json", ["include_entities", "skip_status", "include_email"]),
            (["GET"], "application/rate_limit_status.json", ["resources"]),
        ]
        let x: [(Set<String>, String, Set<String>)] = [
            (
                ["POST"], "tweets",
                [
                    "text", "geo.place_id", "reply.in_reply_to_tweet_id", "reply.exclude_reply_user_ids",
                    "quote_tweet_id", "media.media_ids", "media.tagged_user_ids", "poll.options",
                    "poll.duration_minutes", "reply_settings", "for_super_followers_only", "direct_message_deep_link",
                    "nullcast", "card_uri",
                ]
            ),
            (["GET"], "tweets/{n}", v2Fields),
            (["DELETE"], "tweets/{n}", []),
            (["GET"], "users/me", v2Fields),
        ]
        let graph: [(Set<String>, String, Set<String>)] = [
            (["GET"], "me", ["fields"]),
            (["GET"], "me/checkins", graphRead),
            (["GET"], "me/feed", graphRead),
            (["POST"], "me/checkins", ["place", "message", "coordinates", "tags", "privacy"]),
            (["POST"], "me/feed", ["message", "place", "link", "tags", "privacy", "published"]),
            (["GET", "DELETE"], "me/permissions", []),
            (["GET"], "search", ["type", "q", "center", "distance", "limit", "fields", "after", "before"]),
            (["GET"], "", ["ids", "fields"]),
            (["GET"], "{n}", ["fields"]),
            (["DELETE"], "{n}", []),
        ]
        // Every Graph request carries its token (the journal shows it REDACTED), and may carry
        // the app secret proof; a v1.1 request may carry OAuth's protocol parameters in its query
        // or form body instead of the header (RFC 5849 §3.5).
        let oauth: Set<String> = [
            "oauth_consumer_key", "oauth_token", "oauth_signature_method", "oauth_signature", "oauth_timestamp",
            "oauth_nonce", "oauth_version",
        ]
        return twitter.map { EmulatorEndpoint(methods: $0.0, path: $0.1, parameters: $0.2.union(oauth), api: .twitter) }
            + x.map { EmulatorEndpoint(methods: $0.0, path: $0.1, parameters: $0.2, api: .x) }
            + graph.map {
                EmulatorEndpoint(
                    methods: $0.0, path: $0.1, parameters: $0.2.union(["access_token", "appsecret_proof"]),
                    api: .graph)
            }
    }()

    /// Whether some request to this endpoint has a path that contains `part` (a filter's path
    /// matches by containment): a place's id (`{x}`) is hexadecimal, as Twitter's are; a
    /// tweet's or a Graph object's (`{n}`) digits and `_` (a page `1004`, a post `2001_100002`);
    /// Graph's version (`{v}`) digits and dots.
    package func admits(_ part: String) -> Bool {
        let roots =
            switch api {
            case .twitter: ["/1.1/", "/1/"]
            case .x: ["/2/"]
            case .graph: ["/", "/v{v}/"]
            }
        return roots.contains { Self.contains(template: Array(($0 + path).unicodeScalars), part) }
    }

    /// Whether a text `template` describes (`{x}`, `{n}`, `{v}`: as above) can contain
    /// `part`: the set of places in the template a partial match can be at, advanced scalar by
    /// scalar from every place at once.
    private static func contains(template: [Unicode.Scalar], _ part: String) -> Bool {
        enum Token {
            case scalar(Unicode.Scalar)
            case hexadecimal, number, version
        }
        var tokens: [Token] = []
        var index = 0
        while index < template.count {
            if template[index] == "{", let close = template[index...].firstIndex(of: "}") {
                let kind = template[index + 1]
                tokens.append(kind == "x" ? .hexadecimal : kind == "n" ? .number : .version)
                index = close + 1
            } else {
                tokens.append(.scalar(template[index]))
                index += 1
            }
        }
        func fits(_ token: Token, _ scalar: Unicode.Scalar) -> Bool {
            switch token {
            case .scalar(let s): s == scalar
            case .hexadecimal:
                ("0"..."9").contains(scalar) || ("a"..."f").contains(scalar) || ("A"..."F").contains(scalar)
            case .number: ("0"..."9").contains(scalar) || scalar == "_"
            case .version: ("0"..."9").contains(scalar) || scalar == "."
            }
        }
        // A place is (token, whether inside it): inside an id or a version, it may go on or end.
        var places = Set((0..<tokens.count).flatMap { [$0 * 2, $0 * 2 + 1] })
        for scalar in part.unicodeScalars {
            var next: Set<Int> = []
            for place in places {
                var token = place / 2
                let inside = place % 2 == 1
                if inside, case .scalar = tokens[token] { continue }
                // Inside a repeatable token: the same token again, or the one after it.
                if inside {
                    if fits(tokens[token], scalar) { next.insert(place) }
                    token += 1
                }
                guard token < tokens.count, fits(tokens[token], scalar) else { continue }
                if case .scalar = tokens[token] { next.insert((token + 1) * 2) } else { next.insert(token * 2 + 1) }
            }
            places = next.filter { $0 / 2 <= tokens.count }
            if places.isEmpty { return false }
        }
        return true
    }
}
