#!/usr/bin/env bash
# Silent-push fan-out: `lerix-mock serve` seeded with 100,000 tokens (60% APNs, 40% FCM) delivers
# one push through `--apns-gateway/--fcm-gateway` to a `lerix-mock push-gateway`, over h2c.
#
# serve runs with its default flags, so it logs every request (stderr to a file), as `make serve`
# does; the stand-in gateway runs with --quiet (it plays APNs and FCM, whose logs are not ours).
# Issue 13's targets, each printed as a row with its ratio against the target:
#   - fan-out: >= 100,000 tokens/s, from the blocking change until the push's summary
#     (GET /admin/projects/demo/pushes/1) shows pending 0; median of BENCH_ROUNDS fan-outs,
#     reset to the seed between them;
#   - the check endpoint's p99 during a fan-out < 10 ms: h2load (HTTP/1.1, 10 connections) loads
#     the check from a second before one more fan-out until after its last token has a result; the
#     p99 is over the checks that overlapped exactly [change sent, summary showing pending 0] (from
#     h2load's per-request log), printed with the window's length, the count, p50 and max.
# Beside them: the fan-out's rate under that check load; h2load's raw request rate for the same
# APNs request against the same gateway (4 connections x 100 streams), i.e. how close the sink gets
# to what the gateway can take; the check's p99 without a fan-out (same load, same window length);
# what the per-request log costs the load (h2load's rate with and without it; under callgrind the
# log costs h2load about 660 instructions and one write(2) per request, and no rate difference
# shows beyond run-to-run noise); CPU seconds per 100k tokens for each process (the resets between
# rounds not counted: the load-independent figure);
# the load average (wall-clock rates on a shared machine move with it).
# BENCH_PUSH_TLS=1 (bench-push-tls.sh) runs the same fan-out over TLS with provider auth: the
# gateway with --tls-cert/--tls-key, --apns-auth-public-key and --fcm-credentials, serve with
# https:// gateways, --tls-ca, an APNs .p8 key and a service account (all made for the run); the
# gateway then refuses unauthenticated requests, so h2load's baseline is skipped.
# Env: BENCH_TOKENS (100000), BENCH_ROUNDS (fan-outs alone, 3), LERIX_BIN (.build/release/lerix-mock).
set -euo pipefail

source "$(dirname "$0")/lib.sh"
N=${BENCH_TOKENS:-100000}
CHECK='/v1/projects/demo/release-control?platform=ios&version=1.0.0'
HELPER="$ROOT/Benchmarks/push-fanout.py"

bench_setup lerix-bench-push h2load curl python3
SERVER_PID=""; GATEWAY_PID=""
diagnose() {
    for name in server gateway; do
        pid_var="${name^^}_PID"; pid=${!pid_var}
        [ -n "$pid" ] || continue
        if kill -0 "$pid" 2>/dev/null; then echo "$name (pid $pid) is running"; else echo "$name (pid $pid) is gone"; fi
        [ -f "$WORK/$name.err" ] && tail -n 5 "$WORK/$name.err"
    done
}
python3 "$HELPER" config "$WORK/config.json" "$N"

TLS=${BENCH_PUSH_TLS:-0}
GATEWAY_FLAGS=(--port 0); SINK_FLAGS=()
if [ "$TLS" = 1 ]; then
    # The service account's token_uri must name the gateway's port, so it is picked first.
    PICKED=$(free_port)
    "$BIN" dev-cert "$WORK/cert" >/dev/null
    openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$WORK/AuthKey.p8"
    openssl pkey -in "$WORK/AuthKey.p8" -pubout -out "$WORK/AuthKey.pub.pem"
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$WORK/sa-key.pem" 2>/dev/null
    python3 - "$WORK/sa-key.pem" "https://localhost:$PICKED/token" "$WORK/service-account.json" <<'PY'
import json, sys
key = open(sys.argv[1]).read()
json.dump({"type": "service_account", "project_id": "demo-fcm", "private_key_id": "bench", "private_key": key,
           "client_email": "bench@demo-fcm.iam.gserviceaccount.com", "token_uri": sys.argv[2]}, open(sys.argv[3], "w"))
PY
    GATEWAY_FLAGS=(--port "$PICKED" --tls-cert "$WORK/cert/cert.pem" --tls-key "$WORK/cert/key.pem"
                   --apns-auth-public-key "$WORK/AuthKey.pub.pem" --fcm-credentials "$WORK/service-account.json")
    SINK_FLAGS=(--tls-ca "$WORK/cert/ca.pem" --apns-auth-key "$WORK/AuthKey.p8" --apns-key-id BENCH12345
                --apns-team-id TEAM123456 --fcm-credentials "$WORK/service-account.json")
