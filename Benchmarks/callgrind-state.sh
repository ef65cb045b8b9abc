#!/usr/bin/env bash
# Instructions per token registration, counted by callgrind: repeatable on a busy machine, where
# the wall-clock ratio of bench-state.sh is not. Runs `lerix-mock serve --quiet` under valgrind,
# with or without --state, collection off; switches it on for SECONDS of wrk registrations
# (register-tokens.lua, the bench's load) and divides by the registrations the project gained.
# Prints instructions per registration, commits per registration, and the top functions.
# Not part of `make bench` (valgrind runs the server ~50x slower, so groups grow larger).
#
# usage: callgrind-state.sh MODE [SECONDS]     MODE: state or memory
# Env: LERIX_BIN (.build/release/lerix-mock), CALLGRIND_OUT (keep callgrind.out there), TOP (25),
# CALLGRIND_PORT (a free one), CONNS (50).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
MODE=${1:?usage: callgrind-state.sh state|memory [SECONDS]}
SECS=${2:-10}
TOP=${TOP:-25}
CONNS=${CONNS:-50}
bench_setup lerix-callgrind-state valgrind callgrind_control callgrind_annotate wrk curl python3 cc

SHIM=$(valgrind_shim)

FLAGS=(serve --quiet)
case $MODE in
    state) FLAGS+=(--state "$WORK/state.db") ;;
    memory) ;;
    *) echo "unknown mode $MODE (state or memory)" >&2; exit 2 ;;
esac
PORT=${CALLGRIND_PORT:-$(free_port)}
LD_PRELOAD=$SHIM valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$WORK/callgrind.out" \
    "$BIN" "${FLAGS[@]}" --port "$PORT" >"$WORK/lerix.out" 2>"$WORK/lerix.err" &
VG_PID=$!
URL="http://127.0.0.1:$PORT"
for _ in $(seq 300); do curl -sf -o /dev/null "$URL/health" 2>/dev/null && break; sleep 0.2; done
count_tokens() {
    curl -sf "$URL/admin/projects/demo" | python3 -c 'import json, sys; print(json.load(sys.stdin)["push_tokens"])'
}
# Warm-up (connections, statements, lazily made tables), then SECS counted.
TOKEN_PREFIX=warm wrk -t1 -c"$CONNS" -d2s -s "$ROOT/Benchmarks/register-tokens.lua" "$URL" >/dev/null
before=$(count_tokens)
callgrind_control -i on "$VG_PID" >/dev/null 2>&1
OUT=$(TOKEN_PREFIX=counted wrk -t1 -c"$CONNS" -d"${SECS}s" -s "$ROOT/Benchmarks/register-tokens.lua" "$URL")
callgrind_control -i off "$VG_PID" >/dev/null 2>&1
after=$(count_tokens)
callgrind_control -d "$VG_PID" >/dev/null 2>&1
sleep 1
kill "$VG_PID"; wait "$VG_PID" 2>/dev/null || true
N=$((after - before))
grep -E 'requests in|Non-2xx' <<<"$OUT" || true
file=$(callgrind_file "$WORK")
TOTAL=$(callgrind_total "$file")
echo "$MODE: $TOTAL instructions for $N registrations = $(awk -v t="$TOTAL" -v n="$N" 'BEGIN { printf "%.0f", t / n }') per registration (all threads, kernel not counted)"
if [ "$MODE" = state ]; then
    # Calls of SQLite's WAL write (one per commit that wrote frames): registrations per group.
    commits=$(python3 - "$file" <<'PY'
import re, sys
names, calls, target = {}, 0, None
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line)
    if m:
        if m.group(2): names[m.group(1)] = m.group(2).strip()
        target = line.startswith("cfn=") and names.get(m.group(1)) == "sqlite3WalFrames"
        continue
    if target and line.startswith("calls="):
        calls += int(line.split()[0][6:])
        target = None
print(calls)
PY
)
    echo "commits: $commits ($(awk -v n="$N" -v c="$commits" 'BEGIN { if (c > 0) printf "%.1f", n / c; else print "n/a" }') registrations per commit)"
fi
callgrind_top "$file" "$TOP"
