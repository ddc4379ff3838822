# Sourced by the conformance scripts: `python_venv DIR REQUIREMENTS WHAT` makes (or reuses) a
# virtual environment at DIR with REQUIREMENTS installed, rebuilt when the requirements or the
# Python change, and sets $venv to it. Installs python3-venv like the C libraries when missing.
python_venv() {
    local dir=$1 requirements=$2 what=$3
    local repo python stamp wanted
    repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    python="${PYTHON:-python3}"
    if ! command -v "$python" >/dev/null; then
        echo "run.sh: $python not found; set PYTHON to a Python 3.9+ interpreter" >&2
        exit 3
    fi
    # Debian's python3 needs python3-venv for `-m venv` (ensurepip).
    if ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
        "$repo/scripts/install-deps.sh" python3-venv
    fi
    mkdir -p "$(dirname "$dir")"
    stamp="$dir/.requirements-stamp"
    wanted="$(cat "$requirements" <("$python" -c 'import sys; print(sys.version)') | sha256sum | cut -d' ' -f1)"
    if [[ ! -x "$dir/bin/python" || ! -f "$stamp" || "$(cat "$stamp")" != "$wanted" ]]; then
        echo "run.sh: installing $what into $dir"
        rm -rf "$dir"
        "$python" -m venv "$dir" || { echo "run.sh: FAILED to create the venv at $dir" >&2; exit 3; }
        if ! "$dir/bin/python" -m pip install --disable-pip-version-check --quiet -r "$requirements"; then
            echo "run.sh: FAILED to install $requirements (see pip's output above)" >&2
            exit 3
        fi
        echo "$wanted" >"$stamp"
    fi
    venv=$dir
}
