/// The formats ``TrackWriter`` writes.
public enum ExportFormat: String, Sendable, CaseIterable {
    case geojson, gpx, kml
}

/// Writes a ``Track`` as GeoJSON (togeojson-compatible), GPX 1.1 or KML 2.2, streaming into
/// any `TextOutputStream`.
///
/// ```swift
/// var out = ""
/// TrackWriter.write(track, as: .geojson, to: &out)
/// ```
///
/// Points, altitudes and times round-trip through every format. GeoJSON also carries names,
/// descriptions, ExtendedData properties and per-point attributes (as togeojson's
/// `coordinateProperties`); GPX and KML carry names, descriptions and times.
public enum TrackWriter {
    public static func write(_ track: Track, as format: ExportFormat, to out: inout some TextOutputStream) {
        switch format {
        case .geojson: GeoJSONWriter.write(track, to: &out)
        case .gpx: GPXWriter.write(track, to: &out)
        case .kml: KMLWriter.write(track, to: &out)
        }
    }
}

/// Number and text formatting shared by the writers.
enum Format {
    /// Shortest text that reads back as the same Double (`156.0` prints as `156`).
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(c.value, radix: 16).count)
                    + String(c.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// XML 1.0 escaping for every XML the project writes: GPX and KML here, JUnit reports and SVG
/// maps elsewhere.
public enum XMLEscaping {
    /// `text` escaped for XML 1.0 text and attributes; control characters XML cannot carry are
    /// dropped. With `attribute`, tab and line breaks become character references, which
    /// survive attribute-value normalisation (a parser would read them as spaces otherwise).
    public static func escape(_ text: String, attribute: Bool = false) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t", "\n", "\r":
                if attribute { out += "&#\(scalar.value);" } else { out.unicodeScalars.append(scalar) }
            case let c where c.value < 0x20 || c.value == 0xFFFE || c.value == 0xFFFF: continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
