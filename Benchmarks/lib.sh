# Shared set-up for the bench-*.sh scripts that put lerix-mock beside nginx: sourced, not run.
# Defines ROOT, BIN and WORK, kills LERIX_PID and NGINX_PID and removes WORK on exit.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${LERIX_BIN:-$ROOT/.build/release/lerix-mock}

# bench_setup NAME TOOL...: the tools and the release binary are there, WORK is made, cleanup set.
bench_setup() {
    local name=$1; shift
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { echo "bench needs $tool (make bench-deps)" >&2; exit 2; }
    done
    [ -x "$BIN" ] || { echo "no release binary at $BIN (make release)" >&2; exit 2; }
    WORK=$(mktemp -d "/tmp/$name.XXXXXX")
    chmod 755 "$WORK"
    LERIX_PID=""; NGINX_PID=""
    trap bench_cleanup EXIT
}

bench_cleanup() {
    [ -n "$LERIX_PID" ] && kill "$LERIX_PID" 2>/dev/null || true
    [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$WORK"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# reported_port FILE SCHEME: waits up to 10 s for `SCHEME://host:port` in FILE (serve's first
# line) and prints the port; prints the server's output and exits when it never comes.
reported_port() {
    local file=$1 scheme=$2 port=""
    for _ in $(seq 100); do grep -q "$scheme://" "$file" 2>/dev/null && break; sleep 0.1; done
    port=$(grep -o "$scheme://[^ ]*" "$file" | head -1 | sed 's/.*://; s/[^0-9].*//')
    [ -n "$port" ] || { { echo "lerix-mock did not report its port:"; cat "$file" "$WORK/lerix.err" 2>/dev/null; } >&2; exit 1; }
    echo "$port"
}
