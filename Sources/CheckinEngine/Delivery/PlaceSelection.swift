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
            // Each place measured once (compared pairwise, each was measured twice a comparison);
            // the first of equally near places, as `min(by:)` chooses.
            var nearest: (place: Place, distance: Double)?
            for place in places {
                let distance = location(place).map { ShortDistance.distance($0, point) } ?? .infinity
                if nearest.map({ distance < $0.distance }) ?? true { nearest = (place, distance) }
            }
            return nearest?.place
        case .named(let text):
            return places.first { name($0).localizedCaseInsensitiveContains(text) }
        case .category(let text):
            return places.first { category($0)?.localizedCaseInsensitiveContains(text) == true }
        }
    }

    /// The middle of a Twitter place's bounding box.
    static func center(_ place: TwitterPlace) -> Coordinate? {
        guard let ring = place.boundingBox?.coordinates.first else { return nil }
        // The extremes of the positions' longitudes and latitudes, compared as `min()` and
        // `max()` compare, without gathering each into an array first.
        var longitudes: (west: Double, east: Double)?
        var latitudes: (south: Double, north: Double)?
        for position in ring {
            if let longitude = position.first {
                longitudes =
                    longitudes.map {
                        (longitude < $0.west ? longitude : $0.west, $0.east < longitude ? longitude : $0.east)
                    } ?? (longitude, longitude)
            }
            if position.count > 1 {
                let latitude = position[1]
                latitudes =
                    latitudes.map {
                        (latitude < $0.south ? latitude : $0.south, $0.north < latitude ? latitude : $0.north)
                    } ?? (latitude, latitude)
            }
        }
        guard let longitudes, let latitudes else { return nil }
        return Coordinate(
            latitude: (latitudes.south + latitudes.north) / 2, longitude: (longitudes.west + longitudes.east) / 2)
    }

    static func location(_ page: GraphPage) -> Coordinate? {
        guard let latitude = page.location?.latitude, let longitude = page.location?.longitude else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }
}
