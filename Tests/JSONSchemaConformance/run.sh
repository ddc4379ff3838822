#!/usr/bin/env bash
# JSON Schema conformance: `waypost compare --format json` against the committed schema
# (docs/schemas/compare.schema.json), with the PyPI jsonschema package (Draft 2020-12) in a venv
# at .build/jsonschema-venv (rebuilt when requirements.txt or the Python changes).
#
#   Tests/JSONSchemaConformance/run.sh WAYPOST_BINARY
#
# Compares replays of the scenario's device (field realism, resting as the scenario's device does)
# with fixtures/scenarios/field-cafe-checkin.yaml: one that passes, one whose first café entry comes
# half an hour late, one without that entry, one with an event no trial produces and one aligned by
# --start, so every status (observed, unpredicted, missed) and verdict occurs. The schema is first checked as a
# schema and shown a document it must refuse, so a check that cannot fail is caught.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
binary=${1:?usage: Tests/JSONSchemaConformance/run.sh WAYPOST_BINARY}
[[ "$binary" == /* ]] || binary="$PWD/$binary"
cd "$repo"
source "$repo/scripts/python-venv.sh"
python_venv "$repo/.build/jsonschema-venv" "$here/requirements.txt" "jsonschema"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "json schemas: FAILED: $*" >&2; exit 1; }

scenario=fixtures/scenarios/field-cafe-checkin.yaml
"$binary" replay tracks/sunnyvale-commute.kml --regions fixtures/regions/commute-cafes.yaml --realism field \
  --rest 840 --seed 5 --format jsonl >"$work/phone.jsonl"
"$venv/bin/python" - "$work" <<'PY'
import json, sys, datetime
work = sys.argv[1]
lines = open(f"{work}/phone.jsonl").read().splitlines()
def shifted(line, seconds):
    event = json.loads(line)
    t = datetime.datetime.strptime(event["t"], "%Y-%m-%dT%H:%M:%S.%fZ") + datetime.timedelta(seconds=seconds)
    event["t"] = t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"
    return json.dumps(event, separators=(",", ":"))
late = list(lines)
i = next(i for i, l in enumerate(late) if '"regionEnter"' in l and '"sunnyvale-coffee-roasters"' in l)
late[i] = shifted(late[i], 1800)
open(f"{work}/late.jsonl", "w").write("\n".join(late) + "\n")
open(f"{work}/missing.jsonl", "w").write("\n".join(l for j, l in enumerate(lines) if j != i) + "\n")
odd = list(lines)
odd.append(shifted(json.dumps({"t": json.loads(lines[-1])["t"], "type": "regionExit", "region": "sunnyvale-coffee-roasters"}), 1))
open(f"{work}/unpredicted.jsonl", "w").write("\n".join(odd) + "\n")
PY
"$binary" compare "$work/phone.jsonl" "$scenario" --format json >"$work/pass.json" || fail "the replay at seed 5 did not pass"
status=0; "$binary" compare "$work/late.jsonl" "$scenario" --format json >"$work/late.json" || status=$?
[[ $status == 1 ]] || fail "the half-hour-late log exited $status, not 1"
status=0; "$binary" compare "$work/missing.jsonl" "$scenario" --format json >"$work/missing.json" || status=$?
[[ $status == 0 || $status == 1 ]] || fail "the log without the first café's entry exited $status"
status=0; "$binary" compare "$work/unpredicted.jsonl" "$scenario" --format json >"$work/unpredicted.json" || status=$?
[[ $status == 1 ]] || fail "the log with an unpredicted event exited $status, not 1"
status=0; "$binary" compare "$work/phone.jsonl" "$scenario" --format json --start 2025-06-03T15:09:00Z \
  --trials 12 >"$work/start.json" || status=$?
[[ $status == 0 || $status == 1 ]] || fail "the --start comparison exited $status"

"$venv/bin/python" - "$repo/docs/schemas/compare.schema.json" "$work" <<'PY'
import json, sys, copy
from jsonschema import Draft202012Validator
schema = json.load(open(sys.argv[1]))
Draft202012Validator.check_schema(schema)
validator = Draft202012Validator(schema)
work = sys.argv[2]
documents = {
    name: json.load(open(f"{work}/{name}.json")) for name in ["pass", "late", "missing", "unpredicted", "start"]
}
statuses = {e["status"] for d in documents.values() for e in d["events"]}
verdicts = {e["verdict"] for d in documents.values() for e in d["events"]}
if statuses != {"observed", "unpredicted", "missed"} or verdicts != {"within", "outside"}:
    sys.exit(f"json schemas: FAILED: the documents lack a status or verdict: {statuses} {verdicts}")
broken = copy.deepcopy(documents["late"])
broken["events"][0]["verdict"] = "maybe"
if not list(validator.iter_errors(broken)):
    sys.exit("json schemas: FAILED: the schema accepted a verdict 'maybe': the check cannot fail")
for name, document in documents.items():
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        sys.exit(f"json schemas: FAILED: compare {name}: {'/'.join(map(str, e.absolute_path))}: {e.message}")
print(f"json schemas: {len(documents)} compare documents valid against docs/schemas/compare.schema.json "
      "(Draft 2020-12), and the schema refused a broken one")
PY
