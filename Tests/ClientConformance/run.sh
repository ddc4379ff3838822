#!/usr/bin/env bash
# Client conformance: real Twitter/Graph client libraries against `waypost emulator`.
#
#   Tests/ClientConformance/run.sh WAYPOST_BINARY [pytest arguments…]
#
# Creates (or reuses, while requirements.txt is unchanged) a venv at .build/client-venv (Python
# Twitter Tools apart in it, see requirements.txt), installs the Perl clients with apt-get when
# missing (scripts/install-deps.sh), starts `WAYPOST_BINARY emulator --port 0`, learns its port
# from the first banner line, runs pytest on this folder with
# WAYPOST_EMULATOR=http://127.0.0.1:PORT, stops the emulator, and exits with pytest's status.
# Works from any directory.
set -euo pipefail

if [[ $# -lt 1 ]]; then
    echo "usage: $0 WAYPOST_BINARY [pytest arguments…]" >&2
    exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
binary="$1"
shift
[[ "$binary" == /* ]] || binary="$PWD/$binary"
if [[ ! -x "$binary" ]]; then
    echo "run.sh: $binary is not an executable waypost binary" >&2
    exit 2
fi

# ---- the venv, rebuilt when requirements.txt (or the Python) changes ----
mkdir -p "$here/../../.build"
venv="$(cd "$here/../../.build" && pwd)/client-venv"
python="${PYTHON:-python3}"
if ! command -v "$python" >/dev/null; then
    echo "run.sh: $python not found; set PYTHON to a Python 3.9+ interpreter" >&2
    exit 3
fi
# Debian's python3 needs python3-venv for `-m venv` (ensurepip); install it like the C libraries.
if ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
    "$repo/scripts/install-deps.sh" python3-venv
fi
stamp="$venv/.requirements-stamp"
wanted="$(cat "$here/requirements.txt" <("$python" -c 'import sys; print(sys.version)') | sha256sum | cut -d' ' -f1)"
if [[ ! -x "$venv/bin/python" || ! -f "$stamp" || "$(cat "$stamp")" != "$wanted" ]]; then
    echo "run.sh: installing client libraries into $venv"
    rm -rf "$venv"
    if ! "$python" -m venv "$venv"; then
        echo "run.sh: FAILED to create the venv at $venv; no tests were run" >&2
        exit 3
    fi
    # Lines after the twitter-tools marker go to a folder of their own (see requirements.txt).
    marker='^# --- twitter-tools ---$'
    if ! "$venv/bin/python" -m pip install --disable-pip-version-check --quiet \
        -r <(sed "/$marker/,\$d" "$here/requirements.txt") \
        || ! "$venv/bin/python" -m pip install --disable-pip-version-check --quiet --no-deps \
            --target "$venv/twitter-tools" -r <(sed -n "/$marker/,\$p" "$here/requirements.txt"); then
        echo "run.sh: FAILED to install $here/requirements.txt (see pip's output above); no tests were run" >&2
        rm -f "$stamp"
        exit 3
    fi
    echo "$wanted" >"$stamp"
fi

# ---- the Perl clients: Debian's Net::Twitter::Lite and Net::Twitter, installed like the C libraries ----
# Where there is no apt-get, install-deps.sh says what is missing and test_perl_clients.py skips
# with a note; in CI (CI=true) a client that cannot be installed fails the run.
perl_packages=(perl libnet-twitter-lite-perl libnet-twitter-perl)
if ! "$repo/scripts/install-deps.sh" "${perl_packages[@]}"; then
    echo "run.sh: could not install ${perl_packages[*]}" >&2
    case "${CI:-}" in "" | 0 | false) ;; *) exit 3 ;; esac
fi

# ---- the emulator ----
logdir="$(mktemp -d "${TMPDIR:-/tmp}/waypost-conformance.XXXXXX")"
emulator_pid=""
cleanup() {
    if [[ -n "$emulator_pid" ]] && kill -0 "$emulator_pid" 2>/dev/null; then
        kill -TERM "$emulator_pid" 2>/dev/null || true
        for _ in $(seq 50); do
            kill -0 "$emulator_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$emulator_pid" 2>/dev/null || true
        wait "$emulator_pid" 2>/dev/null || true
    fi
    rm -rf "$logdir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# From the checkout's root, so the emulator's default --fixtures (fixtures/places) resolves.
(cd "$repo" && exec "$binary" emulator --port 0) >"$logdir/stdout" 2>"$logdir/stderr" &
emulator_pid=$!

base=""
for _ in $(seq 300); do  # up to 30 s
    line="$(head -n 1 "$logdir/stdout" 2>/dev/null || true)"
    if [[ "$line" =~ ^Waypost\ emulator\ listening\ on\ (http://[^/[:space:]]+)/ ]]; then
        base="${BASH_REMATCH[1]}"
        break
    fi
    if ! kill -0 "$emulator_pid" 2>/dev/null; then
        echo "run.sh: the emulator exited before listening:" >&2
        cat "$logdir/stdout" "$logdir/stderr" >&2
        exit 4
    fi
    sleep 0.1
done
if [[ -z "$base" ]]; then
    echo "run.sh: no 'Waypost emulator listening on http://…/' line from the emulator within 30 s:" >&2
    cat "$logdir/stdout" "$logdir/stderr" >&2
    exit 4
fi
echo "run.sh: emulator at $base (pid $emulator_pid)"

export WAYPOST_EMULATOR="$base"
export WAYPOST_BINARY="$binary"
export WAYPOST_FIXTURES="$repo/fixtures/places"
export PYTHONDONTWRITEBYTECODE=1
export WAYPOST_TWITTER_TOOLS="$venv/twitter-tools"
status=0
(cd "$here" && "$venv/bin/python" -m pytest -c "$here/pytest.ini" "$@") || status=$?
if [[ -s "$logdir/stderr" ]]; then
    echo "run.sh: emulator stderr (last 20 lines):"
    tail -n 20 "$logdir/stderr"
fi
exit "$status"
