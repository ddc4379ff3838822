#!/usr/bin/env bash
# Type-checks the Apple-platform code of LocationSimulation (`#if canImport(CoreLocation)`:
# Seam/CoreLocationAdapters.swift) on Linux, against Tests/AppleAdapters/CoreLocationShim.swift,
# a module declaring exactly the Core Location API the adapters use with Apple's signatures.
# The shim is compiled into a temporary folder, never the build folder: a CoreLocation module
# there would turn `canImport(CoreLocation)` on for every target of the package.
#
# Usage: scripts/typecheck-apple-adapters.sh [BIN_PATH]   (default: `swift build --show-bin-path`;
# the package must be built there). Exit 0 when the adapters type-check, and a drifted adapter
# (the check's own control) does not.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFTC=${SWIFTC:-swiftc}
bin=${1:-$(swift build --show-bin-path)}
[[ -d "$bin/Modules" ]] || { echo "typecheck-apple-adapters: build the package first ($bin/Modules is missing)" >&2; exit 66; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$SWIFTC" -emit-module -module-name CoreLocation -enable-library-evolution -suppress-warnings -parse-as-library \
  Tests/AppleAdapters/CoreLocationShim.swift -emit-module-path "$work/shim/CoreLocation.swiftmodule"

source scripts/swift-module-flags.sh
swift_module_flags "$bin"
# `package` declarations need the package's name: SwiftPM's identity of the root package, its
# folder's name in lower case.
flags=(-typecheck -swift-version 6 -warnings-as-errors -module-name LocationSimulation
  -package-name "$(basename "$PWD" | tr '[:upper:]' '[:lower:]')" -I "$work/shim" "${module_flags[@]}")

# Guard: the shim is seen, so the adapters are really compiled (not skipped by their #if).
cat > "$work/SeesCoreLocation.swift" <<'EOF'
#if !canImport(CoreLocation)
    #error("the Core Location shim is not on the search path: the adapters would not be checked")
#endif
EOF
mapfile -t sources < <(find Sources/LocationSimulation -name '*.swift' | sort)
"$SWIFTC" "${flags[@]}" "${sources[@]}" "$work/SeesCoreLocation.swift"

# Control: the adapters with one of Waypost's types used wrongly (a Double where an instant
# belongs, the drift issue 44 found) must fail, or the check proves nothing.
mkdir -p "$work/drifted"
for source in "${sources[@]}"; do
  target="$work/drifted/$(echo "$source" | tr / _)"
  if [[ $source == */CoreLocationAdapters.swift ]]; then
    sed 's/TimedEvent(time: WallClock().now,/TimedEvent(time: 0.5,/' "$source" > "$target"
    grep -q 'TimedEvent(time: 0.5,' "$target" || { echo "typecheck-apple-adapters: the control's edit no longer applies" >&2; exit 70; }
  else
    cp "$source" "$target"
  fi
done
if "$SWIFTC" "${flags[@]}" "$work"/drifted/*.swift "$work/SeesCoreLocation.swift" > "$work/control.log" 2>&1 ||
  ! grep -q "CoreLocationAdapters.swift:.*error: .*'EpochInstant'" "$work/control.log"; then
  cat "$work/control.log" >&2
  echo "typecheck-apple-adapters: the drifted adapter did not fail on its drift: the shim checks nothing" >&2
  exit 70
fi
echo "Apple-platform adapters type-check against the Core Location shim (and a drifted one does not)"
