# The two commands: `make run` and `make test`. Everything else here serves them.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

# Every cargo command runs through scripts/cargo.sh: the toolchain pinned in rust-toolchain.toml,
# or under CI (or BFF_TOOLCHAIN_STAND_IN=1) a stand-in named as what it is. Nothing here changes the
# user's rustup; a missing toolchain stops the first cargo command with the command to install it.
CARGO ?= $(CURDIR)/scripts/cargo.sh
NPM ?= npm
# The pinned Node and its npm (scripts/lib/node.sh: from the npm registry, sha256-checked,
# installed once into .tools/), first on PATH for every recipe. NODE_BIN_DIR=/path uses that
# directory's Node of the pinned major instead (off linux-x64); it is checked, never written.
ifdef NODE_BIN_DIR
NODE_BIN := $(NODE_BIN_DIR)
NODE_STAMP := node-check
else
NODE_BIN := $(or $(TOOLS_DIR),$(CURDIR)/.tools)/node/bin
# Written by the install; remade when the pins (scripts/lib/node.sh) change.
NODE_STAMP := $(NODE_BIN)/../.pinned
endif
export PATH := $(NODE_BIN):$(PATH)
BFF := target/debug/bff
BFF_RELEASE := target/release/bff
# npm ci writes this file; it is newer than package-lock.json once the install is current.
WEB_DEPS := web/node_modules/.package-lock.json
WEB_SOURCES := $(shell find web/src web/index.html web/public web/scripts web/stand-in-build web/vite.config.ts web/vite.ssr.config.ts web/tsconfig*.json -type f 2>/dev/null)
# The operators' console: a Vite build of its own (web/vite.console.config.ts -> web/dist-console),
# so the storefront's chunks and budgets never see it.
CONSOLE_SOURCES := $(shell find web/console web/vite.console.config.ts web/tsconfig.console.json -type f 2>/dev/null)

.PHONY: node-check help run dev test test-scripts test-rust test-web test-e2e test-rollout test-api test-k8s test-docker test-observability bench seo-audit lint-renovate clean

help:
	@echo "make run    the storefront on http://localhost:8080 with the embedded sandbox (release build)"
	@echo "make dev    the same from the debug build: quicker to rebuild, several times slower to serve"
	@echo "make test   every check: format, lint, unit, integration (in process, then with Redis), web, browser, API contract, k8s (with alert unit tests), Dockerfile, dashboards and alerts against a real Prometheus"
	@echo "make bench  criterion benchmarks (the edge cache's hit path) and the HTTP benchmark (wrk)"
	@echo "make seo-audit  Lighthouse on home, a product, a collection and a search, mobile and desktop (SEO 100, mobile perf 95, LCP 1.2 s)"
	@echo "make lint-renovate  Renovate's own validator on renovate.json (installs renovate into .tools/ once)"

$(NODE_STAMP): scripts/lib/node.sh
	bash scripts/ensure-node.sh >/dev/null
	@if [[ "$@" != node-check ]]; then touch "$@"; fi

$(WEB_DEPS): $(NODE_STAMP) web/package.json web/package-lock.json
	cd web && $(NPM) ci --no-audit --no-fund
	@touch $@

# The build also writes the server renderer (web/dist/ssr/render.js) and checks the budgets.
web/dist/index.html: $(NODE_STAMP) $(WEB_DEPS) $(WEB_SOURCES)
	cd web && $(NPM) run build
	@touch $@

# The console the admin listener serves at /admin/console/ (web.console_dir); about 1 s.
web/dist-console/index.html: $(NODE_STAMP) $(WEB_DEPS) $(CONSOLE_SOURCES)
	cd web && $(NPM) run build:console
	@touch $@

## run: build what is missing or stale, then serve at full speed (Ctrl-C stops, draining requests).
## The first release build takes a few minutes; later ones rebuild only what changed.
run: web/dist/index.html web/dist-console/index.html
	$(CARGO) build --release --locked -p bff
	$(BFF_RELEASE)

## dev: the same storefront from a debug build of the bff alone: seconds to rebuild
## after a change, an order of magnitude slower per request.
dev: web/dist/index.html web/dist-console/index.html
	$(CARGO) build --locked -p bff
	$(BFF)

## test: every check, cheapest first; one debug build serves the Rust, browser and API contract tests.
test: test-scripts test-rust test-web test-e2e test-rollout test-api test-k8s test-docker test-observability

# One package and feature selection for every cargo build of `make test`: the test pass, the Redis
# pass, the rolling restart and the bff binary the browser, API contract and observability stages
# start all come from one build (a different selection would unify features differently and
# compile most of the tree again).
TEST_SELECTION := --locked --workspace

## test-scripts: the build scripts' own tests (make leaves rustup alone; the Dockerfile's checks
## fail when they should). About 1 s.
test-scripts:
	bash scripts/tests/rust-toolchain.test.sh
	bash scripts/tests/dockerfile-bases.test.sh

