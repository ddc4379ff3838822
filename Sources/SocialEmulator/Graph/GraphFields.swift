import Foundation

/// Graph's `fields` parameter ("Using the Graph API": `GET /me?fields=id,name`): an answer holds
/// the fields asked for, and `id`, each that has a value; a field its node type does not have is
/// `(#100) Tried accessing nonexisting field (NAME) on node type (TYPE)`. Without `fields` the
/// emulator answers every field it keeps. Expansions (`place{name}`, `picture.type(large)`)
/// are taken by their name: the field is answered whole.
struct GraphFields {
    enum Node: String {
        case user = "User", page = "Page", post = "Post"

        /// The fields the Graph reference lists for the node (those clients ask for), which the
        /// emulator may keep no value of.
        var known: Set<String> {
            switch self {
            case .user:
                [
                    "id", "name", "first_name", "last_name", "middle_name", "short_name", "name_format", "email",
                    "picture", "link", "locale", "timezone", "gender", "birthday", "location", "hometown",
                    "verified", "updated_time",
                ]
            case .page:
                [
                    "id", "name", "category", "category_list", "location", "link", "about", "description", "phone",
                    "website", "checkins", "were_here_count", "fan_count", "picture", "cover", "hours",
                    "price_range", "overall_star_rating", "rating_count", "single_line_address",
                    "is_permanently_closed",
                ]
            case .post:
                [
                    "id", "message", "place", "created_time", "updated_time", "coordinates", "privacy", "from",
                    "story", "type", "status_type", "link", "permalink_url", "application", "tags", "with_tags",
                    "is_hidden", "is_published", "full_picture", "attachments",
                ]
            }
        }

        /// The fields the emulator's answers for the node may hold.
        var kept: Set<String> {
            switch self {
            case .user: ["id", "name"]
            case .page: ["id", "name", "category", "location"]
            case .post: ["id", "message", "place", "created_time", "coordinates", "privacy"]
            }
        }
    }

    /// The names asked for; nil without `fields`.
    let names: Set<String>?

    init(_ parameter: String?) {
        guard let parameter, !parameter.isEmpty else {
            names = nil
            return
        }
        // Top-level names: commas inside an expansion's braces or parentheses do not split.
        var names: Set<String> = []
        var depth = 0
        var name = ""
        var inName = true
        for character in parameter + "," {
            switch character {
            case "{", "(":
                depth += 1
                inName = false
            case "}", ")": depth -= 1
            case "," where depth == 0:
                if !name.isEmpty { names.insert(name) }
                (name, inName) = ("", true)
            case ".": inName = false
            default: if inName && depth == 0 && !character.isWhitespace { name.append(character) }
            }
        }
        self.names = names
    }

    /// A name asked for that the node type does not have (the first in alphabetical order).
    func unknown(on node: Node) -> String? {
        names.flatMap { $0.subtracting(node.known).sorted().first }
    }

    /// `object`, a JSON object's bytes, with only the fields asked for and `id`.
    func select(_ object: Data, node: Node) -> Data {
        guard let names, !node.kept.isSubset(of: names.union(["id"])),
            let fields = try? JSONSerialization.jsonObject(with: object) as? [String: Any]
        else { return object }
        let kept = fields.filter { names.contains($0.key) || $0.key == "id" }
        return (try? JSONSerialization.data(withJSONObject: kept, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? object
    }
}