fi

# Plain HTTP on the same port serves the gateway's own listings (/deliveries) in either mode.
bench_launch GATEWAY http push-gateway --quiet "${GATEWAY_FLAGS[@]}" --max-recorded 1000
SINK_GATEWAY=$GATEWAY
[ "$TLS" = 1 ] && SINK_GATEWAY="https://localhost:$GATEWAY_PORT"

# --- baseline: the gateway's own capacity for this request, measured with h2load
BASE_RPS=0
if [ "$TLS" != 1 ]; then
printf '%s' '{"aps":{"content-available":1},"lerix":{"kind":"release_control"}}' >"$WORK/apns.json"
H2LOAD=$(h2load -n "$N" -c4 -m100 -t1 -d "$WORK/apns.json" \
    -H 'apns-push-type: background' -H 'apns-priority: 5' -H 'apns-topic: dev.lerix.demo' \
    "$GATEWAY/3/device/$(printf '%064x' 1)" 2>&1)
BASE_RPS=$(h2load_rps <<<"$H2LOAD")
BASE_OK=$(awk '/^status codes:/ { print $3 }' <<<"$H2LOAD")
[ "${BASE_OK:-0}" = "$N" ] || { echo "h2load: not every request was accepted:"; echo "$H2LOAD"; exit 1; }
curl -sf -X DELETE "$GATEWAY/deliveries" >/dev/null
fi

# --- the server: manual clock, so each round can step past the 60 s push throttle
bench_launch SERVER http serve --port 0 --clock manual --config "$WORK/config.json" \
    --apns-gateway "$SINK_GATEWAY" --fcm-gateway "$SINK_GATEWAY" "${SINK_FLAGS[@]}"

field() { python3 -c "import json,sys; print(json.load(sys.stdin)[\"$1\"])"; }

echo "$N tokens$([ "$TLS" = 1 ] && echo ' over TLS with APNs token auth and FCM OAuth'); gateway :$GATEWAY_PORT (pid $GATEWAY_PID), server :$SERVER_PORT (pid $SERVER_PID); server RSS $(rss_kb $SERVER_PID) kB"

# --- fan-outs alone: BENCH_ROUNDS of them (the first at once, later ones after a reset and a
# clock move past the throttle window); the median is the headline, wall-clock rates being noisy.
ROUNDS=${BENCH_ROUNDS:-3}
# CPU is summed over the fan-outs alone: each round's reset (the seed's 100k tokens registered
# again) happens before its first reading, so it is not counted as push work.
SCPU=0; GCPU=0
RATES=(); DONES=()
for round in $(seq "$ROUNDS"); do
    [ "$round" = 1 ] || python3 "$HELPER" reset "$SERVER"
    S0=$(cpu_seconds $SERVER_PID); G0=$(cpu_seconds $GATEWAY_PID)
    RUN=$(python3 "$HELPER" fanout "$SERVER" "$GATEWAY" "$N" 0) || { echo "fan-out failed: $RUN"; diagnose; exit 1; }
    S1=$(cpu_seconds $SERVER_PID); G1=$(cpu_seconds $GATEWAY_PID)
    SCPU=$(awk -v t="$SCPU" -v a="$S0" -v b="$S1" 'BEGIN { printf "%.3f", t + b - a }')
    GCPU=$(awk -v t="$GCPU" -v a="$G0" -v b="$G1" 'BEGIN { printf "%.3f", t + b - a }')
    echo "fan-out alone, round $round: $RUN"
    [ "$(field delivered <<<"$RUN")" = "$N" ] || { echo "not every token was delivered"; exit 1; }
    DONES+=("$(field done_s <<<"$RUN")")
    RATES+=("$(awk -v n="$N" -v t="$(field done_s <<<"$RUN")" 'BEGIN { printf "%.0f", n / t }')")
done
RATE1=$(printf '%s\n' "${RATES[@]}" | median)
BEST1=$(printf '%s\n' "${RATES[@]}" | sort -n | tail -1)
LOAD1=$(load_average)

