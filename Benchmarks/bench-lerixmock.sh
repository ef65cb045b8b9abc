#!/usr/bin/env bash
# The week-long Swift test of LerixMock (Tests/LerixMockFixture: block by deadline offline,
# lift-all and maintenance by silent push, a week of true time) run RUNS times in one process
# by its release build, Sources/week-bench, which checks every run saw what the test expects.
# The reference is the issue's budget, 50 ms of wall time a test (20 tests/s): the ratio is
# tests/s over 20. Env: BENCH_RUNS (500).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_setup lerix-bench-lerixmock swift
RUNS=${BENCH_RUNS:-500}
echo "load average before: $(load_average)"

# Built from the sources the measured binary came from (the baseline's under make bench); a tree
# whose fixture depends on a tagged clone by version makes that clone first.
(cd "$SOURCE" && { [ ! -x Tests/LerixMockFixture/tagged-clone.sh ] || Tests/LerixMockFixture/tagged-clone.sh .build/fixture >&2; } &&
    swift build -c release --package-path Tests/LerixMockFixture --scratch-path .build/fixture \
        --disable-dependency-cache --product week-bench >/dev/null)
errors=0
line=$("$SOURCE/.build/fixture/release/week-bench" "$RUNS") || errors=1
echo "LerixMock week test, $RUNS runs: ${line:-failed}"
read -r _ rate median max <<<"${line:-week 0 0 0}"
bench_row "LerixMock week test (in process)" "$(printf '%.0f' "$rate") tests/s (median $median ms, max $max ms)" \
    "budget 50 ms a test = 20 tests/s" "$(bench_ratio "$rate" 20)" "$errors" "≥ 1.0x"
