import ConfigFiles
import Foundation
import Geo
import SocialAPI
import WaypostSupport

/// The places the emulator serves: ``builtIn`` (the project's `fixtures/places`, compiled into the
/// tool so that it works from any directory), or a directory of the same two files.
public struct EmulatorFixtures: Sendable, Equatable {
    /// Twitter places with their parent ids (poi/neighborhood → city → admin → country).
    public var twitterPlaces: [FixturePlace] {
        didSet { placeCache = PlaceCache() }
    }
    public var facebookPages: [GraphPage] {
        didSet { placeCache = PlaceCache() }
    }
    /// The places as `geo/*` and Graph's search answers carry them, and indexed, shared by every
    /// emulator made from these fixtures (a scenario's trials make one a trial).
    private(set) var placeCache = PlaceCache()

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

        /// The extent of the place's bounding box; nil when it has none.
        var extent: Extent? {
            let ring = place.boundingBox?.coordinates.first ?? []
            let lons = ring.compactMap(\.first)
            let lats = ring.compactMap { $0.count > 1 ? $0[1] : nil }
            guard let west = lons.min(), let east = lons.max(), let south = lats.min(), let north = lats.max() else {
                return nil
            }
            return Extent(south: south, north: north, west: west, east: east)
        }

        /// The latitudes and longitudes a bounding box spans.
        struct Extent: Sendable {
            var south, north, west, east: Double

            /// Whether the point lies inside the box (its edges included).
            func contains(latitude: Double, longitude: Double) -> Bool {
                latitude >= south && latitude <= north && longitude >= west && longitude <= east
            }
        }
    }

    public init(twitterPlaces: [FixturePlace], facebookPages: [GraphPage]) {
        self.twitterPlaces = twitterPlaces
        self.facebookPages = facebookPages
    }

    /// Why a fixture file could not be loaded: which file, and what is wrong with it.
    public struct LoadError: Error, CustomStringConvertible {
        public var file: String
        /// `line:column` of the error: a JSON syntax error's, or the value that is wrong.
        public var position: String?
        /// True when the file is not there at all (rather than unreadable or malformed).
        public var isMissing = false
        public var reason: String

        public var description: String { file + (position.map { ":" + $0 } ?? "") + ": " + reason }
    }

    private struct PlacesFile: Decodable { var places: [FixturePlace] }

    /// Reads `twitter-places.json` and `facebook-pages.json` from `directory`.
    public static func load(from directory: URL) throws(LoadError) -> EmulatorFixtures {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw LoadError(
                file: directory.path, isMissing: true,
                reason: "not a directory (a fixtures directory holds twitter-places.json and facebook-pages.json)")
        }
        let placesFile = directory.appendingPathComponent("twitter-places.json")
        let pagesFile = directory.appendingPathComponent("facebook-pages.json")
        let (places, placesTree) = try read(PlacesFile.self, placesFile)
        let (pages, pagesTree) = try read(GraphList<GraphPage>.self, pagesFile)
        try PlacesCheck(file: placesFile.path, root: placesTree).check(places.places)
        try PlacesCheck(file: pagesFile.path, root: pagesTree).check(pages.data)
        return EmulatorFixtures(twitterPlaces: places.places, facebookPages: pages.data)
    }

    /// The places built into the tool: the project's `fixtures/places`, for every shipped route.
    public static func builtIn() throws(LoadError) -> EmulatorFixtures {
        let places = try decode(
            PlacesFile.self, Data(builtInTwitterPlacesJSON.utf8), file: "(built in) twitter-places.json")
        let pages = try decode(
            GraphList<GraphPage>.self, Data(builtInFacebookPagesJSON.utf8), file: "(built in) facebook-pages.json")
        return EmulatorFixtures(twitterPlaces: places.places, facebookPages: pages.data)
    }

    /// A fixture file read as every configuration file is (``ConfigFiles/ConfigNode``): missing,
    /// a directory or unreadable is `isMissing` (66); not UTF-8 or not strict JSON is an error
    /// at its line and column, with the reason; then its values are decoded.
    private static func read<T: Decodable>(_ type: T.Type, _ file: URL) throws(LoadError) -> (T, ConfigNode) {
        let (text, root): (String, ConfigNode)
        do {
            (text, root) = try ConfigNode.jsonText(contentsOf: file, displayName: file.path)
        } catch {
            let missing = error.kind == .unreadable && !FileManager.default.fileExists(atPath: file.path)
            throw LoadError(
                file: file.path, position: error.line > 0 ? "\(error.line):\(error.column)" : nil,
                isMissing: error.kind == .unreadable,
                reason: error.message + (missing ? " (is this a fixtures directory like fixtures/places?)" : ""))
        }
        return (try decode(type, Data(text.utf8), file: file.path, root: root), root)
    }

    /// `data` decoded; `root`, its tree when it was read strictly, locates what the decoder
    /// refuses (the built-in places have none: they are the project's own JSON, which its tests read).
    private static func decode<T: Decodable>(_ type: T.Type, _ data: Data, file: String, root: ConfigNode? = nil)
        throws(LoadError) -> T
    {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            let (node, reason) = root?.locate(error) ?? (nil, DecodingErrorText.explain(error))
            throw LoadError(file: file, position: node.map { "\($0.line):\($0.column)" }, reason: reason)
        } catch {
            throw LoadError(file: file, reason: "\(error)")
        }
    }

    /// The fixtures shipped in `fixtures/places` of a checkout at `root`.
    public static func shipped(root: URL) throws(LoadError) -> EmulatorFixtures {
        try load(from: root.appendingPathComponent("fixtures/places"))
    }
}

