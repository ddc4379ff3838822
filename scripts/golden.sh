#!/usr/bin/env bash
# The golden harness: every output a user sees, written by one waypost binary into a folder, so
# that a refactoring can be checked byte for byte against the build before it.
#
#   scripts/golden.sh WAYPOST OUT_DIR        # record
#   diff -r OLD_DIR NEW_DIR                  # compare two recordings
#
# It covers the shipped tracks in five replay modes and three exports, the check-in demo with its
# audit (table, CSV, JSON) and reports, every shipped scenario's verdict (text, JSON, JUnit less
# its timings) and store, and — where ../shared/corpus is beside the checkout — every corpus
# KML/GPX/KMZ file replayed and exported (GOLDEN_CORPUS=0 skips it; each is cut after two minutes,
# so record with a release build). Wall-clock fields (run start times, durations) are masked;
# everything else must match.
set -uo pipefail
waypost=$(realpath "$1")
out=$2
cd "$(dirname "$0")/.."
rm -rf "$out" && mkdir -p "$out"
mask() { sed -E 's/"(startedAt|finishedAt|time|timestamp|hostname)" *: *[^,}]*/"\1":X/g; s/ (time|timestamp|hostname)="[^"]*"/ \1="X"/g'; }

for track in tracks/*.kml tracks/*.gpx; do
  name=$(basename "$track")
  "$waypost" replay "$track" >"$out/$name.text" 2>&1; echo "exit $?" >>"$out/$name.text"
  "$waypost" replay "$track" --format jsonl >"$out/$name.jsonl" 2>&1
  "$waypost" replay "$track" --mode significant-change --format jsonl >"$out/$name.sig.jsonl" 2>&1
  "$waypost" replay "$track" --regions fixtures/regions/commute-cafes.yaml --noise urban --seed 7 --format jsonl \
    >"$out/$name.regions.jsonl" 2>&1
  "$waypost" replay "$track" --summary >"$out/$name.summary" 2>&1
  for format in geojson gpx kml; do "$waypost" export "$track" --format $format >"$out/$name.$format" 2>&1; done
done

db="$out/demo.db"
"$waypost" replay tracks/sunnyvale-commute.kml --regions fixtures/regions/commute-cafes.yaml \
  --checkins fixtures/rules/coffee.yaml --privacy fixtures/privacy/demo.yaml --db "$db" >"$out/demo.text" 2>&1
# The same run's event stream as JSON lines, post lines included (their keys once came out in a
# new order at every run, and no golden output held them).
"$waypost" replay tracks/sunnyvale-commute.kml --regions fixtures/regions/commute-cafes.yaml \
  --checkins fixtures/rules/coffee.yaml --privacy fixtures/privacy/demo.yaml --db "$out/demo-jsonl.db" \
  --format jsonl >"$out/demo.jsonl" 2>&1
rm -f "$out/demo-jsonl.db" "$out/demo-jsonl.db-wal" "$out/demo-jsonl.db-shm"
for format in table csv json; do "$waypost" audit --db "$db" --format $format | mask >"$out/demo.audit.$format"; done
for format in text svg html geojson; do "$waypost" report --db "$db" --format $format | mask >"$out/demo.report.$format"; done

for scenario in fixtures/scenarios/*.yaml; do
  name=$(basename "$scenario" .yaml)
  "$waypost" test "$scenario" --db "$out/$name.db" --format json 2>&1 | mask >"$out/$name.verdict.json"
  "$waypost" audit --db "$out/$name.db" --format json 2>&1 | mask >"$out/$name.audit.json"
  rm -f "$out/$name.db" "$out/$name.db-wal" "$out/$name.db-shm"
done
"$waypost" test fixtures/scenarios/*.yaml --junit "$out/junit.xml" >"$out/scenarios.text" 2>&1
mask <"$out/junit.xml" >"$out/junit.masked.xml" && rm "$out/junit.xml"
rm -f "$db" "$db-wal" "$db-shm"

if [ -d ../shared/corpus ] && [ "${GOLDEN_CORPUS:-1}" != 0 ]; then
  mkdir -p "$out/corpus"
  find ../shared/corpus \( -name '*.kml' -o -name '*.gpx' -o -name '*.kmz' \) | sort | while read -r file; do
    key=$(echo "${file#../shared/corpus/}" | tr '/' '_')
    timeout 120 "$waypost" replay "$file" --format jsonl >"$out/corpus/$key.jsonl" 2>&1; echo "exit $?" >>"$out/corpus/$key.jsonl"
    timeout 120 "$waypost" export "$file" --format geojson >"$out/corpus/$key.geojson" 2>&1; echo "exit $?" >>"$out/corpus/$key.geojson"
  done
fi
sed -i -E "s#$(pwd)#CHECKOUT#g; s#$out#OUT#g" "$out"/*.* 2>/dev/null
echo "recorded $(find "$out" -type f | wc -l) files in $out"
