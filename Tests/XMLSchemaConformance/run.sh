#!/usr/bin/env bash
# XML schema conformance: Waypost's XML checked by xmllint (libxml2-utils) against the schemas
# the readers use.
#
#   Tests/XMLSchemaConformance/run.sh WAYPOST_BINARY
#
# - JUnit (`waypost test --junit`) of the scenario library, of a failing scenario and of one that
#   cannot run, and `waypost compare --junit` of a passing and a flagged log: against Jenkins'
#   JUnit 4 schema and xUnit's junit-10 (../shared/corpus/schemas);
# - GPX exports of the shipped routes and of every corpus KML/GPX the reader takes: against
#   Topografix's gpx-1.1.xsd (same folder);
# - KML exports of the shipped routes, of the corpus files and of shapes KML has rules for (a
#   partly timed track, sea-floor altitude modes, one-point lines): against the OGC KML 2.2 schema
#   (with Google's gx extension) that the PyPI package fastkml ships, in a venv at .build/xsd-venv.
# Each validator is first shown a document it must refuse, so a check that cannot fail is caught.
# Without ../shared/corpus the JUnit and GPX checks are skipped with a note (CI sets
# WAYPOST_REQUIRE_CORPUS=1, which makes that a failure); without PyPI the KML check fails.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
binary=${1:?usage: Tests/XMLSchemaConformance/run.sh WAYPOST_BINARY}
[[ "$binary" == /* ]] || binary="$PWD/$binary"
cd "$repo"
command -v xmllint >/dev/null || { echo "xml schemas: xmllint is missing (Debian: libxml2-utils; make test installs it)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "xml schemas: FAILED: $*" >&2; exit 1; }
checked=0
# valid SCHEMA FILE…: every file must validate.
valid() {
  local schema=$1; shift
  for file in "$@"; do
    xmllint --noout --schema "$schema" "$file" 2>"$work/err" || fail "$file is not valid against $(basename "$schema"): $(head -5 "$work/err")"
    checked=$((checked + 1))
  done
}
# refused SCHEMA FILE: the schema must reject the file (the validator works).
refused() {
  if xmllint --noout --schema "$1" "$2" 2>/dev/null; then fail "$(basename "$1") accepted $2, which it must refuse: the check cannot fail"; fi
}

corpus=${WAYPOST_CORPUS:-$repo/../shared/corpus}
if [[ -d "$corpus/schemas" ]]; then
  schemas="$corpus/schemas"
  # JUnit: the library, plus a failure and an error, so <failure>, <error> and properties occur.
  cat >"$work/failing.yaml" <<YAML
name: failing-on-purpose
device: { route: $repo/tracks/cupertino-walk.kml }
expect:
  - { event: regionEnter, count: 1 }
YAML
  printf 'name: broken\nbogus: 1\n' >"$work/broken.yaml"
  "$binary" test fixtures/scenarios/*.yaml "$work/failing.yaml" "$work/broken.yaml" --junit "$work/junit.xml" \
    >/dev/null 2>&1 || true
  grep -q '<failure' "$work/junit.xml" && grep -q '<error' "$work/junit.xml" || fail "the JUnit lacks the failure or the error it should have"
  grep -q ' time="[0-9.]*" timestamp="[0-9T:-]*Z" hostname="' "$work/junit.xml" || fail "the JUnit suites lack time, timestamp or hostname"
  # A suite with an attribute JUnit 4 does not know (what 'file' was) must be refused.
  sed 's/<testsuite name=/<testsuite file="x" name=/' "$work/junit.xml" >"$work/junit-bad.xml"
  refused "$schemas/jenkins-junit-4.xsd" "$work/junit-bad.xml"
  sed 's/ time="\([0-9]*\)\.\([0-9]*\)"/ time="\1s"/' "$work/junit.xml" >"$work/junit-bad10.xml"
  refused "$schemas/jenkins-junit-10.xsd" "$work/junit-bad10.xml"
  valid "$schemas/jenkins-junit-4.xsd" "$work/junit.xml"
  valid "$schemas/jenkins-junit-10.xsd" "$work/junit.xml"
  # `waypost compare --junit`: a replay of the scenario's device that passes, and the same log with
  # the first café's entry an hour late (a <failure>).
  "$binary" replay tracks/sunnyvale-commute.kml --regions fixtures/regions/commute-cafes.yaml --realism field \
    --rest 840 --seed 5 --format jsonl >"$work/phone.jsonl"
  awk 'BEGIN { done = 0 } !done && /"regionEnter"/ && /"sunnyvale-coffee-roasters"/ { sub(/T15:/, "T16:"); done = 1 } { print }' \
    "$work/phone.jsonl" >"$work/late.jsonl"
  "$binary" compare "$work/phone.jsonl" fixtures/scenarios/field-cafe-checkin.yaml --junit "$work/compare.xml" >/dev/null \
    || fail "waypost compare of the replay at seed 5 did not pass"
  "$binary" compare "$work/late.jsonl" fixtures/scenarios/field-cafe-checkin.yaml --junit "$work/compare-late.xml" \
    >/dev/null 2>&1 && fail "waypost compare of the late log passed"
  grep -q '<failure' "$work/compare-late.xml" || fail "the late log's compare JUnit lacks its <failure>"
  valid "$schemas/jenkins-junit-4.xsd" "$work/compare.xml" "$work/compare-late.xml"
  valid "$schemas/jenkins-junit-10.xsd" "$work/compare.xml" "$work/compare-late.xml"

  for track in tracks/*.kml tracks/*.gpx; do
    "$binary" export "$track" --format gpx --output "$work/$(basename "$track").gpx"
  done
  sed '0,/<trkpt /s/<trkpt /<trkpt bogus="1" /' "$(ls "$work"/*.gpx | head -1)" >"$work/bad.gpx.xml"
  refused "$schemas/gpx-1.1.xsd" "$work/bad.gpx.xml"
  valid "$schemas/gpx-1.1.xsd" "$work"/*.gpx
  # Every corpus KML and GPX the reader takes: KML mixes points and lines in any order, GPX wants
  # wpt, then rte, then trk (13 of these were refused for a wpt after a trk).
  mkdir -p "$work/corpus-gpx" "$work/corpus-kml"
  while IFS= read -r -d '' file; do
    name=$(echo "${file#"$corpus"/}" | tr '/' '_')
    "$binary" export "$file" --format gpx -o "$work/corpus-gpx/$name.gpx" 2>/dev/null || continue
    "$binary" export "$file" --format kml -o "$work/corpus-kml/$name.kml" 2>/dev/null
  done < <(find "$corpus" \( -name '*.kml' -o -name '*.gpx' \) -print0 | sort -z)
  valid "$schemas/gpx-1.1.xsd" "$work"/corpus-gpx/*.gpx
else
  [[ "${WAYPOST_REQUIRE_CORPUS:-}" == 1 ]] && fail "$corpus/schemas is missing (WAYPOST_REQUIRE_CORPUS=1)"
  echo "note: JUnit and GPX schema checks skipped: needs ../shared/corpus (third-party test data, beside the checkout in CI)"
fi

# The OGC KML 2.2 schema, from the fastkml package (rebuilt when requirements.txt changes).
venv="$repo/.build/xsd-venv"
if [[ ! -f "$venv/.requirements" ]] || ! cmp -s "$here/requirements.txt" "$venv/.requirements"; then
  rm -rf "$venv"
  python3 -m venv "$venv" >/dev/null
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt" >/dev/null || fail "cannot install fastkml from PyPI"
  cp "$here/requirements.txt" "$venv/.requirements"
fi
kml_schema=$(find "$venv" -path '*fastkml/schema/ogckml22.xsd' | head -1)
[[ -n "$kml_schema" ]] || fail "fastkml ships no schema/ogckml22.xsd here"
for track in tracks/*.kml tracks/*.gpx; do
  "$binary" export "$track" --format kml --output "$work/$(basename "$track").kml"
done
# Shapes KML has rules for: a track timed at some points only (a gx:Track's when is a dateTime for
# each coord), Google's sea-floor altitude modes (gx:altitudeMode, not OGC's altitudeMode), a
# one-point route and track (a LineString has two or more coordinates).
mkdir -p "$work/shapes"
cat >"$work/shapes/shapes.gpx" <<'GPX'
<gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">
<rte><name>r</name><rtept lat="37.332" lon="-122.03"/></rte>
<trk><name>part</name><trkseg><trkpt lat="37.33" lon="-122.03"><time>2025-01-01T00:00:00Z</time></trkpt>
<trkpt lat="37.331" lon="-122.03"/><trkpt lat="37.332" lon="-122.03"><time>2025-01-01T00:02:00Z</time></trkpt></trkseg></trk>
<trk><name>one</name><trkseg><trkpt lat="37.333" lon="-122.03"/></trkseg></trk>
</gpx>
GPX
cat >"$work/shapes/seafloor.kml" <<'KML'
<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Document>
<Placemark><LineString><gx:altitudeMode>relativeToSeaFloor</gx:altitudeMode><coordinates>19,37,5 19,41,5</coordinates></LineString></Placemark>
<Placemark><LineString><gx:altitudeMode>clampToSeaFloor</gx:altitudeMode><coordinates>19,37 19,41</coordinates></LineString></Placemark>
</Document></kml>
KML
for shape in "$work"/shapes/*; do "$binary" export "$shape" --format kml -o "$shape.out.kml" 2>/dev/null; done
sed '0,/<Placemark>/s/<Placemark>/<Placemark><bogus\/>/' "$(ls "$work"/*.kml | head -1)" >"$work/bad.kml.xml"
refused "$kml_schema" "$work/bad.kml.xml"
valid "$kml_schema" "$work"/*.kml "$work"/shapes/*.out.kml
if [[ -d "$work/corpus-kml" ]]; then valid "$kml_schema" "$work"/corpus-kml/*.kml; fi
echo "xml schemas: $checked documents valid (JUnit: Jenkins JUnit 4 and junit-10; GPX 1.1; OGC KML 2.2), and each schema refused a broken one"
