#!/usr/bin/env bash
# GeoJSON conformance: Waypost's GeoJSON checked as RFC 7946 by other people's code.
#
#   Tests/GeoJSONConformance/run.sh WAYPOST_BINARY
#
# Creates (or reuses, while requirements.txt is unchanged) a venv at .build/geojson-venv with
# the PyPI packages geojson, geojson-rewind, shapely and antimeridian; writes with WAYPOST_BINARY
# the GeoJSON exports of the shipped tracks, of wound-backwards.kml (rings wound the wrong way,
# positions of mixed dimension), of date-line-walk.gpx (across the 180th meridian), of the polygons
# and GPX tracks in ../shared/corpus where it is beside the checkout, and the reports of a check-in
# run with a privacy zone and of the walk across the meridian (date-line-*.yaml); and validates
# every file with check_geojson.py (structure, §3.1.6 winding, one dimension per geometry, §3.1.9
# cuts at the antimeridian). Works from any directory.
set -euo pipefail

if [[ $# -lt 1 ]]; then
    echo "usage: $0 WAYPOST_BINARY" >&2
    exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
binary="$1"
[[ "$binary" == /* ]] || binary="$PWD/$binary"
if [[ ! -x "$binary" ]]; then
    echo "run.sh: $binary is not an executable waypost binary" >&2
    exit 2
fi

# ---- the venv, rebuilt when requirements.txt (or the Python) changes ----
source "$repo/scripts/python-venv.sh"
python_venv "$repo/.build/geojson-venv" "$here/requirements.txt" "geojson, geojson-rewind, shapely and antimeridian"

# ---- the files ----
out="$(mktemp -d "${TMPDIR:-/tmp}/waypost-geojson.XXXXXX")"
trap 'rm -rf "$out"' EXIT
export_one() {  # FILE NAME
    if ! "$binary" export "$1" --format geojson --output "$out/$2.geojson" 2>"$out/$2.err"; then
        echo "run.sh: waypost export $1 failed: $(cat "$out/$2.err")" >&2
        exit 1
    fi
}
for track in "$repo"/tracks/*.kml "$repo"/tracks/*.gpx "$here/wound-backwards.kml" "$here/date-line-walk.gpx"; do
    export_one "$track" "$(basename "$track")"
done
corpus="$repo/../shared/corpus"
if [[ -d "$corpus" ]]; then
    # Every corpus KML with a polygon that reads (some are refused on purpose: bad.kml).
    while read -r file; do
        key="corpus_$(echo "${file#"$corpus"/}" | tr '/' '_')"
        "$binary" export "$file" --format geojson --output "$out/$key.geojson" 2>/dev/null || true
    done < <(grep -rl --include='*.kml' '<Polygon' "$corpus" | sort)
    # Every corpus GPX track that reads: a one-point segment is no GeoJSON line (§3.1.4).
    while read -r file; do
        key="corpus_$(echo "${file#"$corpus"/}" | tr '/' '_')"
        "$binary" export "$file" --format geojson --output "$out/$key.geojson" 2>/dev/null || true
    done < <(grep -rl --include='*.gpx' '<trkseg' "$corpus" | sort)
else
    echo "run.sh: note: ../shared/corpus is not beside this checkout; its polygons are not checked"
fi
db="$out/run.db"
(cd "$repo" && "$binary" replay tracks/sunnyvale-commute.kml --regions fixtures/regions/commute-cafes.yaml \
    --checkins fixtures/rules/coffee.yaml --privacy fixtures/privacy/demo.yaml --db "$db" >/dev/null)
"$binary" report --db "$db" --format geojson --output "$out/report.geojson"
# A walk across the 180th meridian with a region and a privacy zone on it: cut there (§3.1.9).
db="$out/date-line.db"
"$binary" replay "$here/date-line-walk.gpx" --regions "$here/date-line-walk.yaml" \
    --checkins "$here/date-line-rules.yaml" --privacy "$here/date-line-privacy.yaml" --db "$db" >/dev/null
"$binary" report --db "$db" --format geojson --output "$out/date-line-report.geojson"

"$venv/bin/python" "$here/check_geojson.py" "$out"/*.geojson
