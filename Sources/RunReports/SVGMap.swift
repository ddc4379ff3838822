import CheckinEngine
import Foundation
import Geo
import SimulatedTime
import Store
import WaypostSupport

/// A self-contained SVG map of a run: the route in Web Mercator, regions as true-scale circles,
/// event markers, post markers coloured by the location precision they carried, a legend, a
/// scale bar and a title with the run's name and time span. No network, no fonts, no scripts.
///
/// Every drawn item carries a `<title>` (hover text in any SVG viewer) and `data-t` (seconds
/// from the run's start) and `data-info` attributes, which ``HTMLMap`` uses for its time slider
/// and details panel.
///
/// ```swift
/// let svg = SVGMap.render(try RunSnapshot.load(from: store, run: run))
/// try svg.write(toFile: "run.svg", atomically: true, encoding: .utf8)
/// ```
public enum SVGMap {
    public static let width = 1_000.0
    public static let height = 760.0
    static let header = 64.0

    /// Who could see a post, as both maps say it.
    static func seenBy(_ audience: Audience) -> String {
        audience == .public ? "anyone" : audience.rawValue
    }

    /// Colours of the location precision a post carried; `nil` is a post that carried none.
    static func color(_ precision: Precision?) -> String {
        switch precision {
        case .exact?: "#d7263d"
        case .place?: "#f46036"
        case .city?: "#e2b714"
        case .none?, nil: "#8a94a6"
        }
    }

    static let routeColors = ["#1b6ca8", "#7b2cbf", "#2a9d8f", "#6a4c93"]

    public static func render(_ run: RunSnapshot) -> String {
        let start = run.span?.lowerBound ?? EpochInstant(secondsSince1970: 0)
        let framing = Framing(run)
        let projection = MapProjection(
            fitting: framing.points, circles: framing.circles, longitudes: framing.longitudes, left: 0, top: header,
            width: width, height: height - header)
        // Labels keep clear of every marker and of each other.
        var labels = LabelLayout()
        for event in run.events {
            guard let lat = event.latitude, let lon = event.longitude else { continue }
            let (x, y) = projection.point(Coordinate(latitude: lat, longitude: lon))
            labels.reserve(x: x, y: y, radius: 7)
        }
        for post in run.posts {
            guard case let (x, y)? = postMarker(post, projection) else { continue }
            labels.reserve(x: x, y: y, radius: 7)
        }
        // The route line too, as drawn (thinned), gaps included.
        for device in run.devices {
            var previous: (x: Double, y: Double)?
            for stretch in run.stretches(of: device) {
                for fix in thinned(stretch) {
                    let point = projection.point(Coordinate(latitude: fix.latitude, longitude: fix.longitude))
                    if let previous { labels.reserveLine(from: previous, to: point) }
                    previous = point
                }
            }
        }
        var svg = SVGWriter()
        svg.open(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"), ("width", "\(Int(width))"), ("height", "\(Int(height))"),
                ("viewBox", "0 0 \(Int(width)) \(Int(height))"), ("font-family", "Helvetica, Arial, sans-serif"),
                ("font-size", "12"), ("class", "waypost-run-map"),
            ])
        svg.element("title", text: "Waypost run '\(run.run.name)'")
        svg.element(
            "rect",
            [("x", "0"), ("y", "0"), ("width", "\(Int(width))"), ("height", "\(Int(height))"), ("fill", "#f7f7f2")])
        svg.element(
            "rect",
            [("x", "0"), ("y", "0"), ("width", "\(Int(width))"), ("height", "\(Int(header))"), ("fill", "#ffffff")])
        title(run, into: &svg)
        svg.open("defs")
        svg.open(
            "pattern",
            [
                ("id", "zone-hatch"), ("width", "8"), ("height", "8"), ("patternUnits", "userSpaceOnUse"),
                ("patternTransform", "rotate(45)"),
            ])
        svg.element(
            "line",
            [
                ("x1", "0"), ("y1", "0"), ("x2", "0"), ("y2", "8"), ("stroke", zoneColor), ("stroke-opacity", "0.35"),
                ("stroke-width", "3"),
            ])
        svg.close("pattern")
        svg.close("defs")
        svg.open("clipPath", [("id", "map-area")])
        svg.element(
            "rect", [("x", "0"), ("y", f(header)), ("width", "\(Int(width))"), ("height", f(height - header))])
        svg.close("clipPath")
        svg.open("g", [("id", "map"), ("clip-path", "url(#map-area)")])

