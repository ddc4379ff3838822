#!/usr/bin/env bash
# Format conformance (issue 31 items 2 and 5): per-point values and NMEA 0183 checked by other
# people's code.
#
#   Tests/FormatConformance/run.sh WAYPOST_BINARY
#
# Creates (or reuses, while requirements.txt is unchanged) a venv at .build/format-venv with the
# PyPI packages gpxpy and pynmea2; installs gpsbabel, gpsd and gpsd-clients with apt-get when
# missing (scripts/install-deps.sh). Then:
# 1. Extensions: exports garmin-extensions.gpx (and the corpus's Garmin-extension GPX files when
#    ../shared/corpus is beside the checkout) to GPX and KML; gpxpy reads every per-point value
#    back from the GPX, gpsbabel reads the GPX as it reads the original (unicsv), and the KML has
#    the gx:SimpleArrayData gpsbabel writes for the same GPX, value for value.
# 2. NMEA out: `replay --nmea` of the shipped ride with noise and a signal gap; pynmea2 parses
#    every sentence and checksum, and the fixes, HDOP and no-fix epochs match the replay's events.
# 3. gpsd: `replay --nmea-serve 0 --realtime` of a short ride, gpsd reading it as a tcp:// source
#    (foreground, its own port) and gpspipe -w watching; every TPV matches a replayed fix.
# 4. Exports for the tools that drive real apps (issue 42): xcode-gpx read by gpxpy, simctl as
#    one shell command, maestro by PyYAML and Maestro's point syntax, adb by `sh -n` and the
#    emulator console's grammar — positions and order against the route (check_exports.py).
# Where there is no apt-get (and CI is not set) the gpsd part is skipped with one note line.
# Works from any directory.
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
in_ci() { case "${CI:-}" in "" | 0 | false) return 1 ;; *) return 0 ;; esac }

# ---- the venv, rebuilt when requirements.txt (or the Python) changes ----
source "$repo/scripts/python-venv.sh"
python_venv "$repo/.build/format-venv" "$here/requirements.txt" "gpxpy, pynmea2 and PyYAML"
check() { "$venv/bin/python" "$here/check_formats.py" "$@"; }

# ---- the tools: gpsbabel, gpsd and gpspipe from Debian ----
"$repo/scripts/install-deps.sh" gpsbabel gpsd gpsd-clients || true
export PATH="$PATH:/usr/sbin:/sbin"  # gpsd is installed in sbin
if ! command -v gpsbabel >/dev/null; then
    echo "run.sh: gpsbabel is missing and could not be installed" >&2
    exit 3
fi

out="$(mktemp -d "${TMPDIR:-/tmp}/waypost-formats.XXXXXX")"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$out"
}
trap cleanup EXIT

# ---- 1. extensions: GPX → GPX (gpxpy, gpsbabel) and GPX → KML (as gpsbabel writes it) ----
sources=("$here/garmin-extensions.gpx")
corpus="$repo/../shared/corpus"
if [[ -d "$corpus" ]]; then
    sources+=("$corpus/gpsbabel/reference/track/gpx_garmin_extensions.gpx"
        "$corpus/placemark-togeojson/test-data/run_gpxtpx.gpx"
        "$corpus/placemark-togeojson/test-data/strava.gpx"
        "$corpus/gpsbabel/reference/track/garminconnect.gpx")
else
    echo "run.sh: note: ../shared/corpus is not beside this checkout; only the shipped GPX's extensions are checked"
fi
for source in "${sources[@]}"; do
    key="$(basename "$source" .gpx)"
    "$binary" export "$source" --format gpx -o "$out/$key.gpx"
    "$binary" export "$source" --format kml -o "$out/$key.kml"
    check extensions "$source" "$out/$key.gpx"
    TZ=UTC gpsbabel -t -i gpx -f "$source" -o unicsv,utc=0 -F "$out/$key.source.csv"
    TZ=UTC gpsbabel -t -i gpx -f "$out/$key.gpx" -o unicsv,utc=0 -F "$out/$key.waypost.csv"
    check unicsv "$out/$key.source.csv" "$out/$key.waypost.csv"
    TZ=UTC gpsbabel -i gpx -f "$source" -o kml,track=1 -F "$out/$key.gpsbabel.kml"  # its gx:Track layout
    if grep -q SimpleArrayData "$out/$key.gpsbabel.kml"; then
        check kml "$out/$key.kml" "$out/$key.gpsbabel.kml"
    fi
