#!/usr/bin/env bash
# `make test`: the HTML report in a real browser (Debian's chromium, headless). It must render the
# map with its privacy zone, the slider must move through the run (#t=SECONDS), and the page must
# log no errors — checked against a page that does throw, so the check itself is known to work.
# Without chromium and apt-get (a developer's Mac) it says so and skips; CI (CI set) requires it.
set -euo pipefail
cd "$(dirname "$0")/.."
waypost=$1
scripts/install-deps.sh chromium
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    [ -n "${CI:-}" ] && { echo "report in browser: chromium is missing" >&2; exit 1; }
    echo "note: the report's browser test was skipped: no chromium here"
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$waypost" test fixtures/scenarios/privacy-zone-home.yaml --db "$work/run.db" > /dev/null
"$waypost" report privacy-zone-home --db "$work/run.db" --format html --output "$work/run.html"

# Loads a page (headless, no network) and prints its DOM after the scripts ran; the browser's
# log, console messages included, goes to $work/$2.log.
load() {
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --enable-logging=stderr --v=0 \
        --virtual-time-budget=3000 --dump-dom "$1" 2> "$work/$2.log"
}
# A console error or an uncaught exception, as chromium logs them.
page_errors() { grep -E 'CONSOLE\(|Uncaught' "$work/$1.log" || true; }

fail() { echo "report in browser: $*" >&2; exit 1; }

printf '<!DOCTYPE html><title>x</title><script>throw new Error("on purpose")</script>' > "$work/broken.html"
load "file://$work/broken.html" broken > /dev/null
[ -n "$(page_errors broken)" ] || fail "a page that throws was not caught: the error check does not work here"

load "file://$work/run.html" end > "$work/end.html"
load "file://$work/run.html#t=0" start > "$work/start.html"
for state in end start; do
    [ -z "$(page_errors $state)" ] || fail "the page logged errors ($state): $(page_errors $state)"
    grep -q '<svg' "$work/$state.html" || fail "no map rendered ($state)"
    grep -q 'class="privacy-zone"' "$work/$state.html" || fail "no privacy zone drawn ($state)"
done
hidden_end=$( (grep -o 'display: none' "$work/end.html" || true) | wc -l)
hidden_start=$( (grep -o 'display: none' "$work/start.html" || true) | wc -l)
[ "$hidden_end" -eq 0 ] || fail "at the end of the run $hidden_end items are hidden"
[ "$hidden_start" -gt 0 ] || fail "at +0:00 nothing is hidden: the slider did not move"
grep -q '<output id="clock">+0:00</output>' "$work/start.html" || fail "the clock does not say +0:00 at #t=0"
echo "report in browser: renders, slider moves (#t=0 hides $hidden_start items), no page errors"