# --- check endpoint latency over exactly one more fan-out. h2load (HTTP/1.1, 10 connections, as
# many checks as they can carry) starts LEAD seconds before the change and runs until after the
# last token has a result; its per-request log gives every check's start and latency, and the
# p99 is taken over the checks that overlapped [change sent, summary showing pending 0]. The
# idle figure is the same load and the same window length without a fan-out; one more idle run
# without the log shows what the recorder itself costs the load.
LEAD=1
MEDIAN_DONE=$(printf '%s\n' "${DONES[@]}" | median)
# Long enough for a fan-out six times slower than alone (checks take CPU from it, and the push
# reactors run at background priority; 1.2-3x was seen on a loaded machine); a run that still
# ends first is refused below rather than measured short.
CHECK_SECS=$(awk -v m="$MEDIAN_DONE" -v lead="$LEAD" 'BEGIN { s = lead + 1 + 6 * m; s = int(s + 0.999); print (s < 8 ? 8 : s) }')
check_load() {   # check_load LOG|- SECONDS: h2load on the check endpoint, its report on stdout
    local log=()
    [ "$1" = - ] || { rm -f "$1"; log=(--log-file="$1"); }
    h2load --h1 -t1 -c10 -D "$2" "${log[@]}" "$SERVER$CHECK"
}
python3 "$HELPER" reset "$SERVER"
check_load "$WORK/checks-fanout.log" "$CHECK_SECS" >"$WORK/checks-fanout.out" &
LOADER_PID=$!
sleep "$LEAD"
RUN2=$(python3 "$HELPER" fanout "$SERVER" "$GATEWAY" "$N" 0) || { echo "fan-out failed: $RUN2"; diagnose; exit 1; }
wait $LOADER_PID
echo "fan-out under check load: $RUN2"
[ "$(field delivered <<<"$RUN2")" = "$N" ] || { echo "not every token was delivered under load"; exit 1; }
FROM_US=$(field start_us <<<"$RUN2"); TO_US=$(field done_us <<<"$RUN2")
WINDOW_S=$(awk -v a="$FROM_US" -v b="$TO_US" 'BEGIN { printf "%.3f", (b - a) / 1e6 }')
read -r LOAD_N LOAD_P50 LOAD_P99 LOAD_MAX LOAD_FAILED LOAD_COVERED < <(latency_window "$WORK/checks-fanout.log" "$FROM_US" "$TO_US")
[ "$LOAD_COVERED" = 1 ] || { echo "the check load (${CHECK_SECS}s) did not span the fan-out (${WINDOW_S}s after a ${LEAD}s lead): no p99 measured"; exit 1; }
[ "$LOAD_FAILED" = 0 ] || { echo "$LOAD_FAILED checks failed during the fan-out"; tail -5 "$WORK/checks-fanout.out"; exit 1; }
LOAD_RPS=$(awk -v n="$LOAD_N" -v w="$WINDOW_S" 'BEGIN { printf "%.0f", n / w }')

# The same window length without a fan-out: from LEAD seconds into the load.
IDLE_SECS=$(awk -v w="$WINDOW_S" -v lead="$LEAD" 'BEGIN { print int(lead + w + 1.999) }')
check_load "$WORK/checks-idle.log" "$IDLE_SECS" >"$WORK/checks-idle.out"
IDLE_FROM=$(awk -F'\t' -v lead="$LEAD" 'NR == 1 || $1 < f { f = $1 } END { printf "%.0f", f + lead * 1e6 }' "$WORK/checks-idle.log")
IDLE_TO=$(awk -v a="$IDLE_FROM" -v w="$WINDOW_S" 'BEGIN { printf "%.0f", a + w * 1e6 }')
read -r IDLE_N IDLE_P50 IDLE_P99 IDLE_MAX IDLE_FAILED IDLE_COVERED < <(latency_window "$WORK/checks-idle.log" "$IDLE_FROM" "$IDLE_TO")
[ "$IDLE_COVERED" = 1 ] && [ "$IDLE_FAILED" = 0 ] || { echo "the idle check load did not span its window or had failures"; tail -5 "$WORK/checks-idle.out"; exit 1; }
IDLE_RPS=$(awk -v n="$IDLE_N" -v w="$WINDOW_S" 'BEGIN { printf "%.0f", n / w }')
# The recorder's cost: h2load's own rate with and without the per-request log, same length.
LOGGED_RATE=$(h2load_rps <"$WORK/checks-idle.out")
UNLOGGED_RATE=$(check_load - "$IDLE_SECS" | h2load_rps)
LINES=$(wc -l <"${BENCH_STDERR:-$WORK/server.err}" 2>/dev/null || echo "?")