        svg.open("g", [("id", "privacy-zones")])
        for zone in run.zones {
            let (x, y) = projection.point(Coordinate(latitude: zone.latitude, longitude: zone.longitude))
            let r = projection.pixels(metres: zone.radius, at: zone.latitude)
            let kept = run.posts(blockedBy: zone.name).count
            let info =
                "privacy zone \(zone.name): radius \(Int(zone.radius)) m — nothing locates the user here; "
                + "\(kept) post\(kept == 1 ? "" : "s") kept from locating the user"
            svg.open("g", [("class", "privacy-zone"), ("data-info", info), ("data-blocked", "\(kept)")])
            svg.element("title", text: info)
            svg.element(
                "circle",
                [
                    ("cx", f(x)), ("cy", f(y)), ("r", f(r)), ("fill", "url(#zone-hatch)"), ("stroke", zoneColor),
                    ("stroke-width", "1.5"), ("stroke-dasharray", "6 4"),
                ])
            let label = "\(zone.name) (privacy zone, \(kept) kept out)"
            let at = labels.place(label, aroundCircleAt: x, y, radius: r)
            svg.element(
                "text", [("x", f(at.x)), ("y", f(at.y)), ("text-anchor", at.anchor), ("fill", zoneColor)], text: label)
            svg.close("g")
        }
        svg.close("g")

        svg.open("g", [("id", "regions")])
        for region in run.regions {
            let center = Coordinate(latitude: region.latitude, longitude: region.longitude)
            let (x, y) = projection.point(center)
            let r = projection.pixels(metres: region.radius, at: region.latitude)
            let info = "region \(region.identifier): radius \(Int(region.radius)) m"
            svg.open("g", [("class", "region"), ("data-info", info)])
            svg.element("title", text: info)
            svg.element(
                "circle",
                [
                    ("cx", f(x)), ("cy", f(y)), ("r", f(r)), ("fill", regionColor), ("fill-opacity", "0.12"),
                    ("stroke", regionColor), ("stroke-width", "1.5"),
                ])
            let at = labels.place(region.identifier, aroundCircleAt: x, y, radius: r)
            svg.element(
                "text", [("x", f(at.x)), ("y", f(at.y)), ("text-anchor", at.anchor), ("fill", "#1d6f66")],
                text: region.identifier)
            svg.close("g")
        }
        svg.close("g")

