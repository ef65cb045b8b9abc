# Shared set-up for the Benchmarks/bench-*.sh scripts: sourced, not run.
#
#   source "$(dirname "$0")/lib.sh"
#   bench_setup lerix-bench-x wrk curl          # tools + release binary, WORK, cleanup on exit
#   bench_launch LERIX http serve --quiet --port 0   # sets LERIX_PID, LERIX_PORT, LERIX (URL)
#   ...
#   bench_row "x 200" "81234 req/s" "nginx 70000 req/s" "$(bench_ratio 81234 70000)" 0 ">= 1.0x"
#
# Every script adds its headline figures with bench_row; `make bench` collects the rows of all
# scripts into one table (Benchmarks/table.sh) and prints it at the end. A script run on its own
# prints its rows as that table when it exits. See /work/notes/api-bench.md.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${LERIX_BIN:-$ROOT/.build/release/lerix-mock}
# The sources BIN was built from: this tree, or the baseline's (Benchmarks/run.sh), for the
# scripts that build a program of their own.
SOURCE=${BENCH_SOURCE_ROOT:-$ROOT}

# bench_setup NAME TOOL...: the tools and the release binary are there, WORK is made, cleanup set.
bench_setup() {
    local name=$1; shift
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { echo "bench needs $tool (make bench-deps)" >&2; exit 2; }
    done
    [ -x "$BIN" ] || { echo "no release binary at $BIN (make release)" >&2; exit 2; }
    WORK=$(mktemp -d "/tmp/$name.XXXXXX")
    chmod 755 "$WORK"
    BENCH_NAME=$name
    if [ -z "${BENCH_TABLE:-}" ]; then
        # On its own: the rows go to WORK and are printed as a table on exit.
        BENCH_TABLE=$WORK/table.tsv
        BENCH_TABLE_OWNED=1
    fi
    trap bench_cleanup EXIT
}

# Kills every background job the script started (servers, wrk), prints the table when the
# script runs on its own, removes WORK.
bench_cleanup() {
    local status=$?
    local pids
    pids=$(jobs -p)
    [ -n "$pids" ] && { kill $pids 2>/dev/null || true; }
    wait 2>/dev/null || true
    if [ "${BENCH_TABLE_OWNED:-0}" = 1 ] && [ -s "$BENCH_TABLE" ]; then
        echo
        bash "$ROOT/Benchmarks/table.sh" "$BENCH_TABLE"
    fi
    rm -rf "$WORK"
    exit $status
}

# bench_row CASE VALUE REFERENCE RATIO ERRORS [TARGET]: one row of the final table.
# VALUE and REFERENCE carry their unit ("81234 req/s", "nginx 70000 req/s", "-" for none);
# RATIO is "1.23x" (bench_ratio) or "-"; ERRORS a count or "-"; TARGET what passes ("≥ 1.0x").
# Fields must not contain tabs.
bench_row() {
    [ $# -ge 5 ] || { echo "bench_row needs CASE VALUE REFERENCE RATIO ERRORS [TARGET], got: $*" >&2; exit 2; }
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "${6:--}" >>"$BENCH_TABLE"
}

# bench_ratio A B: "1.23x" (A / B), "-" when B is 0 or empty.
bench_ratio() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }

# bench_launch NAME SCHEME ARG...: runs `lerix-mock ARG...` in the background (stdout to
# WORK/name.out, stderr to WORK/name.err unless BENCH_STDERR names a file to append to) and
# waits for its `SCHEME://host:port` line; sets NAME_PID, NAME_PORT and NAME (the base URL).
bench_launch() {
    local name=$1 scheme=$2; shift 2
    local lower=${name,,}
    local err=${BENCH_STDERR:-$WORK/$lower.err}
    "$BIN" "$@" >"$WORK/$lower.out" 2>>"$err" &
    local pid=$!
    local port
    port=$(reported_port "$WORK/$lower.out" "$scheme" "$err")
    printf -v "${name}_PID" '%s' "$pid"
    printf -v "${name}_PORT" '%s' "$port"
    printf -v "$name" '%s://127.0.0.1:%s' "$scheme" "$port"
}

# bench_stop PID: stops one server and waits for it.
bench_stop() {
    [ -n "${1:-}" ] || return 0
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

# valgrind_shim: builds WORK/sigsuspend.so and prints its path, for LD_PRELOAD under valgrind.
# Valgrind 3.19 writes into the mask given to sigsuspend(2), and libdispatch's main thread
# (after dispatchMain) passes a read-only one: valgrind dies with SIGSEGV. The preloaded
# sigsuspend passes a copy.
valgrind_shim() {
    cat >"$WORK/sigsuspend.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    int (*real)(const sigset_t *) = (int (*)(const sigset_t *))dlsym(RTLD_NEXT, "sigsuspend");
    return real(&copy);
}
C
    cc -shared -fPIC -O2 -o "$WORK/sigsuspend.so" "$WORK/sigsuspend.c" -ldl
    echo "$WORK/sigsuspend.so"
}

