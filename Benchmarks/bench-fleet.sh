#!/usr/bin/env bash
# Fleets in virtual time (issue 13): the in-process server and Swift SDK through the fleet
# scenarios of Benchmarks/fleets/ (not in make test), with `lerix-mock scenarios`:
#   - 10,000 devices through a simulated day (block, lift, pushes on): < 5 s, < 512 MB;
#   - 100,000 devices through a simulated hour (block, pushes on): < 30 s, < 1 GB;
# each also at 1k/10k/100k devices to show how time and memory grow (CPU seconds and peak RSS
# against the smallest fleet: printed after each larger run, and the table's ratio column).
# Every run must pass (its closing steps pin each device's checks), so the checks per second
# count real checks. The targets are wall-clock; on a shared machine read the CPU seconds
# (and the load average).
# Env: LERIX_BIN (.build/release/lerix-mock), BENCH_FLEET_SIZES ("1000 10000 100000").
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_setup lerix-bench-fleet python3
[ -x /usr/bin/time ] || { echo "bench needs /usr/bin/time (Debian's time package)" >&2; exit 2; }
SIZES=${BENCH_FLEET_SIZES:-1000 10000 100000}
echo "load average before: $(load_average)"

# fleet SCENARIO SHORT WALL_TARGET_S RSS_TARGET_MB TARGET_DEVICES: one run per size, a row each;
# every size after the first also prints how CPU time and memory grew from the first.
fleet() {
    local scenario=$1 short=$2 wall_target=$3 rss_target=$4 target_devices=$5
    local base_cpu="" base_rss="" base_size=""
    for size in $SIZES; do
        local line name devices wall cpu rss checks rate cpu_rate passed
        line=$(python3 "$ROOT/Benchmarks/fleet.py" "$BIN" "$ROOT/Benchmarks/fleets/$scenario" "$size" "$WORK") || exit 1
        IFS=$'\t' read -r name devices wall cpu rss checks rate cpu_rate passed <<<"$line"
        local errors=0 target="-" reference="-" growth="-"
        [ "$passed" = 1 ] || errors=1
        [ "$devices" = "$target_devices" ] && target="< $wall_target s, < $rss_target MB"
        printf '%-7s %7s devices  %7s s wall  %7s s CPU  %6s MB  %9s checks  %7s checks/s  %7s checks/CPU-s  %s\n' \
            "$short" "$devices" "$wall" "$cpu" "$rss" "$checks" "$rate" "$cpu_rate" "$([ "$passed" = 1 ] && echo passed || echo FAILED)"
        if [ -n "$base_cpu" ]; then
            reference="$((base_size / 1000))k devices: $base_cpu s CPU, $base_rss MB"
            growth="CPU $(bench_ratio "$cpu" "$base_cpu"), memory $(bench_ratio "$rss" "$base_rss")"
            awk -v n="$devices" -v n0="$base_size" -v c="$cpu" -v c0="$base_cpu" -v m="$rss" -v m0="$base_rss" 'BEGIN {
                printf "        growth from %dk devices: %.1fx devices, %.2fx CPU, %.2fx memory (%.1f KB per added device)\n",
                    n0 / 1000, n / n0, (c0 > 0 ? c / c0 : 0), (m0 > 0 ? m / m0 : 0), (n > n0 ? (m - m0) * 1024 / (n - n0) : 0) }'
        else
            base_cpu=$cpu; base_rss=$rss; base_size=$devices
        fi
        # Peak memory over the devices simulated: how much each device costs, so growth shows.
        local per_device
        per_device=$(awk -v m="$rss" -v n="$devices" 'BEGIN { printf "%.0f", (n > 0 ? m * 1048576 / n : 0) }')
        echo "        $per_device bytes of peak memory a simulated device"
        bench_row "fleet $short, $((devices / 1000))k devices" "$wall s ($cpu s CPU), $rss MB, $per_device bytes a device, $rate checks/s ($cpu_rate per CPU-s)" "$reference" "$growth" "$errors" "$target"
    done
}

fleet day-10k.yaml "1 day" 5 512 10000
fleet hour-100k.yaml "1 hour" 30 1024 100000
echo "load average after: $(load_average)"
