#!/usr/bin/env bash
# `lerix-mock explore` throughput: histories of 30 moves judged per second, (1) the built-in
# Swift SDK against itself in process (`--reference builtin`: every history runs twice, on two
# fresh in-process servers, and is compared after every move; target >= 200/s), and (2) the web
# SDK through its adapter (one node process per history, the runner's loopback server) against
# the built-in Swift SDK. Each is the best of RUNS runs, per wall second and per CPU second (user
# + sys, adapters included: on a loaded machine the wall rate waits for other work, the CPU rate
# does not); a run that finds anything counts as errors (the two SDKs agree on these seeds).
# Env: LERIX_BIN (.build/release/lerix-mock), BENCH_RUNS (3), SWIFT_HISTORIES (2000), WEB_HISTORIES (60).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_setup lerix-bench-explore node
RUNS=${BENCH_RUNS:-3}
SWIFT_HISTORIES=${SWIFT_HISTORIES:-2000}
WEB_HISTORIES=${WEB_HISTORIES:-60}
echo "load average before: $(load_average)"
# A binary from before explore (make bench's baseline release) has nothing to measure here.
if ! "$BIN" explore --help >/dev/null 2>&1; then
    echo "$BIN has no explore command"
    bench_row "explore: Swift vs Swift in process (30 moves)" "- (no explore in this build)" "-" "-" "-" ">= 200/s"
    exit 0
fi

# explore LABEL HISTORIES ARGS...: sets RATE (best histories per wall second), CPU_RATE (best
# histories per CPU second: user + sys of explore and the adapters it started, the figure that
# holds on a loaded machine, where wall time waits for other work) and FOUND (findings + errors
# of the last run).
explore() {
    local label=$1 histories=$2
    shift 2
    local best=0 best_cpu=0 json cpu rate cpu_rate
    for _ in $(seq 1 "$RUNS"); do
        local TIMEFORMAT='%U %S'
        { time (cd "$ROOT" && "$BIN" explore --runs "$histories" --seed 1 --json "$@" >"$WORK/explore.json" 2>/dev/null || true); } 2>"$WORK/explore.cpu"   # findings exit 1
        json=$(cat "$WORK/explore.json")
        cpu=$(awk '{ print $1 + $2 }' "$WORK/explore.cpu")
        rate=$(python3 -c 'import json,sys; print("%.1f" % json.loads(sys.argv[1])["histories_per_second"])' "$json")
        cpu_rate=$(awk -v h="$histories" -v c="$cpu" 'BEGIN { printf "%.1f", (c > 0 ? h / c : 0) }')
        if awk -v a="$rate" -v b="$best" 'BEGIN { exit !(a > b) }'; then best=$rate; fi
        if awk -v a="$cpu_rate" -v b="$best_cpu" 'BEGIN { exit !(a > b) }'; then best_cpu=$cpu_rate; fi
    done
    FOUND=$(python3 -c 'import json,sys; r = json.loads(sys.argv[1]); print(len(r["findings"]) + len(r["harness_errors"]))' "$json")
    echo "$label: best $best histories/s, $best_cpu per CPU second ($histories histories, $FOUND findings or errors)"
    RATE=$best
    CPU_RATE=$best_cpu
}

explore "swift vs swift" "$SWIFT_HISTORIES" --reference builtin --platform ios --platform web
swift_rate=$RATE swift_cpu=$CPU_RATE swift_found=$FOUND
explore "web vs swift" "$WEB_HISTORIES" --adapter "node SDKs/web/adapter.js"
web_rate=$RATE web_cpu=$CPU_RATE web_found=$FOUND
bench_row "explore: Swift vs Swift in process (30 moves)" "$swift_rate histories/s ($swift_cpu per CPU s)" "-" "-" \
    "$swift_found" ">= 200/s"
bench_row "explore: web adapter vs Swift (30 moves)" "$web_rate histories/s ($web_cpu per CPU s)" \
    "Swift vs Swift $swift_rate histories/s ($swift_cpu per CPU s)" "$(bench_ratio "$web_cpu" "$swift_cpu")" \
    "$web_found" "0 findings"
