# A local stand-in for the official `swift:<version>-bookworm` image, for `make docker-test` on a
# machine that cannot pull: Debian 12 slim (made by mmdebstrap), the package list of the official
# image's Dockerfile (swiftlang/swift-docker, 6.2/debian/12), installed the same way (with
# recommends), and this machine's own toolchain where the official image unpacks its tarball
# (/usr). The toolchain's usr/ arrives as a build volume at /toolchain (podman build -v …).
FROM debian:bookworm-slim
# The official image installs these with their recommends; so does its stand-in.
# hadolint ignore=DL3015
RUN export DEBIAN_FRONTEND=noninteractive DEBCONF_NONINTERACTIVE_SEEN=true \
 && apt-get -q update \
 && apt-get -q install -y \
      binutils libicu-dev libcurl4-openssl-dev libedit-dev libsqlite3-dev libncurses-dev \
      libpython3-dev libxml2-dev pkg-config uuid-dev tzdata git gcc libstdc++-12-dev \
 && rm -r /var/lib/apt/lists/*
RUN cp -a /toolchain/. /usr/ && swift --version
