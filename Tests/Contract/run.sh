#!/usr/bin/env bash
# The OpenAPI document is the contract: schemathesis, with all its checks, against live
# lerix-mock servers built from this tree, one without and one with --admin-token.
#
#   Tests/Contract/run.sh .build/debug/lerix-mock .build/test-venv/bin/schemathesis
#
# Each server listens on a free port (--port 0, read from its first line), is waited for on
# /healthz, and is killed by its pid whatever happens. Zero failures is the bar: any failure,
# error or warning-free crash of the server fails the run. SCHEMATHESIS_SEED and
# SCHEMATHESIS_EXAMPLES vary the run (the default seed keeps CI reproducible).
set -euo pipefail

binary=${1:?usage: run.sh LERIX_MOCK SCHEMATHESIS}
schemathesis=${2:?usage: run.sh LERIX_MOCK SCHEMATHESIS}
here=$(cd "$(dirname "$0")" && pwd)
# schemathesis runs in a scratch directory (its files stay out of the tree): absolute paths.
absolute() { case "$1" in /*) echo "$1" ;; */*) echo "$PWD/$1" ;; *) command -v "$1" ;; esac; }
binary=$(absolute "$binary")
schemathesis=$(absolute "$schemathesis")
seed=${SCHEMATHESIS_SEED:-20261203}
examples=${SCHEMATHESIS_EXAMPLES:-10}
work=$(mktemp -d)
server_pid=""

stop_server() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    server_pid=""
}
cleanup() { stop_server; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# Starts lerix-mock with the given flags; sets base_url.
start_server() {
    local out="$work/serve.out"
    : >"$out"
    "$binary" serve --host 127.0.0.1 --port 0 "$@" >"$out" 2>"$work/serve.err" &
    server_pid=$!
    local line=""
    for _ in $(seq 1 200); do
        line=$(head -n 1 "$out" 2>/dev/null || true)
        [ -n "$line" ] && break
        kill -0 "$server_pid" 2>/dev/null || { echo "lerix-mock exited at start:"; cat "$work/serve.err"; return 1; }
        sleep 0.05
    done
    base_url=${line#listening on }
    case "$base_url" in http://*) ;; *) echo "no listening line from lerix-mock (got: '$line')"; cat "$work/serve.err"; return 1 ;; esac
    for _ in $(seq 1 100); do
        curl -fsS -o /dev/null "$base_url/healthz" && return 0
        sleep 0.05
    done
    echo "lerix-mock at $base_url never answered /healthz"
    return 1
}

# One schemathesis run against the running server; extra arguments select operations. Every
# check runs, ensure_resource_availability (ST302) too: a rule that a later lift-all removed
# answers 410 naming the change, not 404 (issue 42 item 11).
run_schemathesis() {
    local label=$1; shift
    echo "== schemathesis: $label"
    (cd "$work" && "$schemathesis" --config-file "$here/schemathesis.toml" run "$base_url/openapi.json" \
        --checks all --max-examples "$examples" --seed "$seed" --workers 1 \
        --generation-database none --output-truncate true --no-color "$@")
    if ! kill -0 "$server_pid" 2>/dev/null; then
        echo "lerix-mock died during the run:"
        tail -n 20 "$work/serve.err"
        return 1
    fi
}

# GET /admin/events is an endless text/event-stream; the servers here end each stream after half a
# second (--events-max-seconds), so schemathesis reads it whole and checks every event against the
# document's itemSchema. Every operation runs, with every check and every phase.
events_end=(--events-max-seconds 0.5)

# Faults make the check answer wrong on purpose (that is what they are for), so the fault
# operations run on their own, after everything else, without the check.
fault_ops=(--include-operation-id addFault --include-operation-id listFaults --include-operation-id clearFaults)

start_server --clock manual "${events_end[@]}"
run_schemathesis "no admin token, manual clock" --exclude-operation-id addFault
run_schemathesis "no admin token, faults" "${fault_ops[@]}"
stop_server

token="contract-$$"
start_server --admin-token "$token" "${events_end[@]}"
run_schemathesis "admin token, system clock" --exclude-operation-id addFault -H "Authorization: Bearer $token"
run_schemathesis "admin token, faults" "${fault_ops[@]}" -H "Authorization: Bearer $token"
stop_server
echo "schemathesis: 4 runs, no failures"
