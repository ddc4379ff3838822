import Geo
import SocialAPI

/// A rule's place choice applied to a provider's answer.
enum PlaceSelection {
    static func choose<Place>(
        _ places: [Place], _ choice: PlaceChoice, near point: Coordinate, name: (Place) -> String,
        category: (Place) -> String?, location: (Place) -> Coordinate?
    ) -> Place? {
        switch choice {
        case .first:
            return places.first
        case .nearest:
            return places.min { a, b in
                let da = location(a).map { ShortDistance.distance($0, point) } ?? .infinity
                let db = location(b).map { ShortDistance.distance($0, point) } ?? .infinity
                return da < db
            }
        case .named(let text):
            return places.first { name($0).localizedCaseInsensitiveContains(text) }
        case .category(let text):
            return places.first { category($0)?.localizedCaseInsensitiveContains(text) == true }
        }
    }

    /// The middle of a Twitter place's bounding box.
    static func center(_ place: TwitterPlace) -> Coordinate? {
        guard let ring = place.boundingBox?.coordinates.first, !ring.isEmpty else { return nil }
        let lons = ring.compactMap(\.first)
        let lats = ring.compactMap { $0.count > 1 ? $0[1] : nil }
        guard let west = lons.min(), let east = lons.max(), let south = lats.min(), let north = lats.max() else {
            return nil
        }
        return Coordinate(latitude: (south + north) / 2, longitude: (west + east) / 2)
    }

    static func location(_ page: GraphPage) -> Coordinate? {
        guard let latitude = page.location?.latitude, let longitude = page.location?.longitude else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }
}
