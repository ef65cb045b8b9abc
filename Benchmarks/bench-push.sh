#!/usr/bin/env bash
# Silent-push fan-out: `lerix-mock serve` seeded with 100,000 tokens (60% APNs, 40% FCM) delivers
# one push through `--apns-gateway/--fcm-gateway` to a `lerix-mock push-gateway`, over h2c.
#
# Reports tokens/s from the blocking change until GET /admin/projects/demo/pushes shows
# pending 0 (median of BENCH_ROUNDS fan-outs, reset to the seed between them), against a
# baseline measured in the same run: h2load's raw request rate for the same APNs request against
# the same gateway (4 connections x 100 streams). The ratio says how close the sink gets to what
# the gateway itself can take. Then one more fan-out runs while wrk loads the check endpoint: its
# p99 then, next to its p99 with no fan-out. CPU seconds per fan-out and the load average are
# printed too: wall-clock rates on a shared machine move with the load.
# Goal: >= 100k tokens/s; must: >= 50k tokens/s.
# BENCH_PUSH_TLS=1 (bench-push-tls.sh) runs the same fan-out over TLS with provider auth: the
# gateway with --tls-cert/--tls-key, --apns-auth-public-key and --fcm-credentials, serve with
# https:// gateways, --tls-ca, an APNs .p8 key and a service account (all made for the run); the
# gateway then refuses unauthenticated requests, so h2load's baseline is skipped.
# Env: BENCH_TOKENS (100000), BENCH_ROUNDS (fan-outs alone, 3), BENCH_SECONDS (wrk window, 4),
# LERIX_BIN (.build/release/lerix-mock).
set -euo pipefail

source "$(dirname "$0")/lib.sh"
N=${BENCH_TOKENS:-100000}
SECS=${BENCH_SECONDS:-4}
CHECK='/v1/projects/demo/release-control?platform=ios&version=1.0.0'
HELPER="$ROOT/Benchmarks/push-fanout.py"

bench_setup lerix-bench-push wrk h2load curl python3
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
bench_launch SERVER http serve --quiet --port 0 --clock manual --config "$WORK/config.json" \
    --apns-gateway "$SINK_GATEWAY" --fcm-gateway "$SINK_GATEWAY" "${SINK_FLAGS[@]}"

field() { python3 -c "import json,sys; print(json.load(sys.stdin)[\"$1\"])"; }

echo "$N tokens$([ "$TLS" = 1 ] && echo ' over TLS with APNs token auth and FCM OAuth'); gateway :$GATEWAY_PORT (pid $GATEWAY_PID), server :$SERVER_PORT (pid $SERVER_PID); server RSS $(rss_kb $SERVER_PID) kB"

# --- fan-outs alone: BENCH_ROUNDS of them (the first at once, later ones by moving the manual
# clock past the throttle window); the median is the headline, wall-clock rates being noisy.
ROUNDS=${BENCH_ROUNDS:-3}
S0=$(cpu_seconds $SERVER_PID); G0=$(cpu_seconds $GATEWAY_PID)
RATES=()
for round in $(seq "$ROUNDS"); do
    mode=advance; [ "$round" = 1 ] && mode=now
    RUN=$(python3 "$HELPER" fanout "$SERVER" "$GATEWAY" "$N" $((round - 1)) $mode) || { echo "fan-out failed: $RUN"; diagnose; exit 1; }
    echo "fan-out alone, round $round: $RUN"
    [ "$(field delivered <<<"$RUN")" = "$N" ] || { echo "not every token was delivered"; exit 1; }
    RATES+=("$(awk -v n="$N" -v t="$(field done_s <<<"$RUN")" 'BEGIN { printf "%.0f", n / t }')")
