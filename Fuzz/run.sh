#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/targets with swiftc -sanitize=fuzzer,address and runs
# each for its share of a time budget. Usage: Fuzz/run.sh [total-seconds] [target ...]
# Default budget 60 s. New corpus entries go to .build/fuzz/corpus/<target> (or $FUZZ_OUT/corpus); a crash leaves
# its input in .build/fuzz/artifacts/<target>/ and makes the script exit 1. Each run also starts from the
# kept corpus, Fuzz/corpus/<target> (minimized from earlier runs: `fuzz-<target> -merge=1 Fuzz/corpus/<target>
# .build/fuzz/corpus/<target>` adds what a run found), and the hand-made seeds in Fuzz/seeds/<target>.
# FUZZ_TIMEOUT (default 10 s) is how long one input may take: raise it on a loaded machine, where a
# starved process trips it (check a timeout input with `fuzz-<target> -runs=1 FILE` and its CPU time).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOTAL=${1:-60}
shift || true
OUT=${FUZZ_OUT:-$ROOT/.build/fuzz}   # FUZZ_OUT: a second run beside the first
# Crashes go to libFuzzer and ASan, not the Swift runtime backtracer (which holds pipes open).
export SWIFT_BACKTRACE=enable=no
mkdir -p "$OUT"

# name | modules to build first (dependency order) | libraries to link
TARGETS=(
    "http2-server|HTTP HTTP2|-lnghttp2"
    "http2-client|HTTP HTTP2|-lnghttp2"
)
if [ -f "$ROOT/Fuzz/targets/FuzzHTTP1Parser.swift" ]; then
    TARGETS+=("http1-parser|HTTP|")
fi
if [ -f "$ROOT/Fuzz/targets/FuzzConnection.swift" ]; then
    TARGETS+=("connection|POSIX Clock HTTP HTTP2 TLS Sockets Reactor HTTPServer|-lnghttp2 -lz -lssl -lcrypto")
fi
TARGETS+=(
    "json-parser|JSON|"
    "yaml-loader|JSON YAML|-lyaml"
    "sdk-answer|POSIX Clock JSON LerixSDK|"
    "adapter-line-reader|POSIX Clock JSON LerixSDK AdapterProtocol|"
    "scenario-parser|POSIX Clock JSON ReleaseControl YAML LerixSDK AdapterProtocol ScenarioLanguage|-lyaml"
)

FLAGS=(-O -parse-as-library -sanitize=fuzzer,address -package-name lerix_mock -I "$OUT")
for shim in "$ROOT"/Sources/C*/; do FLAGS+=(-I "$shim"); done   # system-library module maps

# Each module once per run, instrumented for coverage; a later target reuses it.
declare -A BUILT=()
build_module() {
    local name=$1
    [ -n "${BUILT[$name]:-}" ] && return 0
    local sources=()
    while IFS= read -r file; do sources+=("$file"); done < <(find "$ROOT/Sources/$name" -name '*.swift' | sort)
    # Modules with embedded resources need the accessor SwiftPM generates (`make fuzz` builds first).
    if grep -q "PackageResources" "${sources[@]}"; then
        local derived=$ROOT/.build/debug/$name.build/DerivedSources/embedded_resources.swift
        [ -f "$derived" ] || { echo "$name embeds resources: run swift build first (make fuzz does)" >&2; exit 2; }
        sources+=("$derived")
    fi
    # Swift 6 mode, as SwiftPM builds them (tools version 6.0).
    swiftc "${FLAGS[@]}" -swift-version 6 -wmo -module-name "$name" -emit-module -emit-module-path "$OUT/$name.swiftmodule" \
        -c "${sources[@]}" -o "$OUT/$name.o" 2> >(grep -v "warning: Cannot export local symbol" >&2)
    BUILT[$name]=1
}

camel() { echo "$1" | awk -F- '{ for (i = 1; i <= NF; i++) printf "%s", (length($i) <= 5 ? toupper($i) : toupper(substr($i,1,1)) substr($i,2)) }'; }
source_for() {
    case $1 in
        http2-server) echo FuzzHTTP2Server.swift ;;
        http2-client) echo FuzzHTTP2Client.swift ;;
        http1-parser) echo FuzzHTTP1Parser.swift ;;
        connection) echo FuzzConnection.swift ;;
        adapter-line-reader) echo FuzzAdapterLineReader.swift ;;
        *) echo "Fuzz$(camel "$1").swift" ;;
    esac
}

selected=()
for entry in "${TARGETS[@]}"; do
    name=${entry%%|*}
    if [ $# -eq 0 ] || printf '%s\n' "$@" | grep -qx "$name"; then selected+=("$entry"); fi
done
[ ${#selected[@]} -gt 0 ] || { echo "no fuzz target matches: $*" >&2; exit 2; }

echo "building ${#selected[@]} fuzz target(s) into $OUT"
for entry in "${selected[@]}"; do
    IFS='|' read -r name modules libs <<<"$entry"
    for module in $modules; do build_module "$module"; done
    objects=()
    for module in $modules; do objects+=("$OUT/$module.o"); done
    # shellcheck disable=SC2086
    swiftc "${FLAGS[@]}" "$ROOT/Fuzz/targets/$(source_for "$name")" "${objects[@]}" $libs -o "$OUT/fuzz-$name" \
        2> >(grep -v "warning: Cannot export local symbol" >&2)
done

per=$(( TOTAL / ${#selected[@]} ))
[ "$per" -ge 1 ] || per=1
failed=0
for entry in "${selected[@]}"; do
    name=${entry%%|*}
    corpus=$OUT/corpus/$name
    artifacts=$OUT/artifacts/$name
    mkdir -p "$corpus" "$artifacts"
    seeds=()
    [ -d "$ROOT/Fuzz/corpus/$name" ] && seeds+=("$ROOT/Fuzz/corpus/$name")
    [ -d "$ROOT/Fuzz/seeds/$name" ] && seeds+=("$ROOT/Fuzz/seeds/$name")
    echo "== $name: ${per}s"
    if nice -n 10 "$OUT/fuzz-$name" -max_total_time="$per" -max_len=8192 -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" "${seeds[@]}" >"$OUT/$name.log" 2>&1; then
        grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss_mb)" "$OUT/$name.log" || true
    else
        failed=1
        echo "!! $name found a failure; input saved in $artifacts, log in $OUT/$name.log"
        grep -E "ERROR|Fatal|panic|SUMMARY" "$OUT/$name.log" | head -5 || true
    fi
done
exit $failed
