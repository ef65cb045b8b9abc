#!/usr/bin/env bash
# `make bench`: every Benchmarks/bench-*.sh, each run alternately with the baseline's release
# binary (Benchmarks/baseline.sh: BASELINE=REV, else the newest v* tag, else
# Benchmarks/baseline-release) and with this tree's, BENCH_ROUNDS times (2), so both sides see
# the same machine at nearly the same moment. Then ONE table: every row of this tree beside the
# baseline's figure and the ratio between them, a case more than 10% worse beyond its rounds'
# spread flagged WORSE (Benchmarks/compare.py); also as Markdown with the machine.
# A script that fails on this tree gets a row saying so and makes the run fail after the table;
# one that fails on the baseline (a case the baseline cannot run, a flag it lacks) only leaves
# its baseline column empty.
# Env: BENCH_ROUNDS (2), BENCH_SCRIPTS (a glob, default Benchmarks/bench-*.sh), BASELINE,
# BENCH_DIR (.build/bench), LERIX_BIN (this tree's binary, .build/release/lerix-mock).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=${BENCH_DIR:-$ROOT/.build/bench}
ROUNDS=${BENCH_ROUNDS:-2}
CURRENT_BIN=${LERIX_BIN:-$ROOT/.build/release/lerix-mock}
mkdir -p "$OUT"
rm -f "$OUT"/current-*.tsv "$OUT"/baseline-*.tsv
export BENCH_LOAD_BEFORE
BENCH_LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"

baseline=$(bash Benchmarks/baseline.sh) || { echo "bench: the baseline could not be built" >&2; exit 2; }
IFS=$'\t' read -r base_commit base_label base_bin <<<"$baseline"
base_source=$(dirname "$(dirname "$(dirname "$base_bin")")")/src
echo "baseline: $base_label ($base_bin)"

status=0
for script in ${BENCH_SCRIPTS:-Benchmarks/bench-*.sh}; do
    for round in $(seq "$ROUNDS"); do
        echo "== $script: baseline $base_label, round $round of $ROUNDS"
        LERIX_BIN=$base_bin BENCH_SOURCE_ROOT=$base_source BENCH_TABLE=$OUT/baseline-$round.tsv bash "$script" ||
            echo "   (the baseline $base_label did not run $script: its column stays empty)"
        echo "== $script: this tree, round $round of $ROUNDS"
        LERIX_BIN=$CURRENT_BIN BENCH_TABLE=$OUT/current-$round.tsv bash "$script" || {
            code=$?
            status=1
            printf '%s\tFAILED (exit %s)\t-\t-\t-\t-\n' "$script" "$code" >>"$OUT/current-$round.tsv"
        }
    done
done

echo
echo "== all benchmarks against $base_label"
python3 Benchmarks/compare.py "$OUT" "$OUT/table.tsv" "$base_label" || status=1
BENCH_BASELINE_LABEL=$base_label bash Benchmarks/table.sh "$OUT/table.tsv" "$OUT/table.md" || status=1
exit $status