        svg.open("g", [("id", "routes"), ("fill", "none"), ("stroke-linejoin", "round"), ("stroke-linecap", "round")])
        for (index, device) in run.devices.enumerated() {
            let color = routeColors[index % routeColors.count]
            let stretches = run.stretches(of: device)
            for (n, stretch) in stretches.enumerated() {
                // Chunks, so the HTML slider can reveal the route as time passes.
                for chunk in chunked(thinned(stretch), size: 40) {
                    guard let first = chunk.first else { continue }
                    let path = chunk.map { fix -> String in
                        let (x, y) = projection.point(Coordinate(latitude: fix.latitude, longitude: fix.longitude))
                        return "\(f(x)),\(f(y))"
                    }.joined(separator: " ")
                    svg.element(
                        "polyline",
                        [
                            ("class", "route"), ("points", path), ("stroke", color), ("stroke-width", "3"),
                            ("data-t", f(start.seconds(to: first.time))), ("data-device", device ?? ""),
                        ])
                }
                // A gap (signal loss): dashed between the stretches.
                if n + 1 < stretches.count, let a = stretch.last, let b = stretches[n + 1].first {
                    let (x1, y1) = projection.point(Coordinate(latitude: a.latitude, longitude: a.longitude))
                    let (x2, y2) = projection.point(Coordinate(latitude: b.latitude, longitude: b.longitude))
                    let info = "no fixes for \(Int(a.time.seconds(to: b.time))) s"
                    svg.open("g", [("class", "gap"), ("data-t", f(start.seconds(to: a.time))), ("data-info", info)])
                    svg.element("title", text: info)
                    svg.element(
                        "line",
                        [
                            ("x1", f(x1)), ("y1", f(y1)), ("x2", f(x2)), ("y2", f(y2)), ("stroke", color),
                            ("stroke-width", "2"), ("stroke-dasharray", "4 5"), ("stroke-opacity", "0.6"),
                        ])
                    svg.close("g")
                }
            }
            if let first = stretches.first?.first {
                let (x, y) = projection.point(Coordinate(latitude: first.latitude, longitude: first.longitude))
                svg.element(
                    "circle",
                    [
                        ("cx", f(x)), ("cy", f(y)), ("r", "5"), ("fill", "#ffffff"), ("stroke", color),
                        ("stroke-width", "2.5"),
                        ("class", "route-start"),
                    ])
            }
        }
        svg.close("g")

        svg.open("g", [("id", "events")])
        for event in run.events {
            guard let lat = event.latitude, let lon = event.longitude else { continue }
            let (x, y) = projection.point(Coordinate(latitude: lat, longitude: lon))
            let info =
                "\(time(event.time)) \(event.type)" + (event.region.map { " \($0)" } ?? "")
                + (event.device.map { " on \($0)" } ?? "") + (event.detail.map { " (\($0))" } ?? "")
            svg.open(
                "g",
                [("class", "event \(event.type)"), ("data-t", f(start.seconds(to: event.time))), ("data-info", info)])
            svg.element("title", text: info)
            switch event.type {
            case "regionEnter":
                svg.element("path", [("d", triangle(x, y, up: true)), ("fill", "#2b9348"), ("stroke", "#ffffff")])
            case "regionExit":
                svg.element("path", [("d", triangle(x, y, up: false)), ("fill", "#6c757d"), ("stroke", "#ffffff")])
            default:
                svg.element("circle", [("cx", f(x)), ("cy", f(y)), ("r", "4"), ("fill", "#343a40")])
            }
            svg.close("g")
        }
        svg.close("g")

        svg.open("g", [("id", "posts")])
        for post in run.posts {
            guard case let (x, y)? = postMarker(post, projection) else { continue }
            let carried = post.carriesLocation ? post.precision : nil
            let sent = post.decision == .posted || post.decision == .queued
            let info =
                "\(time(post.time)) \(post.network.rawValue) \(post.decision.rawValue)"
                + (post.placeName.map { " at \($0)" } ?? "")
                + (post.carriesLocation ? " — carried location (\(post.precision.rawValue))" : " — no location sent")
                + (post.audience.map { " — seen by \(seenBy($0))" } ?? "")
                + (post.gates.first(where: { !$0.passed }).map { " — blocked by \($0.gate.rawValue): \($0.reason)" }
                    ?? "")
            svg.open(
                "g",
                [
                    ("class", "post \(post.network.rawValue) \(post.decision.rawValue)"),
                    ("data-t", f(start.seconds(to: post.time))), ("data-info", info),
                    ("data-precision", carried?.rawValue ?? "none"),
                ])
            svg.element("title", text: info)
            let shape = post.network == .twitter ? square(x, y) : diamond(x, y)
            svg.element(
                "path",
                [
                    ("d", shape), ("fill", sent ? color(carried) : "#ffffff"), ("stroke", color(carried)),
                    ("stroke-width", sent ? "1" : "2.5"),
                ])
            svg.close("g")
        }
        svg.close("g")
        svg.close("g")

