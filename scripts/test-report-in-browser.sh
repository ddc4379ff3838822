#!/usr/bin/env bash
# `make test`: the HTML report in a real browser (Debian's chromium, headless), on Leaflet from
# libjs-leaflet and libjs-leaflet.markercluster (installed when missing, as `make deps` does).
#
#   scripts/test-report-in-browser.sh WAYPOST_BINARY
#   scripts/test-report-in-browser.sh --check-zone PAGE.html   # only the overlap check, on any page
#
# On the demo run (the shipped commute, its cafés, the coffee rules, the home privacy zone) it
# checks that the page logs no errors (the check is first shown a page that throws, so it is known
# to work), draws a Leaflet map with the zone, opens at #t=0 with no markers and the clock at +0:00,
# that the slider shows the markers again at the end; that zoomed onto the home zone no two
# markers' boxes overlap (the static SVG page fails this: `--check-zone` on it); and that hostile
# names (markup as region, zone, rule and run names) stay text in every popup and the title. It
# saves screenshots at 800 and 1,400 px, and zoomed onto the zone, in .build/report-screenshots/.
# Without chromium and apt-get (a developer's Mac) it says so and skips; CI (CI set) requires it.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
scripts/install-deps.sh chromium libjs-leaflet libjs-leaflet.markercluster
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    [ -n "${CI:-}" ] && { echo "report in browser: chromium is missing" >&2; exit 1; }
    echo "note: the report's browser test was skipped: no chromium here"
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "report in browser: $*" >&2; exit 1; }

# Loads a page (headless, no network) at WIDTH×900 and prints its DOM after the scripts ran; the
# browser's log, console messages included, goes to $work/NAME.log.
load() {  # URL NAME [WIDTH]
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --enable-logging=stderr --v=0 \
        --window-size="${3:-1000},900" --virtual-time-budget=5000 --dump-dom "$1" 2> "$work/$2.log"
}
screenshot() {  # URL FILE WIDTH
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
        --window-size="$3,900" --virtual-time-budget=5000 --screenshot="$2" "$1" 2> /dev/null
    [ -s "$2" ] || fail "no screenshot written to $2"
}
# A console error or an uncaught exception, as chromium logs them.
page_errors() { grep -E 'CONSOLE\(|Uncaught' "$work/$1.log" || true; }
# A copy of PAGE with scripts/report-probe.js run in MODE (zone, slider, popups) after the page's own.
probe_page() {  # PAGE MODE OUT
    python3 - "$1" "$2" "$3" "$repo/scripts/report-probe.js" <<'PY'
import sys
page, mode, out, probe = sys.argv[1:5]
html = open(page, encoding="utf-8").read()
script = "<script>var PROBE = {mode: '%s', zone: 'home'};\n%s</script>\n" % (mode, open(probe, encoding="utf-8").read())
at = html.rfind("</body>")
open(out, "w", encoding="utf-8").write(html[:at] + script + html[at:])
PY
}
# The probe's JSON result from a dumped DOM, or a field of it.
probe_result() {  # DOM_FILE [FIELD]
    python3 - "$1" "${2:-}" <<'PY'
import html, json, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
found = re.search(r'<pre id="probe-result" style="display: none;">(.*?)</pre>', dom, re.S)
if not found:
    sys.exit("no probe result in the page")
result = json.loads(html.unescape(found.group(1)))
field = sys.argv[2]
print(json.dumps(result if not field else result.get(field)))
PY
}
# Zoomed onto the home privacy zone, the boxes of the markers over it must not overlap.
check_zone() {  # PAGE
    probe_page "$1" zone "$work/zone.html"
    load "file://$work/zone.html" zone 800 > "$work/zone.dom"
    local markers overlaps
    markers=$(probe_result "$work/zone.dom" zoneMarkers)
    overlaps=$(python3 -c 'import json,sys; m=json.loads(sys.argv[1]); print(len(m.get("overlaps", [])) if "error" not in m else -1)' "$markers")
    [ "$overlaps" -ge 0 ] || fail "zoomed onto the home zone: $markers"
    [ "$overlaps" -eq 0 ] || fail "zoomed onto the home zone, $overlaps pairs of markers overlap: $markers"
    python3 -c 'import json,sys; m=json.loads(sys.argv[1]); sys.exit(0 if m["markers"] > 0 else 1)' "$markers" \
        || fail "zoomed onto the home zone, no marker is drawn over it: $markers"
    echo "zoomed onto the home zone: $markers"
}

if [ "${1:-}" = "--check-zone" ]; then
    check_zone "$(realpath "${2:?usage: $0 --check-zone PAGE.html}")"
    exit 0
fi
waypost=$(realpath "${1:?usage: $0 WAYPOST_BINARY}")

