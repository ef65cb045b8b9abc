#!/usr/bin/env bash
# TLS: lerix-mock against nginx with the same certificate (one made by `lerix-mock dev-cert`),
# alternating in one run, each server on its default cores (lerix-mock: one event loop per
# core; nginx: worker_processes auto), session resumption off on both so every connection
# pays a full handshake:
#   - handshakes/s: h2load with one request per connection (-n = -c), so each request is a
#     fresh TCP connect + TLS 1.3 handshake (ECDHE P-256, ECDSA P-256) + one h2 request, in
#     HANDSHAKE_BURSTS (5) bursts a measurement (the median burst's rate). The ratio is the
#     servers' CPU a handshake (nginx's over lerix-mock's, workers included), not their rates:
#     h2load does the client half of every handshake on the same two cores, and rates measured
#     that way moved the ratio by up to 0.2 between rounds of one binary, CPU by ~0.03;
#   - h2-over-TLS req/s: h2load, 50 connections x 10 streams, ALPN h2, the same 200 body bytes.
# Median of BENCH_ROUNDS rounds. Loopback only. Env: BENCH_ROUNDS (3), BENCH_SECONDS (4),
# BENCH_HANDSHAKES (400 connections a burst), HANDSHAKE_BURSTS (5), LERIX_BIN
# (.build/release/lerix-mock).
set -euo pipefail

source "$(dirname "$0")/lib.sh"
ROUNDS=${BENCH_ROUNDS:-3}
SECS=${BENCH_SECONDS:-4}
HANDSHAKES=${BENCH_HANDSHAKES:-400}
BURSTS=${HANDSHAKE_BURSTS:-5}
CHECK='/v1/projects/demo/release-control?platform=ios&version=1.0.0'
bench_setup lerix-bench-tls h2load nginx curl python3

"$BIN" dev-cert "$WORK/cert" >/dev/null
CERT="$WORK/cert/cert.pem"; KEY="$WORK/cert/key.pem"; CA="$WORK/cert/ca.pem"

"$BIN" serve --quiet --port 0 --tls-cert "$CERT" --tls-key "$KEY" >"$WORK/lerix.out" 2>"$WORK/lerix.err" &
LERIX_PID=$!
LERIX_PORT=$(reported_port "$WORK/lerix.out" https)
LERIX="https://localhost:$LERIX_PORT"

mkdir -p "$WORK/www/v1/projects/demo" "$WORK/tmp"
curl -sf --cacert "$CA" -o "$WORK/www/v1/projects/demo/release-control" "$LERIX$CHECK" || { echo "lerix-mock does not answer $CHECK over TLS" >&2; exit 1; }
chmod -R a+rX "$WORK/www"
chmod 644 "$KEY"
NGINX_PORT=$(free_port)
cat >"$WORK/nginx.conf" <<CONF
daemon off;
worker_processes auto;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;
events { worker_connections 16384; }
http {
    access_log off;
    default_type application/json;
    client_body_temp_path $WORK/tmp/body;
    proxy_temp_path $WORK/tmp/proxy;
    fastcgi_temp_path $WORK/tmp/fastcgi;
    uwsgi_temp_path $WORK/tmp/uwsgi;
    scgi_temp_path $WORK/tmp/scgi;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$NGINX_PORT ssl http2;
        root $WORK/www;
        sendfile off;
        ssl_certificate $CERT;
        ssl_certificate_key $KEY;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache off;
        ssl_session_tickets off;
    }
}
CONF
nginx -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/nginx-error.log" &
NGINX_PID=$!
NGINX="https://localhost:$NGINX_PORT"
for _ in $(seq 50); do curl -sf --cacert "$CA" -o /dev/null "$NGINX$CHECK" && break; sleep 0.1; done
for url in "$LERIX" "$NGINX"; do
    [ "$(curl -s --cacert "$CA" -o /dev/null -w '%{http_version}' "$url$CHECK")" = 2 ] || { echo "$url does not speak h2 over TLS" >&2; exit 1; }
done
echo "body $(wc -c <"$WORK/www/v1/projects/demo/release-control") bytes; lerix :$LERIX_PORT, nginx :$NGINX_PORT (same certificate); $ROUNDS rounds"

