#!/usr/bin/env bash
# `make test`'s last check, as a new user would do it: install into a temporary prefix, run the
# installed tool from an empty directory (its own route and a scenario, nothing from the checkout),
# check the completions and the man page (its sections, groff -ww without a warning), uninstall.
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
man="$prefix/share/man/man1/waypost.1"
grep -q "^\.Dt WAYPOST 1" "$man" || fail "no man page"
for section in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO"; do
  grep -q "^\.Sh \"\?$section\"\?$" "$man" || fail "the man page has no $section section"
done
# groff -ww: every warning (an empty input line, an unknown macro…) is a failure.
groff -ww -mandoc -z "$man" 2>"$work/groff.err" || fail "groff could not render the man page: $(cat "$work/groff.err")"
[[ ! -s "$work/groff.err" ]] || fail "groff warns about the man page: $(head -5 "$work/groff.err")"
! grep -qi "readme" "$man" || fail "the man page refers to the README, which is not installed: $(grep -i readme "$man" | head -3)"
for variable in WAYPOST_TWITTER_CONSUMER_KEY WAYPOST_FACEBOOK_ACCESS_TOKEN WAYPOST_LEAFLET_DIR; do
  grep -q "$variable" "$man" || fail "the man page's ENVIRONMENT lacks $variable"
done
grep -q "^\.It 73" "$man" && grep -q "^\.It 66" "$man" || fail "the man page's EXIT STATUS lacks the sysexits table"
grep -q "$prefix/share/doc/waypost" "$man" || fail "the man page does not point to the installed format docs"
cmp -s "$prefix/share/doc/waypost/regions.md" docs/formats/regions.md || fail "the format docs were not installed"
scripts/install.sh --uninstall "$prefix" >/dev/null
[[ ! -e "$prefix/bin/waypost" ]] || fail "uninstall left the binary"
[[ ! -e "$prefix/share/doc/waypost" ]] || fail "uninstall left the format docs"
if scripts/install.sh /proc/waypost-cannot-write "$config" 2>"$work/err"; then fail "an unwritable prefix was accepted"; else status=$?; fi
[[ $status -eq 73 && $(wc -l <"$work/err") -eq 1 ]] || fail "an unwritable prefix gave exit $status: $(cat "$work/err")"
echo "test-install: 1 passed, 0 failed (installed, ran a scenario from an empty directory, completions, man page rendered without warnings, format docs, uninstalled)"
