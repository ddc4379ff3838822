#!/usr/bin/env bash
# Compiles every Swift example of the README, docs/ and the DocC articles against the built
# modules, so an API change breaks `make test`, not the reader who copies the example. Each
# ```swift block is type-checked on its own: statements inside an async throwing function, a
# block with top-level declarations (a `@Test`, a type) as a file; both after a prelude that
# imports the library modules and names what examples take as given (a route, a café, a
# delegate). A block that starts with `// Package.swift` is a manifest and is left to
# Examples/LibraryQuickstart, which `make test` builds.
#
# Usage: scripts/check-doc-examples.sh [BIN_PATH]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-$(swift build --show-bin-path)}
[[ -d "$bin/Modules" ]] || { echo "check-doc-examples: build the package first ($bin/Modules is missing)" >&2; exit 66; }
SWIFTC=${SWIFTC:-swiftc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source scripts/swift-module-flags.sh
swift_module_flags "$bin"

cat > "$work/Prelude.swift" <<'SWIFT'
@_exported import Foundation
@_exported import Geo
@_exported import LocationEvents
@_exported import LocationSimulation
@_exported import SimulatedTime
@_exported import Tracks
@_exported import WorldFiles

// What the examples take as given.
public let url = URL(fileURLWithPath: "tracks/sunnyvale-commute.kml")
public let walkURL = URL(fileURLWithPath: "tracks/cupertino-walk.kml")
public let route = RouteTimeline([])
public let timeline = route
public let cafe = Coordinate(latitude: 37.3236, longitude: -122.0315)
public let start = EpochInstant(secondsSince1970: 1_748_937_600)
public final class ExampleApp: SimulatedLocationManagerDelegate {}
nonisolated(unsafe) public let app = ExampleApp()
SWIFT
"$SWIFTC" -emit-module -parse-as-library -module-name ExamplePrelude -swift-version 6 "${module_flags[@]}" "$work/Prelude.swift" -emit-module-path "$work/ExamplePrelude.swiftmodule" \
  -Xfrontend -disable-availability-checking

count=0
failed=0
for doc in README.md docs/*.md docs/*/*.md Sources/*/*.docc/*.md; do
  # Each block as FILE:LINE followed by its lines, blocks separated by a NUL.
  while IFS= read -r -d '' block; do
    where=${block%%$'\n'*}
    body=${block#*$'\n'}
    [[ $body == "// Package.swift"* ]] && continue
    count=$((count + 1))
    file="$work/example$count.swift"
    {
      echo "import ExamplePrelude"
      if grep -qE '^(@Test|@main|(final )?class |struct |enum |func |import )' <<< "$body"; then
        grep -q '^import Testing' <<< "$body" || grep -q '@Test' <<< "$body" && echo "import Testing"
        grep -v '^import ' <<< "$body"
      else
        echo "func example() async throws {"
        echo "$body"
        echo "}"
      fi
    } > "$file"
    if ! "$SWIFTC" -typecheck -parse-as-library -swift-version 6 -I "$work" "${module_flags[@]}" \
      -suppress-warnings "$file" > "$work/log$count" 2>&1; then
      echo "check-doc-examples: the example at $where does not compile:" >&2
      grep -E 'error:' "$work/log$count" | sed "s|$file|$where (example)|" | head -5 >&2
      failed=$((failed + 1))
    fi
  done < <(awk -v doc="$doc" '
    /^```swift[[:space:]]*$/ { inside = 1; printf "%s:%d\n", doc, NR + 1; next }
    /^```/ && inside { inside = 0; printf "%c", 0; next }
    inside { print }' "$doc")
done
# Control: an example using the library wrongly must fail here, or the check proves nothing.
printf 'import ExamplePrelude\nfunc example() async throws {\n    let _: EpochInstant = 1_748_960_000\n}\n' > "$work/control.swift"
if "$SWIFTC" -typecheck -parse-as-library -swift-version 6 -I "$work" "${module_flags[@]}" \
  "$work/control.swift" > /dev/null 2>&1; then
  echo "check-doc-examples: a wrong example compiled: the check proves nothing" >&2
  exit 70
fi
if ((count < 5)); then
  echo "check-doc-examples: only $count examples found: the extraction is broken" >&2
  exit 70
fi
if ((failed > 0)); then
  echo "check-doc-examples: $failed of $count examples do not compile" >&2
  exit 1
fi
echo "check-doc-examples: all $count Swift examples of the README, docs/ and the DocC articles compile"
