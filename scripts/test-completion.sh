#!/usr/bin/env bash
# `make test`: bash completion as a user gets it. Sources `waypost --generate-completion-script
# bash`, then drives `_waypost` as bash does (COMP_WORDS, COMP_CWORD, COMP_LINE, COMP_POINT; the
# command, current and previous words as arguments) in a folder of known files, and checks that
# every file argument and option completes to the files it takes, and only those (directories
# too, to walk into), and folder options to folders only.
#   scripts/test-completion.sh WAYPOST_BINARY
set -euo pipefail
waypost=$(realpath "${1:?usage: scripts/test-completion.sh WAYPOST_BINARY}")
work=$(mktemp -d "${TMPDIR:-/tmp}/waypost-completion.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir places
touch route.kml ride.gpx walk.kmz rules.yaml regions.json zones.geojson notes.txt runs.db out.xml
"$waypost" --generate-completion-script bash >waypost.bash

# The completions offered for the last of WORDS (the first is the command), one a line, sorted.
offered() {
  bash -c '
    source ./waypost.bash
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
    _waypost "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    printf "%s\n" "${COMPREPLY[@]}" | sort -u' _ "$@"
}
passed=0
failed=0
# expect "WORDS" "WANTED…": exactly these completions (space-separated, sorted).
expect() {
  local words=$1 want=$2 got
  # shellcheck disable=SC2086
  got=$(offered $words "" | tr '\n' ' ' | sed 's/ $//')
  if [[ "$got" == "$want" ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "test-completion: '$words ⇥' offered [$got], wanted [$want]" >&2
  fi
}
tracks="places ride.gpx route.kml walk.kmz"
configs="places regions.json rules.yaml"
every="out.xml places regions.json ride.gpx route.kml rules.yaml runs.db walk.kmz waypost.bash zones.geojson notes.txt"
every=$(tr ' ' '\n' <<<"$every" | sort | tr '\n' ' ' | sed 's/ $//')
expect "waypost replay" "$tracks"
expect "waypost export" "$tracks"
expect "waypost replay --regions" "places regions.json rules.yaml zones.geojson"
for option in --checkins --privacy --beacons --credentials; do expect "waypost replay $option" "$configs"; done
expect "waypost replay --db" "$every"
expect "waypost replay --fixtures" "places"
expect "waypost test" "$configs"
expect "waypost test --junit" "out.xml places"
expect "waypost test --db" "$every"
expect "waypost test --fixtures" "places"
expect "waypost report --output" "$every"
expect "waypost report -o" "$every"
for command in report audit "outbox list" "outbox flush" "history purge" "history retention"; do
  expect "waypost $command --db" "$every"
done
expect "waypost outbox flush --credentials" "$configs"
expect "waypost export --output" "$every"
expect "waypost emulator --fixtures" "places"
echo "test-completion: $passed passed, $failed failed (bash completion of file arguments and options)"
[[ $failed -eq 0 ]]