done
S1=$(cpu_seconds $SERVER_PID); G1=$(cpu_seconds $GATEWAY_PID)
RATE1=$(printf '%s\n' "${RATES[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
BEST1=$(printf '%s\n' "${RATES[@]}" | sort -n | tail -1)

# --- check endpoint p99: idle, then during fan-out 2
IDLE_P99=$(wrk -t1 -c10 -d"${SECS}s" --latency "$SERVER$CHECK" | wrk_p99_ms)
wrk -t1 -c10 -d"${SECS}s" --latency "$SERVER$CHECK" >"$WORK/wrk.out" &
WRK_PID=$!
sleep 0.3
RUN2=$(python3 "$HELPER" fanout "$SERVER" "$GATEWAY" "$N" "$ROUNDS" advance) || { echo "fan-out failed: $RUN2"; diagnose; exit 1; }
wait $WRK_PID
LOAD_P99=$(wrk_p99_ms <"$WORK/wrk.out")
LOAD_RPS=$(wrk_rps <"$WORK/wrk.out")
echo "fan-out under check load: $RUN2"
[ "$(field delivered <<<"$RUN2")" = "$N" ] || { echo "not every token was delivered under load"; exit 1; }

DONE2=$(field done_s <<<"$RUN2")
RATE2=$(awk -v n="$N" -v t="$DONE2" 'BEGIN { printf "%.0f", n / t }')
RATIO=$(awk -v a="$RATE1" -v b="$BASE_RPS" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
echo
printf '%-44s %12s\n' "baseline: h2load raw APNs requests/s" "$(printf '%.0f' "$BASE_RPS")"
printf '%-44s %12s  (%sx baseline; best of %s: %s; goal 100000, must 50000)\n' "fan-out tokens/s (change -> pending 0), median" "$RATE1" "$RATIO" "$ROUNDS" "$BEST1"
printf '%-44s %12s  (wrk %s req/s on the check meanwhile)\n' "fan-out tokens/s under check load" "$RATE2" "$LOAD_RPS"
printf '%-44s %9s ms\n' "check p99, no fan-out (wrk -c10, ${SECS}s)" "$IDLE_P99"
printf '%-44s %9s ms  (fan-out took %.2fs of the %ss window)\n' "check p99 during fan-out" "$LOAD_P99" "$DONE2" "$SECS"
SCPU=$(awk -v a="$S0" -v b="$S1" 'BEGIN { printf "%.2f", b - a }')
GCPU=$(awk -v a="$G0" -v b="$G1" 'BEGIN { printf "%.2f", b - a }')
printf '%-44s %9s s server (the sink, the push record, the listings), %s s gateway\n' "CPU per fan-out alone" "$(awk -v c="$SCPU" -v r="$ROUNDS" 'BEGIN { printf "%.2f", c / r }')" "$(awk -v c="$GCPU" -v r="$ROUNDS" 'BEGIN { printf "%.2f", c / r }')"
echo "(load average now: $(load_average); the rates above are wall-clock and move with it)"
echo "server RSS after: $(rss_kb $SERVER_PID) kB; gateway RSS: $(rss_kb $GATEWAY_PID) kB"
OVER=""; [ "$TLS" = 1 ] && OVER=" (TLS)"
BASE_REF="-"; [ "$TLS" != 1 ] && BASE_REF="gateway h2load $(printf '%.0f' "$BASE_RPS") req/s"
bench_row "push fan-out ${N} tokens$OVER" "$RATE1 tokens/s" "$BASE_REF" "$([ "$TLS" = 1 ] && echo - || echo "$RATIO"x)" 0 "≥ 100000 tokens/s"
bench_row "check p99 during fan-out$OVER" "$LOAD_P99 ms" "no fan-out $IDLE_P99 ms" - - "< 10 ms"
# The verdict is printed, not the exit status: wall-clock rates move with the machine's load,
# and `make bench` should fail on wrong results (above), not on a busy machine.
if awk -v r="$RATE1" 'BEGIN { exit !(r >= 100000) }'; then echo "verdict: goal met (>= 100k tokens/s)"
elif awk -v r="$RATE1" 'BEGIN { exit !(r >= 50000) }'; then echo "verdict: bound met (>= 50k tokens/s), goal not"
else echo "verdict: below the 50k tokens/s bound on this run (see the load average and CPU figures)"; fi