# callgrind_file DIR: the largest callgrind.out* in DIR (the profiled process's), copied to
# CALLGRIND_OUT when that is set.
callgrind_file() {
    local file
    file=$(ls -S "$1"/callgrind.out* | head -1)
    if [ -n "${CALLGRIND_OUT:-}" ]; then cp "$file" "$CALLGRIND_OUT"; fi
    echo "$file"
}

# callgrind_total FILE: the instructions callgrind counted, all threads (kernel not counted).
callgrind_total() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'; }

# callgrind_top FILE TOP: the TOP functions by self cost, then inclusive.
callgrind_top() {
    echo "-- top $2 by self cost"
    callgrind_annotate "$1" 2>/dev/null | sed -n '/^Ir/,$p' | sed -n "3,$(($2 + 2))p" | cut -c1-200
    echo "-- top $2 inclusive"
    callgrind_annotate --inclusive=yes "$1" 2>/dev/null | sed -n '/^Ir/,$p' | sed -n "3,$(($2 + 2))p" | cut -c1-200
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# reported_port FILE SCHEME [ERRFILE]: waits up to 10 s for `SCHEME://host:port` in FILE (serve's
# first line) and prints the port; prints the server's output and exits when it never comes.
reported_port() {
    local file=$1 scheme=$2 err=${3:-$WORK/lerix.err} port=""
    for _ in $(seq 100); do grep -q "$scheme://" "$file" 2>/dev/null && break; sleep 0.1; done
    port=$(grep -o "$scheme://[^ ]*" "$file" | head -1 | sed 's/.*://; s/[^0-9].*//')
    [ -n "$port" ] || { { echo "lerix-mock did not report its port:"; cat "$file" "$err" 2>/dev/null; } >&2; exit 1; }
    echo "$port"
}

# cpu_seconds PID: user + system CPU seconds the process has used so far. On a shared machine
# CPU per request says more than wall-clock throughput.
cpu_seconds() {
    awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.3f", ($12 + $13) / hz }' "/proc/$1/stat"
}

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

load_average() { echo "$(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"; }

# median: of the numbers on stdin, one a line.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# wrk's report on stdin -> its 99th percentile latency in milliseconds.
wrk_p99_ms() { awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 }; print v }'; }
# wrk's report on stdin -> requests/s, requests completed, and bad ones (non-2xx/3xx + socket errors).
wrk_rps() { awk '/^Requests\/sec:/ { print $2 }'; }
wrk_total() { awk '/requests in/ { print $1 }'; }
wrk_errors() { awk '/Non-2xx or 3xx responses:/ { n += $5 } /Socket errors:/ { gsub(",", ""); n += $4 + $6 + $8 + $10 } END { print n + 0 }'; }
# h2load's report on stdin -> requests/s.
h2load_rps() { awk '/^finished in/ { for (i = 1; i <= NF; i++) if ($i == "req/s,") print $(i - 1) }'; }

# latency_window LOG FROM_US TO_US: the requests of an h2load --log-file (start in microseconds
# since the epoch, status, microseconds to the end of the response; one a line) that overlapped
# [FROM_US, TO_US], i.e. started before TO_US and ended after FROM_US. Prints
# "COUNT P50_MS P99_MS MAX_MS FAILED COVERED": FAILED counts overlapping requests that failed or
# were not 2xx/3xx; COVERED is 1 when the log's requests began by FROM_US and ran until TO_US
# (the load spanned the whole window), else 0. Percentiles are nearest-rank.
latency_window() {
    awk -F'\t' -v from="$2" -v to="$3" '
        NR == 1 || $1 < first { first = $1 }
        $1 + $3 > last { last = $1 + $3 }
        $1 < to && $1 + $3 > from {
            print $3
            if ($2 < 200 || $2 >= 400) failed++
        }
        END { printf "# %d %d\n", failed, (NR > 0 && first <= from && last >= to) }' "$1" |
    sort -g | awk '
        /^#/ { failed = $2; covered = $3; next }
        { v[++n] = $1 }
        function rank(p,  i) { i = int(p * n + 0.999999); if (i < 1) i = 1; return v[i] / 1000 }
        END {
            if (n == 0) { printf "0 0 0 0 %d %d\n", failed, covered; exit }
            printf "%d %.2f %.2f %.2f %d %d\n", n, rank(0.5), rank(0.99), v[n] / 1000, failed, covered
        }'
}

# tree_cpu_seconds PID: cpu_seconds of PID and its child processes (nginx's master and workers).
tree_cpu_seconds() {
    local total
    total=$(cpu_seconds "$1")
    for child in $(pgrep -P "$1" 2>/dev/null); do
        total=$(awk -v a="$total" -v b="$(cpu_seconds "$child" 2>/dev/null || echo 0)" 'BEGIN { printf "%.3f", a + b }')
    done
    echo "$total"
}
