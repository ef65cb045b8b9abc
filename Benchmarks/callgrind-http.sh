#!/usr/bin/env bash
# Instructions per request on the server's HTTP path, counted by callgrind: repeatable on a
# busy machine, where wall-clock ratios are not. Runs `lerix-mock serve` under valgrind with
# collection off, switches it on for exactly N requests of one case (h2load, HTTP/1.1 or h2c,
# keep-alive), and prints instructions per request and the top functions (inclusive/self).
# Not part of `make bench` (valgrind runs the server ~50x slower).
#
# usage: callgrind-http.sh CASE [N]     CASE: h1-200 h1-304 h2c-200 h2c-304, with -logged for the
#                                       default request log (to a file) instead of --quiet
# Env: LERIX_BIN (.build/release/lerix-mock), CALLGRIND_OUT (keep callgrind.out there), TOP (25),
# CALLGRIND_PORT (a free one).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
CASE=${1:?usage: callgrind-http.sh CASE [N]}
N=${2:-20000}
TOP=${TOP:-25}
CHECK='/v1/projects/demo/release-control?platform=ios&version=1.0.0'
bench_setup lerix-callgrind valgrind callgrind_control callgrind_annotate h2load curl cc

SHIM=$(valgrind_shim)   # lib.sh: valgrind and libdispatch's read-only sigsuspend mask

LOGGING=(--quiet); BASE=$CASE
if [[ $CASE == *-logged ]]; then LOGGING=(); BASE=${CASE%-logged}; fi
LOG_FILE=$WORK/lerix.err
PORT=${CALLGRIND_PORT:-$(free_port)}
LD_PRELOAD=$SHIM valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$WORK/callgrind.out" \
    "$BIN" serve "${LOGGING[@]}" --port "$PORT" >"$WORK/lerix.out" 2>"$WORK/lerix.err" &
VG_PID=$!
for _ in $(seq 300); do curl -sf -o /dev/null "http://127.0.0.1:$PORT$CHECK" 2>/dev/null && break; sleep 0.2; done
URL="http://127.0.0.1:$PORT$CHECK"
ETAG=$(curl -sf -D - -o /dev/null "$URL" | tr -d '\r' | awk 'tolower($1) == "etag:" { $1 = ""; sub(/^ /, ""); print }')
FLAGS=(-c10 -m1 -t1)
case $BASE in
    h1-200) FLAGS+=(--h1) ;;
    h1-304) FLAGS+=(--h1 -H "if-none-match: $ETAG") ;;
    h2c-200) FLAGS=(-c10 -m10 -t1) ;;
    h2c-304) FLAGS=(-c10 -m10 -t1 -H "if-none-match: $ETAG") ;;
    *) echo "unknown case $BASE" >&2; exit 2 ;;
esac
# Warm-up (connections, caches, lazily made tables), then exactly N requests counted.
h2load -n 2000 "${FLAGS[@]}" "$URL" >/dev/null
callgrind_control -i on "$VG_PID" >/dev/null 2>&1
OUT=$(h2load -n "$N" "${FLAGS[@]}" "$URL")
callgrind_control -i off "$VG_PID" >/dev/null 2>&1
callgrind_control -d "$VG_PID" >/dev/null 2>&1
sleep 1
kill "$VG_PID"; wait "$VG_PID" 2>/dev/null || true
grep -E '^(requests|status codes):' <<<"$OUT"
file=$(callgrind_file "$WORK")
TOTAL=$(callgrind_total "$file")
echo "$CASE: $TOTAL instructions for $N requests = $(awk -v t="$TOTAL" -v n="$N" 'BEGIN { printf "%.0f", t / n }') per request (all threads, kernel not counted)"
callgrind_top "$file" "$TOP"
