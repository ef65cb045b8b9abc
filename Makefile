# lerix-mock: `make serve` runs the mock backend, `make test` runs every test.
# Both install the Debian packages they need when missing (as root, or through sudo).

SWIFT        ?= swift
PORT         ?= 8080
HOST         ?= 127.0.0.1
SERVE_FLAGS  ?=
BUILD_DEPS   := libnghttp2-dev zlib1g-dev libsqlite3-dev libyaml-dev pkg-config
TEST_DEPS    := curl nghttp2-client
BENCH_DEPS   := wrk nghttp2-client nginx curl
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps test-deps bench-deps build release serve test bench fuzz clean

all: build

# Installs only what dpkg says is missing, so a prepared machine never touches the network.
define ensure_packages
	@missing=""; for p in $(1); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
endef

deps:
	$(call ensure_packages,$(BUILD_DEPS))

test-deps: deps
	$(call ensure_packages,$(TEST_DEPS))

bench-deps: deps
	$(call ensure_packages,$(BENCH_DEPS))

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product lerix-mock

serve: release
	.build/release/lerix-mock serve --host $(HOST) --port $(PORT) $(SERVE_FLAGS)

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Each Benchmarks/bench-*.sh prints its own ratios against a reference measured in the same run.
bench: bench-deps release
	@for script in Benchmarks/bench-*.sh; do echo "== $$script"; bash $$script || exit 1; done

fuzz: deps
	./Fuzz/run.sh $(FUZZ_SECONDS)

clean:
	rm -rf .build
