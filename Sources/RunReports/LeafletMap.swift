import CheckinEngine
import Foundation
import Geo
import SimulatedTime
import Store
import WaypostSupport

/// A run as an interactive map on Leaflet, in one self-contained HTML file that works offline:
/// Leaflet and Leaflet.markercluster are inlined (``LeafletAssets``), the run is JSON in the page.
///
/// Layers: the route per device (dashed where the signal was lost), regions and privacy zones
/// as true-scale circles, region events, and posts by network and by the location precision they
/// carried, each switchable in the layer control; markers cluster where they overlap and
/// separate as one zooms in. Popups show each item's details. A time slider replays the run, and
/// `#t=SECONDS` in the address opens it at that instant. No tiles unless ``TileLayer`` is given.
///
/// Every name in the data came from a file or a server: it is shown through
/// ``DisplayEscaping`` (no control characters reach the page), the JSON is written so that it
/// cannot end its `<script>` element, and the page puts text on screen only with `textContent`.
public enum LeafletMap {
    public static func render(_ run: RunSnapshot, assets: LeafletAssets, tiles: TileLayer? = nil) -> String {
        let title = SVGWriter.escape("Waypost run '\(run.run.name)'")
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title)</title>
            <style>
            \(assets.leafletCSS)
            </style>
            <style>
            \(assets.clusterCSS)
            </style>
            <style>
            \(style)\(TrialsPanel.style(run.trials))
            </style>
            </head>
            <body>
            <header>
              <h1 id="title"></h1>
              <p id="subtitle"></p>
              <div class="controls">
                <label for="time">Time</label>
                <input id="time" type="range" min="0" max="0" value="0" step="1">
                <output id="clock">end</output>
              </div>
            \(TrialsPanel.html(run.trials))</header>
            <div id="map"></div>
            <script type="application/json" id="run-data">\(data(run, tiles: tiles))</script>
            <script>
            \(scriptSafe(assets.leafletJS))
            </script>
            <script>
            \(scriptSafe(assets.clusterJS))
            </script>
            <script>
            \(script)
            </script>
            </body>
            </html>

