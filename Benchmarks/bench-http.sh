#!/usr/bin/env bash
# lerix-mock against nginx serving the same answer bytes, both on every core, alternating in one
# run, in two pairings:
#   logged: lerix-mock's default request log (one line per request on stderr) appended to a file,
#           nginx's access log to a file (Benchmarks/nginx.conf.template);
#   quiet:  lerix-mock --quiet, nginx access_log off.
# Cases: wrk HTTP/1.1 200 and 304 (If-None-Match) with 50 keep-alive connections, h2load h2c 200
# and 304 (50 connections x 10 streams); median of several short rounds. Besides req/s, the
# server's CPU per request (user + system, from /proc): the load generator shares the machine,
# and CPU per request is what moves less with load. The log line's cost is the logged pairing's
# CPU per request minus the quiet one's. Then 10,000 idle keep-alive connections to the logged
# lerix-mock. Every logged request must reach its log file (a missing line counts as an error).
# Loopback only. Env: BENCH_ROUNDS (3), BENCH_SECONDS (4), BENCH_IDLE (10000),
# BENCH_CASES (all: "h1-200 h1-304 h2c-200 h2c-304"), BENCH_PAIRINGS ("logged quiet"),
# LERIX_BIN (.build/release/lerix-mock).
set -euo pipefail

source "$(dirname "$0")/lib.sh"
ROUNDS=${BENCH_ROUNDS:-3}
SECS=${BENCH_SECONDS:-4}
IDLE=${BENCH_IDLE:-10000}
read -r -a CASES <<<"${BENCH_CASES:-h1-200 h1-304 h2c-200 h2c-304}"
read -r -a PAIRINGS <<<"${BENCH_PAIRINGS:-logged quiet}"
CONNS=50
CHECK='/v1/projects/demo/release-control?platform=ios&version=1.0.0'
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
[ "$(ulimit -n)" -gt $((IDLE + 100)) ] || { echo "ulimit -n $(ulimit -n) is too low for $IDLE connections" >&2; exit 2; }
bench_setup lerix-bench wrk h2load nginx curl python3

# --- lerix-mock, twice: with its default request log appended to a file, and --quiet
LOGGED_LOG=$WORK/lerix-requests.log
BENCH_STDERR=$LOGGED_LOG bench_launch LOGGED http serve --port 0
bench_launch QUIET http serve --quiet --port 0

# --- nginx with the same body bytes, one listener per protocol and pairing
mkdir -p "$WORK/www/v1/projects/demo" "$WORK/tmp"
curl -sf -o "$WORK/www/v1/projects/demo/release-control" "$QUIET$CHECK" || { echo "lerix-mock does not answer $CHECK" >&2; exit 1; }
chmod -R a+rX "$WORK/www"
H1_LOGGED=$(free_port); H2_LOGGED=$(free_port); H1_QUIET=$(free_port); H2_QUIET=$(free_port)
NGINX_LOG=$WORK/nginx-access.log
sed "s|@WORK@|$WORK|g; s|@H1_LOGGED@|$H1_LOGGED|g; s|@H2_LOGGED@|$H2_LOGGED|g; s|@H1_QUIET@|$H1_QUIET|g; s|@H2_QUIET@|$H2_QUIET|g" \
    "$ROOT/Benchmarks/nginx.conf.template" >"$WORK/nginx.conf"
nginx -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/nginx-error.log" &
NGINX_PID=$!
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$H1_QUIET$CHECK" && break; sleep 0.1; done

etag_of() { curl -sf -D - -o /dev/null "$1" | tr -d '\r' | awk 'tolower($1) == "etag:" { $1 = ""; sub(/^ /, ""); print }'; }
LERIX_ETAG=$(etag_of "$QUIET$CHECK")
NGINX_ETAG=$(etag_of "http://127.0.0.1:$H1_QUIET$CHECK")
[ -n "$LERIX_ETAG" ] && [ -n "$NGINX_ETAG" ] || { echo "missing ETag (lerix '$LERIX_ETAG', nginx '$NGINX_ETAG')" >&2; exit 1; }
echo "body $(wc -c <"$WORK/www/v1/projects/demo/release-control") bytes; lerix logged :$LOGGED_PORT, quiet :$QUIET_PORT;" \
     "nginx (worker_processes auto) logged :$H1_LOGGED h1 / :$H2_LOGGED h2c, quiet :$H1_QUIET / :$H2_QUIET;" \
     "$ROUNDS rounds x ${SECS}s; load average $(load_average)"