printf '<!DOCTYPE html><title>x</title><script>throw new Error("on purpose")</script>' > "$work/broken.html"
load "file://$work/broken.html" broken > /dev/null
[ -n "$(page_errors broken)" ] || fail "a page that throws was not caught: the error check does not work here"

# The demo run, as `make demo` records it.
"$waypost" replay tracks/sunnyvale-commute.kml --regions fixtures/regions/commute-cafes.yaml \
    --checkins fixtures/rules/coffee.yaml --privacy fixtures/privacy/demo.yaml --db "$work/demo.db" > /dev/null
"$waypost" report --db "$work/demo.db" --format html --output "$work/run.html" 2> "$work/report.err"
[ ! -s "$work/report.err" ] || fail "the report said: $(cat "$work/report.err")"
grep -q 'L.markerClusterGroup' "$work/run.html" || fail "the report is not the Leaflet map"
! grep -qE '<(script|link)[^>]* (src|href)=' "$work/run.html" || fail "the report loads something from outside"

load "file://$work/run.html" end 800 > "$work/end.html"
load "file://$work/run.html#t=0" start 1400 > "$work/start.html"
for state in end start; do
    [ -z "$(page_errors $state)" ] || fail "the page logged errors ($state): $(page_errors $state)"
    grep -q 'leaflet-container' "$work/$state.html" || fail "no map rendered ($state)"
    grep -q 'class="privacy-zone' "$work/$state.html" || fail "no privacy zone drawn ($state)"
    grep -q 'leaflet-control-layers' "$work/$state.html" || fail "no layer control ($state)"
    grep -q 'waypost-legend' "$work/$state.html" || fail "no legend ($state)"
done
# Marker elements (a marker or a cluster's icon) — not the inlined library's text that names the class.
markers_end=$( (grep -oE '<div [^>]*class="[^"]*leaflet-marker-icon' "$work/end.html" || true) | wc -l)
markers_start=$( (grep -oE '<div [^>]*class="[^"]*leaflet-marker-icon' "$work/start.html" || true) | wc -l)
[ "$markers_end" -gt 0 ] || fail "at the end of the run no marker is drawn"
[ "$markers_start" -eq 0 ] || fail "at #t=0 $markers_start markers are drawn: the link did not move the slider"
grep -q '<output id="clock">+0:00</output>' "$work/start.html" || fail "the clock does not say +0:00 at #t=0"
grep -q '<output id="clock">+[0-9:]*</output>' "$work/end.html" || fail "the clock says nothing at the end"

probe_page "$work/run.html" slider "$work/slider.html"
for width in 800 1400; do
    load "file://$work/slider.html" slider "$width" > "$work/slider.dom"
    [ -z "$(page_errors slider)" ] || fail "the page logged errors (slider, $width px): $(page_errors slider)"
    slider=$(probe_result "$work/slider.dom")
    python3 -c 'import json,sys; r=json.loads(sys.argv[1]); sys.exit(0 if r["markersAtStart"] == 0 and r["markersAtEnd"] > 0 else 1)' \
        "$slider" || fail "moving the slider from the start to the end did not bring the markers: $slider"
    python3 - "$slider" <<'PY' || fail "at $width px the map does not fill the window: $slider"
import json, sys
r = json.loads(sys.argv[1])
(w, h), (mw, mb), (sw, sh) = r["window"], r["map"], r["scroll"]
assert mw == w and abs(mb - h) <= 1 and sw <= w and sh <= h, r
PY
done

check_zone "$work/run.html"
[ -z "$(page_errors zone)" ] || fail "the page logged errors (zoomed): $(page_errors zone)"

# Hostile names: markup in the run's, a region's, a zone's and a rule's names must stay text.
cat > "$work/hostile.yaml" <<YAML
name: "<i>run</i><img src=x onerror=window.pwned=1>"
device: { route: $repo/tracks/sunnyvale-commute.kml }
regions:
  - { identifier: "<img src=x onerror=window.pwned=2>", latitude: 37.37700, longitude: -122.03050, radius: 150 }
privacy:
  optIn: true
  disclosureAcknowledged: true
  consent: auto
  precision: place
  zones: [{ name: "<script>window.pwned=3</script>", latitude: 37.3318, longitude: -122.0312, radius: 120 }]
rules:
  - { id: "<b>rule</b>", on: regionEnter, networks: [twitter, facebook], message: "At {place} <img src=x onerror=window.pwned=4>" }
expect:
  - { event: regionEnter, count: 1 }
