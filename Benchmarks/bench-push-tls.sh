#!/usr/bin/env bash
# bench-push.sh over TLS with provider auth (APNs ES256 provider tokens, FCM OAuth access tokens):
# 100,000 tokens by default; compare its tokens/s with bench-push.sh's h2c figure from the same `make bench`.
BENCH_PUSH_TLS=1 exec bash "$(dirname "$0")/bench-push.sh" "$@"
