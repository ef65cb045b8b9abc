#!/usr/bin/env bash
# Fleets in virtual time (issue 13): the in-process server and Swift SDK through the fleet
# scenarios of Benchmarks/fleets/ (not in make test), with `lerix-mock scenarios`:
#   - 10,000 devices through a simulated day (block, lift, pushes on): <= 0.5x the CPU time and
#     <= 1.0x the peak memory of the baseline (issue 43; `make bench` runs both, alternately);
#   - 100,000 devices through a simulated hour (block, pushes on): < 10 s, < 1 GB;
# each also at 1k/10k/100k devices to show how time and memory grow (CPU seconds and peak RSS
# against the smallest fleet: printed after each larger run, and the table's ratio column).
# Every run must pass (its closing steps pin each device's checks), so the checks per second
# count real checks. Each size gives two rows: CPU seconds first (user + system: on a shared
# machine wall-clock is not evidence), and peak memory with the bytes it costs a device, so
# `make bench` (Benchmarks/compare.py, which compares a row's first figure) sets each beside the
# baseline's.
# Env: LERIX_BIN (.build/release/lerix-mock), BENCH_FLEET_SIZES ("1000 10000 100000").
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_setup lerix-bench-fleet python3
[ -x /usr/bin/time ] || { echo "bench needs /usr/bin/time (Debian's time package)" >&2; exit 2; }
SIZES=${BENCH_FLEET_SIZES:-1000 10000 100000}
echo "load average before: $(load_average)"

# fleet SCENARIO SHORT TIME_TARGET MEMORY_TARGET TARGET_DEVICES: one run per size, two rows
# each (CPU time, peak memory); the targets are printed on the rows of TARGET_DEVICES. Every size
# after the first also prints how CPU time and memory grew from the first.
fleet() {
    local scenario=$1 short=$2 time_target=$3 memory_target=$4 target_devices=$5
    local base_cpu="" base_rss="" base_size=""
    for size in $SIZES; do
        local line name devices wall cpu rss checks rate cpu_rate passed
        line=$(python3 "$ROOT/Benchmarks/fleet.py" "$BIN" "$ROOT/Benchmarks/fleets/$scenario" "$size" "$WORK") || exit 1
        IFS=$'\t' read -r name devices wall cpu rss checks rate cpu_rate passed <<<"$line"
        local errors=0 time_goal="-" memory_goal="-" reference="-" growth="-"
        [ "$passed" = 1 ] || errors=1
        [ "$devices" = "$target_devices" ] && { time_goal=$time_target; memory_goal=$memory_target; }
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
        local case="fleet $short, $((devices / 1000))k devices"
        bench_row "$case, CPU" "$cpu s CPU ($wall s wall), $cpu_rate checks per CPU-s ($rate per wall-s)" "$reference" "$growth" "$errors" "$time_goal"
        bench_row "$case, memory" "$rss MB peak, $per_device bytes a device" "-" "-" "$errors" "$memory_goal"
    done
}

fleet day-10k.yaml "1 day" "<= 0.5x baseline's" "<= 1.0x baseline's" 10000
fleet hour-100k.yaml "1 hour" "< 10 s" "< 1024 MB" 100000
echo "load average after: $(load_average)"
