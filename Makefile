# Guichet: `make run` (the portal on SQLite with demo data), `make test` (every
# test), `make build` (bin/guichet with the SPA embedded), `make bench`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
GO ?= go
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)
WEB_SOURCES := $(shell find web/src web/public web/scripts web/index.html web/package.json web/vite.config.ts web/tsconfig*.json -type f 2>/dev/null)
# config/brands/*.yaml: the sample brands embedded in the binary (config/embed.go).
GO_SOURCES := $(shell find cmd internal web/embed.go config -name '*.go' -o -name '*.sql' -o -name '*.html' -o -name '*.txt' -o -name '*.tmpl' -o -name '*.yaml' 2>/dev/null)

.PHONY: FORCE ci-busy all run build image staticcheck test test-checks test-go test-helm test-fuzz test-web test-alerts test-e2e check deps chromium haproxy gotestsum bench cluster load screenshots clean

all: build

## deps: npm packages (npm ci when the lock file changed), Debian's chromium
## and haproxy (make cluster's load balancer).
deps: web/node_modules/.installed chromium haproxy gotestsum

web/node_modules/.installed: web/package-lock.json
	cd web && npm ci --no-audit --no-fund
	touch $@

gotestsum:
	$(GOTESTSUM) --version

chromium:
	@if ! command -v chromium >/dev/null 2>&1; then \
		echo "installing Debian's chromium"; \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium; \
		else sudo apt-get update -qq && sudo apt-get install -y -qq chromium; fi; \
	fi

haproxy:
	@if ! command -v haproxy >/dev/null 2>&1; then \
		echo "installing Debian's haproxy"; \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq haproxy; \
		else sudo apt-get update -qq && sudo apt-get install -y -qq haproxy; fi; \
	fi

## build: the SPA, then the Go binary that embeds it.
build: bin/guichet

web/dist/index.html: web/node_modules/.installed $(WEB_SOURCES) api/openapi.yaml
	cd web && ../$(STAGE) build-web npm run build
	touch web/dist/.keep

# Static (CGO_ENABLED=0: the SQLite driver is pure Go), so the container
# image (make image) ships this very binary FROM scratch, with no libc.
# bin/version holds VERSION: a new commit relinks it (`guichet version`).
bin/guichet: web/dist/index.html $(GO_SOURCES) go.mod go.sum bin/version
	$(STAGE) build-go env CGO_ENABLED=0 $(GO) build -buildvcs=false -trimpath -ldflags "-s -w -X main.version=$(VERSION)" -o $@ ./cmd/guichet

bin/version: FORCE
	@mkdir -p bin
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@

