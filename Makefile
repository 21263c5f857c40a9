# `make test` is the whole test suite: it installs the pinned npm test
# servers, then runs vet, every Go test (with the race detector) and a short
# run of every fuzz target, and checks the release configuration. CI runs
# exactly this.
#
# The release check needs goreleaser, which the first run builds into ./bin
# (about 6.5 minutes and 1.6 GB of memory on two cores; seconds after that).
# It runs beside the tests at the lowest CPU priority, so that it takes only
# the time they leave idle, and is waited for before the fuzz targets run;
# its failure fails `make test`. So does cross-test, which links every
# package's tests for macOS and Windows on amd64 and arm64.

NPM_DIR := internal/testenv/npm
GORELEASER_VERSION := v2.15.1
GORELEASER := $(CURDIR)/bin/goreleaser-$(GORELEASER_VERSION)/goreleaser
RELEASE_LOG := $(CURDIR)/bin/release-check.log
CROSS_LOG := $(CURDIR)/bin/cross-test.log
FUZZTIME ?= 10s

.PHONY: test npm vet cross-test zsh unit wine fuzz build release-check release

test:
	@mkdir -p bin; \
	nice -n 19 $(MAKE) --no-print-directory release-check >$(RELEASE_LOG) 2>&1 & release=$$!; \
	nice -n 19 $(MAKE) --no-print-directory cross-test >$(CROSS_LOG) 2>&1 & cross=$$!; \
	status=0; $(MAKE) --no-print-directory npm vet zsh unit wine || status=$$?; \
	echo "waiting for release-check (goreleaser $(GORELEASER_VERSION))"; \
	if wait $$release; then cat $(RELEASE_LOG); else \
		cat $(RELEASE_LOG); echo "release-check failed: .goreleaser.yaml is invalid, or goreleaser did not build" >&2; status=1; \
	fi; \
	echo "waiting for cross-test"; \
	if wait $$cross; then grep -v -e '^ok' -e 'no test files' $(CROSS_LOG) || true; else \
		cat $(CROSS_LOG); echo "cross-test failed: a package's tests do not build for another release target" >&2; status=1; \
	fi; \
	[ $$status -eq 0 ] || exit $$status; \
	$(MAKE) --no-print-directory fuzz

npm:
	cd $(NPM_DIR) && npm ci --no-audit --no-fund --loglevel=error

# vet also type-checks every package, tests included, for each other
# release target: much of the multiplexer, privdir and the file locks has
# parts per system.
CROSS_TARGETS := windows/amd64 windows/arm64 darwin/amd64 darwin/arm64

vet:
	go vet ./...
	@set -e; for t in $(CROSS_TARGETS); do \
		echo "go vet ./... for $$t"; \
		GOOS=$${t%/*} GOARCH=$${t#*/} go vet ./...; \
	done

# Every package's tests built and linked for each other release target, as
# `go test` there would build them; -exec=true runs none of them (the
# Windows ones run under Wine: make wine).
cross-test:
	@set -e; for t in $(CROSS_TARGETS); do \
		echo "go test -exec=true ./... for $$t"; \
		GOOS=$${t%/*} GOARCH=$${t#*/} go test -exec=true -count=1 ./...; \
	done

# cmd/mcp's tests mostly wait on servers and subprocesses rather than
# compute, so they run 8 at a time even on two cores, after the other
# packages (whose fault tests time how fast a failure is noticed).
unit:
	go test -race -count=1 $$(go list ./... | grep -v '/cmd/mcp$$')
	go test -race -count=1 -parallel 8 ./cmd/mcp

# zsh, whose completion script cmd/mcp's TestTab_zsh drives: installed from
# Debian as root when missing (as CI runs); without it that test fails.
zsh:
	@command -v zsh >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
		{ echo "zsh: installing Debian's zsh"; DEBIAN_FRONTEND=noninteractive apt-get install -y -q zsh >/dev/null || \
		{ apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q zsh >/dev/null; }; }; } || \
		echo "zsh: not installed: TestTab_zsh will fail (Debian: apt-get install zsh)"

