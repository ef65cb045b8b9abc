#!/usr/bin/env bash
# `lerix-mock explore` throughput: histories of 30 moves judged per second, (1) the built-in
# Swift SDK against itself in process (`--reference builtin`: every history runs twice, on two
# fresh in-process servers, and is compared after every move; target >= 200/s), and (2) the web
# SDK through its adapter (one node process per history, the runner's loopback server) against
# the built-in Swift SDK. Each is the best of RUNS runs; a run that finds anything counts as
# errors (the two SDKs agree on these seeds).
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

# explore LABEL HISTORIES ARGS...: sets RATE (best histories/s) and FOUND (findings + errors of the last run).
explore() {
    local label=$1 histories=$2
    shift 2
    local best=0 json
    for _ in $(seq 1 "$RUNS"); do
        json=$(cd "$ROOT" && "$BIN" explore --runs "$histories" --seed 1 --json "$@" 2>/dev/null) || true   # findings exit 1
        local rate
        rate=$(python3 -c 'import json,sys; print("%.1f" % json.loads(sys.argv[1])["histories_per_second"])' "$json")
        if awk -v a="$rate" -v b="$best" 'BEGIN { exit !(a > b) }'; then best=$rate; fi
    done
    FOUND=$(python3 -c 'import json,sys; r = json.loads(sys.argv[1]); print(len(r["findings"]) + len(r["harness_errors"]))' "$json")
    echo "$label: best $best histories/s ($histories histories, $FOUND findings or errors)"
    RATE=$best
}

explore "swift vs swift" "$SWIFT_HISTORIES" --reference builtin --platform ios --platform web
swift_rate=$RATE swift_found=$FOUND
explore "web vs swift" "$WEB_HISTORIES" --adapter "node SDKs/web/adapter.js"
web_rate=$RATE web_found=$FOUND
bench_row "explore: Swift vs Swift in process (30 moves)" "$swift_rate histories/s" "-" "-" "$swift_found" ">= 200/s"
bench_row "explore: web adapter vs Swift (30 moves)" "$web_rate histories/s" \
    "Swift vs Swift $swift_rate histories/s" "$(bench_ratio "$web_rate" "$swift_rate")" "$web_found" "0 findings"