DONE2=$(field done_s <<<"$RUN2")
RATE2=$(awk -v n="$N" -v t="$DONE2" 'BEGIN { printf "%.0f", n / t }')
RATIO=$(awk -v a="$RATE1" -v b="$BASE_RPS" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
echo
printf '%-44s %12s\n' "baseline: h2load raw APNs requests/s" "$(printf '%.0f' "$BASE_RPS")"
printf '%-44s %12s  (target 100000: %s; %sx baseline; best of %s: %s)\n' "fan-out tokens/s (change -> pending 0), median" "$RATE1" "$(bench_ratio "$RATE1" 100000)" "$RATIO" "$ROUNDS" "$BEST1"
printf '%-44s %12s  (checks meanwhile: %s req/s)\n' "fan-out tokens/s under check load" "$RATE2" "$LOAD_RPS"
printf '%-44s %9s ms  (target < 10 ms; %s checks over the fan-out'"'"'s %ss: p50 %s ms, max %s ms)\n' "check p99 during fan-out" "$LOAD_P99" "$LOAD_N" "$WINDOW_S" "$LOAD_P50" "$LOAD_MAX"
printf '%-44s %9s ms  (%s checks over %ss: p50 %s ms, max %s ms; %s req/s)\n' "check p99, no fan-out" "$IDLE_P99" "$IDLE_N" "$WINDOW_S" "$IDLE_P50" "$IDLE_MAX" "$IDLE_RPS"
printf '%-44s %s req/s with the per-request log, %s without  (h2load --h1 -c10, %ss each, one run each: on a shared machine single runs differ by up to 1.6x either way)\n' "check load's rate, idle" "$LOGGED_RATE" "$UNLOGGED_RATE" "$IDLE_SECS"
SPER=$(awk -v c="$SCPU" -v r="$ROUNDS" -v n="$N" 'BEGIN { printf "%.2f", c / r * 100000 / n }')
GPER=$(awk -v c="$GCPU" -v r="$ROUNDS" -v n="$N" 'BEGIN { printf "%.2f", c / r * 100000 / n }')
CPU100K=$(awk -v a="$SPER" -v b="$GPER" 'BEGIN { printf "%.2f", a + b }')
printf '%-44s %9s s server (sink, push record; resets not counted) + %s s gateway = %s s\n' "CPU per 100k tokens fanned out" "$SPER" "$GPER" "$CPU100K"
echo "serve logged to a file with its default flags (${LINES} lines there)"
echo "(load average: $LOAD1 after the fan-outs alone, $(load_average) now; the rates above are wall-clock and move with it)"
echo "server RSS after: $(rss_kb $SERVER_PID) kB; gateway RSS: $(rss_kb $GATEWAY_PID) kB"
OVER=""; [ "$TLS" = 1 ] && OVER=" (TLS)"
bench_row "push fan-out ${N} tokens, logged$OVER" "$RATE1 tokens/s (load $LOAD1)" "target 100000 tokens/s" "$(bench_ratio "$RATE1" 100000)" 0 "≥ 1.0x"
# The load-independent figure beside it: what 100k tokens cost in CPU, the sender and the stand-in together.
bench_row "push CPU per 100k tokens$OVER" "$CPU100K s (serve $SPER + gateway $GPER)" "-" "-" - "-"
[ "$TLS" != 1 ] && bench_row "push fan-out vs gateway's raw rate" "$RATE1 tokens/s" "h2load $(printf '%.0f' "$BASE_RPS") req/s" "${RATIO}x" 0 "-"
# A latency's ratio is target / measured, so >= 1.0x passes like the others.
bench_row "push fan-out under check load$OVER" "$RATE2 tokens/s, checks $LOAD_RPS req/s" "-" "-" - "-"
bench_row "check p99 during fan-out$OVER" "$LOAD_P99 ms over ${WINDOW_S} s, $LOAD_N checks (idle $IDLE_P99 ms)" "target 10 ms" "$(bench_ratio 10 "$LOAD_P99")" "$LOAD_FAILED" "≥ 1.0x (< 10 ms)"
# The verdict is printed, not the exit status: wall-clock rates move with the machine's load,
# and `make bench` should fail on wrong results (above), not on a busy machine.
if awk -v r="$RATE1" 'BEGIN { exit !(r >= 100000) }'; then echo "verdict: fan-out target met (>= 100k tokens/s)"
else echo "verdict: fan-out below the 100k tokens/s target on this run (see the load average and CPU figures)"; fi
if awk -v p="$LOAD_P99" 'BEGIN { exit !(p < 10) }'; then echo "verdict: check p99 target met (< 10 ms during a fan-out)"
else echo "verdict: check p99 during a fan-out at or above the 10 ms target on this run"; fi
