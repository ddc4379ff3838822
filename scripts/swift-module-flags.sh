# Sourced by the scripts that compile against the package's built modules outside SwiftPM
# (typecheck-apple-adapters.sh, public-api.sh, check-doc-examples.sh).
#
# swift_module_flags BIN_PATH: sets the array `module_flags` to what the compiler needs to load
# them — the built Swift modules, every C module map (the package's, its dependencies', and
# those SwiftPM generated into BIN_PATH) and libxml2's headers.
swift_module_flags() {
  local bin=$1 map
  module_flags=(-I "$bin/Modules" -Xcc -I/usr/include/libxml2)
  while IFS= read -r map; do module_flags+=(-Xcc "-fmodule-map-file=$map"); done < <(
    { find Sources .build/checkouts/*/Sources -maxdepth 3 -name module.modulemap
      find "$bin" -maxdepth 2 -name module.modulemap; } 2>/dev/null | sort)
}
