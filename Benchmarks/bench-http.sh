#!/usr/bin/env bash
# lerix-mock against nginx serving the same answer bytes, alternating in one run:
# wrk HTTP/1.1 200 and 304 (If-None-Match) with 50 keep-alive connections, h2load h2c 200
# and 304; median of several short rounds; then 10,000 idle keep-alive connections.
# Loopback only. Env: BENCH_ROUNDS (3), BENCH_SECONDS (4), BENCH_IDLE (10000),
# LERIX_BIN (.build/release/lerix-mock).
set -euo pipefail

source "$(dirname "$0")/lib.sh"
ROUNDS=${BENCH_ROUNDS:-3}
SECS=${BENCH_SECONDS:-4}
IDLE=${BENCH_IDLE:-10000}
CONNS=50
CHECK='/v1/projects/demo/release-control?platform=ios&version=1.0.0'
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
[ "$(ulimit -n)" -gt $((IDLE + 100)) ] || { echo "ulimit -n $(ulimit -n) is too low for $IDLE connections" >&2; exit 2; }
bench_setup lerix-bench wrk h2load nginx curl python3

# --- lerix-mock
"$BIN" serve --quiet --port 0 >"$WORK/lerix.out" 2>"$WORK/lerix.err" &
LERIX_PID=$!
LERIX_PORT=$(reported_port "$WORK/lerix.out" http)
LERIX="http://127.0.0.1:$LERIX_PORT"

# --- nginx with the same body bytes
mkdir -p "$WORK/www/v1/projects/demo" "$WORK/tmp"
curl -sf -o "$WORK/www/v1/projects/demo/release-control" "$LERIX$CHECK" || { echo "lerix-mock does not answer $CHECK" >&2; exit 1; }
chmod -R a+rX "$WORK/www"
H1_PORT=$(free_port); H2_PORT=$(free_port)
sed "s|@WORK@|$WORK|g; s|@H1_PORT@|$H1_PORT|g; s|@H2_PORT@|$H2_PORT|g" "$ROOT/Benchmarks/nginx.conf.template" >"$WORK/nginx.conf"
nginx -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/nginx-error.log" &
NGINX_PID=$!
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$H1_PORT$CHECK" && break; sleep 0.1; done

etag_of() { curl -sf -D - -o /dev/null "$1" | tr -d '\r' | awk 'tolower($1) == "etag:" { $1 = ""; sub(/^ /, ""); print }'; }
LERIX_ETAG=$(etag_of "$LERIX$CHECK")
NGINX_ETAG=$(etag_of "http://127.0.0.1:$H1_PORT$CHECK")
[ -n "$LERIX_ETAG" ] && [ -n "$NGINX_ETAG" ] || { echo "missing ETag (lerix '$LERIX_ETAG', nginx '$NGINX_ETAG')" >&2; exit 1; }
echo "body $(wc -c <"$WORK/www/v1/projects/demo/release-control") bytes; lerix :$LERIX_PORT (pid $LERIX_PID), nginx :$H1_PORT h1 / :$H2_PORT h2c; $ROUNDS rounds x ${SECS}s"

