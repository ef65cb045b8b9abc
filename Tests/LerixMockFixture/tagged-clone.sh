#!/usr/bin/env bash
# Makes the repository Tests/LerixMockFixture depends on by version: a git repository at
# .build/tagged-clone/lerix-mock holding this tree's files as one commit, tagged with the release
# (Sources/ScenarioLanguage/Release.swift, the version's one place).
#
# What the clone holds: the files git would commit from this tree, that is tracked files as they
# are on disk plus untracked ones that are not ignored. In CI (a clean clone of main) that is
# exactly HEAD; in a dev tree with uncommitted changes it is those changes too, so the fixture
# tests what you are about to commit, as the path fixture did.
#
# The commit's dates are fixed, so the same files give the same commit: the clone and the fixture's
# resolved dependency are kept (no rebuild). Files that changed give a new commit under the same
# tag; then the fixture's SwiftPM state (resolved file, fetched repository, checkout) is dropped so
# SwiftPM takes the new one rather than a stale copy of the tag.
#
# usage: tagged-clone.sh FIXTURE_SCRATCH_PATH
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SCRATCH=${1:?usage: tagged-clone.sh FIXTURE_SCRATCH_PATH}
CLONE=$ROOT/.build/tagged-clone/lerix-mock
VERSION=$(sed -n 's/^ *public static let version = "\([0-9.]*\)"$/\1/p' "$ROOT/Sources/ScenarioLanguage/Release.swift")
[[ $VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || {
    echo "tagged-clone.sh: no release found in Sources/ScenarioLanguage/Release.swift" >&2
    exit 1
}

NEW=$CLONE.new
rm -rf "$NEW"
mkdir -p "$NEW"
# Tracked files deleted on disk are left out, as a commit of this tree would leave them out.
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard --deduplicate |
    while IFS= read -r -d '' f; do [[ -e $f || -L $f ]] && printf '%s\0' "$f"; done |
    xargs -0 -r cp -P --parents -t "$NEW")
export GIT_AUTHOR_NAME=lerix-mock GIT_AUTHOR_EMAIL=lerix-mock@localhost GIT_COMMITTER_NAME=lerix-mock \
    GIT_COMMITTER_EMAIL=lerix-mock@localhost GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' \
    GIT_COMMITTER_DATE='2000-01-01T00:00:00Z'
git -C "$NEW" init -q -b main
git -C "$NEW" add -A
git -C "$NEW" -c commit.gpgsign=false commit -q -m "lerix-mock $VERSION (this tree's files)"
git -C "$NEW" tag "$VERSION"

if [[ $(git -C "$NEW" rev-parse HEAD) == "$(git -C "$CLONE" rev-parse "$VERSION^{commit}" 2>/dev/null)" ]]; then
    rm -rf "$NEW"
    exit 0
fi
rm -rf "$CLONE"
mv "$NEW" "$CLONE"
rm -rf "$ROOT/Tests/LerixMockFixture/Package.resolved" "$SCRATCH/repositories" "$SCRATCH/checkouts" \
    "$SCRATCH/workspace-state.json"
echo "tagged-clone.sh: $CLONE at $VERSION ($(git -C "$CLONE" rev-parse --short HEAD))"
