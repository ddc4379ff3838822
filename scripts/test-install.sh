#!/usr/bin/env bash
# `make test`'s last check, as a new user would do it: install into a temporary prefix, run the
# installed tool from an empty directory (its own route and a scenario, nothing from the checkout),
# check the completions and man page, uninstall.
set -euo pipefail
cd "$(dirname "$0")/.."
config=${1:-debug}
work=$(mktemp -d "${TMPDIR:-/tmp}/waypost-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
scripts/install.sh "$prefix" "$config" >/dev/null

mkdir -p "$work/project/routes"
cp tracks/sunnyvale-commute.kml "$work/project/routes/commute.kml"
cat >"$work/project/cafe.yaml" <<'YAML'
name: installed-cafe
device: { route: routes/commute.kml }
regions:
  - { identifier: roasters, latitude: 37.37700, longitude: -122.03050, radius: 150 }
privacy: { optIn: true, disclosureAcknowledged: true, consent: auto, precision: place }
rules:
  - { id: cafe, on: regionEnter, networks: [twitter, facebook], message: "At {place}" }
expect:
  - { post: any, decision: posted, place: Sunnyvale Coffee Roasters, count: 2 }
YAML
fail() { echo "test-install: FAILED: $*" >&2; exit 1; }
(cd "$work/project" && PATH="$prefix/bin:$PATH" waypost test cafe.yaml) || fail "the installed waypost could not run a scenario from $work/project"
grep -q "complete -o filenames -F _waypost waypost" "$prefix/share/bash-completion/completions/waypost" || fail "no bash completion"
grep -q "#compdef waypost" "$prefix/share/zsh/site-functions/_waypost" || fail "no zsh completion"
grep -q "complete -c 'waypost'" "$prefix/share/fish/vendor_completions.d/waypost.fish" || fail "no fish completion"
grep -q "^\.Dt WAYPOST 1" "$prefix/share/man/man1/waypost.1" || fail "no man page"
scripts/install.sh --uninstall "$prefix" >/dev/null
[[ ! -e "$prefix/bin/waypost" ]] || fail "uninstall left the binary"
if scripts/install.sh /proc/waypost-cannot-write "$config" 2>"$work/err"; then fail "an unwritable prefix was accepted"; else status=$?; fi
[[ $status -eq 73 && $(wc -l <"$work/err") -eq 1 ]] || fail "an unwritable prefix gave exit $status: $(cat "$work/err")"
echo "test-install: 1 passed, 0 failed (installed, ran a scenario from an empty directory, completions, man page, uninstalled)"