# --- one measurement: prints "req/s p99-ms bad-responses requests"
run_wrk() {  # url [etag]
    local out
    if [ -n "${2:-}" ]; then
        out=$(wrk -t1 -c$CONNS -d"${SECS}s" --latency -H "If-None-Match: $2" "$1")
    else
        out=$(wrk -t1 -c$CONNS -d"${SECS}s" --latency "$1")
    fi
    echo "$(wrk_rps <<<"$out" | grep . || echo 0) $(wrk_p99_ms <<<"$out" | grep . || echo 0) $(wrk_errors <<<"$out") $(wrk_total <<<"$out" | grep . || echo 0)"
}
run_h2load() {  # url expected-status [etag]
    local log="$WORK/h2load.log" out
    rm -f "$log"
    if [ -n "${3:-}" ]; then
        out=$(h2load -c$CONNS -m10 -t1 -D"$SECS" --log-file="$log" -H "if-none-match: $3" "$1" 2>&1)
    else
        out=$(h2load -c$CONNS -m10 -t1 -D"$SECS" --log-file="$log" "$1" 2>&1)
    fi
    local rps p99 bad failed total
    rps=$(h2load_rps <<<"$out")
    p99=$(cut -f3 "$log" | sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.2f", v[int(NR * 0.99)] / 1000; else print 0 }')
    bad=$(awk -v want="$2" '$2 != want { n++ } END { print n + 0 }' "$log")
    failed=$(awk '/^requests:/ { print $10 + $12 }' <<<"$out")
    total=$(awk '/^requests:/ { print $8 }' <<<"$out")
    echo "${rps:-0} ${p99:-0} $(( bad + ${failed:-0} )) ${total:-0}"
}

# url_of server pairing protocol
url_of() {
    case "$1/$2/$3" in
        lerix/logged/*) echo "$LOGGED$CHECK" ;;
        lerix/quiet/*) echo "$QUIET$CHECK" ;;
        nginx/logged/h1) echo "http://127.0.0.1:$H1_LOGGED$CHECK" ;;
        nginx/logged/h2c) echo "http://127.0.0.1:$H2_LOGGED$CHECK" ;;
        nginx/quiet/h1) echo "http://127.0.0.1:$H1_QUIET$CHECK" ;;
        nginx/quiet/h2c) echo "http://127.0.0.1:$H2_QUIET$CHECK" ;;
    esac
}
pid_of() {  # server pairing
    case "$1/$2" in
        lerix/logged) echo "$LOGGED_PID" ;;
        lerix/quiet) echo "$QUIET_PID" ;;
        nginx/*) echo "$NGINX_PID" ;;
    esac
}
log_of() {  # server
    if [ "$1" = lerix ]; then echo "$LOGGED_LOG"; else echo "$NGINX_LOG"; fi
}

# measure case pairing server: "req/s p99-ms errors cpu-us-per-request"
measure() {
    local c=$1 pairing=$2 server=$3
    local protocol=${c%%-*} status=${c#*-}
    local url etag="" pid cpu0 cpu1 result
    url=$(url_of "$server" "$pairing" "$protocol")
    if [ "$status" = 304 ]; then
        if [ "$server" = lerix ]; then etag=$LERIX_ETAG; else etag=$NGINX_ETAG; fi
    fi
    pid=$(pid_of "$server" "$pairing")
    [ "$pairing" = logged ] && : >"$(log_of "$server")"
    cpu0=$(tree_cpu_seconds "$pid")
    if [ "$protocol" = h1 ]; then result=$(run_wrk "$url" "$etag"); else result=$(run_h2load "$url" "$status" "$etag"); fi
    cpu1=$(tree_cpu_seconds "$pid")
    local rps p99 errors total
    read -r rps p99 errors total <<<"$result"
    if [ "$pairing" = logged ]; then
        # Every answered request leaves one line (lerix-mock writes its lines off the loops: let them land).
        sleep 0.2
        local lines
        lines=$(grep -cv 'log lines dropped' "$(log_of "$server")" || true)
        [ "${lines:-0}" -ge "$total" ] || errors=$(( errors + total - ${lines:-0} ))
        : >"$(log_of "$server")"
    fi
    local us
    us=$(awk -v a="$cpu0" -v b="$cpu1" -v n="$total" 'BEGIN { if (n > 0) printf "%.2f", (b - a) * 1e6 / n; else print 0 }')
    echo "$rps $p99 $errors $us"
}

# Sanity: 304s really are 304s on both, and lerix speaks h2c.
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $LERIX_ETAG" "$QUIET$CHECK")" = 304 ] || { echo "lerix does not answer 304 to its ETag" >&2; exit 1; }
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $NGINX_ETAG" "http://127.0.0.1:$H1_QUIET$CHECK")" = 304 ] || { echo "nginx does not answer 304 to its ETag" >&2; exit 1; }
[ "$(curl -s --http2-prior-knowledge -o /dev/null -w '%{http_version}' "$QUIET$CHECK")" = 2 ] || { echo "lerix does not speak h2c with prior knowledge" >&2; exit 1; }

for round in $(seq "$ROUNDS"); do
    for pairing in "${PAIRINGS[@]}"; do
        for c in "${CASES[@]}"; do
            if [ $((round % 2)) = 1 ]; then order="lerix nginx"; else order="nginx lerix"; fi
            for server in $order; do
                echo "$c $pairing $server $(measure "$c" "$pairing" "$server")" >>"$WORK/results"
            done
        done
    done
    echo "round $round/$ROUNDS done (load average $(load_average))"
done

# column case pairing server field: the median (or, for errors, the sum) over the rounds
column() {
    awk -v c="$1" -v p="$2" -v s="$3" -v f="$4" '$1 == c && $2 == p && $3 == s { print $f }' "$WORK/results"
}
printf '\n%-8s %-7s %10s %7s %7s %10s %7s %7s %6s %7s\n' case pairing lerix-rps p99-ms us/req nginx-rps p99-ms us/req ratio errors
status=0
for pairing in "${PAIRINGS[@]}"; do
    for c in "${CASES[@]}"; do
        lr=$(column "$c" "$pairing" lerix 4 | median); lp=$(column "$c" "$pairing" lerix 5 | median)
        lu=$(column "$c" "$pairing" lerix 7 | median)
        le=$(column "$c" "$pairing" lerix 6 | awk '{ s += $1 } END { print s + 0 }')
        nr=$(column "$c" "$pairing" nginx 4 | median); np=$(column "$c" "$pairing" nginx 5 | median)
        nu=$(column "$c" "$pairing" nginx 7 | median)
        ne=$(column "$c" "$pairing" nginx 6 | awk '{ s += $1 } END { print s + 0 }')
        ratio=$(bench_ratio "$lr" "$nr")
        printf '%-8s %-7s %10.0f %7s %7s %10.0f %7s %7s %6s %7s\n' "$c" "$pairing" "$lr" "$lp" "$lu" "$nr" "$np" "$nu" "$ratio" "$le/$ne"
        bench_row "$c $pairing" "$(printf '%.0f' "$lr") req/s, $lu us CPU/req" "nginx $(printf '%.0f' "$nr") req/s, $nu us CPU/req" \
            "$ratio" "$le" "≥ 1.0x (goal 1.5x)"
        [ "$le" = 0 ] || status=1
    done
done
echo "(errors: lerix/nginx non-2xx/3xx or unexpected status, socket errors, and logged requests missing from the log, summed over rounds)"

# The log line: CPU per request logged minus quiet, the median over the cases.
if [ "${#PAIRINGS[@]}" = 2 ]; then
    line_cost() {  # server
        for c in "${CASES[@]}"; do
            awk -v a="$(column "$c" logged "$1" 7 | median)" -v b="$(column "$c" quiet "$1" 7 | median)" 'BEGIN { printf "%.2f\n", a - b }'
        done | median
    }
    quiet_cost() {  # server: its quiet CPU per request, the median over the cases
        for c in "${CASES[@]}"; do column "$c" quiet "$1" 7 | median; done | median
    }
    LERIX_LINE=$(line_cost lerix); NGINX_LINE=$(line_cost nginx)
    echo "log line cost (CPU per request, logged - quiet, median over the cases): lerix-mock $LERIX_LINE us, nginx $NGINX_LINE us"
    # "of" the quiet request's CPU: compare.py judges a difference as a share of its whole.
    bench_row "log line cost (CPU/req logged - quiet)" "$LERIX_LINE us of $(quiet_cost lerix) us" "nginx $NGINX_LINE us" - - "< 1 us"
fi

echo
echo "== $IDLE idle keep-alive connections to lerix-mock (logged)"
python3 "$ROOT/Benchmarks/idle-connections.py" "$LOGGED_PORT" "$LOGGED_PID" "$IDLE" "$CHECK" | tee "$WORK/idle.out" || status=1
# idle-connections.py's last line: "idle summary: HELD-MB AFTER-MB SERVED"
read -r held after served <<<"$(awk '/^idle summary:/ { print $3, $4, $5 }' "$WORK/idle.out")"
bench_row "$IDLE idle connections, RSS" "${held:-?} MB held, ${after:-?} MB after" - - "$(( IDLE - ${served:-0} ))" "< 200 MB"
for pid in "$LOGGED_PID" "$QUIET_PID"; do
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "lerix-mock (pid $pid) is gone; its stderr ends with:"
        tail -n 30 "$WORK"/*.err "$LOGGED_LOG" 2>/dev/null
        status=1
    fi
done
echo "load average at the end: $(load_average)"
exit $status