## test-rust needs the web build: the server-rendering tests render documents with its bundle.
test-rust: web/dist/index.html
	$(CARGO) fmt --all --check
	$(CARGO) clippy --locked --workspace --all-targets -- -D warnings
	@# The API docs, warnings (broken links among them) as errors; about 40 s, sharing the lints'
	@# dependency metadata.
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc $(TEST_SELECTION) --no-deps
	$(CARGO) test $(TEST_SELECTION)
	CARGO=$(CARGO) bash scripts/test-with-redis.sh
	@# The production build (no sandbox feature, as the Dockerfile builds it): its lints, its
	@# library's unit tests, then its crate graph (no SQLite, argon2, jsonwebtoken, aws-lc).
	$(CARGO) clippy --locked -p bff --no-default-features -- -D warnings
	$(CARGO) test --locked -p bff --lib --no-default-features
	CARGO=$(CARGO) bash scripts/check-production-tree.sh
	@# cargo-deny: bans, licenses, sources, advisories (RustSec snapshot, else a fetch); about 10 s
	@# per run, plus a one-time unoptimised install of cargo-deny into .tools/ (about 2 min on 2
	@# cores). Then its own test: no snapshot and no fetch warn outside CI and fail under CI.
	CARGO=$(CARGO) bash scripts/cargo-deny.sh
	bash scripts/tests/cargo-deny.test.sh

## test-web: the build (with its budgets) is web/dist/index.html's rule, made once for every stage;
## the console's build is web/dist-console/index.html's. Lint, typecheck and unit tests cover both.
test-web: $(NODE_STAMP) $(WEB_DEPS) web/dist/index.html web/dist-console/index.html
	bash scripts/check-node-pins.sh
	node scripts/check-renovate-groups.mjs
	@# both checks fail on planted mismatches (a scratch copy; about 3 s)
	bash scripts/test-pin-checks.sh
	cd web && $(NPM) run lint
	@# Prettier, about 3 s
	cd web && $(NPM) run format:check
	cd web && $(NPM) run check:api
	@# every test web/e2e/SPEC-COVERAGE.md names exists (file and title); well under 1 s
	cd web && $(NPM) run check:coverage
	cd web && $(NPM) run typecheck
	cd web && $(NPM) test

## test-e2e (and test-api, test-observability): the bff binary of the test build (a no-op after
## test-rust), not a build of its own. e2e/console.spec.ts starts its own Redis and three replicas
## serving the console (about 12 s).
test-e2e: $(NODE_STAMP) $(WEB_DEPS) web/dist-console/index.html
	$(CARGO) test $(TEST_SELECTION) --no-run
	cd web && BFF_BIN=../$(BFF) $(NPM) run e2e

## test-rollout: a rolling restart of three bff processes behind nginx, with Redis and the sandbox,
## under 50 requests/s (bff/tests/it/rolling_restart.rs): 0 failed requests, and the new replicas'
## hot keys come from the shared tier with no upstream call. About 30 s once the tests are built.
test-rollout:
	$(CARGO) test $(TEST_SELECTION) --test it rolling_restart:: -- --ignored --nocapture

## test-api: schemathesis against the bff's own OpenAPI document (scripts/api-contract.sh).
test-api:
	$(CARGO) test $(TEST_SELECTION) --no-run
	BFF_BIN=$(BFF) bash scripts/api-contract.sh

## test-k8s: every kustomization rendered and validated (CRD and HTTPRoute schemas included); on
## every overlay the NetworkPolicy allow-matrix and checkov (0 failed checks); then the alert
## rules: promtool check and unit tests, a runbook section per alert (scripts/test-observability.sh).
## checkov costs 1.5-9 min (wall; about 65 s CPU, the rest download) to install once
## (.tools/venv-checkov), then 6 s CPU / 15 s wall per
## run (both overlays in one process); the matrix under 1 s.
test-k8s:
	bash scripts/validate-k8s.sh
	bash scripts/test-observability.sh rules

## test-observability: a real Prometheus scrapes two bff replicas (+ sandbox, Redis) under a short
## load; every dashboard query and every rule's series must have data (about 20 s; bounded).
test-observability:
	$(CARGO) test $(TEST_SELECTION) --no-run
	BFF_BIN=$(BFF) timeout 150 bash scripts/test-observability.sh live

test-docker:
	bash scripts/lint-dockerfile.sh

## bench: criterion benchmarks of the hit path and of sign-out revocation's per-request check (a
## redis-server of its own) in process (reports in target/criterion/), then the release bff over
## HTTP under wrk: req/s and latency of a cached page and product, RSS.
bench: web/dist/index.html
	$(CARGO) bench --locked -p bff --bench cache_hit
	$(CARGO) bench --locked -p bff --bench session_revocation
	$(CARGO) build --release --locked -p bff
	BFF_BIN=$(BFF_RELEASE) bash scripts/bench-http.sh

## seo-audit: Lighthouse with Debian's Chromium on home, a product, a collection and a search results
## page (slow; outside `make test`). Fails when a page's median (of 3 runs) is below SEO 100, mobile
## performance 95 or desktop 100, or above a mobile LCP of 1.2 s. BFF_BIN=target/debug/bff audits
## the debug build (no release build), whose performance figures mean little.
seo-audit: $(NODE_STAMP) web/dist/index.html
	@if [[ -z "$${BFF_BIN:-}" ]]; then $(CARGO) build --release --locked -p bff; fi
	BFF_BIN="$${BFF_BIN:-$(BFF_RELEASE)}" bash scripts/seo-audit.sh

## lint-renovate: Renovate's config validator on renovate.json (scripts/lint-renovate.sh). Outside
## `make test`: the first run installs renovate (about 620 packages) into .tools/.
lint-renovate: $(NODE_STAMP)
	bash scripts/lint-renovate.sh

clean:
	$(CARGO) clean
	rm -rf web/dist web/dist-console web/node_modules .tools
