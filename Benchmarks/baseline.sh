#!/usr/bin/env bash
# Prints the path of the baseline's release binary, building it first when it is not cached.
# The baseline is BASELINE=REV when set, else the newest v* tag, else the release named in
# Benchmarks/baseline-release. Its source comes from git (`git archive`), so uncommitted changes
# never leak into it; it builds into .build/baseline/COMMIT/ once and is reused by later runs.
# usage: baseline.sh            -> prints "COMMIT LABEL PATH" on stdout, build output on stderr
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SWIFT=${SWIFT:-swift}

rev=${BASELINE:-}
label=""
if [ -z "$rev" ]; then
    rev=$(git -C "$ROOT" describe --tags --abbrev=0 --match 'v*' 2>/dev/null || true)
    label=$rev
fi
if [ -z "$rev" ]; then
    read -r version rev < <(grep -v '^#' "$ROOT/Benchmarks/baseline-release" | head -1)
    label="$version"
fi
commit=$(git -C "$ROOT" rev-parse --verify --quiet "$rev^{commit}") || {
    echo "baseline: no commit '$rev' in $ROOT (set BASELINE=REV to a commit or tag of this repository)" >&2
    exit 2
}
short=$(git -C "$ROOT" rev-parse --short "$commit")
label=${label:-$rev}
[ "$label" = "$short" ] || label="$label ($short)"

dir=$ROOT/.build/baseline/$commit
binary=$dir/build/release/lerix-mock
if [ ! -f "$dir/.built" ] || [ ! -x "$binary" ]; then
    echo "baseline: building $label into $dir (once; later runs reuse it)" >&2
    rm -rf "$dir"
    mkdir -p "$dir/src"
    git -C "$ROOT" archive "$commit" | tar -x -C "$dir/src"
    "$SWIFT" build -c release --product lerix-mock --package-path "$dir/src" --scratch-path "$dir/build" >&2
    touch "$dir/.built"
fi
printf '%s\t%s\t%s\n' "$short" "$label" "$binary"
