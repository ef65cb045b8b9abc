#!/usr/bin/env bash
# The one table `make bench` ends with: every bench script's rows (bench_row in lib.sh), aligned
# for the terminal. With MARKDOWN, also writes it as Markdown with the machine it ran on, ready
# for the README's benchmark section (`make bench-readme` pastes it there).
# usage: table.sh TABLE.tsv [MARKDOWN]
set -euo pipefail
table=$1
markdown=${2:-}
[ -s "$table" ] || { echo "no benchmark rows in $table" >&2; exit 1; }

header=$'case\tlerix-mock\treference\tratio\terrors\ttarget'
# Rows from Benchmarks/compare.py carry the baseline's figure and this tree's against it.
with_baseline=0
awk -F'\t' 'NF >= 8 { found = 1 } END { exit !found }' "$table" && with_baseline=1
baseline_name=${BENCH_BASELINE_LABEL:-the baseline}
[ "$with_baseline" = 1 ] && header+=$'\t'"$baseline_name"$'\tvs baseline'
{ echo "$header"; cat "$table"; } | awk -F'\t' '
    { for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (length($i) > width[i]) width[i] = length($i) } rows = NR; cols = NF > cols ? NF : cols }
    END {
        for (r = 1; r <= rows; r++) {
            line = ""
            for (i = 1; i <= cols; i++) line = line sprintf("%-" width[i] "s  ", cell[r, i])
            sub(/ +$/, "", line); print line
            if (r == 1) { line = ""; for (i = 1; i <= cols; i++) { d = sprintf("%" width[i] "s", ""); gsub(/ /, "-", d); line = line d "  " } sub(/ +$/, "", line); print line }
        }
    }'

[ -n "$markdown" ] || exit 0
root=$(cd "$(dirname "$0")/.." && pwd)
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
memory=$(awk '/^MemTotal:/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
{
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') at commit \`$commit\` on ${cpu:-an unknown CPU}, $(nproc) cores, $memory RAM,"
    echo "$(uname -sr); load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)${BENCH_LOAD_BEFORE:+ (before: $BENCH_LOAD_BEFORE)}."
    echo
    if [ "$with_baseline" = 1 ]; then
        echo "| case | lerix-mock | reference | ratio | errors | target | $baseline_name | vs baseline |"
        echo '|---|---|---|---|---|---|---|---|'
        awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, ($6 == "" ? "-" : $6), $7, $8 }' "$table"
    else
        echo '| case | lerix-mock | reference | ratio | errors | target |'
        echo '|---|---|---|---|---|---|'
        awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, ($6 == "" ? "-" : $6) }' "$table"
    fi
} >"$markdown"
echo
echo "(as Markdown in $markdown; \`make bench-readme\` puts it in the README)"