        legend(into: &svg)
        scaleBar(
            projection, latitude: framing.points.map(\.latitude).reduce(0, +) / Double(max(framing.points.count, 1)),
            into: &svg)
        svg.close("svg")
        return svg.text
    }

    // MARK: - Furniture

    private static func title(_ run: RunSnapshot, into svg: inout SVGWriter) {
        svg.element(
            "text", [("x", "20"), ("y", "28"), ("font-size", "19"), ("font-weight", "bold"), ("fill", "#1a1a2e")],
            text: "Waypost run '\(run.run.name)'")
        svg.element(
            "text", [("x", "20"), ("y", "50"), ("font-size", "13"), ("fill", "#4a4e69")], text: subtitle(run))
    }

    /// The run's span and counts, under the title of both maps.
    static func subtitle(_ run: RunSnapshot) -> String {
        let span = run.span.map { "\(time($0.lowerBound)) – \(time($0.upperBound)) UTC" } ?? "no fixes recorded"
        let posted = run.posts.filter { $0.decision == .posted }.count
        let located = run.posts.filter(\.carriesLocation).count
        return span
            + " · \(run.fixes.count) fixes · \(run.events.filter { $0.type == "regionEnter" }.count) region entries"
            + " · \(run.posts.count) posts (\(posted) posted, \(located) carried location)"
    }

    private static func legend(into svg: inout SVGWriter) {
        let rows: [(String, (inout SVGWriter, Double, Double) -> Void)] = [
            (
                "route (dashed: no signal)",
                { s, x, y in
                    s.element(
                        "line",
                        [
                            ("x1", f(x - 7)), ("y1", f(y)), ("x2", f(x + 7)), ("y2", f(y)), ("stroke", routeColors[0]),
                            ("stroke-width", "3"),
                        ])
                }
            ),
            (
                "region (true scale)",
                { s, x, y in
                    s.element(
                        "circle",
                        [
                            ("cx", f(x)), ("cy", f(y)), ("r", "6"), ("fill", "#2a9d8f"), ("fill-opacity", "0.12"),
                            ("stroke", "#2a9d8f"),
                        ])
                }
            ),
            (
                "privacy zone (nothing locates the user)",
                { s, x, y in
                    s.element(
                        "circle",
                        [
                            ("cx", f(x)), ("cy", f(y)), ("r", "6"), ("fill", "url(#zone-hatch)"), ("stroke", zoneColor),
                            ("stroke-dasharray", "3 2"),
                        ])
                }
            ),
            (
                "region entered / exited",
                { s, x, y in
                    s.element("path", [("d", triangle(x - 5, y, up: true)), ("fill", "#2b9348")])
                    s.element("path", [("d", triangle(x + 6, y, up: false)), ("fill", "#6c757d")])
                }
            ),
            (
                "post ■ Twitter ◆ Facebook; hollow: not sent",
                { s, x, y in
                    s.element("path", [("d", square(x - 5, y)), ("fill", color(.place))])
                    s.element(
                        "path",
                        [("d", diamond(x + 7, y)), ("fill", "#ffffff"), ("stroke", color(nil)), ("stroke-width", "2")])
                }
            ),
        ]
        let precisions: [(String, Precision?)] = [
            ("exact coordinates", .exact), ("place only", .place), ("city", .city), ("no location", nil),
        ]
        let x = 16.0
        let boxHeight = Double(rows.count + precisions.count + 1) * 18 + 14
        let top = height - boxHeight - 12
        svg.open("g", [("id", "legend")])
        svg.element(
            "rect",
            [
                ("x", f(x)), ("y", f(top)), ("width", "300"), ("height", f(boxHeight)), ("rx", "6"),
                ("fill", "#ffffff"),
                ("fill-opacity", "0.92"), ("stroke", "#c9c9c9"),
            ])
        var y = top + 20
        for (label, draw) in rows {
            draw(&svg, x + 22, y - 4)
            svg.element("text", [("x", f(x + 42)), ("y", f(y))], text: label)
            y += 18
        }
        svg.element(
            "text", [("x", f(x + 12)), ("y", f(y)), ("font-weight", "bold")], text: "location carried by a post")
        y += 18
        for (label, precision) in precisions {
            svg.element("path", [("d", square(x + 22, y - 4)), ("fill", color(precision))])
            svg.element("text", [("x", f(x + 42)), ("y", f(y))], text: label)
            y += 18
        }
        svg.close("g")
    }

    private static func scaleBar(_ projection: MapProjection, latitude: Double, into svg: inout SVGWriter) {
        let (metres, pixels) = projection.scaleBar(at: latitude)
        let right = width - 24
        let y = height - 24
        let label = metres >= 1_000 ? "\(f(metres / 1_000)) km" : "\(Int(metres)) m"
        svg.open("g", [("id", "scale-bar")])
        svg.element(
            "rect",
            [
                ("x", f(right - pixels - 12)), ("y", f(y - 26)), ("width", f(pixels + 24)), ("height", "36"),
                ("rx", "4"), ("fill", "#ffffff"), ("fill-opacity", "0.9"),
            ])
        svg.element(
            "path",
            [
                ("d", "M\(f(right - pixels)),\(f(y - 6)) V\(f(y)) H\(f(right)) V\(f(y - 6))"), ("fill", "none"),
                ("stroke", "#1a1a2e"), ("stroke-width", "2"),
            ])
        svg.element("text", [("x", f(right - pixels / 2)), ("y", f(y - 10)), ("text-anchor", "middle")], text: label)
        svg.close("g")
    }

    // MARK: - Helpers

    static let zoneColor = "#b5179e"
    static let regionColor = "#2a9d8f"

    /// Where a post's marker sits: Twitter and Facebook posts from one event side by side, above
    /// the place, not on top of each other or of the event. Nil for a post with no position (an
    /// outbox entry that could not be read): it is not drawn.
    static func postMarker(_ post: AuditRecord, _ projection: MapProjection) -> (Double, Double)? {
        guard let coordinate = post.coordinate else { return nil }
        let (x, y) = projection.point(coordinate)
        return (x + (post.network == .twitter ? -7 : 7), y - 14)
    }

    /// What a map of a run frames — the SVG map's projection and the HTML map's opening view
    /// alike — and the longitudes it draws at.
    struct Framing {
        /// Every position drawn: fixes, events and posts.
        var points: [Coordinate]
        /// The circles (regions, privacy zones) the frame must show: all of them when nothing
        /// moved, otherwise those near the route (within a kilometre of its bounding box) — a
        /// far-away region would shrink the route to a dot; it is clipped instead.
        var circles: [(Coordinate, Double)]
        /// Where the points and circles are drawn side by side, across the antimeridian too.
        var longitudes: LongitudeSpan

        init(_ run: RunSnapshot) {
            points = run.fixes.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude) }
            points += run.events.compactMap { e in
                e.latitude.flatMap { lat in e.longitude.map { Coordinate(latitude: lat, longitude: $0) } }
            }
            points += run.posts.compactMap(\.coordinate)
            let places =
                run.regions.map { (Coordinate(latitude: $0.latitude, longitude: $0.longitude), $0.radius) }
                + run.zones.map { (Coordinate(latitude: $0.latitude, longitude: $0.longitude), $0.radius) }
            circles = Self.near(places, points)
            longitudes = LongitudeSpan(points.map(\.longitude) + circles.map(\.0.longitude))
        }

        private static func near(_ circles: [(Coordinate, Double)], _ points: [Coordinate]) -> [(Coordinate, Double)] {
            let longitudes = LongitudeSpan(points.map(\.longitude))
            let drawn = points.map { longitudes.unwrapped($0.longitude) }
            guard let south = points.map(\.latitude).min(), let north = points.map(\.latitude).max(),
                let west = drawn.min(), let east = drawn.max()
            else { return circles }
            return circles.filter { center, radius in
                let margin = (radius + 1_000) / 111_320
                let lonMargin = margin / max(cos(center.latitude * .pi / 180), 1e-6)
                let longitude = longitudes.unwrapped(center.longitude)
                return center.latitude >= south - margin && center.latitude <= north + margin
                    && longitude >= west - lonMargin && longitude <= east + lonMargin
            }
        }
    }

    static func time(_ t: EpochInstant) -> String {
        let text = XSDDateTime.format(t.secondsSince1970, fractionDigits: 0)  // 2025-06-01T08:00:00Z
        return text.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "")
    }

    /// Keeps at most `limit` fixes of a stretch (evenly, always the last), so a day-long
    /// 1 Hz route stays a light file.
    static func thinned(_ fixes: [LocationRecord], limit: Int = 2_000) -> [LocationRecord] {
        guard fixes.count > limit else { return fixes }
        let step = Double(fixes.count - 1) / Double(limit - 1)
        return (0..<limit).map { fixes[Int((Double($0) * step).rounded())] }
    }

    /// Consecutive chunks sharing their boundary point, so the line has no breaks.
    static func chunked<T>(_ items: [T], size: Int) -> [[T]] {
        guard items.count > size else { return [items] }
        var out: [[T]] = []
        var index = 0
        while index < items.count - 1 {
            out.append(Array(items[index...min(index + size, items.count - 1)]))
            index += size
        }
        return out
    }

    static func f(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
    }

    static func triangle(_ x: Double, _ y: Double, up: Bool) -> String {
        let s = 7.0
        return up
            ? "M\(f(x)),\(f(y - s)) L\(f(x + s)),\(f(y + s * 0.8)) L\(f(x - s)),\(f(y + s * 0.8)) Z"
            : "M\(f(x)),\(f(y + s)) L\(f(x + s)),\(f(y - s * 0.8)) L\(f(x - s)),\(f(y - s * 0.8)) Z"
    }

    static func square(_ x: Double, _ y: Double) -> String {
        "M\(f(x - 5.5)),\(f(y - 5.5)) h11 v11 h-11 Z"
    }

    static func diamond(_ x: Double, _ y: Double) -> String {
        "M\(f(x)),\(f(y - 7)) L\(f(x + 7)),\(f(y)) L\(f(x)),\(f(y + 7)) L\(f(x - 7)),\(f(y)) Z"
    }
}

