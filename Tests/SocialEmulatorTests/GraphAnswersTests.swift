import Foundation
import SocialAPI
import Testing

@testable import SocialEmulator

/// Graph's check-ins, paging, permissions and created ids are written by hand; every variant must be the bytes
/// `JSONEncoder` (sorted keys, slashes unescaped: ``JSONBody``) writes for it.
struct GraphAnswersTests {
    static let page = GraphPage(
        id: "110843418940484", name: "Caffè \"Roma\" / Cupertino",
        location: .init(latitude: 37.0, longitude: -122.03118))

    static let texts: [String?] = [
        nil, "", "plain", "slash/and \"quotes\" \\ back", "tab\tline\nreturn\r", "bell\u{7} unit\u{1F} del\u{7F}",
        "backspace\u{8}", "form\u{C}feed", "é 語 👩‍👩‍👧 \u{2028}",
    ]
    static let numbers: [Double] = [37, -122.03118, 0.1, -0.0, 1e-7, 1e16, 2.5e15, 90, .nan, .infinity]

    @Test func checkinsAreWrittenAsJSONEncoderWritesThem() {
        var checkins: [GraphCheckin] = []
        for text in Self.texts {
            checkins.append(GraphCheckin(id: text ?? "1_2", message: text, createdTime: text))
            checkins.append(
                GraphCheckin(
                    id: "1_2", place: Self.page, privacy: GraphPrivacy(value: text ?? "SELF", description: text)))
            checkins.append(
                GraphCheckin(
                    id: "1_2",
                    privacy: GraphPrivacy(value: "CUSTOM", allow: text, deny: text, friends: text)))
        }
        for number in Self.numbers {
            checkins.append(
                GraphCheckin(id: "1_2", coordinates: .init(latitude: number, longitude: -number)))
        }
        for checkin in checkins {
            let written = GraphAnswers.encode(checkin) { JSONBody.encode($0) }
            #expect(written == JSONBody.encode(checkin), "\(String(decoding: written, as: UTF8.self))")
        }
    }

    @Test func pagingIsWrittenAsJSONEncoderWritesIt() {
        typealias Paging = GraphList<GraphPage>.Paging
        var pagings: [Paging] = [Paging()]
        for text in Self.texts {
            pagings.append(Paging(cursors: .init(before: text, after: text), next: text, previous: text))
            pagings.append(Paging(cursors: .init(before: text), next: "https://graph.facebook.com/v2.0/search?a=1"))
        }
        for paging in pagings {
            #expect(GraphAnswers.encode(paging) == JSONBody.encode(paging))
        }
    }

    @Test func createdIdsAndPermissionsAreWrittenAsJSONEncoderWritesThem() {
        for text in Self.texts {
            let created = GraphCreated(id: text ?? "1_2")
            #expect(GraphAnswers.encode(created) == JSONBody.encode(created))
            let permissions = GraphList(data: [
                GraphPermission(permission: text ?? "publish_checkins", status: "granted"),
                GraphPermission(permission: "user_posts", status: text ?? "declined"),
            ])
            #expect(GraphAnswers.encode(permissions) == JSONBody.encode(permissions))
        }
        for list in [GraphList<GraphPermission>(data: []), GraphList(data: [], paging: .init(next: "https://x/y"))] {
            #expect(GraphAnswers.encode(list) == JSONBody.encode(list))
        }
    }
}