done

# ---- 4. exports for Xcode, simctl, Maestro and the Android emulator ----
for route in tracks/sunnyvale-commute.kml tracks/cafe-stop.kml tracks/stevens-creek-ride.gpx; do
    (cd "$repo" && "$venv/bin/python" "$here/check_exports.py" "$binary" "$route")
done
(cd "$repo" && "$venv/bin/python" "$here/check_exports.py" "$binary" tracks/i280-drive.kml --speed 29)

# ---- 2. NMEA out, read by pynmea2 ----
ride="$repo/tracks/stevens-creek-ride.gpx"
"$binary" replay "$ride" --format jsonl --noise urban --seed 7 --signal-loss 30-45 \
    --nmea "$out/ride.nmea" >"$out/ride.jsonl"
check nmea "$out/ride.nmea" "$out/ride.jsonl"

# ---- 3. gpsd reading --nmea-serve, gpspipe watching ----
if ! command -v gpsd >/dev/null || ! command -v gpspipe >/dev/null; then
    if in_ci; then
        echo "run.sh: gpsd and gpspipe (Debian gpsd, gpsd-clients) are required in CI and could not be installed" >&2
        exit 3
    fi
    echo "run.sh: note: gpsd/gpspipe are not installed (no apt-get here): the gpsd check is skipped"
    exit 0
fi
# The first two minutes of the ride, so that the run takes seconds at --rate 20.
"$venv/bin/python" - "$ride" "$out/short.gpx" <<'EOF'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
points = re.findall(r"<trkpt .*?</trkpt>", text)
head = text[: text.index("<trkpt ")]
open(sys.argv[2], "w", encoding="utf-8").write(head + "\n".join(points[:61]) + "\n</trkseg></trk></gpx>\n")
EOF
"$binary" replay "$out/short.gpx" --format jsonl --noise open-sky --seed 3 --signal-loss 40-50 \
    --nmea-serve 0 --realtime --rate 20 >"$out/served.jsonl" 2>"$out/served.err" &
waypost_pid=$!
pids+=("$waypost_pid")
port=""
for _ in $(seq 300); do  # the banner names the port; the replay waits for its first client
    port="$(sed -n 's|^waypost: serving NMEA 0183 on tcp://127\.0\.0\.1:\([0-9]*\) .*|\1|p' "$out/served.err")"
    [[ -n "$port" ]] && break
    kill -0 "$waypost_pid" 2>/dev/null || break
    sleep 0.1
done
if [[ -z "$port" ]]; then
    echo "run.sh: waypost --nmea-serve did not start: $(cat "$out/served.err")" >&2
    exit 1
fi
gpsd_port="$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
# Foreground (-N), its own port (-S); without -n, gpsd opens the source when gpspipe's WATCH
# arrives, so the stream (which starts with gpsd's connection) starts with a watcher listening.
gpsd -N -S "$gpsd_port" "tcp://127.0.0.1:$port" 2>"$out/gpsd.err" &
pids+=($!)
for _ in $(seq 100); do
    "$venv/bin/python" -c "import socket; socket.create_connection(('127.0.0.1', $gpsd_port)).close()" 2>/dev/null && break
    sleep 0.1
done
gpspipe -w "127.0.0.1:$gpsd_port" >"$out/tpv.json" 2>"$out/gpspipe.err" &
pids+=($!)
if ! wait "$waypost_pid"; then
    echo "run.sh: waypost --nmea-serve failed: $(cat "$out/served.err")" >&2
    exit 1
fi
# gpsd reports the last epoch when it sees it end; wait for that report (or give up after 10 s).
last="$(grep '"type":"location"' "$out/served.jsonl" | tail -1 | sed 's/.*"t":"\([^"]*\)".*/\1/')"
for _ in $(seq 100); do
    grep -q "\"time\":\"$last\"" "$out/tpv.json" && break
    sleep 0.1
done
check gpsd "$out/tpv.json" "$out/served.jsonl"