# prints "rate bad": req/s and requests not answered 200
run_h2load() {  # url clients requests|"" streams
    local out
    if [ -n "$3" ]; then
        out=$(h2load -c"$2" -n"$3" -m"$4" -t1 "$1" 2>&1)
    else
        out=$(h2load -c"$2" -m"$4" -t1 -D"$SECS" "$1" 2>&1)
    fi
    local rps ok total
    rps=$(awk '/^finished in/ { for (i = 1; i <= NF; i++) if ($i == "req/s,") print $(i - 1) }' <<<"$out")
    ok=$(awk '/^status codes:/ { print $3 }' <<<"$out")
    total=$(awk '/^requests:/ { print $2 }' <<<"$out")
    echo "${rps:-0} $(( ${total:-0} - ${ok:-0} ))"
}
handshake_bursts() {  # url pid -> the median burst's handshakes/s, the bursts' errors summed,
    # and the server's CPU microseconds a handshake over all bursts
    local rates=() errors=0 rps err before after
    before=$(tree_cpu_seconds "$2")
    for _ in $(seq "$BURSTS"); do
        read -r rps err <<<"$(run_h2load "$1" "$HANDSHAKES" "$HANDSHAKES" 1)"
        rates+=("$rps")
        errors=$((errors + err))
    done
    after=$(tree_cpu_seconds "$2")
    echo "$(printf '%s\n' "${rates[@]}" | median) $errors" \
        "$(awk -v a="$before" -v b="$after" -v n=$((BURSTS * HANDSHAKES)) 'BEGIN { printf "%.0f", (b - a) * 1e6 / n }')"
}
measure() {  # case url pid
    case "$1" in
        handshakes) handshake_bursts "$2$CHECK" "$3" ;;
        h2-tls) run_h2load "$2$CHECK" 50 "" 10 ;;
    esac
}
CASES=(handshakes h2-tls)
for round in $(seq "$ROUNDS"); do
    for c in "${CASES[@]}"; do
        if [ $((round % 2)) = 1 ]; then order="lerix nginx"; else order="nginx lerix"; fi
        for server in $order; do
            url=$LERIX pid=$LERIX_PID
            [ "$server" = nginx ] && url=$NGINX pid=$NGINX_PID
            echo "$c $server $(measure "$c" "$url" "$pid")" >>"$WORK/results"
        done
    done
    echo "round $round/$ROUNDS done"
done

printf '\n%-11s %12s %12s %7s %8s\n' case lerix nginx ratio errors
status=0
for c in "${CASES[@]}"; do
    lr=$(awk -v c="$c" '$1 == c && $2 == "lerix" { print $3 }' "$WORK/results" | median)
    nr=$(awk -v c="$c" '$1 == c && $2 == "nginx" { print $3 }' "$WORK/results" | median)
    le=$(awk -v c="$c" '$1 == c && $2 == "lerix" { s += $4 } END { print s + 0 }' "$WORK/results")
    ne=$(awk -v c="$c" '$1 == c && $2 == "nginx" { s += $4 } END { print s + 0 }' "$WORK/results")
    ratio=$(awk -v a="$lr" -v b="$nr" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
    printf '%-11s %12.0f %12.0f %6sx %8s\n' "$c" "$lr" "$nr" "$ratio" "$le/$ne"
    if [ "$c" = handshakes ]; then
        lu=$(awk '$1 == "handshakes" && $2 == "lerix" { print $5 }' "$WORK/results" | median)
        nu=$(awk '$1 == "handshakes" && $2 == "nginx" { print $5 }' "$WORK/results" | median)
        bench_row "tls handshakes" "$(printf '%.0f' "$lr") handshakes/s, $lu us CPU each" \
            "nginx $(printf '%.0f' "$nr") handshakes/s, $nu us CPU each" "$(bench_ratio "$nu" "$lu")" "$le" -
    else
        bench_row "tls $c" "$(printf '%.0f' "$lr") req/s" "nginx $(printf '%.0f' "$nr") req/s" "$(bench_ratio "$lr" "$nr")" "$le" -
    fi
    [ "$le" = 0 ] || status=1
done
echo "(handshakes: connections/s, each one full TLS handshake and one h2 request, and in the table's ratio nginx's CPU a handshake over lerix-mock's; h2-tls: req/s; errors lerix/nginx)"
if ! kill -0 "$LERIX_PID" 2>/dev/null; then echo "lerix-mock is gone:"; tail -n 20 "$WORK/lerix.err"; status=1; fi
exit $status
