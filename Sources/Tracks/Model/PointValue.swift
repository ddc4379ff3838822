/// The per-point numeric values Waypost knows by meaning, whatever a file called them.
///
/// Readers keep a value under the name its file gave it (`hr` in a Garmin GPX, `heartrate` in
/// gpsbabel's KML) so that GeoJSON shows what the file said; writers look the name up here to
/// write the value where the target format's readers look for it:
/// - GPX: Garmin's TrackPointExtension v2 (`gpxtpx:`) for its fields — `atemp`, `wtemp`,
///   `depth`, `hr`, `cad`, `speed`, `course`, `bearing`, in its schema's order; every other value
///   (power, and names Waypost does not know) under ``waypostNamespace``.
/// - KML: `gx:SimpleArrayData` named as gpsbabel and Google Earth name them (`heartrate`,
///   `cadence`, `temperature`, `depth`, `power`), others by the file's own name.
enum PointValue: Int, CaseIterable, Comparable {
    // In TrackPointExtension v2's sequence order; power is not one of its fields.
    case temperature, waterTemperature, depth, heartRate, cadence, speed, course, bearing, power

    /// The namespace of values TrackPointExtension v2 has no field for: `<waypost:power>`, or
    /// `<waypost:value name="…">` for a name that is not an XML name.
    static let waypostNamespace = "urn:waypost:gpx:point-values:1"
    static let trackPointExtensionV2 = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"

    /// The name's meaning: Garmin's TrackPointExtension v1/v2 fields, gpsbabel's and Google's KML
    /// array names, Strava's and others' spellings (case-insensitive).
    static func named(_ name: String) -> PointValue? {
        switch name.lowercased() {
        case "atemp", "temp", "temperature": .temperature
        case "wtemp", "watertemperature": .waterTemperature
        case "depth": .depth
        case "hr", "heartrate", "heart_rate", "heartratebpm", "heart": .heartRate
        case "cad", "cadence", "runcadence": .cadence
        case "speed": .speed
        case "course": .course
        case "bearing": .bearing
        case "power", "watts", "powerinwatts": .power
        default: nil
        }
    }

    /// Why `value` cannot be a fix's course or speed, when `name` is the one a fix is timed by
    /// (``RouteTiming`` reads `course` and `speed`), whatever the file put it in: GPX 1.0, Garmin's
    /// TrackPointExtension, a KML `gx:SimpleArrayData`. A course is GPX's degreesType (0 ≤ value
    /// < 360: a course of 999 went into every fix made from it; a `gpxtpx:course` of 450 went
    /// into fixes as 0° and into NMEA as 90°); a speed is not negative (-3 m/s went into NMEA as 3).
    static func problem(named name: String, _ value: Double) -> String? {
        switch name {
        case "course" where !value.isNaN && !(0..<360).contains(value):
            "\(value) is out of range: a course is GPX's degreesType, 0 ≤ value < 360"
        case "speed" where value < 0:
            "\(value) is negative: a speed (metres a second) is 0 or more"
        default: nil
        }
    }

    /// The TrackPointExtension v2 element, nil for power.
    var trackPointExtensionField: String? {
        switch self {
        case .temperature: "atemp"
        case .waterTemperature: "wtemp"
        case .depth: "depth"
        case .heartRate: "hr"
        case .cadence: "cad"
        case .speed: "speed"
        case .course: "course"
        case .bearing: "bearing"
        case .power: nil
        }
    }

    /// The `gx:SimpleArrayData` name (gpsbabel's `kmt_*` names where it has one).
    var kmlName: String {
        switch self {
        case .temperature: "temperature"
        case .waterTemperature: "watertemperature"
        case .depth: "depth"
        case .heartRate: "heartrate"
        case .cadence: "cadence"
        case .speed: "speed"
        case .course: "course"
        case .bearing: "bearing"
        case .power: "power"
        }
    }

    /// The `gx:SimpleArrayField` type and display name declared in the KML Schema.
    var kmlField: (type: String, displayName: String) {
        switch self {
        case .temperature: ("float", "Temperature")
        case .waterTemperature: ("float", "Water Temperature")
        case .depth: ("float", "Depth")
        case .heartRate: ("int", "Heart Rate")
        case .cadence: ("int", "Cadence")
        case .speed: ("float", "Speed")
        case .course: ("float", "Course")
        case .bearing: ("float", "Bearing")
        case .power: ("float", "Power")
        }
    }

    static func < (a: PointValue, b: PointValue) -> Bool { a.rawValue < b.rawValue }

    /// Whether `name` can be an XML element's local name as it is (ASCII NCName).
    static func isXMLName(_ name: String) -> Bool {
        guard let first = name.utf8.first, isLetter(first) || first == UInt8(ascii: "_") else { return false }
        return name.utf8.allSatisfy {
            isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
                || $0 == UInt8(ascii: ".")
        } && !name.lowercased().hasPrefix("xml")
    }

    private static func isLetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
}

/// Where a path's attribute columns go in a GPX or KML file.
struct PointValueLayout {
    /// Columns written as TrackPointExtension v2 fields, in the schema's order.
    var trackPointExtension: [(field: String, name: String)] = []
    /// Columns written under the Waypost namespace.
    var waypost: [String] = []
    /// KML array name of each column, with its meaning when known.
    var kml: [(arrayName: String, name: String, meaning: PointValue?)] = []

    init(names: some Sequence<String>) {
        let names = names.sorted()
        var taken = Set<PointValue>()
        var known: [(PointValue, String)] = []
        var takenKML = Set<String>()
        for name in names {
            if let meaning = PointValue.named(name), !taken.contains(meaning) {
                taken.insert(meaning)
                known.append((meaning, name))
                takenKML.insert(meaning.kmlName)
            }
        }
        known.sort { $0.0 < $1.0 }
        let knownNames = Set(known.map(\.1))
        for (meaning, name) in known {
            if let field = meaning.trackPointExtensionField {
                trackPointExtension.append((field, name))
            } else {
                waypost.append(name)
            }
            kml.append((meaning.kmlName, name, meaning))
        }
        for name in names where !knownNames.contains(name) {
            waypost.append(name)
            // A second name for a meaning already written keeps its own name, unless that clashes.
            if !takenKML.contains(name) {
                takenKML.insert(name)
                kml.append((name, name, nil))
            }
        }
    }
}
