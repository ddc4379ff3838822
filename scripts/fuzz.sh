#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets under Fuzz/ (release, AddressSanitizer; Waypost's own
# modules carry libFuzzer's coverage, dependencies do not) in .build-fuzz, seeds each corpus from
# the shipped files, and runs every target for FUZZ_SECONDS (default 60). Crashers are written to
# .build-fuzz/crashes/TARGET/; the summary gives executions and crashes per target. Linux only
# (it links libclang_rt.fuzzer_no_main from the Swift toolchain).
# FUZZ_RUNS stops each target after that many executions instead (within FUZZ_SECONDS).
#   FUZZ_SECONDS=600 FUZZ_TARGETS="tracks oauth" make fuzz
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
budget=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-"tracks config yaml emulator oauth answers"}
scratch=.build-fuzz

toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")
archive=$(ls "$toolchain"/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-"$(uname -m)".a 2>/dev/null | head -1)
if [ -z "$archive" ]; then
    echo "fuzz: libclang_rt.fuzzer_no_main not found under $toolchain (make fuzz needs Swift's Linux toolchain)" >&2
    exit 69
fi
for target in $targets; do
    # ld.gold warns about every ASan symbol it cannot export; those lines are noise.
    WAYPOST_FUZZ=1 "$swift" build -c release --scratch-path "$scratch" --product "fuzz-$target" \
        -Xlinker "$archive" -Xlinker -lstdc++ 2>&1 | grep -v "Cannot export local symbol" || true
    [ -x "$scratch/release/fuzz-$target" ] || { echo "fuzz: fuzz-$target did not build" >&2; exit 70; }
done

# Seed corpora from what the project ships (only the targets asked for: runs may go side by side).
seeds=$scratch/seeds
for target in $targets; do rm -rf "${seeds:?}/$target"; mkdir -p "$seeds/$target"; done
case " $targets " in *" tracks "*)
    cp tracks/*.kml tracks/*.gpx "$seeds/tracks/"
    python3 - "$seeds/tracks/cafe-stop.kmz" tracks/cafe-stop.kml <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z: z.write(sys.argv[2], "doc.kml")
PY
esac
case " $targets " in *" config "*)
    # A config input's first line names its reader.
    for pair in regions:regions beacons:beacons rules:rules privacy:privacy scenarios:scenario; do
        folder=${pair%%:*}
        for file in fixtures/"$folder"/*; do
            [ -f "$file" ] && { echo "${pair#*:}"; cat "$file"; } > "$seeds/config/$folder-$(basename "$file")"
        done
    done
    cp Fuzz/seeds/config/* "$seeds/config/"
    # Scenarios name their files relative to fixtures/scenarios/; the fuzzer reads them from a
    # temporary folder, so the seeds name them absolutely (else every one stops at its route).
    for file in "$seeds"/config/scenarios-*; do
        sed -i "s#\.\./\.\./#$PWD/#g; s#\.\./#$PWD/fixtures/#g" "$file"
    done
    printf 'scenario\nname: crowd\nseed: 3\ndevices:\n  - name: rider\n    count: 40\n    route: %s/tracks/cafe-stop.kml\n    spread: { time: 2m, distance: 300 }\nexpect:\n  - { event: location, device: rider-07 }\n' \
        "$PWD" > "$seeds/config/scenario-crowd"
esac
case " $targets " in *" yaml "*)
    # The readers' agreement with Yams: every YAML and JSON file shipped, as it is.
    for file in fixtures/*/*.yaml fixtures/*/*.json; do
        cp "$file" "$seeds/yaml/$(basename "$(dirname "$file")")-$(basename "$file")"
    done
esac
for target in yaml emulator oauth answers; do
    case " $targets " in *" $target "*) cp Fuzz/seeds/$target/* "$seeds/$target/" ;; esac
done

status=0
summary=""
for target in $targets; do
    corpus=$scratch/corpus/$target
    crashes=$scratch/crashes/$target
    mkdir -p "$corpus" "$crashes"
    log=$scratch/fuzz-$target.log
    echo "fuzz-$target: $budget s…"
    set +e
    # The emulator's targets await an actor from a detached task; LeakSanitizer cannot see that
    # task's context as reachable between its signal and its end, so leaks are checked only for
    # the synchronous readers.
    leaks=1
    case $target in emulator | oauth) leaks=0 ;; esac
    # A target's dictionary (Fuzz/TARGET.dict: its syntax's tokens), where it has one.
    dictionary=()
    [ -f "Fuzz/$target.dict" ] && dictionary=(-dict="Fuzz/$target.dict")
    LSAN_OPTIONS=suppressions=Fuzz/lsan.supp:print_suppressions=0 \
    "$scratch/release/fuzz-$target" "${dictionary[@]}" -detect_leaks=$leaks -max_total_time="$budget" ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} -timeout=20 -rss_limit_mb=4096 -max_len=${FUZZ_MAX_LEN:-8192} \
        -print_final_stats=1 -artifact_prefix="$crashes/" "$corpus" "$seeds/$target" > "$log" 2>&1
    code=$?
    set -e
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    found=$(find "$crashes" -type f | wc -l)
    summary+="fuzz-$target: ${runs:-?} executions (${speed:-?}/s), $found crashes"$'\n'
    if [ "$code" -ne 0 ] || [ "$found" -gt 0 ]; then
        status=1
        echo "fuzz-$target failed (exit $code); see $log and $crashes" >&2
        grep -m 5 -E "ERROR|Fatal error|panic" "$log" >&2 || true
    fi
done
printf '%s' "$summary"
exit $status