            """
    }

    // MARK: - The run as data

    private struct Item: Encodable {
        var t: Double?
        var kind: String
        var name: String
        var lat: Double
        var lon: Double
        var radius: Double?
        var title: String
        var details: [[String]]
        var network: String?
        var precision: String?
        var sent: Bool?
    }

    private struct Route: Encodable {
        var device: String
        var color: String
        /// [latitude, longitude, seconds from the start] per fix.
        var stretches: [[[Double]]]
        var gaps: [Gap]
    }

    private struct Gap: Encodable {
        var t: Double
        var from: [Double]
        var to: [Double]
        var title: String
    }

    private struct Tiles: Encodable {
        var url: String
        /// HTML-escaped: Leaflet puts attributions in as markup.
        var attribution: String
    }

    private struct Document: Encodable {
        var title: String
        var subtitle: String
        var duration: Double
        var frame: [[Double]]?
        var routes: [Route]
        var zones: [Item]
        var regions: [Item]
        var markers: [Item]
        var tiles: Tiles?
        var colors: [String: String]
    }

    static func data(_ run: RunSnapshot, tiles: TileLayer?) -> String {
        func shown(_ text: String) -> String { DisplayEscaping.escape(text) }
        func round6(_ v: Double) -> Double { (v * 1e6).rounded() / 1e6 }
        func round1(_ v: Double) -> Double { (v * 10).rounded() / 10 }
        let start = run.span?.lowerBound ?? EpochInstant(secondsSince1970: 0)
        let framing = SVGMap.Framing(run)
        // Where each item is drawn: east of 180° where the run crosses it. Details show positions as they are.
        let drawn = framing.longitudes.unwrapped
        let routes = run.devices.enumerated().map { index, device in
            let stretches = run.stretches(of: device)
            let gaps = zip(stretches, stretches.dropFirst()).compactMap { a, b -> Gap? in
                guard let from = a.last, let to = b.first else { return nil }
                return Gap(
                    t: round1(start.seconds(to: from.time)),
                    from: [round6(from.latitude), round6(drawn(from.longitude))],
                    to: [round6(to.latitude), round6(drawn(to.longitude))],
                    title: "no fixes for \(Int(from.time.seconds(to: to.time))) s"
                        + (device.map { " on \(shown($0))" } ?? ""))
            }
            return Route(
                device: shown(device ?? ""), color: SVGMap.routeColors[index % SVGMap.routeColors.count],
                stretches: stretches.map { stretch in
                    SVGMap.thinned(stretch).map {
                        [round6($0.latitude), round6(drawn($0.longitude)), round1(start.seconds(to: $0.time))]
                    }
                }, gaps: gaps)
        }
        let zones = run.zones.map { zone in
            let kept = run.posts(blockedBy: zone.name).count
            return Item(
                kind: "zone", name: shown(zone.name), lat: zone.latitude, lon: drawn(zone.longitude),
                radius: zone.radius,
                title: "privacy zone \(shown(zone.name))",
                details: [
                    ["radius", "\(Int(zone.radius)) m"], ["meaning", "nothing sent from here locates the user"],
                    ["posts kept from locating the user", "\(kept)"],
                ])
        }
        let regions = run.regions.map { region in
            Item(
                kind: "region", name: shown(region.identifier), lat: region.latitude, lon: drawn(region.longitude),
                radius: region.radius, title: "region \(shown(region.identifier))",
                details: [
                    ["radius", "\(Int(region.radius)) m"],
                    ["centre", "\(round6(region.latitude)), \(round6(region.longitude))"],
                ])
        }
        var markers: [Item] = run.events.compactMap { event in
            guard let lat = event.latitude, let lon = event.longitude else { return nil }
            var details = [["time", SVGMap.time(event.time) + " UTC"], ["event", event.type]]
            if let region = event.region { details.append(["region", shown(region)]) }
            if let device = event.device { details.append(["device", shown(device)]) }
            if let detail = event.detail { details.append(["detail", shown(detail)]) }
            details.append(["position", "\(round6(lat)), \(round6(lon))"])
            return Item(
                t: round1(start.seconds(to: event.time)), kind: "event", name: event.type, lat: lat, lon: drawn(lon),
                title: event.type + (event.region.map { " \(shown($0))" } ?? ""), details: details)
        }
        // A post with no position (an outbox entry that could not be read) has no marker.
        markers += run.posts.compactMap { post -> Item? in
            guard let lat = post.latitude, let lon = post.longitude else { return nil }
            let carried = post.carriesLocation ? post.precision.rawValue : "none"
            var details = [
                ["time", SVGMap.time(post.time) + " UTC"], ["network", post.network.rawValue],
                ["decision", post.decision.rawValue],
            ]
            if let place = post.placeName { details.append(["place", shown(place)]) }
            if let id = post.placeID { details.append(["place id", shown(id)]) }
            details.append(["location carried", post.carriesLocation ? post.precision.rawValue : "none"])
            // docs/checkins-and-privacy.md: "Report map popups say 'seen by …'" — the SVG's did.
            if let audience = post.audience { details.append(["seen by", SVGMap.seenBy(audience)]) }
            if let gate = post.gates.first(where: { !$0.passed }) {
                details.append(["blocked by", "\(gate.gate.rawValue): \(shown(gate.reason))"])
            }
            if let rule = post.rule { details.append(["rule", shown(rule)]) }
            if let region = post.region { details.append(["region", shown(region)]) }
            if let device = post.device { details.append(["device", shown(device)]) }
            if let message = post.message { details.append(["message", shown(message)]) }
            if !post.wireFields.isEmpty {
                let fields = post.wireFields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                details.append(["sent fields", shown(fields.joined(separator: ", "))])
            }
            return Item(
                t: round1(start.seconds(to: post.time)), kind: "post", name: post.network.rawValue, lat: lat,
                lon: drawn(lon),
                title: "\(post.network.rawValue) \(post.decision.rawValue)"
                    + (post.placeName.map { " at \(shown($0))" } ?? ""),
                details: details, network: post.network.rawValue, precision: carried,
                sent: post.decision == .posted || post.decision == .queued)
        }
        let document = Document(
            title: "Waypost run '\(shown(run.run.name))'", subtitle: shown(SVGMap.subtitle(run)),
            duration: (run.span.map { $0.lowerBound.seconds(to: $0.upperBound) } ?? 0).rounded(.up),
            frame: frame(framing), routes: routes, zones: zones, regions: regions, markers: markers,
            tiles: tiles.map {
                Tiles(url: $0.urlTemplate, attribution: XMLEscaping.escape(DisplayEscaping.escape($0.attribution)))
            },
            colors: [
                "exact": SVGMap.color(.exact), "place": SVGMap.color(.place), "city": SVGMap.color(.city),
                "none": SVGMap.color(nil), "zone": SVGMap.zoneColor, "region": SVGMap.regionColor,
            ])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(document)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return scriptSafeJSON(json)
    }

    /// South-west and north-east corners of what the map opens on: the route, the events and
    /// posts, and the circles near them (as the SVG map frames it); nil for an empty run. East of
    /// 180° where the run crosses it, as Leaflet draws it there.
    static func frame(_ framing: SVGMap.Framing) -> [[Double]]? {
        let points = framing.points
        let longitudes = framing.longitudes
        var south = points.map(\.latitude).min()
        var north = points.map(\.latitude).max()
        let drawn = points.map { longitudes.unwrapped($0.longitude) }
        var west = drawn.min()
        var east = drawn.max()
        for (center, radius) in framing.circles {
            let dLat = radius / 111_320
            let dLon = dLat / max(cos(center.latitude * .pi / 180), 1e-6)
            let longitude = longitudes.unwrapped(center.longitude)
            south = min(south ?? .infinity, center.latitude - dLat)
            north = max(north ?? -.infinity, center.latitude + dLat)
            west = min(west ?? .infinity, longitude - dLon)
            east = max(east ?? -.infinity, longitude + dLon)
        }
        guard let south, let north, let west, let east else { return nil }
        return [[south, west], [north, east]]
    }

    /// JSON that cannot close its `<script>` element or open a comment there: `<`, `>` and `&`
    /// occur only inside JSON strings, where `\u003c` and friends mean the same characters.
    static func scriptSafeJSON(_ json: String) -> String {
        json.replacingOccurrences(of: "<", with: "\\u003c").replacingOccurrences(of: ">", with: "\\u003e")
            .replacingOccurrences(of: "&", with: "\\u0026").replacingOccurrences(of: "\u{2028}", with: "\\u2028")
            .replacingOccurrences(of: "\u{2029}", with: "\\u2029")
    }

    /// A library's source inside `<script>`: `</script` would end the element early; `<\/` is the
    /// same text to JavaScript wherever it can occur (strings, regular expressions, comments).
    static func scriptSafe(_ source: String) -> String {
        source.replacingOccurrences(of: "</script", with: "<\\/script", options: .caseInsensitive)
    }

    // MARK: - The page

    static let style = """
        html, body { height: 100%; margin: 0; }
        body { display: flex; flex-direction: column; font: 14px Helvetica, Arial, sans-serif; color: #1a1a2e; }
        header { padding: 8px 12px 4px; background: #fff; box-shadow: 0 1px 4px rgba(0,0,0,.15); z-index: 1000; }
        h1 { font-size: 18px; margin: 0; overflow-wrap: anywhere; }
        #subtitle { margin: 2px 0 4px; color: #4a4e69; font-size: 13px; overflow-wrap: anywhere; }
        .controls { display: flex; gap: 12px; align-items: center; }
        .controls input { flex: 1; min-width: 0; }
        #map { flex: 1; min-height: 240px; background: #f7f7f2; }
        .waypost-marker { background: none; border: none; }
        .waypost-marker svg { display: block; overflow: visible; }
        .waypost-legend { background: rgba(255,255,255,.92); padding: 6px 10px; border-radius: 6px;
          box-shadow: 0 1px 4px rgba(0,0,0,.25); line-height: 20px; font-size: 12px; }
        .waypost-legend svg { vertical-align: middle; margin-right: 6px; }
        .waypost-legend b { display: block; margin-top: 4px; }
        .waypost-popup table { border-collapse: collapse; margin-top: 4px; }
        .waypost-popup th { text-align: left; padding: 1px 8px 1px 0; color: #4a4e69; font-weight: normal;
          vertical-align: top; white-space: nowrap; }
        .waypost-popup td { padding: 1px 0; overflow-wrap: anywhere; }
        """

    static let script = """
        (function () {
          'use strict';
          var data = JSON.parse(document.getElementById('run-data').textContent);
          var colors = data.colors;
          var slider = document.getElementById('time');
          var clock = document.getElementById('clock');
          document.getElementById('title').textContent = data.title;
          document.getElementById('subtitle').textContent = data.subtitle;
          slider.max = String(data.duration);
          slider.value = String(data.duration);

          // Every text from the run reaches the page through textContent only.
          function node(tag, className, text) {
            var e = document.createElement(tag);
            if (className) { e.className = className; }
            if (text !== undefined) { e.textContent = text; }
            return e;
          }
          function popup(item) {
            return function () {
              var box = node('div', 'waypost-popup');
              box.appendChild(node('strong', null, item.title));
              var table = node('table');
              item.details.forEach(function (row) {
                var tr = node('tr');
                tr.appendChild(node('th', null, row[0]));
                tr.appendChild(node('td', null, row[1]));
                table.appendChild(tr);
              });
              box.appendChild(table);
              return box;
            };
          }

          var map = L.map('map', { maxZoom: 22, zoomSnap: 0.5 });
          if (data.tiles) {
            L.tileLayer(data.tiles.url, { attribution: data.tiles.attribution, maxNativeZoom: 19, maxZoom: 22 }).addTo(map);
          }
          L.control.scale({ imperial: false }).addTo(map);

          var zoneLayer = L.layerGroup().addTo(map);
          var zones = {};
          data.zones.forEach(function (z) {
            var circle = L.circle([z.lat, z.lon], {
              radius: z.radius, color: colors.zone, weight: 1.5, dashArray: '6 4', fillColor: colors.zone,
              fillOpacity: 0.08, className: 'privacy-zone'
            }).bindPopup(popup(z)).bindTooltip(function () { return node('span', null, z.title); }, { sticky: true });
            zones[z.name] = circle;
            zoneLayer.addLayer(circle);
          });
          var regionLayer = L.layerGroup().addTo(map);
          data.regions.forEach(function (r) {
            regionLayer.addLayer(L.circle([r.lat, r.lon], {
              radius: r.radius, color: colors.region, weight: 1.5, fillOpacity: 0.12, className: 'region'
            }).bindPopup(popup(r)).bindTooltip(function () { return node('span', null, r.title); }, { sticky: true }));
          });

          var routeLayer = L.layerGroup().addTo(map);
          var lines = [], gaps = [];
          data.routes.forEach(function (route) {
            route.stretches.forEach(function (points) {
              var line = L.polyline([], { color: route.color, weight: 3, className: 'route' });
              lines.push({ line: line, points: points });
              routeLayer.addLayer(line);
            });
            route.gaps.forEach(function (g) {
              var gap = L.polyline([g.from, g.to], { color: route.color, weight: 2, dashArray: '4 5', opacity: 0.6, className: 'gap' })
                .bindPopup(popup({ title: g.title, details: [] }));
              gaps.push({ line: gap, t: g.t });
            });
            var first = route.stretches[0] && route.stretches[0][0];
            if (first) {
              routeLayer.addLayer(L.circleMarker([first[0], first[1]], {
                radius: 5, color: route.color, weight: 2.5, fillColor: '#fff', fillOpacity: 1, className: 'route-start'
              }));
            }
          });

          // Markers: an event sits on its point; a post's icon sits above it, Twitter's to the
          // left and Facebook's to the right, so the three of one check-in never cover each other.
          function shape(item) {
            var fill, stroke, width = 1, d;
            if (item.kind === 'event') {
              if (item.name === 'regionEnter') { d = 'M8,1 L15,13.6 L1,13.6 Z'; fill = '#2b9348'; }
              else if (item.name === 'regionExit') { d = 'M8,15 L15,2.4 L1,2.4 Z'; fill = '#6c757d'; }
              else { d = 'M4,8 a4,4 0 1,0 8,0 a4,4 0 1,0 -8,0'; fill = '#343a40'; }
              stroke = '#fff';
            } else {
              d = item.network === 'twitter' ? 'M2.5,2.5 h11 v11 h-11 Z' : 'M8,1 L15,8 L8,15 L1,8 Z';
              stroke = colors[item.precision];
              fill = item.sent ? stroke : '#fff';
              width = item.sent ? 1 : 2.5;
            }
            return '<svg width="16" height="16" viewBox="0 0 16 16"><path d="' + d + '" fill="' + fill +
              '" stroke="' + stroke + '" stroke-width="' + width + '"/></svg>';
          }
          var markers = data.markers.map(function (item) {
            var anchor = item.kind === 'event' ? [8, 8] : (item.network === 'twitter' ? [18, 27] : [-2, 27]);
            var icon = L.divIcon({
              html: shape(item), className: 'waypost-marker ' + item.kind + ' ' + item.name, iconSize: [16, 16],
              iconAnchor: anchor, popupAnchor: [8 - anchor[0], -anchor[1]]
            });
            var marker = L.marker([item.lat, item.lon], { icon: icon, title: item.title, keyboard: true });
            marker.bindPopup(popup(item));
            return { marker: marker, item: item };
          });
          // Markers jump to their places (no animation): what a screenshot or a printout shows is
          // where they are. From zoom 18 (about 0.6 m a pixel) nothing clusters: markers of
          // different places are apart by then, and a check-in's event and posts are offset.
          var cluster = L.markerClusterGroup({
            maxClusterRadius: 36, showCoverageOnHover: false, spiderfyOnMaxZoom: true, disableClusteringAtZoom: 18,
            animate: false
          }).addTo(map);

          // Switches in the layer control: the events, and posts by network and by precision.
          var toggles = {
            events: L.layerGroup().addTo(map), twitter: L.layerGroup().addTo(map), facebook: L.layerGroup().addTo(map),
            exact: L.layerGroup().addTo(map), place: L.layerGroup().addTo(map), city: L.layerGroup().addTo(map),
            none: L.layerGroup().addTo(map)
          };
          function swatch(svg) { return '<svg width="16" height="16" viewBox="0 0 16 16">' + svg + '</svg>'; }
          var overlays = {};
          overlays['Route (dashed: no signal)'] = routeLayer;
          overlays['Regions'] = regionLayer;
          overlays['Privacy zones'] = zoneLayer;
          overlays['Region events'] = toggles.events;
          overlays['Twitter posts'] = toggles.twitter;
          overlays['Facebook posts'] = toggles.facebook;
          overlays['Posts with exact coordinates'] = toggles.exact;
          overlays['Posts with a place only'] = toggles.place;
          overlays['Posts with a city'] = toggles.city;
          overlays['Posts without location'] = toggles.none;
          L.control.layers(null, overlays, { collapsed: window.innerWidth < 1000 }).addTo(map);

          var legend = L.control({ position: 'bottomleft' });
          legend.onAdd = function () {
            var box = node('div', 'waypost-legend');
            var rows = [
              [swatch('<path d="M1,8 H15" stroke="#1b6ca8" stroke-width="3"/>'), 'route (dashed: no signal)'],
              [swatch('<circle cx="8" cy="8" r="6" fill="' + colors.region + '" fill-opacity=".15" stroke="' + colors.region + '"/>'), 'region (true scale)'],
              [swatch('<circle cx="8" cy="8" r="6" fill="' + colors.zone + '" fill-opacity=".15" stroke="' + colors.zone + '" stroke-dasharray="3 2"/>'), 'privacy zone: nothing locates the user'],
              [swatch('<path d="M8,1 L15,13.6 L1,13.6 Z" fill="#2b9348"/>'), 'region entered'],
              [swatch('<path d="M8,15 L15,2.4 L1,2.4 Z" fill="#6c757d"/>'), 'region exited'],
              [swatch('<path d="M2.5,2.5 h11 v11 h-11 Z" fill="' + colors.place + '"/>'), 'Twitter post'],
              [swatch('<path d="M8,1 L15,8 L8,15 L1,8 Z" fill="' + colors.place + '"/>'), 'Facebook post'],
              [swatch('<path d="M2.5,2.5 h11 v11 h-11 Z" fill="#fff" stroke="' + colors.none + '" stroke-width="2.5"/>'), 'hollow: not sent']
            ];
            var precisions = [['exact', 'exact coordinates'], ['place', 'place only'], ['city', 'city'], ['none', 'no location']];
            rows.forEach(function (row) { var line = node('div'); line.innerHTML = row[0]; line.appendChild(document.createTextNode(row[1])); box.appendChild(line); });
            box.appendChild(node('b', null, 'location carried by a post'));
            precisions.forEach(function (p) {
              var line = node('div');
              line.innerHTML = swatch('<path d="M2.5,2.5 h11 v11 h-11 Z" fill="' + colors[p[0]] + '"/>');
              line.appendChild(document.createTextNode(p[1]));
              box.appendChild(line);
            });
            return box;
          };
          legend.addTo(map);

          function label(seconds) {
            var h = Math.floor(seconds / 3600), m = Math.floor(seconds / 60) % 60, s = seconds % 60;
            return '+' + (h > 0 ? h + ':' + (m < 10 ? '0' : '') : '') + m + ':' + (s < 10 ? '0' : '') + s;
          }
          // Draws the run up to the slider's instant, with the switched-on layers only.
          function show() {
            var t = Number(slider.value);
            lines.forEach(function (l) {
              l.line.setLatLngs(l.points.filter(function (p) { return p[2] <= t; }).map(function (p) { return [p[0], p[1]]; }));
            });
            gaps.forEach(function (g) {
              if (g.t <= t && map.hasLayer(routeLayer)) { routeLayer.addLayer(g.line); } else { routeLayer.removeLayer(g.line); }
            });
            var visible = markers.filter(function (m) {
              var i = m.item;
              if (i.t > t) { return false; }
              if (i.kind === 'event') { return map.hasLayer(toggles.events); }
              return map.hasLayer(toggles[i.network]) && map.hasLayer(toggles[i.precision]);
            }).map(function (m) { return m.marker; });
            cluster.clearLayers();
            cluster.addLayers(visible);
            clock.textContent = label(t);
          }
          map.on('overlayadd overlayremove', show);
          slider.addEventListener('input', show);
          // A link can name an instant: report.html#t=90 opens 90 s into the run.
          function follow() {
            var linked = /^#t=([0-9]+)$/.exec(window.location.hash);
            if (linked) { slider.value = String(Math.min(Number(linked[1]), data.duration)); }
            show();
          }
          window.addEventListener('hashchange', follow);

          if (data.frame) { map.fitBounds(data.frame, { padding: [24, 24] }); } else { map.setView([0, 0], 2); }
          follow();
          // For the browser tests and the curious: the map, and each privacy zone's circle.
          window.waypost = { map: map, zones: zones, cluster: cluster };
        })();
        """
}
