#!/usr/bin/env bash
# `make test`: shards on a real scheduler (issue 42). Installs Slurm and MUNGE when missing
# (scripts/install-deps.sh) and runs them on this machine as a one-node cluster — munged with its
# own key and socket, slurmctld, slurmd; slurm.conf, state, spool and logs in a temporary folder,
# on free ports — then submits the sbatch script of docs/scenarios.md, its own text with only
# `--trials` lowered, from a folder laid out as it expects (scenarios/, results/, logs/): four array
# tasks, each `waypost test … -o results/shard-N.json` without `--shard`, so each reads its shard
# from SLURM_ARRAY_TASK_*. The docs' merge line then merges the four files, and its report as JSON
# must be byte-identical to one process's. A stepped array (--array=0-6:2) must exit 64 in every
# task. Every daemon it started is stopped at the end, failure or not, and the folder removed.
# Where Slurm cannot be installed or started (not root, no apt-get, no daemons) it prints one note
# and passes — unless CI=true or WAYPOST_REQUIRE_CORPUS=1 (CI), where that is a failure.
#   scripts/test-slurm.sh WAYPOST_BINARY
set -euo pipefail
waypost=$(realpath "${1:?usage: scripts/test-slurm.sh WAYPOST_BINARY}")
repo=$(cd "$(dirname "$0")/.." && pwd)
trials=40                        # the docs say 1000: the same script, in seconds rather than minutes
scenario=field-cafe-checkin.yaml # the shipped scenario with trials (realism: field)

# Nothing of a Slurm job or Kubernetes pod this runs inside reaches the arrays or the one process.
unset "${!SLURM_@}" "${!SBATCH_@}" JOB_COMPLETION_INDEX JOB_COMPLETIONS

required=false
if [ "${CI:-}" = "true" ] || [ "${WAYPOST_REQUIRE_CORPUS:-}" = "1" ]; then required=true; fi
# Slurm is not here and cannot be had: a note where it is optional, a failure where it is required.
skip() {
  if $required; then
    echo "test-slurm: $1 (required here: CI=true or WAYPOST_REQUIRE_CORPUS=1)" >&2
    exit 1
  fi
  echo "note: the Slurm test was skipped: $1 (CI runs it)"
  exit 0
}