# The Windows tests of these packages, as Windows binaries under Wine
# (internal/testenv/wine/run.sh says what Wine lacks, and says so when
# Wine is not installed; .ci/run installs it).
WINE_PACKAGES := ./internal/privdir ./internal/winacl ./internal/safefile:Windows ./internal/filelock ./internal/procgroup ./internal/vt ./internal/session ./internal/winpipe ./internal/script './mux:Windows|TestMultiplexer_progress|TestMultiplexer_stopDuringCall|TestWatch' './mux/upstream:TestDirectCommand_shims|TestBinTarget' './cmd/mcp:TestWindowsScripts|TestWindowsGuestRefused'

wine:
	bash internal/testenv/wine/run.sh $(WINE_PACKAGES)

# Every fuzz target in the module, found afresh on each run (a Go fuzz
# target is func Fuzz*(*testing.F) in a _test.go file, tracked or not yet
# added), so a new one is never left out. Finding none means the search
# itself broke.
#
# Go 1.26's fuzzing coordinator can fail a run whose -fuzztime ends while a
# worker is busy, with a bare "context deadline exceeded" and no failing
# input (go.dev/issue/75804, fixed in Go 1.27). Such a run, and only such a
# run, is made again, at most twice; a failing input fails at once.
FUZZ_FUNC := ^func Fuzz([A-Z0-9_][A-Za-z0-9_]*)?\([A-Za-z_][A-Za-z0-9_]* \*testing\.F\)

fuzz:
	@set -e; \
	targets=$$(git grep --untracked -E '$(FUZZ_FUNC)' -- '*_test.go' \
		| sed -E 's|^([^:]*):func (Fuzz[A-Za-z0-9_]*)\(.*|\1:\2|'); \
	if [ -z "$$targets" ]; then echo "fuzz: no fuzz targets found" >&2; exit 1; fi; \
	log=$$(mktemp); trap 'rm -f "$$log"' EXIT; \
	for t in $$targets; do \
		pkg=./$$(dirname $${t%%:*}); name=$${t##*:}; \
		for try in 1 2 3; do \
			echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
			rc=0; go test -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) $$pkg >$$log 2>&1 || rc=$$?; \
			cat $$log; \
			[ $$rc -eq 0 ] && break; \
			if [ $$try -lt 3 ] && grep -qx '    context deadline exceeded' $$log && ! grep -q 'Failing input written' $$log; then \
				echo "fuzz: $$name: the coordinator's deadline race (go.dev/issue/75804), no failing input: running again"; \
				continue; \
			fi; \
			exit $$rc; \
		done; \
	done

# bin/mcp, where the README's Quickstart builds it (and .gitignore keeps it out).
build:
	CGO_ENABLED=0 go build -trimpath -o bin/mcp ./cmd/mcp

# goreleaser, pinned, in ./bin (one directory per version).
$(GORELEASER):
	GOBIN=$(dir $@) go install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)

release-check: $(GORELEASER)
	$(GORELEASER) check

# A release from a tag. Each credential that is absent is said before
# anything is built, with what the release lacks without it.
release: $(GORELEASER)
	@[ -n "$$MACOS_SIGN_P12" ] || echo "release: MACOS_SIGN_P12 is not set: the macOS binaries will be neither signed nor notarized"
	@[ -n "$$HOMEBREW_TAP_TOKEN" ] || echo "release: HOMEBREW_TAP_TOKEN is not set: the Homebrew cask is written to dist/ and not published"
	@[ -n "$$SCOOP_BUCKET_TOKEN" ] || echo "release: SCOOP_BUCKET_TOKEN is not set: the Scoop manifest is written to dist/ and not published"
	$(GORELEASER) release --clean