/// Builds SVG text with every attribute and text node escaped.
struct SVGWriter {
    /// `text` for an SVG or HTML text node or attribute: control and bidi characters written
    /// visibly (``DisplayEscaping``) — XML 1.0 cannot carry most C0 controls, and the map is also
    /// read as text (`cat`, a diff, a terminal) — then XML-escaped.
    static func escape(_ text: String, attribute: Bool = false) -> String {
        XMLEscaping.escape(DisplayEscaping.escape(text), attribute: attribute)
    }

    private(set) var text = ""
    private var depth = 0

    mutating func open(_ name: String, _ attributes: [(String, String)] = []) {
        text += indent + "<\(name)\(Self.attributes(attributes))>\n"
        depth += 1
    }

    mutating func close(_ name: String) {
        depth -= 1
        text += indent + "</\(name)>\n"
    }

    mutating func element(_ name: String, _ attributes: [(String, String)] = [], text content: String? = nil) {
        if let content {
            text += indent + "<\(name)\(Self.attributes(attributes))>\(Self.escape(content))</\(name)>\n"
        } else {
            text += indent + "<\(name)\(Self.attributes(attributes))/>\n"
        }
    }

    private var indent: String { String(repeating: "  ", count: depth) }

    private static func attributes(_ list: [(String, String)]) -> String {
        list.map { " \($0.0)=\"\(escape($0.1, attribute: true))\"" }.joined()
    }
}
