#!/usr/bin/env bash
# The public API, module by module: every public declaration of Waypost's library modules, one
# line each (kind, path, declaration), from the compiler's symbol graphs. `make test` compares it
# with api/public-api.txt, so a change to what a library user sees is a deliberate one:
# `scripts/public-api.sh --update` (or `make api-update`) records it. What only Waypost's own
# modules use is `package`, and is not listed.
#
# Usage: scripts/public-api.sh [--update] [BIN_PATH]
set -euo pipefail
cd "$(dirname "$0")/.."
update=false
if [[ ${1:-} == --update ]]; then update=true; shift; fi
bin=${1:-$(swift build --show-bin-path)}
[[ -d "$bin/Modules" ]] || { echo "public-api: build the package first ($bin/Modules is missing)" >&2; exit 66; }
modules=(WaypostSupport Geo SimulatedTime ConfigFiles Tracks LocationEvents LocationSimulation WorldFiles SocialAPI
  SocialEmulator Store CheckinEngine Runs RunReports Scenarios)
command -v python3 > /dev/null || scripts/install-deps.sh python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source scripts/swift-module-flags.sh
swift_module_flags "$bin"
for module in "${modules[@]}"; do
  swift-symbolgraph-extract -module-name "$module" "${module_flags[@]}" \
    -minimum-access-level public -skip-inherited-docs -output-dir "$work" >/dev/null
done
python3 - "$work" "${modules[@]}" > "$work/public-api.txt" <<'PY'
import json, sys, os
work, modules = sys.argv[1], sys.argv[2:]
lines = []
for module in modules:
    path = os.path.join(work, f"{module}.symbols.json")
    graph = json.load(open(path))
    for symbol in graph["symbols"]:
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        declaration = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
        kind = symbol["kind"]["identifier"].removeprefix("swift.")
        lines.append(f"{module}\t{kind}\t{'.'.join(symbol['pathComponents'])}\t{' '.join(declaration.split())}")
print("\n".join(sorted(set(lines))))
PY
if $update; then
  cp "$work/public-api.txt" api/public-api.txt
  echo "public-api: recorded $(wc -l < api/public-api.txt) public declarations in api/public-api.txt"
elif ! diff -u api/public-api.txt "$work/public-api.txt" > "$work/diff"; then
  head -40 "$work/diff" >&2
  echo "public-api: the public API changed ($(grep -c '^[-+][^-+]' "$work/diff") lines above); if that is meant, run scripts/public-api.sh --update" >&2
  exit 1
else
  echo "public-api: $(wc -l < api/public-api.txt) public declarations, as recorded"
fi
