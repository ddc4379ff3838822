// Injected into a copy of a report by scripts/test-report-in-browser.sh (after `var PROBE = …`):
// does what a user would (zooms onto a privacy zone, moves the slider, opens every popup) and
// writes what it measured as JSON into a hidden pre#probe-result for the script to read from the DOM.
// Works on both pages: the Leaflet map (window.waypost) and the static SVG page.
(function () {
  'use strict';
  function rect(el) { return el.getBoundingClientRect(); }
  function overlapArea(a, b) {
    return Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) *
      Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  }
  // The markers drawn over the privacy zone, and the pairs of them whose boxes overlap.
  function zoneMarkers() {
    var zone = document.querySelector('path.privacy-zone, g.privacy-zone circle');
    if (!zone) { return { error: 'no privacy zone drawn' }; }
    var z = rect(zone);
    var boxes = Array.prototype.slice.call(document.querySelectorAll('.leaflet-marker-icon, svg g.event, svg g.post'))
      .map(function (el) { return { el: el, r: rect(el) }; })
      .filter(function (b) { return b.r.width > 0 && b.r.height > 0 && overlapArea(b.r, z) > 0; });
    var pairs = [];
    for (var i = 0; i < boxes.length; i++) {
      for (var j = i + 1; j < boxes.length; j++) {
        if (overlapArea(boxes[i].r, boxes[j].r) > 1) {
          pairs.push(boxes[i].el.getAttribute('class') + ' × ' + boxes[j].el.getAttribute('class') + ' at ' +
            [boxes[i].r, boxes[j].r].map(function (r) { return [r.left, r.top, r.right, r.bottom].map(Math.round).join(','); }).join(' / '));
        }
      }
    }
    return { zone: [Math.round(z.width), Math.round(z.height)], markers: boxes.length, overlaps: pairs };
  }
  function markerCount() {
    return Array.prototype.slice.call(document.querySelectorAll('.leaflet-marker-icon'))
      .filter(function (el) { return rect(el).width > 0; }).length;
  }
  function report(result) {
    var out = document.createElement('pre');
    out.id = 'probe-result';
    out.style.display = 'none';
    out.textContent = JSON.stringify(result);
    document.body.appendChild(out);
  }
  var result = { mode: PROBE.mode };
  try {
    if (PROBE.mode === 'zone') {
      if (window.waypost && window.waypost.zones[PROBE.zone]) {
        window.waypost.map.fitBounds(window.waypost.zones[PROBE.zone].getBounds(), { animate: false });
        result.zoom = window.waypost.map.getZoom();
      }
      setTimeout(function () { result.zoneMarkers = zoneMarkers(); report(result); }, 1500);
      return;
    }
    if (PROBE.mode === 'slider') {
      var slider = document.getElementById('time');
      var counts = [];
      [0, Number(slider.max)].forEach(function (t) {
        slider.value = String(t);
        slider.dispatchEvent(new Event('input'));
        counts.push(markerCount());
      });
      result.markersAtStart = counts[0];
      result.markersAtEnd = counts[1];
      result.clock = document.getElementById('clock').textContent;
      // Filling the window: the map as wide as the window, nothing to scroll sideways or down.
      var map = document.getElementById('map').getBoundingClientRect();
      result.window = [window.innerWidth, window.innerHeight];
      result.map = [Math.round(map.width), Math.round(map.bottom)];
      result.scroll = [document.documentElement.scrollWidth, document.documentElement.scrollHeight];
      report(result);
      return;
    }
    if (PROBE.mode === 'trials') {
      // A trials run's map: the panel opens, and a histogram bar's link moves the slider there.
      var panel = document.getElementById('trials');
      if (!panel) { result.error = 'no trials panel'; report(result); return; }
      panel.open = true;
      result.histograms = panel.querySelectorAll('svg.histogram').length;
      result.exact = panel.querySelectorAll('.exact').length;
      var links = panel.querySelectorAll('svg.histogram a');
      var last = links[links.length - 1];
      result.target = Number(/#t=([0-9]+)$/.exec(last.getAttribute('href'))[1]);
      result.panelHeight = Math.round(panel.getBoundingClientRect().height);
      result.window = [window.innerWidth, window.innerHeight];
      window.location.hash = last.getAttribute('href');
      setTimeout(function () {
        result.slider = Number(document.getElementById('time').value);
        result.clock = document.getElementById('clock').textContent;
        report(result);
      }, 500);
      return;
    }
    if (PROBE.mode === 'popups') {
      // Every popup's content, as a click would build it, into one box to inspect.
      var box = document.createElement('div');
      box.id = 'popups';
      var layers = window.waypost.cluster.getLayers();
      window.waypost.map.eachLayer(function (layer) { layers.push(layer); });
      var opened = 0;
      layers.forEach(function (layer) {
        var popup = layer.getPopup && layer.getPopup();
        if (!popup) { return; }
        var content = popup.getContent();
        box.appendChild(typeof content === 'function' ? content(layer) : content);
        opened += 1;
      });
      document.body.appendChild(box);
      setTimeout(function () {
        result.popups = opened;
        result.injected = box.querySelectorAll('img, script, i, b, iframe').length +
          document.querySelectorAll('header img, header script, header i').length;
        result.pwned = window.pwned === undefined ? null : window.pwned;
        result.text = box.textContent;
        result.title = document.getElementById('title').textContent;
        report(result);
      }, 500);
    }
  } catch (e) {
    result.error = String(e);
    report(result);
  }
})();
