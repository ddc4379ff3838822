#!/usr/bin/env bash
# The golden check `make test` runs: the outputs of the shipped tracks and scenarios, recorded by
# scripts/golden.sh (without the corpus), compared with the SHA-256 of each committed in
# fixtures/golden/outputs.sha256. A deliberate change of output is recorded with
# `make golden-update`, and the changed files show in that commit's diff of the list.
#
#   scripts/golden-check.sh WAYPOST            # compare; exit 1 naming each file that differs
#   scripts/golden-check.sh --update WAYPOST   # record the list anew
set -euo pipefail
cd "$(dirname "$0")/.."
update=false
if [[ ${1:-} == --update ]]; then update=true; shift; fi
waypost=$(realpath "$1")
list=fixtures/golden/outputs.sha256
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
GOLDEN_CORPUS=0 scripts/golden.sh "$waypost" "$out/outputs" >/dev/null
(cd "$out/outputs" && find . -type f | sort | xargs sha256sum) >"$out/actual.sha256"
if $update; then
  mkdir -p "$(dirname "$list")"
  cp "$out/actual.sha256" "$list"
  echo "golden: recorded $(wc -l <"$list") outputs in $list"
  exit 0
fi
if ! diff -q "$list" "$out/actual.sha256" >/dev/null; then
  echo "golden: outputs differ from $list (a deliberate change: make golden-update, and say why in the commit):" >&2
  diff <(sed 's/^[0-9a-f]*  //' "$list") <(sed 's/^[0-9a-f]*  //' "$out/actual.sha256") | sed -n 's/^[<>] /  missing or new: /p' >&2 || true
  join -j 2 <(sort -k2 "$list") <(sort -k2 "$out/actual.sha256") | awk '$2 != $3 { print "  changed: " $1 }' >&2
  exit 1
fi
echo "golden: $(wc -l <"$list") outputs identical to $list"
