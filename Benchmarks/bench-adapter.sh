#!/usr/bin/env bash
# The SDK harness at scale: a simulated week of 100 foreground devices polling every 60 s
# through `lerix-mock adapter` against the real server (Benchmarks/adapter-week.py), against
# the issue's stated baseline of 30 s wall. Env: LERIX_BIN (.build/release/lerix-mock),
# BENCH_DEVICES (100), BENCH_DAYS (7).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${LERIX_BIN:-$ROOT/.build/release/lerix-mock}
[ -x "$BIN" ] || { echo "no release binary at $BIN (make release)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench needs python3" >&2; exit 2; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$ROOT/Benchmarks/adapter-week.py" "$BIN" "${BENCH_DEVICES:-100}" "${BENCH_DAYS:-7}"
