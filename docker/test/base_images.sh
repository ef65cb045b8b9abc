#!/usr/bin/env bash
# The base images docker/Dockerfile names, made locally for podman once (nothing is pulled):
#   debian:bookworm-slim   a Debian 12 minbase root file system by mmdebstrap, from the same
#                          mirror the host's apt uses, imported with `podman import`
#   swift:<v>-bookworm     that image plus the official image's packages and this machine's
#                          toolchain (docker/test/swift-bookworm.Dockerfile)
# Both are stored under their docker.io names, so `FROM debian:bookworm-slim` finds them through
# unqualified-search-registries = ["docker.io"] (CONTAINERS_REGISTRIES_CONF, set by docker_test.py).
# A present image is kept; the swift stand-in is remade when the toolchain's version changes.
set -euo pipefail
cd "$(dirname "$0")/../.."

run_flags=(--runtime runc --network=host --ulimit nofile=1024:1024 --ulimit nproc=1000:1000)
debian=docker.io/library/debian:bookworm-slim

if podman image exists "$debian"; then
    echo "$debian: present"
else
    # The host's Debian sources (deb822 or one-line), else Debian's own redirector.
    sources=http://deb.debian.org/debian
    for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
        if [ -s "$f" ] && grep -q '^[^#]*debian' "$f"; then sources=$f; break; fi
    done
    echo "$debian: making it with mmdebstrap from $sources"
    work=$(mktemp -d /tmp/lerix-mock-test-base.XXXXXX)
    trap 'rm -rf "$work"' EXIT
    # The slim variant's trims: no manuals, docs (copyrights stay) or translations.
    mmdebstrap --variant=minbase --mode=root --format=tar --quiet \
        --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
        --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
        --dpkgopt='path-exclude=/usr/share/locale/*' --aptopt='Acquire::Retries "3"' \
        bookworm "$work/rootfs.tar" "$sources"
    podman import --quiet --change 'CMD ["bash"]' "$work/rootfs.tar" "$debian" >/dev/null
    rm -rf "$work"
fi

# The toolchain: usr/ of the swift on PATH (SWIFT_TOOLCHAIN overrides), whose version must be
# the one the Dockerfile's tag names.
swift_bin=$(readlink -f "$(command -v "${SWIFT:-swift}")")
toolchain=${SWIFT_TOOLCHAIN:-$(dirname "$(dirname "$swift_bin")")}
toolchain_version=$("$toolchain/bin/swift" --version 2>&1 | sed -n 's/.*Swift version \([0-9.]*\).*/\1/p' | head -1)

for tag in $(sed -n 's/^FROM \(swift:[^ ]*\).*/\1/p' docker/Dockerfile | sort -u); do
    wanted=${tag#swift:}; wanted=${wanted%-bookworm}
    case "$toolchain_version" in
        "$wanted" | "$wanted".*) ;;
        *) echo "docker/Dockerfile wants $tag but $toolchain has Swift $toolchain_version" >&2; exit 1 ;;
    esac
    image=docker.io/library/$tag
    if [ "$(podman image inspect --format '{{index .Labels "lerix.toolchain"}}' "$image" 2>/dev/null)" = "$toolchain_version" ]; then
        echo "$image: present (Swift $toolchain_version)"
        continue
    fi
    echo "$image: making the stand-in with Swift $toolchain_version from $toolchain"
    podman build "${run_flags[@]}" --pull=never --quiet --label "lerix.toolchain=$toolchain_version" \
        -v "$toolchain:/toolchain:ro" -t "$image" -f docker/test/swift-bookworm.Dockerfile docker/test
done
