#!/usr/bin/env bash
# The SDK harness at scale: a simulated week of 100 foreground devices polling every 60 s
# through `lerix-mock adapter` against the real server (Benchmarks/adapter-week.py), against
# the issue's stated baseline of 30 s wall. Env: LERIX_BIN (.build/release/lerix-mock),
# BENCH_DEVICES (100), BENCH_DAYS (7).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_setup lerix-bench-adapter python3
DEVICES=${BENCH_DEVICES:-100}
DAYS=${BENCH_DAYS:-7}
echo "load average before: $(load_average)"
python3 "$ROOT/Benchmarks/adapter-week.py" "$BIN" "$DEVICES" "$DAYS" | tee "$WORK/adapter.out"
# adapter-week.py's first line: "adapter week: D devices, N days, C checks in W s wall (U us/check)"
read -r checks wall <<<"$(awk '/^adapter week:/ { for (i = 1; i <= NF; i++) { if ($(i + 1) == "checks") c = $i; if ($(i + 1) == "s" && $(i + 2) == "wall") w = $i } print c, w }' "$WORK/adapter.out")"
bench_row "adapter week, $DEVICES devices" "$wall s ($checks checks)" "stated baseline 30 s" "$(bench_ratio 30 "$wall")" - "< 30 s"