# --- one measurement: prints "req/s p99-ms bad-responses"
run_wrk() {  # url [etag]
    local out
    if [ -n "${2:-}" ]; then
        out=$(wrk -t1 -c$CONNS -d"${SECS}s" --latency -H "If-None-Match: $2" "$1")
    else
        out=$(wrk -t1 -c$CONNS -d"${SECS}s" --latency "$1")
    fi
    local rps p99 bad errors
    rps=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")
    p99=$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 }; print v }' <<<"$out")
    bad=$(awk '/Non-2xx or 3xx responses:/ { print $5 }' <<<"$out")
    errors=$(awk '/Socket errors:/ { gsub(",", ""); print $4 + $6 + $8 + $10 }' <<<"$out")
    echo "${rps:-0} ${p99:-0} $(( ${bad:-0} + ${errors:-0} ))"
}
run_h2load() {  # url expected-status [etag]
    local log="$WORK/h2load.log" out
    rm -f "$log"
    if [ -n "${3:-}" ]; then
        out=$(h2load -c$CONNS -m10 -t1 -D"$SECS" --log-file="$log" -H "if-none-match: $3" "$1" 2>&1)
    else
        out=$(h2load -c$CONNS -m10 -t1 -D"$SECS" --log-file="$log" "$1" 2>&1)
    fi
    local rps p99 bad
    rps=$(awk '/^finished in/ { for (i = 1; i <= NF; i++) if ($i == "req/s,") print $(i - 1) }' <<<"$out")
    p99=$(cut -f3 "$log" | sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.2f", v[int(NR * 0.99)] / 1000; else print 0 }')
    bad=$(awk -v want="$2" '$2 != want { n++ } END { print n + 0 }' "$log")
    local failed
    failed=$(awk '/^requests:/ { print $10 + $12 }' <<<"$out")
    echo "${rps:-0} ${p99:-0} $(( bad + ${failed:-0} ))"
}

CASES=(h1-200 h1-304 h2c-200 h2c-304)
measure() {  # case server
    case "$1/$2" in
        h1-200/lerix) run_wrk "$LERIX$CHECK" ;;
        h1-200/nginx) run_wrk "http://127.0.0.1:$H1_PORT$CHECK" ;;
        h1-304/lerix) run_wrk "$LERIX$CHECK" "$LERIX_ETAG" ;;
        h1-304/nginx) run_wrk "http://127.0.0.1:$H1_PORT$CHECK" "$NGINX_ETAG" ;;
        h2c-200/lerix) run_h2load "$LERIX$CHECK" 200 ;;
        h2c-200/nginx) run_h2load "http://127.0.0.1:$H2_PORT$CHECK" 200 ;;
        h2c-304/lerix) run_h2load "$LERIX$CHECK" 304 "$LERIX_ETAG" ;;
        h2c-304/nginx) run_h2load "http://127.0.0.1:$H2_PORT$CHECK" 304 "$NGINX_ETAG" ;;
    esac
}

# Sanity: 304s really are 304s on both, and lerix speaks h2c.
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $LERIX_ETAG" "$LERIX$CHECK")" = 304 ] || { echo "lerix does not answer 304 to its ETag" >&2; exit 1; }
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $NGINX_ETAG" "http://127.0.0.1:$H1_PORT$CHECK")" = 304 ] || { echo "nginx does not answer 304 to its ETag" >&2; exit 1; }
[ "$(curl -s --http2-prior-knowledge -o /dev/null -w '%{http_version}' "$LERIX$CHECK")" = 2 ] || { echo "lerix does not speak h2c with prior knowledge" >&2; exit 1; }

for round in $(seq "$ROUNDS"); do
    for c in "${CASES[@]}"; do
        if [ $((round % 2)) = 1 ]; then order="lerix nginx"; else order="nginx lerix"; fi
        for server in $order; do
            echo "$c $server $(measure "$c" "$server")" >>"$WORK/results"
        done
    done
    echo "round $round/$ROUNDS done"
done

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '\n%-8s %12s %9s %12s %9s %7s %6s\n' case lerix-rps p99-ms nginx-rps p99-ms ratio errors
status=0
for c in "${CASES[@]}"; do
    lr=$(awk -v c="$c" '$1 == c && $2 == "lerix" { print $3 }' "$WORK/results" | median)
    lp=$(awk -v c="$c" '$1 == c && $2 == "lerix" { print $4 }' "$WORK/results" | median)
    le=$(awk -v c="$c" '$1 == c && $2 == "lerix" { s += $5 } END { print s + 0 }' "$WORK/results")
    nr=$(awk -v c="$c" '$1 == c && $2 == "nginx" { print $3 }' "$WORK/results" | median)
    np=$(awk -v c="$c" '$1 == c && $2 == "nginx" { print $4 }' "$WORK/results" | median)
    ne=$(awk -v c="$c" '$1 == c && $2 == "nginx" { s += $5 } END { print s + 0 }' "$WORK/results")
    ratio=$(awk -v a="$lr" -v b="$nr" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
    printf '%-8s %12.0f %9s %12.0f %9s %6sx %6s\n' "$c" "$lr" "$lp" "$nr" "$np" "$ratio" "$le/$ne"
    [ "$le" = 0 ] || status=1
done
echo "(errors: lerix/nginx non-2xx/3xx or unexpected status, plus socket errors, summed over rounds)"

echo
echo "== $IDLE idle keep-alive connections to lerix-mock"
python3 "$ROOT/Benchmarks/idle-connections.py" "$LERIX_PORT" "$LERIX_PID" "$IDLE" "$CHECK" || status=1
if ! kill -0 "$LERIX_PID" 2>/dev/null; then
    echo "lerix-mock is gone; its stderr ends with:"
    tail -n 30 "$WORK/lerix.err"
    status=1
fi
exit $status
