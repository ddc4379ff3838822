#!/usr/bin/env bash
# Installs (or with --uninstall removes) waypost under PREFIX: the binary, shell completions for
# bash, zsh and fish (argument-parser's generator), a man page (argument-parser's generate-manual
# plugin, completed by scripts/finish-manual.py with docs/man/sections.mdoc) and the file-format
# docs it points to (share/doc/waypost: what `waypost help <topic>` prints).
#   scripts/install.sh PREFIX [release|debug]      scripts/install.sh --uninstall PREFIX
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}

files() {  # what an install puts under $1
  echo "$1/bin/waypost"
  echo "$1/share/bash-completion/completions/waypost"
  echo "$1/share/zsh/site-functions/_waypost"
  echo "$1/share/fish/vendor_completions.d/waypost.fish"
  echo "$1/share/man/man1/waypost.1"
  for doc in $docs; do echo "$1/share/doc/waypost/$(basename "$doc")"; done
}
docs="docs/formats/regions.md docs/formats/beacons.md docs/formats/rules.md docs/formats/privacy.md docs/scenarios.md"

if [[ "${1:-}" == "--uninstall" ]]; then
  prefix=${2:?usage: scripts/install.sh --uninstall PREFIX}
  files "$prefix" | while read -r f; do rm -f "$f"; done
  rmdir "$prefix/share/doc/waypost" 2>/dev/null || true
  echo "waypost: removed from $prefix"
  exit 0
fi

prefix=${1:?usage: scripts/install.sh PREFIX [release|debug]}
config=${2:-release}
case "$config" in release|debug) ;; *) echo "waypost: install: CONFIG is release or debug, not '$config'" >&2; exit 64 ;; esac
# Refuse before building: a prefix we cannot write to is one line and EX_CANTCREAT.
for dir in bin share/bash-completion/completions share/zsh/site-functions share/fish/vendor_completions.d share/man/man1 share/doc/waypost; do
  if ! mkdir -p "$prefix/$dir" 2>/dev/null || [[ ! -w "$prefix/$dir" ]]; then
    echo "waypost: install: cannot write to $prefix/$dir (choose a PREFIX you own, e.g. PREFIX=\$HOME/.local)" >&2
    exit 73
  fi
done

"$swift" build -c "$config" --product waypost
bin="$("$swift" build -c "$config" --show-bin-path)/waypost"
manual=.build/manual
rm -rf "$manual" && mkdir -p "$manual"
"$swift" package --allow-writing-to-directory "$manual" generate-manual --configuration "$config" \
  --output-directory "$manual" >/dev/null

install -m 0755 "$bin" "$prefix/bin/waypost"
"$bin" --generate-completion-script bash >"$prefix/share/bash-completion/completions/waypost"
"$bin" --generate-completion-script zsh >"$prefix/share/zsh/site-functions/_waypost"
"$bin" --generate-completion-script fish >"$prefix/share/fish/vendor_completions.d/waypost.fish"
# EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES and SEE ALSO, with this prefix's paths.
scripts/finish-manual.py "$manual/waypost.1" docs/man/sections.mdoc "$prefix" >"$manual/waypost.finished.1"
install -m 0644 "$manual/waypost.finished.1" "$prefix/share/man/man1/waypost.1"
for doc in $docs; do install -m 0644 "$doc" "$prefix/share/doc/waypost/$(basename "$doc")"; done
echo "waypost: installed in $prefix (binary, completions for bash, zsh and fish, man page, format docs)"
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "waypost: add $prefix/bin to PATH to run it by name" ;; esac