/// Twitter's places by id, and each one's bounding box extent in the fixtures' order: what every
/// geo request and post looks places up in.
struct PlaceIndex: Sendable {
    let byID: [String: EmulatorFixtures.FixturePlace]
    let extents: [EmulatorFixtures.FixturePlace.Extent?]

    init(_ places: [EmulatorFixtures.FixturePlace]) {
        byID = Dictionary(places.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        extents = places.map(\.extent)
    }
}

/// Encoded places — Twitter's by API root and id, Graph's pages by their place in the fixtures —
/// and the ``PlaceIndex``, made once (encoding them per request was most of the emulator's cost,
/// then per trial a twentieth of a trial's; indexing them per trial, a hundredth). Not part of the
/// fixtures' value.
final class PlaceCache: Equatable, @unchecked Sendable {
    private let lock = NSLock()
    private var encoded: [String: Data] = [:]
    private var index: PlaceIndex?

    /// The index of `places`, made the first time.
    func index(of places: [EmulatorFixtures.FixturePlace]) -> PlaceIndex {
        lock.withLock {
            if let index { return index }
            let made = PlaceIndex(places)
            index = made
            return made
        }
    }

    /// The encoding under `key`, made by `encode` the first time (kept for up to 100,000 keys).
    func encoding(_ key: String, _ encode: () -> Data) -> Data {
        if let cached = lock.withLock({ encoded[key] }) { return cached }
        let data = encode()
        lock.withLock { if encoded.count < 100_000 { encoded[key] = data } }
        return data
    }

    static func == (_: PlaceCache, _: PlaceCache) -> Bool { true }
}

/// What JSON's types do not say of a places file: every position on the Earth, ids unique,
/// parents that are places, Twitter's own place types — each a ``EmulatorFixtures/LoadError`` at
/// the value's line and column. Served as they were, a latitude of 137 reached the clients.
private struct PlacesCheck {
    let file: String
    /// The file's tree, whose nodes locate a value by its path.
    let root: ConfigNode

    /// Twitter's place types (Twitter API v1.1, "Geo objects": `place_type`).
    static let placeTypes: Set = ["poi", "neighborhood", "city", "admin", "country"]

