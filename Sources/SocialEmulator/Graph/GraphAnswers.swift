import Foundation
import SocialAPI
import WaypostSupport

/// A check-in, a list's `paging`, the permissions and a created object's id, written by hand
/// byte for byte as ``JSONBody`` (`JSONEncoder`, sorted keys, slashes as they are) writes them:
/// `GET /{check-in}` and the paging of every search spent a twentieth of a field trial in
/// `JSONEncoder`.
///
/// Two of `JSONEncoder`'s choices differ from ``JSONWriter``'s and are kept: a whole number loses
/// its `.0` (`37`, not `37.0`), and a backspace or form feed is written `\b` or `\f`; a value with
/// either character, or with a number JSON has no text for, is left to `JSONEncoder`.
enum GraphAnswers {
    static func encode(_ checkin: GraphCheckin, place: (GraphPage) -> Data) -> Data {
        let texts = [checkin.id, checkin.message, checkin.createdTime] + privacyTexts(checkin.privacy)
        let numbers = [checkin.coordinates?.latitude, checkin.coordinates?.longitude].compactMap { $0 }
        guard texts.allSatisfy(isWrittenAlike), numbers.allSatisfy(\.isFinite) else { return JSONBody.encode(checkin) }
        var w = JSONWriter()
        w.object { w in
            if let coordinates = checkin.coordinates {
                w.key("coordinates")
                w.object { w in
                    w.key("latitude")
                    w.raw(number(coordinates.latitude))
                    w.key("longitude")
                    w.raw(number(coordinates.longitude))
                }
            }
            w.field("created_time", ifPresent: checkin.createdTime)
            w.field("id", checkin.id)
            w.field("message", ifPresent: checkin.message)
            if let page = checkin.place {
                w.key("place")
                w.raw(place(page))
            }
            if let privacy = checkin.privacy {
                w.key("privacy")
                w.object { w in
                    w.field("allow", ifPresent: privacy.allow)
                    w.field("deny", ifPresent: privacy.deny)
                    w.field("description", ifPresent: privacy.description)
                    w.field("friends", ifPresent: privacy.friends)
                    w.field("value", privacy.value)
                }
            }
        }
        return w.data
    }

    static func encode(_ paging: GraphList<GraphPage>.Paging) -> Data {
        let texts = [paging.cursors?.after, paging.cursors?.before, paging.next, paging.previous]
        guard texts.allSatisfy(isWrittenAlike) else { return JSONBody.encode(paging) }
        var w = JSONWriter()
        w.object { w in
            if let cursors = paging.cursors {
                w.key("cursors")
                w.object { w in
                    w.field("after", ifPresent: cursors.after)
                    w.field("before", ifPresent: cursors.before)
                }
            }
            w.field("next", ifPresent: paging.next)
            w.field("previous", ifPresent: paging.previous)
        }
        return w.data
    }

    /// `{"id": …}`, the answer to every POST that creates.
    static func encode(_ created: GraphCreated) -> Data {
        guard isWrittenAlike(created.id) else { return JSONBody.encode(created) }
        var w = JSONWriter()
        w.object { w in w.field("id", created.id) }
        return w.data
    }

    /// `GET /me/permissions`: the list, which has no paging.
    static func encode(_ permissions: GraphList<GraphPermission>) -> Data {
        let texts = permissions.data.flatMap { [$0.permission, $0.status] }
        guard permissions.paging == nil, texts.allSatisfy(isWrittenAlike) else { return JSONBody.encode(permissions) }
        var w = JSONWriter()
        w.object { w in
            w.key("data")
            w.array { w in
                for item in permissions.data {
                    w.object { w in
                        w.field("permission", item.permission)
                        w.field("status", item.status)
                    }
                }
            }
        }
        return w.data
    }

    private static func privacyTexts(_ privacy: GraphPrivacy?) -> [String?] {
        guard let privacy else { return [] }
        return [privacy.value, privacy.description, privacy.allow, privacy.deny, privacy.friends]
    }

    /// Whether ``JSONWriter`` writes `text` as `JSONEncoder` does: it holds no backspace or form feed.
    private static func isWrittenAlike(_ text: String?) -> Bool {
        text?.utf8.allSatisfy { $0 != 0x08 && $0 != 0x0C } ?? true
    }

    /// A finite number as `JSONEncoder` writes it: Swift's shortest text, less a trailing `.0`.
    private static func number(_ value: Double) -> Data {
        let text = "\(value)"
        return Data((text.hasSuffix(".0") ? text.dropLast(2) : Substring(text)).utf8)
    }
}