## image: the container image as an OCI layout tarball, dist/guichet-image.tar,
## and its SPDX SBOM beside it (docs/architecture.md "Deployment").
# No Docker daemon: tools/image (go-containerregistry, in tools/go.mod) puts a
# static binary, passwd/group with the user guichet (65532), Debian's CA
# bundle, /data and the SBOM in one layer FROM scratch. Every date is the
# commit's (SOURCE_DATE_EPOCH), so one commit gives one digest. The
# Dockerfile builds the same image with Docker (test/deploy compares them).
# The source label: the origin remote when it is an https URL (a clone of a
# local path, as CI's fresh clone, has a path there), else a placeholder
# that IMAGE_SOURCE replaces (README).
IMAGE_SOURCE ?= $(shell u=$$(git remote get-url origin 2>/dev/null || true); case "$$u" in (https://*) echo "$$u";; (*) echo https://github.com/guichet/guichet;; esac)
IMAGE_REVISION := $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
IMAGE_ARGS := --version $(VERSION) --revision $(IMAGE_REVISION) --source $(IMAGE_SOURCE) --epoch $(SOURCE_DATE_EPOCH) \
	--certs /etc/ssl/certs/ca-certificates.crt --certs-version $(shell dpkg-query -W -f='$${Version}' ca-certificates 2>/dev/null || echo unknown) \
	--npm-lock $(CURDIR)/web/package-lock.json
image: dist/guichet-image.tar

# dist/image-args holds the tool's arguments (test/deploy rebuilds with them
# and wants the same bytes): rewritten only when they change, so a new
# commit or a dirty tree rebuilds the image, and nothing else does.
dist/image-args: FORCE
	@mkdir -p dist
	@echo '$(IMAGE_ARGS)' | cmp -s - $@ || echo '$(IMAGE_ARGS)' > $@

dist/guichet-image.tar: bin/guichet dist/image-args tools/image/main.go tools/go.mod tools/go.sum web/package-lock.json
	cd tools && ../$(STAGE) image $(GO) run ./image build --binary ../bin/guichet $(IMAGE_ARGS) \
		--out ../dist/guichet-image.tar --sbom ../dist/guichet-image.spdx.json

FORCE:

# oauth2-proxy (a tool of tools/go.mod, like gotestsum): a relying party
# nobody here wrote, for the OpenID provider's browser test (issue 30).
bin/oauth2-proxy: tools/go.mod tools/go.sum
	$(STAGE) build-oauth2-proxy $(GO) build -trimpath -modfile=tools/go.mod -o $@ github.com/oauth2-proxy/oauth2-proxy/v7

# The admin listener on its usual port (a --dev start picks a free one
# otherwise): the README's admin API example calls it.
run: build
	bin/guichet serve --dev --admin-addr $${GUICHET_ADMIN_ADDR:-127.0.0.1:9090}

## test: vet, Go tests with -race, short fuzzing, SPA checks and unit tests,
## browser tests against the built binary.
# make test installs what it needs and no more (haproxy belongs to make
# cluster). After the one build, two lanes run side by side
# (scripts/lanes.sh): the CPU-bound stages one after another, and the browser
# tests, which mostly wait on pages and servers. WITH_CLUSTER=1 (.ci/run)
# adds the cluster suites at the end of the first lane.
test: web/node_modules/.installed chromium gotestsum build bin/oauth2-proxy image
	scripts/lanes.sh "checks=$(MAKE) --no-print-directory test-checks" "browser=$(MAKE) --no-print-directory test-e2e"

test-checks: check test-go test-helm test-fuzz test-web test-alerts $(if $(WITH_CLUSTER),cluster)

# Each stage runs under scripts/stage.sh, which records its wall time when
# GUICHET_CI_TIMINGS is set (.ci/run prints the table); GUICHET_CI_REPORTS
# names a folder for the Go tests' JSON and the browser files' times.
STAGE := scripts/stage.sh
REPORTS = $(or $(GUICHET_CI_REPORTS),$${TMPDIR:-/tmp})
# gotestsum (its own module in tools/, so it never enters the product's
# dependencies) prints each package, the failures whole, and the JSON that
# .ci/run reads for the slowest tests. GO_TEST_TIMEOUT bounds each test
# binary; the slowest package (internal/app on both databases) needs ~6 min
# on an idle machine.
GOTESTSUM := $(GO) tool -modfile=tools/go.mod gotestsum
GO_TEST_TIMEOUT ?= 25m

## staticcheck: honnef.co/go/tools (a tool of tools/go.mod) on every Go
## package, with its default checks; part of make check (issue 33). A
## finding kept on purpose says why in a //lint:ignore beside it.
staticcheck:
	$(STAGE) staticcheck $(GO) tool -modfile=tools/go.mod staticcheck ./...

check: staticcheck
	$(STAGE) vet $(GO) vet ./...
	cd web && ../$(STAGE) typecheck-lint bash -c 'npm run typecheck && npm run lint'

# dist/guichet-image.tar: test/deploy unpacks it and runs its binary.
test-go: web/dist/index.html dist/guichet-image.tar
	$(STAGE) go-tests env GUICHET_REQUIRE_IMAGE=1 $(GOTESTSUM) --format pkgname --jsonfile $(REPORTS)/go-test.json -- -race -count=1 -timeout $(GO_TEST_TIMEOUT) ./...

## test-helm: the Helm chart (deploy/helm/guichet), offline: helm lint and
## helm template through the Helm SDK with the values files of
## deploy/helm/test/testdata, every object decoded strictly into its
## Kubernetes type, and the brand files it mounts loaded by bin/guichet.
# deploy/helm/test is a module of its own (Helm and k8s.io/api in its
# go.mod only, never the product's nor tools/go.mod); no -race: it starts
# no goroutine of its own, and the race build of Helm's tree is minutes.
test-helm: bin/guichet
	cd deploy/helm/test && ../../../$(STAGE) helm bash -c '$(GO) vet ./... && GUICHET_BINARY=$(CURDIR)/bin/guichet $(GO) test -count=1 ./...'

test-fuzz:
	$(STAGE) fuzz scripts/fuzz-short.sh

test-web: web/node_modules/.installed
	cd web && ../$(STAGE) vitest npm test

## test-alerts: the Prometheus alert rules (deploy/prometheus) checked and
## their unit cases run by promtool.
# promtool is built from the Go module proxy in a module of its own
# (tools/promtool: Prometheus's server dependencies stay out of go.mod and
# tools/go.mod); the first run builds it, then Go's cache holds it.
# internal/app's TestDashboardAndRulesMetricsAreExported checks the names.
PROMTOOL := $(GO) tool -modfile=tools/promtool/go.mod promtool
test-alerts:
	$(STAGE) alerts bash -c '$(PROMTOOL) check rules deploy/prometheus/guichet-rules.yaml && $(PROMTOOL) test rules deploy/prometheus/guichet-rules.test.yaml'

# The browser test files run E2E_CONCURRENCY at a time (each starts its own
# server on a free port with its own data dir, and its own Chromium). The
# page watches (layout shift over 0.02, focus dropped to <body>) list what
# they saw in $(REPORTS)/e2e-watch.txt (.ci/run prints it) and fail the
# test that saw one (issue 32's "fails the test above it");
# GUICHET_E2E_WATCH=report only lists (a survey of the whole suite in one
# run). Fail is the default since session 22's whole suite passed in it
# (docs/ci.md).
E2E_CONCURRENCY ?= 2
test-e2e: bin/guichet bin/oauth2-proxy chromium
	cd web && GUICHET_E2E_WATCH=$${GUICHET_E2E_WATCH:-fail} GUICHET_E2E_WATCH_REPORT=$${GUICHET_E2E_WATCH_REPORT:-$(REPORTS)/e2e-watch.txt} ../$(STAGE) browser-tests node --test --test-concurrency=$(E2E_CONCURRENCY) \
		--test-reporter=tap --test-reporter-destination=stdout \
		--test-reporter=./e2e/file-times.mjs --test-reporter-destination=$(REPORTS)/e2e-files.txt \
		--test-reporter=./e2e/failures.mjs --test-reporter-destination=$(REPORTS)/e2e-failures.txt e2e/

## bench: budgets and throughput figures (not in CI); see docs/benchmarks.md.
bench: build web/bench/node_modules/.installed chromium
	scripts/bench.sh

## cluster: three instances on a PostgreSQL of their own behind HAProxy
## (deploy/haproxy.cfg): the functional and fault suites of test/cluster
## (docs/cluster.md).
cluster: haproxy
	$(STAGE) cluster scripts/cluster.sh

## ci-busy: CI (.ci/run) while two busy loops keep both cores busy
## (docs/ci.md).
ci-busy:
	scripts/ci-busy.sh

## load: the mixed load scenario of issue 19 through HAProxy, on one
## instance then on three (not in CI; docs/benchmarks.md). LOAD_RATE or
## LOAD_RATES (stepped), LOAD_SECONDS (default 600), LOAD_P99_MS;
## LOAD_CPU_QUOTA=0.25 pins each instance to a CPU quota of its own (root).
load: haproxy
	GUICHET_LOAD=1 CLUSTER_TIMEOUT=$${CLUSTER_TIMEOUT:-3h} scripts/cluster.sh

# Lighthouse for `make bench` only, in its own package (web/bench/), so that
# `make test` and CI never install it.
web/bench/node_modules/.installed: web/bench/package-lock.json
	cd web/bench && npm ci --no-audit --no-fund
	touch $@

## screenshots: login, forgot, a roadblock and /my-account of every brand in
## both languages at 320, 390, 768, 1280 and 1920 px, and the unknown-site
## page, as PNGs in web/screenshots (git-ignored); SHOTS_* narrow it down.
screenshots: build chromium
	cd web && node bench/screenshots.mjs

clean:
	rm -rf bin dist web/dist/assets web/dist/index.html