    func check(_ places: [EmulatorFixtures.FixturePlace]) throws(EmulatorFixtures.LoadError) {
        var first: [String: Int] = [:]
        for (index, place) in places.enumerated() {
            let at = [Key("places"), Key(index)]
            if place.id.isEmpty { throw error(at + [Key("id")], "an id is not empty") }
            if let other = first[place.id] {
                throw error(at + [Key("id")], "id '\(place.id)' is also places[\(other)]'s")
            }
            first[place.id] = index
            if !Self.placeTypes.contains(place.placeType) {
                throw error(
                    at + [Key("place_type")],
                    "place_type '\(place.placeType)' is not one of Twitter's (\(Self.placeTypes.sorted().joined(separator: ", ")))"
                )
            }
            if let box = place.place.boundingBox {
                // Twitter's bounding_box is a GeoJSON Polygon of four corners (or five, closed).
                guard box.type == "Polygon" else {
                    throw error(
                        at + [Key("bounding_box"), Key("type")], "a bounding box is a Polygon, not '\(box.type)'")
                }
                guard !box.coordinates.isEmpty, box.coordinates.allSatisfy({ $0.count >= 4 }) else {
                    throw error(
                        at + [Key("bounding_box"), Key("coordinates")],
                        "a bounding box's ring has at least four corners")
                }
            }
            for (ring, points) in (place.place.boundingBox?.coordinates ?? []).enumerated() {
                for (k, point) in points.enumerated() {
                    let corner = at + [Key("bounding_box"), Key("coordinates"), Key(ring), Key(k)]
                    guard point.count >= 2 else { throw error(corner, "a position is [longitude, latitude]") }
                    try degrees(point[0], "longitude", limit: 180, at: corner + [Key(0)])
                    try degrees(point[1], "latitude", limit: 90, at: corner + [Key(1)])
                }
            }
        }
        for (index, place) in places.enumerated() {
            if let parent = place.parent, first[parent] == nil {
                throw error([Key("places"), Key(index), Key("parent")], "parent '\(parent)' is no place's id")
            }
        }
        // Parents lead to a country: a cycle made a country contained within its own state.
        for (index, place) in places.enumerated() {
            var chain = [place.id]
            var next = place.parent
            while let parent = next, let number = first[parent] {
                chain.append(parent)
                guard parent != place.id else {
                    throw error(
                        [Key("places"), Key(index), Key("parent")],
                        "parents go round in a circle: \(chain.joined(separator: " → "))")
                }
                // A circle further up is the first of its places' to report.
                if chain.count > places.count { break }
                next = places[number].parent
            }
        }
    }

    func check(_ pages: [GraphPage]) throws(EmulatorFixtures.LoadError) {
        var first: [String: Int] = [:]
        for (index, page) in pages.enumerated() {
            let at = [Key("data"), Key(index)]
            if page.id.isEmpty { throw error(at + [Key("id")], "an id is not empty") }
            if let other = first[page.id] { throw error(at + [Key("id")], "id '\(page.id)' is also data[\(other)]'s") }
            first[page.id] = index
            if let latitude = page.location?.latitude {
                try degrees(latitude, "latitude", limit: 90, at: at + [Key("location"), Key("latitude")])
            }
            if let longitude = page.location?.longitude {
                try degrees(longitude, "longitude", limit: 180, at: at + [Key("location"), Key("longitude")])
            }
        }
    }

    /// A latitude (`limit` 90) or a longitude (180) on the Earth.
    private func degrees(_ value: Double, _ what: String, limit: Double, at path: [Key])
        throws(EmulatorFixtures.LoadError)
    {
        guard (-limit...limit).contains(value) else {
            throw error(path, "\(what) \(value) is not in [-\(Int(limit)), \(Int(limit))]")
        }
    }

    private func error(_ path: [Key], _ reason: String) -> EmulatorFixtures.LoadError {
        let node = root.node(at: path)
        return EmulatorFixtures.LoadError(
            file: file, position: "\(node.line):\(node.column)",
            reason: "\(DecodingErrorText.path(path)): \(reason)")
    }

    /// A step of a path into the file, as ``ConfigFiles/ConfigNode/node(at:)`` follows it.
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(_ name: String) { (stringValue, intValue) = (name, nil) }
        init(_ index: Int) { (stringValue, intValue) = ("\(index)", index) }
        init?(stringValue: String) { self.init(stringValue) }
        init?(intValue: Int) { self.init(intValue) }
    }
}
