import Foundation
import Testing

@testable import SocialAPI

/// The Twitter models read the provider's wire shape (field names, coordinate order).
struct TwitterModelTests {
    static let tweet = Data(
        #"""
        {"id_str":"1050118621198921728","text":"Espresso","created_at":"Wed Oct 10 20:19:24 +0000 2018",
         "geo":{"type":"Point","coordinates":[37.3236,-122.0315]},
         "coordinates":{"type":"Point","coordinates":[-122.0315,37.3236]},
         "place":{"id":"e1a2b3c4d5e6f701","name":"Coffee","full_name":"Coffee, Cupertino","place_type":"poi",
                  "country":"United States","country_code":"US","attributes":{},
                  "bounding_box":{"type":"Polygon","coordinates":[[[-122.0321,37.323],[-122.0309,37.323],
                                  [-122.0309,37.3242],[-122.0321,37.3242]]]},
                  "contained_within":[{"id":"7d3b5e1f2a9c4c01","name":"Cupertino","full_name":"Cupertino, CA",
                                       "place_type":"city","country":"United States","country_code":"US"}]}}
        """#.utf8)

    @Test func tweetsDecodeInTwitterShape() throws {
        let tweet = try JSONDecoder().decode(Tweet.self, from: Self.tweet)
        #expect(tweet.idStr == "1050118621198921728")
        #expect(tweet.geo?.coordinates == [37.3236, -122.0315])  // latitude first
        #expect(tweet.coordinates?.coordinates == [-122.0315, 37.3236])  // GeoJSON: longitude first
        let box = try #require(tweet.place?.boundingBox)
        #expect(box.type == "Polygon")
        #expect(box.coordinates.count == 1)
        #expect(box.coordinates[0].count == 4)
        #expect(box.coordinates[0][2] == [-122.0309, 37.3242])
        #expect(tweet.place?.containedWithin?.map(\.placeType) == ["city"])
        #expect(tweet.place?.containedWithin?.first?.boundingBox == nil)
    }

    @Test func boundingBoxesRoundTrip() throws {
        let box = TwitterPlace.BoundingBox(coordinates: [
            [[-1, 2], [3, 4.5], [5, 6], [-1, 2]], [[0, 0], [0.5, 0.5], [0, 0.5]],
        ])
        let decoded = try JSONDecoder().decode(TwitterPlace.BoundingBox.self, from: JSONEncoder().encode(box))
        #expect(decoded == box)
    }

    @Test(arguments: [
        #"{"type":"Polygon","coordinates":[[["-122.0",37.3]]]}"#,
        #"{"type":"Polygon","coordinates":[[-122.0,37.3]]}"#,
        #"{"type":"Polygon"}"#,
        #"{"coordinates":[[[-122.0,37.3]]]}"#,
    ])
    func malformedBoundingBoxesAreRejected(_ json: String) {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(TwitterPlace.BoundingBox.self, from: Data(json.utf8))
        }
    }
}

/// Graph's messages often begin with their own code: an error names it once, the subcode beside
/// it where there is one ("(#506) (#506) Duplicate status message" was printed before).
@Test func graphErrorsNameTheirCodeOnce() {
    func described(_ message: String, _ code: Int, _ subcode: Int? = nil) -> String {
        SocialAPIError.graph(
            status: 400,
            error: GraphErrorBody.Detail(message: message, type: "OAuthException", code: code, errorSubcode: subcode)
        ).description
    }
    #expect(described("(#506) Duplicate status message", 506) == "Graph 400: (#506) Duplicate status message")
    #expect(described("(#100) Bad", 100, 33) == "Graph 400: (#100/33) Bad")
    #expect(described("Session has expired.", 190, 463) == "Graph 400: (#190/463) Session has expired.")
    #expect(described("(#200) Other code first", 100) == "Graph 400: (#100) (#200) Other code first")
}
