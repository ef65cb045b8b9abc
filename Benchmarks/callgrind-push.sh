#!/usr/bin/env bash
# Instructions per token of a push fan-out, counted by callgrind: repeatable on a busy machine,
# where tokens/s is not. `lerix-mock serve` (default flags: every request logged to a file) fans
# one push out to a `lerix-mock push-gateway --quiet`, as in bench-push.sh; one of the two runs
# under valgrind. A first fan-out warms up (connections, tables), then the seed is reset, and
# collection is on for exactly one more fan-out: the reset is not counted.
# Not part of `make bench` (valgrind runs the program ~50x slower).
#
# usage: callgrind-push.sh serve|gateway [N]     N tokens (20000)
# Env: LERIX_BIN (.build/release/lerix-mock), CALLGRIND_OUT (keep callgrind.out there), TOP (25).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
WHICH=${1:?usage: callgrind-push.sh serve|gateway [N]}
N=${2:-20000}
TOP=${TOP:-25}
HELPER="$ROOT/Benchmarks/push-fanout.py"
bench_setup lerix-callgrind-push valgrind callgrind_control callgrind_annotate curl cc python3
case $WHICH in serve|gateway) ;; *) echo "usage: callgrind-push.sh serve|gateway [N]" >&2; exit 2 ;; esac

SHIM=$(valgrind_shim)   # lib.sh: libdispatch under valgrind 3.19
python3 "$HELPER" config "$WORK/config.json" "$N"

# launch NAME PORT ARG...: lerix-mock ARG... in the background, under callgrind when NAME is the
# one profiled; sets NAME_PID and waits until PORT answers /healthz.
launch() {
    local name=$1 port=$2; shift 2
    local prefix=()
    if [ "$name" = "$WHICH" ]; then
        prefix=(env LD_PRELOAD="$SHIM" valgrind --tool=callgrind --instr-atstart=no
                --callgrind-out-file="$WORK/callgrind.out")
    fi
    "${prefix[@]}" "$BIN" "$@" --port "$port" >"$WORK/$name.out" 2>"$WORK/$name.err" &
    printf -v "${name^^}_PID" '%s' "$!"
    for _ in $(seq 600); do curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null && return; sleep 0.2; done
    echo "$name did not start:"; cat "$WORK/$name.out" "$WORK/$name.err"; exit 1
}
GATEWAY_PORT=$(free_port)
launch gateway "$GATEWAY_PORT" push-gateway --quiet --max-recorded 1000
GATEWAY=http://127.0.0.1:$GATEWAY_PORT
SERVE_PORT=$(free_port)
launch serve "$SERVE_PORT" serve --clock manual --config "$WORK/config.json" --apns-gateway "$GATEWAY" --fcm-gateway "$GATEWAY"
SERVER=http://127.0.0.1:$SERVE_PORT
PROFILED_PID=$([ "$WHICH" = serve ] && echo "$SERVE_PID" || echo "$GATEWAY_PID")

echo "warm-up: $(python3 "$HELPER" fanout "$SERVER" "$GATEWAY" "$N" 0)"
python3 "$HELPER" reset "$SERVER"
callgrind_control -i on "$PROFILED_PID" >/dev/null 2>&1
RUN=$(python3 "$HELPER" fanout "$SERVER" "$GATEWAY" "$N" 0 0.5)   # polls every 0.5 s: few polls counted
callgrind_control -i off "$PROFILED_PID" >/dev/null 2>&1
callgrind_control -d "$PROFILED_PID" >/dev/null 2>&1
sleep 1
echo "counted: $RUN"
file=$(callgrind_file "$WORK")
TOTAL=$(callgrind_total "$file")
echo "$WHICH: $TOTAL instructions for a fan-out of $N tokens = $(awk -v t="$TOTAL" -v n="$N" 'BEGIN { printf "%.0f", t / n }') per token (all threads, kernel not counted)"
callgrind_top "$file" "$TOP"
