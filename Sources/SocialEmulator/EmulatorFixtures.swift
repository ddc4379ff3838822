import Foundation
import Geo
import SocialAPI

/// The places the emulator serves, loaded from `fixtures/places/`.
public struct EmulatorFixtures: Sendable {
    /// Twitter places with their parent ids (poi/neighborhood → city → admin → country).
    public var twitterPlaces: [FixturePlace]
    public var facebookPages: [GraphPage]

    public struct FixturePlace: Sendable, Codable, Equatable {
        public var id: String
        public var name: String
        public var fullName: String
        public var placeType: String
        public var country: String
        public var countryCode: String
        public var boundingBox: TwitterPlace.BoundingBox
        public var parent: String?

        enum CodingKeys: String, CodingKey {
            case id, name, country, parent
            case fullName = "full_name"
            case placeType = "place_type"
            case countryCode = "country_code"
            case boundingBox = "bounding_box"
        }

        /// Whether the point lies inside the place's bounding box.
        func contains(latitude: Double, longitude: Double) -> Bool {
            let ring = boundingBox.coordinates.first ?? []
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

    /// The place as Twitter returns it, `contained_within` filled with its parent chain.
    func twitterPlace(_ place: FixturePlace, baseURL: String) -> TwitterPlace {
        var chain: [TwitterPlace] = []
        var parent = place.parent
        while let id = parent, let next = twitterPlaces.first(where: { $0.id == id }) {
            chain.append(
                TwitterPlace(
                    id: next.id, name: next.name, fullName: next.fullName, placeType: next.placeType,
                    country: next.country, countryCode: next.countryCode, boundingBox: next.boundingBox))
            parent = next.parent
        }
        return TwitterPlace(
            id: place.id, name: place.name, fullName: place.fullName, placeType: place.placeType,
            country: place.country, countryCode: place.countryCode, boundingBox: place.boundingBox,
            containedWithin: chain, url: "\(baseURL)geo/id/\(place.id).json")
    }
}
