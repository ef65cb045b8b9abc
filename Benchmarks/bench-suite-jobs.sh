#!/usr/bin/env bash
# `scenarios --jobs 2` against `--jobs 1`: the bundled suite through an SDK adapter out of
# process (a fresh loopback server and adapter process per scenario), once through the web
# reference SDK (node SDKs/web/adapter.js) and once through the Swift adapter (`lerix-mock
# adapter`). The reference is --jobs 1 measured in the same run on the same cores; the ratio
# is wall(--jobs 1) / wall(--jobs 2), best of RUNS runs each. On 2 cores the target is 1.7x.
# Verdicts must not change with --jobs: a run whose summary differs from --jobs 1's counts as
# an error of the row.
# Env: LERIX_BIN (.build/release/lerix-mock), BENCH_RUNS (3).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_setup lerix-bench-suite-jobs node
RUNS=${BENCH_RUNS:-3}
echo "load average before: $(load_average)"
# A binary from before --jobs (make bench's baseline release) has nothing to measure here.
if ! "$BIN" scenarios --help 2>/dev/null | grep -q -- "--jobs N"; then
    echo "$BIN has no scenarios --jobs"
    bench_row "suite via web adapter, --jobs 2" "- (no --jobs in this build)" "-" "-" "-" ">= 1.7x on 2 cores"
    bench_row "suite via swift adapter out of process, --jobs 2" "- (no --jobs in this build)" "-" "-" "-" ">= 1.7x on 2 cores"
    exit 0
fi

# timed COMMAND JOBS: sets WALL (best of RUNS, s) and LINE (the summary line of the last run).
timed() {
    local command=$1 jobs=$2 best="" line=""
    for _ in $(seq 1 "$RUNS"); do
        local started ended wall
        started=$(date +%s.%N)
        line=$(cd "$ROOT" && "$BIN" scenarios Scenarios --jobs "$jobs" --adapter "$command" 2>/dev/null | tail -n 1) || true
        ended=$(date +%s.%N)
        wall=$(awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.3f", b - a }')
        if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$wall; fi
    done
    WALL=$best
    # The checks count differs run to run only if verdicts do: compare the verdict counts.
    LINE=$(sed 's/; [0-9]* checks)/)/' <<<"$line")
}

# row LABEL COMMAND
row() {
    local label=$1 command=$2
    timed "$command" 1
    local serial_wall=$WALL serial_line=$LINE
    timed "$command" 2
    local parallel_wall=$WALL parallel_line=$LINE
    echo "$label --jobs 1: $serial_line, best $serial_wall s"
    echo "$label --jobs 2: $parallel_line, best $parallel_wall s"
    local errors=0
    [ "$serial_line" = "$parallel_line" ] || errors=1
    case $serial_line in *" 0 failed"*) ;; *) errors=1 ;; esac
    bench_row "suite via $label, --jobs 2" "$parallel_wall s" "--jobs 1: $serial_wall s" \
        "$(bench_ratio "$serial_wall" "$parallel_wall")" "$errors" ">= 1.7x on 2 cores"
}

row "web adapter" "node SDKs/web/adapter.js"
row "swift adapter out of process" "$BIN adapter --quiet"