YAML
"$waypost" test "$work/hostile.yaml" --db "$work/hostile.db" > "$work/hostile.out" 2>&1 || [ $? -eq 1 ] || fail "the hostile scenario did not run: $(cat "$work/hostile.out")"
"$waypost" report --db "$work/hostile.db" --format html --output "$work/hostile.html"
probe_page "$work/hostile.html" popups "$work/hostile-probe.html"
load "file://$work/hostile-probe.html" hostile > "$work/hostile.dom"
[ -z "$(page_errors hostile)" ] || fail "the page logged errors (hostile names): $(page_errors hostile)"
hostile=$(probe_result "$work/hostile.dom")
python3 - "$hostile" <<'PY' || fail "hostile names were not kept as text: $hostile"
import json, sys
r = json.loads(sys.argv[1])
assert r["popups"] >= 4, "too few popups"
assert r["injected"] == 0 and r["pwned"] is None, "markup became elements or ran"
for text in ["<img src=x onerror=window.pwned=2>", "<script>window.pwned=3</script>", "<b>rule</b>"]:
    assert text in r["text"], text
assert r["title"] == "Waypost run '<i>run</i><img src=x onerror=window.pwned=1>'", r["title"]
PY

shots="$repo/.build/report-screenshots"
mkdir -p "$shots"
screenshot "file://$work/run.html" "$shots/report-800.png" 800
screenshot "file://$work/run.html" "$shots/report-1400.png" 1400
screenshot "file://$work/zone.html" "$shots/report-zone-800.png" 800
echo "report in browser: Leaflet map, no page errors, #t=0 shows $markers_start markers and the end $markers_end," \
    "the slider moves ($slider), markers over the home zone apart when zoomed, hostile names stay text;" \
    "screenshots in $shots"

# A trials run's page (`waypost test --html`): per expectation, a histogram of when its event came
# across the trials with the exact run's instant marked, rendered without page errors.
"$waypost" test fixtures/scenarios/field-cafe-checkin.yaml --html "$work/trials.html" > /dev/null
load "file://$work/trials.html" trials > "$work/trials.dom"
[ -z "$(page_errors trials)" ] || fail "the trials page logged errors: $(page_errors trials)"
histograms=$( (grep -o 'class="histogram"' "$work/trials.dom" || true) | wc -l)
bars=$( (grep -o '<rect class="bar"' "$work/trials.dom" || true) | wc -l)
grep -q 'class="exact"' "$work/trials.dom" || fail "the trials page marks no exact instant"
[ "$histograms" -ge 3 ] && [ "$bars" -ge 3 ] || fail "the trials page drew $histograms histograms with $bars bars"
screenshot "file://$work/trials.html" "$shots/trials-800.png" 800
echo "trials page in browser: $histograms histograms ($bars bars), the exact instant marked, no page errors"

# The same trials run recorded with --db: its exact run's map carries the distributions in a
# panel; following a bar's link moves the map's slider to that instant.
"$waypost" test fixtures/scenarios/field-cafe-checkin.yaml --db "$work/trials.db" > /dev/null
"$waypost" report field-cafe-checkin --db "$work/trials.db" --format html --output "$work/trials-map.html"
probe_page "$work/trials-map.html" trials "$work/trials-map-probe.html"
load "file://$work/trials-map-probe.html" trials-map 800 > "$work/trials-map.dom"
[ -z "$(page_errors trials-map)" ] || fail "the trials map logged errors: $(page_errors trials-map)"
trials_map=$(probe_result "$work/trials-map.dom")
python3 - "$trials_map" <<'PY' || fail "the trials map's panel does not work: $trials_map"
import json, sys
r = json.loads(sys.argv[1])
assert "error" not in r, r.get("error")
assert r["histograms"] >= 3 and r["exact"] >= 3, "too few histograms or exact instants"
assert r["slider"] == r["target"] > 0, "the bar's link did not move the slider"
assert r["panelHeight"] <= 0.5 * r["window"][1], "the open panel hides the map"
PY
screenshot "file://$work/trials-map-probe.html" "$shots/trials-map-800.png" 800
echo "trials map in browser: $trials_map"

# `waypost sweep --format html`: an offline page whose heatmaps chromium lays out, a panel per
# environment, with no page errors; a screenshot for the docs' trials article.
"$waypost" sweep --radius 10,25,50,100,200 --speed 1.4,5,15 --environment urban,suburban,rural --trials 40 \
    --format html --output "$work/sweep.html"
load "file://$work/sweep.html" sweep 1400 > "$work/sweep.dom"
[ -z "$(page_errors sweep)" ] || fail "the sweep page logged errors: $(page_errors sweep)"
heatmaps=$( (grep -o '<table class="heatmap"' "$work/sweep.dom" || true) | wc -l)
cells=$( (grep -o '<td style="background:rgb' "$work/sweep.dom" || true) | wc -l)
[ "$heatmaps" -eq 18 ] || fail "the sweep page drew $heatmaps heatmaps, not 18 (2 events × 3 statistics × 3 environments)"
[ "$cells" -ge 200 ] || fail "the sweep page's heatmaps have $cells shaded cells"
screenshot "file://$work/sweep.html" "$shots/sweep-1400.png" 1400
echo "sweep page in browser: $heatmaps heatmaps, $cells shaded cells, no page errors"
