import Foundation
import Geo
import SocialAPI

/// The places the emulator serves, loaded from `fixtures/places/`.
public struct EmulatorFixtures: Sendable {
    /// Twitter places with their parent ids (poi/neighborhood → city → admin → country).
    public var twitterPlaces: [FixturePlace]
    public var facebookPages: [GraphPage]

    /// A Twitter place as the fixture file holds it: the place's own fields, plus `parent`.
    public struct FixturePlace: Sendable, Decodable, Equatable {
        public var place: TwitterPlace
        public var parent: String?

        private enum CodingKeys: String, CodingKey { case parent }

        public init(from decoder: any Decoder) throws {
            place = try TwitterPlace(from: decoder)
            parent = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .parent)
        }

        public var id: String { place.id }
        public var name: String { place.name }
        public var placeType: String { place.placeType }

        /// Whether the point lies inside the place's bounding box.
        func contains(latitude: Double, longitude: Double) -> Bool {
            let ring = place.boundingBox?.coordinates.first ?? []
            let lons = ring.compactMap(\.first)
            let lats = ring.compactMap { $0.count > 1 ? $0[1] : nil }
            guard let west = lons.min(), let east = lons.max(), let south = lats.min(), let north = lats.max() else {
                return false
            }
            return latitude >= south && latitude <= north && longitude >= west && longitude <= east
        }
    }

    public init(twitterPlaces: [FixturePlace], facebookPages: [GraphPage]) {
        self.twitterPlaces = twitterPlaces
        self.facebookPages = facebookPages
    }

    /// Reads `twitter-places.json` and `facebook-pages.json` from `directory`.
    public static func load(from directory: URL) throws -> EmulatorFixtures {
        struct Places: Decodable { var places: [FixturePlace] }
        let places = try JSONDecoder().decode(
            Places.self, from: Data(contentsOf: directory.appendingPathComponent("twitter-places.json")))
        let pages = try JSONDecoder().decode(
            GraphList<GraphPage>.self, from: Data(contentsOf: directory.appendingPathComponent("facebook-pages.json")))
        return EmulatorFixtures(twitterPlaces: places.places, facebookPages: pages.data)
    }

    /// The fixtures shipped in `fixtures/places` of a checkout at `root`.
    public static func shipped(root: URL) throws -> EmulatorFixtures {
        try load(from: root.appendingPathComponent("fixtures/places"))
    }

    /// The place as Twitter returns it: `contained_within` holds the direct parent only, itself
    /// without a `contained_within` (Twitter HQ, a poi, was contained within San Francisco alone).
    func twitterPlace(_ fixture: FixturePlace, baseURL: String) -> TwitterPlace {
        var place = fixture.place
        place.containedWithin = []
        if let id = fixture.parent, var parent = twitterPlaces.first(where: { $0.id == id })?.place {
            parent.url = "\(baseURL)geo/id/\(parent.id).json"
            place.containedWithin = [parent]
        }
        place.url = "\(baseURL)geo/id/\(place.id).json"
        return place
    }
}