# The sbatch script and the merge line of docs/scenarios.md, as a user copies them.
docs=$repo/docs/scenarios.md
doc_script=$(awk '/^A Slurm job array/ { found = 1 } found && /^```bash$/ { inside = 1; next }
  inside && /^```$/ { exit } inside' "$docs")
merge_line=$(sed -n 's/^# then: //p' <<<"$doc_script")
# shellcheck disable=SC2016 # the script's own text, variables unexpanded
for want in '#!/bin/bash' '#SBATCH --array=0-3' '--trials 1000' '-o "results/shard-${SLURM_ARRAY_TASK_ID}.json"'; do
  if [[ "$doc_script" != *"$want"* ]]; then
    echo "test-slurm: the sbatch script of $docs no longer has '$want': update this test with it" >&2
    exit 1
  fi
done
# shellcheck disable=SC2016 # backquotes of Markdown
grep -q '^A Slurm job array (`mkdir -p logs results && sbatch trials.sbatch`' "$docs" ||
  { echo "test-slurm: $docs no longer says to make logs/ and results/ before sbatch, as this test does" >&2; exit 1; }
[[ "$merge_line" == "waypost test --merge results/shard-"* ]] ||
  { echo "test-slurm: no '# then: waypost test --merge …' line in the sbatch script of $docs" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "starting slurmd and munged needs root"
daemons=(munged mungekey slurmctld slurmd sbatch sinfo scontrol scancel)
missing=false
for tool in "${daemons[@]}"; do command -v "$tool" >/dev/null 2>&1 || missing=true; done
if $missing; then
  "$repo/scripts/install-deps.sh" slurm-wlm munge || skip "could not install slurm-wlm and munge"
  for tool in "${daemons[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || skip "no $tool: slurm-wlm and munge could not be installed"
  done
fi

# What a run killed outright (SIGKILL, no trap) left: its daemons (those of pids whose command line
# names its folder), then the folder. A folder whose run is still going is left alone.
for old in "${TMPDIR:-/tmp}"/waypost-slurm.*/; do
  [ -d "$old" ] || continue
  if [ -f "$old/owner" ] && kill -0 "$(cat "$old/owner")" 2>/dev/null; then continue; fi
  while read -r pid; do
    if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$old"; then kill -KILL "$pid" 2>/dev/null || true; fi
  done < <(cat "$old/pids" 2>/dev/null)
  rm -rf "$old"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/waypost-slurm.XXXXXX")
echo $$ >"$work/owner"
pids=()
# start COMMAND…: in the background, a daemon this run stops.
start() {
  "$@" &
  pids+=($!)
  echo $! >>"$work/pids"
}
# Cancels what is still queued or running on this cluster (its own: SLURM_CONF), stops every
# daemon this run started (TERM, then KILL after 10 s), removes the folder.
cleanup() {
  local status=$? pid i _
  trap - EXIT INT TERM
  if [ ${#pids[@]} -ge 2 ] && [ -n "$(squeue -h -o %i 2>/dev/null)" ]; then
    scancel --partition=trials >/dev/null 2>&1 || true
    for _ in $(seq 50); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.2; done
  fi
  # slurmd first, so that no step outlives it, then slurmctld, then munged.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The daemons' logs and the tasks' output, for a failure.
logs() {
  local log
  for log in "$work"/log/* "$work"/run/logs/*; do
    [ -f "$log" ] || continue
    [[ "$log" == *.out && -s "${log%.out}.log" ]] && continue # the same lines, from -D
    echo "--- $log (last 40 lines)" >&2
    tail -n 40 "$log" >&2
  done
}
fail() {
  echo "test-slurm: $1" >&2
  logs
  exit 1
}
# A daemon that does not come up: Slurm cannot be started here (the last error of its log says why).
cannot_start() {
  local why
  why=$(grep -ih 'error\|fatal' "$work/log/$2" 2>/dev/null | tail -n 1 || true)
  if $required; then logs; fi
  skip "$1 did not start${why:+: $why}"
}

# Two free TCP ports, away from Slurm's 6817/6818 and from each other.
free_port() {
  local port
  for port in $(seq "$1" $(($1 + 99))); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
  done
  fail "no free TCP port in $1–$(($1 + 99))"
}
ctld_port=$(free_port 46817)
slurmd_port=$(free_port 46917)

mkdir -p "$work"/{munge,log,state,spool,bin}
chmod 700 "$work/munge"
mungekey --create --keyfile="$work/munge/munge.key" >/dev/null 2>&1 ||
  head -c 1024 /dev/urandom >"$work/munge/munge.key"
chmod 600 "$work/munge/munge.key"
start munged --foreground --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
  --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/munged.seed" \
  --log-file="$work/log/munged.log" >>"$work/log/munged.log" 2>&1
for _ in $(seq 50); do [ -S "$work/munge/munge.socket" ] && break; sleep 0.1; done
[ -S "$work/munge/munge.socket" ] || cannot_start munged munged.log

# One node, this machine, as slurmd -C sees it (CPUs, sockets, cores, memory).
host=$(hostname -s)
node=$(slurmd -C | head -n 1 | sed 's/ UpTime=.*//')
[[ "$node" == "NodeName=$host "* ]] || skip "slurmd -C does not describe this host ($host): $node"
export SLURM_CONF=$work/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=waypost
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# A container: no cgroups, no accounting.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=600
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=trials Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

start slurmctld -D -f "$SLURM_CONF" >>"$work/log/slurmctld.out" 2>&1
for _ in $(seq 100); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.2; done
scontrol ping 2>/dev/null | grep -q UP || cannot_start slurmctld slurmctld.log
start slurmd -D -f "$SLURM_CONF" >>"$work/log/slurmd.out" 2>&1
state=""
for _ in $(seq 150); do
  state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
  [ "$state" = "idle" ] && break
  sleep 0.2
done
[ "$state" = "idle" ] || cannot_start "slurmd (node $host is '${state:-unknown}', not idle)" slurmd.log

# The folder the docs' script runs in: scenarios/ (the scenario, with what it reads beside it as in
# fixtures/), results/ and logs/ (made first, as the docs say: Slurm cannot open --output in a
# folder that does not exist), and `waypost` on the PATH.
run=$work/run
mkdir -p "$run/scenarios" "$run/status"
(cd "$run" && mkdir -p logs results)
cp "$repo/fixtures/scenarios/$scenario" "$run/scenarios/"
for dir in "$repo"/fixtures/*/; do
  name=$(basename "$dir")
  [ "$name" = scenarios ] || ln -s "$dir" "$run/$name"
done
ln -s "$repo/tracks" "$work/tracks"
ln -s "$waypost" "$work/bin/waypost"
export PATH=$work/bin:$PATH
cd "$run"

# submit SCRIPT [SBATCH OPTION…]: runs the array to its end (five minutes at most; squeue every half
# second, as sbatch --wait polls every few seconds), sets job to its id; returns the highest exit
# status of its tasks (128 + N for a task killed by signal N), from the controller's record.
job=""
ended() { local queued; queued=$(squeue -h -j "$1" -o %i 2>/dev/null) && [ -z "$queued" ]; }
submit() {
  local script=$1 status=0 code _
  shift
  job=$(sbatch --parsable "$@" "$script" 2>"$work/log/sbatch.err") ||
    fail "sbatch $script: $(cat "$work/log/sbatch.err")"
  job=${job%%;*}
  for _ in $(seq 600); do
    ended "$job" && break
    sleep 0.5
  done
  ended "$job" || fail "$script: the array did not end within five minutes"
  while read -r code; do
    code=$((${code%%:*} > 0 ? ${code%%:*} : (${code#*:} > 0 ? 128 + ${code#*:} : 0)))
    if [ "$code" -gt "$status" ]; then status=$code; fi
  done < <(scontrol -o show job "$job" | grep -o ' ExitCode=[0-9]*:[0-9]*' | cut -d= -f2)
  [ -n "$(scontrol -o show job "$job" 2>/dev/null)" ] || fail "$script: the controller has no record of job $job"
  return "$status"
}

# The docs' script, as written but for --trials.
printf '%s\n' "${doc_script//--trials 1000/--trials $trials}" >trials.sbatch
submit trials.sbatch || fail "the array of docs/scenarios.md failed (highest exit status $?)"
for task in 0 1 2 3; do
  [ -s "results/shard-$task.json" ] || fail "task $task wrote no results/shard-$task.json"
  grep -q "^waypost: shard $((task + 1))/4: " "logs/trials-${job}_$task.log" ||
    fail "task $task did not run shard $((task + 1))/4 from SLURM_ARRAY_TASK_*"
done
# The docs' merge line (JUnit to trials.xml) with the report as JSON, against one process's.
bash -c "$merge_line --format json" >merged.json 2>merge.err ||
  { cat merge.err >&2; fail "the docs' merge line failed: $merge_line --format json"; }
grep -q '<testsuite' trials.xml || fail "the docs' merge line wrote no JUnit to trials.xml"
waypost test scenarios/*.yaml --trials "$trials" --format json >single.json
cmp merged.json single.json ||
  fail "the merge of the array's four shards differs from one process's report"

# A stepped array is refused, 64, in every task, before anything runs.
cat >stepped.sbatch <<'EOF'
#!/bin/bash
#SBATCH --output=logs/stepped-%a.log
waypost test scenarios/*.yaml --trials 4 -o "results/stepped-${SLURM_ARRAY_TASK_ID}.json"
echo $? >"status/stepped-${SLURM_ARRAY_TASK_ID}"
EOF
submit stepped.sbatch --array=0-6:2 || fail "the stepped array failed to run (status $?)"
for task in 0 2 4 6; do
  status=$(cat "status/stepped-$task" 2>/dev/null || echo none)
  [ "$status" = 64 ] || fail "stepped array task $task exited $status, not 64"
  grep -q 'step 2' "logs/stepped-$task.log" || fail "stepped array task $task did not say why (step 2)"
  [ ! -e "results/stepped-$task.json" ] || fail "stepped array task $task wrote results"
done

echo "test-slurm: a Slurm array of 4 ($trials trials of $scenario) merged byte-identical to one process; a stepped array exits 64"
