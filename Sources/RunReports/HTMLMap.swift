import SimulatedTime
import WaypostSupport

/// The SVG map in a self-contained HTML page with a time slider and hover details, in plain
/// JavaScript: no network, no CDN, one file to attach to a bug report. `#t=SECONDS` in the
/// address opens it at that instant of the run. `waypost report --format html` writes it where
/// Leaflet is not installed; ``LeafletMap`` is the interactive map.
public enum HTMLMap {
    public static func render(_ run: RunSnapshot) -> String {
        let svg = SVGMap.render(run)
        let duration = run.span.map { $0.lowerBound.seconds(to: $0.upperBound) } ?? 0
        let title = SVGWriter.escape("Waypost run '\(run.run.name)'")
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>\(title)</title>
            <style>
              body { margin: 0; padding: 16px; background: #ecece6; font: 14px Helvetica, Arial, sans-serif; color: #1a1a2e; }
              .map { background: #fff; display: inline-block; box-shadow: 0 1px 4px rgba(0,0,0,.2); }
              .controls { margin: 12px 0; display: flex; gap: 12px; align-items: center; max-width: 1000px; }
              .controls input { flex: 1; }
              #details { min-height: 1.4em; max-width: 1000px; padding: 8px 10px; background: #fff; border-left: 4px solid #f46036; }
              svg [data-info] { cursor: pointer; }\(TrialsPanel.style(run.trials))
            </style>
            </head>
            <body>
            <div class="controls">
              <label for="time">Time</label>
              <input id="time" type="range" min="0" max="\(Int(duration.rounded(.up)))" value="\(Int(duration.rounded(.up)))" step="1">
              <output id="clock">end</output>
            </div>
            <div class="map">
            \(svg)</div>
            <p id="details">Hover over a region, event or post for details; move the slider to replay the run.</p>
            \(TrialsPanel.html(run.trials))            <script>
            (function () {
              var slider = document.getElementById('time');
              var clock = document.getElementById('clock');
              var details = document.getElementById('details');
              var timed = Array.prototype.slice.call(document.querySelectorAll('svg [data-t]'));
              function label(seconds) {
                var h = Math.floor(seconds / 3600), m = Math.floor(seconds / 60) % 60, s = seconds % 60;
                return '+' + (h > 0 ? h + ':' + (m < 10 ? '0' : '') : '') + m + ':' + (s < 10 ? '0' : '') + s;
              }
              function show() {
                var t = Number(slider.value);
                timed.forEach(function (el) { el.style.display = Number(el.getAttribute('data-t')) <= t ? '' : 'none'; });
                clock.textContent = label(t);
              }
              // A link can name an instant: report.html#t=90 opens 90 s into the run.
              function follow() {
                var linked = /^#t=([0-9]+)$/.exec(window.location.hash);
                if (linked) { slider.value = Math.min(Number(linked[1]), Number(slider.max)); }
                show();
              }
              window.addEventListener('hashchange', follow);
              slider.addEventListener('input', show);
              document.querySelectorAll('svg [data-info]').forEach(function (el) {
                el.addEventListener('mouseenter', function () { details.textContent = el.getAttribute('data-info'); });
              });
              follow();
            })();
            </script>
            </body>
            </html>

            """
    }
}
