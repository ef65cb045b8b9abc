#!/usr/bin/env bash
# The bundled suite through an SDK adapter out of process, as another team runs it:
# `scenarios --adapter CMD` with the runner's own loopback server, for the web reference SDK
# (node SDKs/web/adapter.js) and, as the reference measured in the same run on the same cores,
# the Swift adapter (`lerix-mock adapter`) out of process. Wall time is the best of RUNS runs;
# checks/s divides the checks the server answered by it. The two adapters run different sets
# (the web one skips push and Android-only scenarios), so checks/s is the comparable figure.
# Env: LERIX_BIN (.build/release/lerix-mock), BENCH_RUNS (3).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_setup lerix-bench-suite-adapters node
RUNS=${BENCH_RUNS:-3}
echo "load average before: $(load_average)"

# suite LABEL CMD: sets WALL (best of RUNS, s), CHECKS and PASSED from the summary line.
suite() {
    local label=$1 command=$2 best="" line
    for _ in $(seq 1 "$RUNS"); do
        local started ended
        started=$(date +%s.%N)
        line=$(cd "$ROOT" && "$BIN" scenarios Scenarios --adapter "$command" 2>/dev/null | tail -n 1) || true   # a failing run still reports
        ended=$(date +%s.%N)
        local wall
        wall=$(awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.3f", b - a }')
        if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$wall; fi
    done
    echo "$label: $line, best wall $best s"
    WALL=$best
    CHECKS=$(sed -n 's/.*; \([0-9][0-9]*\) checks).*/\1/p' <<<"$line")
    PASSED=$(sed -n 's/^\([0-9][0-9]*\) passed.*/\1/p' <<<"$line")
    # Failures and errors both count: a run that could not start is no speed.
    FAILED=$(awk '{ n = 0; for (i = 1; i < NF; i++) if ($(i + 1) ~ /^(failed|errors?),?$/) n += $i; print n }' <<<"$line")
}

suite "web adapter" "node SDKs/web/adapter.js"
web_wall=$WALL web_checks=$CHECKS web_passed=$PASSED web_failed=$FAILED
suite "swift adapter" "$BIN adapter --quiet"
swift_wall=$WALL swift_checks=$CHECKS swift_passed=$PASSED
# A binary that cannot run the suite (an older one: flags or scenario features it lacks) passes
# nothing and has no speed: its row says so under the row's own name, and the script fails.
if [ "${web_passed:-0}" = 0 ] || [ "${swift_passed:-0}" = 0 ]; then
    bench_row "suite via web adapter" "- (the suite did not run: ${web_passed:-0} and ${swift_passed:-0} passed)" \
        "-" "-" "-" "0 failures"
    exit 1
fi
web_rate=$(awk -v c="$web_checks" -v w="$web_wall" 'BEGIN { printf "%.0f", c / w }')
swift_rate=$(awk -v c="$swift_checks" -v w="$swift_wall" 'BEGIN { printf "%.0f", c / w }')
bench_row "suite via web adapter" "$web_wall s, $web_rate checks/s, $web_passed scenarios" \
    "swift adapter out of process ($swift_passed): $swift_wall s, $swift_rate checks/s" \
    "$(bench_ratio "$web_rate" "$swift_rate")" "$web_failed" "0 failures"
